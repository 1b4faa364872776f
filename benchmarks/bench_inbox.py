"""What the inbox adds to an offline ingest, against `Memory.ingest_transcript` of the same
files in the same run (the baseline, which main's code has too).

For each of `--rounds` rounds, into fresh workspaces, alternating: (a) `ingest_transcript`
of each of `--files` small transcripts (the layer-1 transcripts of the shared data when
found, else a generated one per file), (b) the same files dropped in an inbox folder and
handled by `Memory.ingest_inbox` (claim → check → ingest → move to `.done/`), (c) the same
inbox handled again with every file dropped a second time (the content already ingested:
nothing stored). Also (d) the cost of one idle `InboxWatch.poll()` (nothing changed).
Prints medians of wall and CPU seconds and the ratios b/a and c/a.

Run: .venv/bin/python benchmarks/bench_inbox.py [--rounds 5] [--files 50]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "book_eval_layer1"

from runtime.memory import Memory  # noqa: E402


def sources(count: int, into: Path) -> list[Path]:
    found = sorted(DATA.glob("*.yaml"))[:count] if DATA.is_dir() else []
    files = []
    for n in range(count):
        path = into / f"t{n:04d}{found[n].suffix if n < len(found) else '.json'}"
        if n < len(found):
            shutil.copyfile(found[n], path)
        else:
            path.write_text(json.dumps({"sessions": [{"id": f"s{n}", "timestamp": "2024-11-15 10:30:00",
                                                      "messages": [{"role": "user", "content":
                                                                    f"My gym {n} costs ${n} a month."}]}]}))
        files.append(path)
    return files


def timed(run: object) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    run()  # type: ignore[operator]
    return time.perf_counter() - wall, time.process_time() - cpu


def one_round(files: list[Path], work: Path) -> dict[str, tuple[float, float]]:
    out: dict[str, tuple[float, float]] = {}
    mem = Memory.open(work / "a")
    out["a direct"] = timed(lambda: [mem.ingest_transcript("u", f) for f in files])
    mem.close()
    mem = Memory.open(work / "b")
    box = work / "box"
    (box / "u").mkdir(parents=True)
    for f in files:
        shutil.copyfile(f, box / "u" / f.name)
    out["b inbox"] = timed(lambda: mem.ingest_inbox(box))
    for f in files:
        shutil.copyfile(f, box / "u" / f.name)
    out["c inbox again"] = timed(lambda: mem.ingest_inbox(box))
    from runtime.inbox_watch import InboxWatch

    with mem.inbox(box) as inbox:
        watch = InboxWatch(inbox, lambda o: None)
        watch.poll()  # the first poll scans; later ones see nothing changed
        n = 10_000
        wall, cpu = timed(lambda: [watch.poll() for _ in range(n)])
        out["d idle poll (us)"] = (wall / n * 1e6, cpu / n * 1e6)
    mem.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--files", type=int, default=50)
    args = parser.parse_args()
    results: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        files = sources(args.files, src)
        for r in range(args.rounds):
            work = Path(tmp) / f"r{r}"
            work.mkdir()
            for name, value in one_round(files, work).items():
                results.setdefault(name, []).append(value)
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in results.items()}
    print(f"{args.files} files, {args.rounds} rounds; medians (wall s, CPU s)")
    for name, (wall, cpu) in med.items():
        print(f"  {name:18s} wall {wall:9.4f}  cpu {cpu:9.4f}")
    base = med["a direct"]
    for name in ("b inbox", "c inbox again"):
        print(f"  ratio {name} / direct: wall {med[name][0] / base[0]:.2f}  cpu {med[name][1] / base[1]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
