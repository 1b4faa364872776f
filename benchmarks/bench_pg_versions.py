"""Versions in PostgreSQL against the home's own store, in the same run.

    .venv/bin/python benchmarks/bench_pg_versions.py [--chunks 20] [--versions 8] [--rounds 3]

A package of `--chunks` chunk files (50 records each) with a parted manifest (the blob store
tests' `store_packages`), then `--versions` - 1 versions each renaming one record (one chunk
and one piece change), are published through `VersionStore.publish` (the home) and through
`PgVersionStore.publish` (PostgreSQL, cached in another home), round after round, on a
throwaway PostgreSQL server (`tests/pg_server.py`). Printed: the median seconds (wall and
CPU of this process) of a first publish and of a +1 edit publish, `current()` (a call on an
unchanged store) and, for PostgreSQL, fetching the current version into a new home (a
second machine's first `current()`), with the ratios PostgreSQL / home.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from pg_server import PgServer  # noqa: E402
from store_packages import manifest, meta, package  # noqa: E402

from users.pg_versions import PgVersionStore, open_versions  # noqa: E402
from users.store import VersionStore  # noqa: E402


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def publish_all(store: VersionStore, user: str, chunks: int, versions: int) -> dict[str, list[tuple[float, float]]]:
    found: dict[str, list[tuple[float, float]]] = {"first publish": [], "edit publish": [], "current()": []}
    found["first publish"].append(timed(lambda: store.publish(user, package(chunks), meta(1),
                                                              manifest=manifest(chunks))))
    for n in range(2, versions + 1):
        edits = {n * 7 % (chunks * 50): f"Edited {n}"}
        found["edit publish"].append(timed(lambda: store.publish(user, package(chunks, edits), meta(n),
                                                                 manifest=manifest(chunks, edits))))
    for _ in range(50):
        found["current()"].append(timed(lambda: store.current(user)))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=20)
    parser.add_argument("--versions", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    server = PgServer.start()
    results: dict[str, dict[str, list[tuple[float, float]]]] = {"home": {}, "postgresql": {}}
    try:
        url = server.create_database("bench_pg_versions")
        with tempfile.TemporaryDirectory() as tmp:
            pg = open_versions(url, Path(tmp) / "pg-home")
            for r in range(args.rounds):
                user = f"user{r}"
                for name, store in (("home", VersionStore(Path(tmp) / f"home{r}")), ("postgresql", pg)):
                    for key, values in publish_all(store, user, args.chunks, args.versions).items():
                        results[name].setdefault(key, []).extend(values)
                other = PgVersionStore(Path(tmp) / f"other{r}", pg.pool)
                results["postgresql"].setdefault("fetch current (new home)", []).append(
                    timed(lambda: other.current(user)))
            pg.close()
    finally:
        server.destroy()
    print(f"{args.chunks} chunks x 50 records, {args.versions} versions, {args.rounds} rounds; median seconds")
    print(f"{'':28} {'home wall':>10} {'home cpu':>10} {'pg wall':>10} {'pg cpu':>10} {'ratio wall':>10}")
    for key in results["postgresql"]:
        pg_wall = statistics.median(w for w, _ in results["postgresql"][key])
        pg_cpu = statistics.median(c for _, c in results["postgresql"][key])
        local = results["home"].get(key)
        if local:
            wall = statistics.median(w for w, _ in local)
            cpu = statistics.median(c for _, c in local)
            print(f"{key:28} {wall:10.4f} {cpu:10.4f} {pg_wall:10.4f} {pg_cpu:10.4f} {pg_wall / wall:10.2f}")
        else:
            print(f"{key:28} {'':>10} {'':>10} {pg_wall:10.4f} {pg_cpu:10.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
