"""A separate process that appends facts and checkpoints, for the concurrency test:
`python checkpointer.py HOME USER TAG ROUNDS GO_FILE`; prints one outcome per round."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from runtime.memory import Memory


def main() -> None:
    home, user, tag, rounds, go = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), Path(sys.argv[5])
    mem = Memory.open(home)
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.005)
    for n in range(rounds):
        mem.add(user, f"{tag} trip {n}", kind="trip", key=f"{tag}-{n}",
                fields={"destination": f"{tag} city {n}", "cost_usd": float(n)})
        print(type(mem.checkpoint(user)).__name__, flush=True)
    mem.close()


if __name__ == "__main__":
    main()
