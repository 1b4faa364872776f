"""A separate process that appends facts one at a time and prints each acknowledged id.

`python appender.py LOCATION USER COUNT TAG [GO_FILE]` (COUNT 0 = forever): LOCATION is what
`factlog.stores.open_store` takes, so the same child runs against every store. With GO_FILE,
it waits for that file to exist before the first append, so several processes start together.
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

from factlog.model import NewFact
from factlog.stores import open_store


def main() -> None:
    location, user, count, tag = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    store = open_store(location)
    print("ready", flush=True)
    if len(sys.argv) > 5:
        while not Path(sys.argv[5]).exists():
            time.sleep(0.005)
    numbers = range(count) if count else itertools.count()
    for n in numbers:
        fact = store.append(user, [NewFact(f"{tag} fact {n}", kind="note", fields={"n": n, "tag": tag})])[0]
        print(fact.id, flush=True)
        if len(sys.argv) > 5:
            time.sleep(0.001)  # let the others take the write lock: the appends interleave


if __name__ == "__main__":
    main()
