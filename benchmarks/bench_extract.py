"""Offline extraction benchmark: ingesting 1,000 chat sessions (typed facts included).

    .venv/bin/python benchmarks/bench_extract.py [--sessions 1000] [--rounds 3] [--seed 7]

Writes the sessions (varied trip, document, money, schedule and small-talk turns, a
seeded mix) as JSON transcript files of 100 sessions each, then, per round:

- floor: read the same files, parse them into sessions and split every message into
  sentences (`factlog.sentences.split_sentences`), nothing else;
- extract: `factlog.ingest.sourced_transcript_facts` with `RuleExtractor` over every file
  (all turns), the facts built but not stored;
- ingest: `Memory.ingest_transcript` of every file into a fresh workspace (extraction,
  the door's checks, the SQLite appends).

Prints CPU and wall seconds per stage, their medians, the ratios to the same-run floor,
the facts and typed facts produced, and whether 1,000 sessions ingest within 10 s.
The first round also pays for cold caches (dateparser's relative phrases).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from factlog.extract import RuleExtractor
from factlog.ingest import sourced_transcript_facts
from factlog.sentences import split_sentences
from factlog.transcripts import parse_transcript, read_transcript_text
from runtime.memory import Memory

PER_FILE = 100
PLACES = ("Tokyo", "Paris", "Lisbon", "Chicago", "Mexico City", "Reykjavik", "Seoul", "Rome", "Denver", "Sydney")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October")
USER_TURNS = (
    "I booked a flight to {place} on {month} {day}, returning {month} {day2}.",
    "Thinking about a trip to {place} sometime in {month}, nothing booked yet.",
    "We're flying Delta to {place} next Friday at 9:40 AM and coming back on {month} {day2}.",
    "My passport expires on {month} {day}, 2027.",
    "I renewed my passport. New expiry is {month} {day}, 2035.",
    "My daughter's passport expires {month} {day}, 2026.",
    "Actually, it's the {day2}th.",
    "I bought a Bosch dishwasher on {month} {day}, 2025. It came with a 2-year warranty.",
    "My travel insurance covers {month} {day} to {month} {day2}.",
    "The electric bill is ${amount} and it's due on the {day}th.",
    "My Netflix subscription is $15.49 a month.",
    "I have a dentist appointment next Tuesday at 3pm with Dr. Patel.",
    "Can you remind me what my confirmation number was?",
    "We just got a new 4K TV for the living room, it was ${amount}.",
    "My sister lives in {place} and I might visit her in the fall.",
    "Honestly the weather has been terrible this week.",
)
ASSISTANT_TURNS = (
    "Sure, I can help with that.",
    "Your flight is confirmed. Your confirmation number is QX{day}B{day2}P.",
    "Got it, I've noted that down for you.",
    "Is there anything else you'd like to add?",
    "That sounds like a great plan. When would you like to leave?",
)


def make_sessions(count: int, seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    sessions: list[dict[str, object]] = []
    for n in range(count):
        messages = [{"role": "user", "content": "Hi there!"}]
        for _ in range(rng.randint(3, 6)):
            values = {"place": rng.choice(PLACES), "month": rng.choice(MONTHS), "day": rng.randint(1, 20),
                      "day2": rng.randint(21, 28), "amount": f"{rng.randint(20, 2000):,}"}
            messages.append({"role": "assistant", "content": rng.choice(ASSISTANT_TURNS).format(**values)})
            text = " ".join(rng.choice(USER_TURNS).format(**values) for _ in range(rng.randint(1, 2)))
            messages.append({"role": "user", "content": text})
        sessions.append({"session_id": f"s{n:05d}", "timestamp": f"2025-{1 + n % 12:02d}-{1 + n % 28:02d}T09:00:00",
                         "metadata": {"business": rng.choice(("Travel desk", "Delta Air Lines", "City Bank"))},
                         "messages": messages})
    return sessions


def write_files(directory: Path, sessions: list[dict[str, object]]) -> list[Path]:
    paths = []
    for start in range(0, len(sessions), PER_FILE):
        path = directory / f"sessions_{start // PER_FILE:03d}.json"
        path.write_text(json.dumps({"sessions": sessions[start:start + PER_FILE]}), encoding="utf-8")
        paths.append(path)
    return paths


def floor(paths: list[Path]) -> int:
    sentences = 0
    for path in paths:
        text, fmt = read_transcript_text(path)
        for session in parse_transcript(text, str(path), fmt):
            for message in session.messages:
                sentences += len(split_sentences(message.content))
    return sentences


def extract(paths: list[Path]) -> tuple[int, int]:
    facts = [fact for path in paths for fact, _ in sourced_transcript_facts(path, RuleExtractor(), user_only=False)]
    return len(facts), sum(1 for fact in facts if fact.kind is not None)


def ingest(paths: list[Path], home: Path) -> int:
    mem = Memory.open(home)
    try:
        return sum(len(mem.ingest_transcript("bench", path).facts) for path in paths)
    finally:
        mem.close()


def timed(work: Callable[[], object]) -> tuple[float, float, object]:
    cpu0, wall0 = time.process_time(), time.perf_counter()
    result = work()
    return time.process_time() - cpu0, time.perf_counter() - wall0, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rows: dict[str, list[tuple[float, float]]] = {"floor": [], "extract": [], "ingest": []}
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_files(Path(tmp), make_sessions(args.sessions, args.seed))
        for round_ in range(args.rounds):
            cpu, wall, sentences = timed(lambda: floor(paths))
            rows["floor"].append((cpu, wall))
            cpu_x, wall_x, counts = timed(lambda: extract(paths))
            rows["extract"].append((cpu_x, wall_x))
            home = Path(tmp) / f"home{round_}"
            cpu_i, wall_i, stored = timed(lambda: ingest(paths, home))
            rows["ingest"].append((cpu_i, wall_i))
            print(f"round {round_ + 1}: floor {cpu:.2f} s CPU ({sentences} sentences); extract {cpu_x:.2f} s CPU "
                  f"({counts}); ingest {cpu_i:.2f} s CPU / {wall_i:.2f} s wall ({stored} facts stored)")
    medians = {name: (statistics.median(c for c, _ in values), statistics.median(w for _, w in values))
               for name, values in rows.items()}
    print(f"\n{args.sessions} sessions, {args.rounds} rounds, medians:")
    for name, (cpu, wall) in medians.items():
        ratio = cpu / medians["floor"][0] if medians["floor"][0] else float("nan")
        print(f"  {name:8s} {cpu:6.2f} s CPU  {wall:6.2f} s wall  x{ratio:.1f} the floor (CPU)")
    print(f"ingest of {args.sessions} sessions within 10 s wall: {medians['ingest'][1] <= 10.0}")


if __name__ == "__main__":
    main()
