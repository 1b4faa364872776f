"""A writer process for the store fault tests and the writers benchmark: appends COUNT facts one
at a time, fact n to user USERS[n % len(USERS)], and prints `user id time` for each
acknowledged append (`time.time()` when it returned).

    python tests/store_writer.py LOCATION TAG COUNT USER[,USER...] GO_FILE

LOCATION is what `factlog.stores.open_store` takes (a PostgreSQL URL or a SQLite file).
It opens the store, prints `ready`, and waits for GO_FILE before the first append. An append
that cannot be completed ends the process with exit 3 and the error on stderr.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from factlog.errors import UacError
from factlog.model import NewFact
from factlog.stores import open_store


def main() -> int:
    url, tag, count, users, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(","), Path(sys.argv[5])
    store = open_store(url)
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.005)
    try:
        for n in range(count):
            user = users[n % len(users)]
            fact = store.append(user, [NewFact(f"{tag} fact {n}", kind="note", fields={"n": n, "tag": tag})])[0]
            print(user, fact.id, time.time(), flush=True)
    except UacError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 3
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
