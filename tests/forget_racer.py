"""A separate process that runs one command per line of stdin against a workspace, for the
forget race test: `python forget_racer.py HOME`; prints "ready", then one line per command.

    add USER TAG N       append N trips "TAG city i" (structured, keyed)
    checkpoint USER      checkpoint, then run the constraints (records the alert state)
    recall USER          sync the recall index and search it
    forget USER          erase the user
    forget_add USER TAG N   erase the user, then append N new trips under the same name
"""

from __future__ import annotations

import sys

from factlog.errors import InputError, NotFound
from runtime.memory import Memory


def add(mem: Memory, user: str, tag: str, count: int) -> None:
    for n in range(count):
        mem.add(user, f"{tag} trip {n}", kind="trip", key=f"{tag}-{n}",
                fields={"destination": f"{tag} city {n}", "cost_usd": float(n),
                        "departure_date": f"2031-0{1 + n % 9}-10", "return_date": f"2031-0{1 + n % 9}-12"})


def run(mem: Memory, words: list[str]) -> str:
    op, user = words[0], words[1]
    if op == "add":
        add(mem, user, words[2], int(words[3]))
        return "added"
    if op == "checkpoint":
        return type(mem.checkpoint_and_alert(user).result).__name__
    if op == "recall":
        return f"recalled {len(mem.recall(user, 'city').items)}"
    if op == "forget":
        return f"forgot {mem.forget(user)}"
    if op == "forget_add":
        gone = mem.forget(user)
        add(mem, user, words[2], int(words[3]))
        return f"forgot {gone}, added"
    raise SystemExit(f"unknown command {op!r}")


def main() -> None:
    mem = Memory.open(sys.argv[1])
    mem.forgetting  # makes every service (Memory makes them on first use) before the race starts
    print("ready", flush=True)
    for line in sys.stdin:
        try:
            print(run(mem, line.split()), flush=True)
        except (InputError, NotFound) as exc:  # e.g. alerts of a user forgotten meanwhile
            print(f"refused: {exc}", flush=True)
    mem.close()


if __name__ == "__main__":
    main()
