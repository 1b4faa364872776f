"""Disk written and time taken per version: a full version, then +10 facts on top, at
10,000 / 100,000 facts; paired against another checkout's code with `--baseline`.

    .venv/bin/python benchmarks/bench_storage.py [--sizes 10000 100000] [--runs 3]
        [--rounds 3] [--baseline DIR]

Facts arrive interleaved across kinds (trips, hotels, flights, notes), with updates of
earlier entities and retractions, as `uac add` produces them over time. The package is
compiled (`codegen.compile.compile_package`), imported and walked into its manifest (with
parts, one per chunk list, where the manifest model has them); the full version and
`--runs` +10 versions are kept (pickled) and published into a fresh store by a fresh
process (`--replay`) through `VersionStore.publish` directly: no validation, so only
storage is measured. Each of `--rounds` rounds replays them with this checkout's code and,
with `--baseline DIR` (another checkout, e.g. `git worktree add DIR main`), with that
code, one after the other; medians and ratios of the same run are printed.

"Bytes written" by a publish are the sizes of the inodes that appeared in the user's
folder (a file hard-linked from an older version costs nothing) plus the growth of files
that were there (the piece store, `pieces.sqlite`), split into package files, manifest
(`manifest.json` and the blobs of its tree: rows of the piece store, or files of
`.blobs/` that no version links) and `meta.json`. The baseline of the ratio is the first
(full) version of the same run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pickle
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fact_helpers import make_fact  # noqa: E402

from codegen.compile import compile_package  # noqa: E402
from codegen.loader import load_package, unload_package  # noqa: E402
from codegen.manifest import CollectionInfo, Manifest, build_manifest, identity_from_facts  # noqa: E402
from factlog.model import Fact, JsonValue  # noqa: E402
from users.store import VersionStore  # noqa: E402
from users.versions import PublishMeta  # noqa: E402

USER = "bench"
CITIES = ["Paris", "Rome", "Tokyo", "Lima", "Oslo", "Cairo", "Quebec", "Zürich", "Accra", "Hanoi"]


def interleaved(start: int, count: int) -> list[Fact]:
    """Facts `start` .. `start + count - 1`, kinds interleaved as they arrive over time."""
    facts = []
    for i in range(start, start + count):
        if i % 97 == 0 and i > 100:
            facts.append(make_fact(i, f"Retracts fact {i - 50}", retracts=i - 50, user=USER))
        elif i % 10 == 9:
            facts.append(make_fact(i, f"Note {i}: call Sam about the plans for week {i % 52}", user=USER))
        elif i % 20 == 7 and i > 40:
            facts.append(make_fact(i, "cost corrected", kind="trip", key=f"t{i - 40}",
                                   fields={"cost_usd": i * 1.5}, user=USER))
        else:
            kind = ("trip", "hotel", "flight")[i % 3]
            fields: dict[str, JsonValue] = {
                "city": CITIES[i % len(CITIES)], "date": f"{2020 + i % 6}-{i % 12 + 1:02d}-{i % 28 + 1:02d}",
                "cost_usd": float(i % 900), "confirmed": i % 2 == 0, "reference": f"R{i:07d}",
            }
            facts.append(make_fact(i, f"{kind} {i}", kind=kind, key=f"{kind[0]}{i}", fields=fields, user=USER))
    return facts


def with_parts(manifest: Manifest, module: ModuleType, init: str) -> Manifest:
    """The manifest with each collection's parts (records per chunk list), if the model has them."""
    if "parts" not in {f.name for f in dataclasses.fields(CollectionInfo)}:
        return manifest
    collections = {}
    for name, info in manifest.collections.items():
        match = re.search(rf"^{re.escape(name)}: list\[\w+\] = \[(.*)\]$", init, re.MULTILINE)
        chunks = re.findall(r"\*(\w+)", match.group(1)) if match else []
        parts = [len(getattr(module, chunk)) for chunk in chunks]
        collections[name] = info.model_copy(update={"parts": parts if len(parts) > 1 else []})
    return manifest.model_copy(update={"collections": collections})


def build(facts: list[Fact], scratch: Path) -> tuple[dict[str, str], Manifest, PublishMeta, float]:
    started = time.perf_counter()
    package = compile_package(USER, facts)
    compile_seconds = time.perf_counter() - started
    folder = scratch / f"pkg{len(facts)}"
    folder.mkdir()
    for name, text in package.files.items():
        (folder / name).write_text(text, encoding="utf-8")
    module = load_package(folder, f"_bench_storage_{len(facts)}")
    by_id = {f.id: f for f in facts}
    manifest = build_manifest(vars(module), identity=identity_from_facts(by_id), quarantined=package.quarantined)
    manifest = with_parts(manifest, module, package.files["__init__.py"])
    unload_package(module.__name__)
    shutil.rmtree(folder)
    meta = PublishMeta(log_position=package.log_position, input_hash="sha256:" + package.input_hash[:60],
                       producer="compiler", retractions={f.retracts: f.id for f in facts if f.retracts})
    return package.files, manifest, meta, compile_seconds


def inodes(folder: Path) -> dict[int, tuple[int, str]]:
    """Inode -> (size, what it is), the version folders walked before the blob store."""
    found: dict[int, tuple[int, str]] = {}
    entries = sorted(os.scandir(folder), key=lambda e: e.name.startswith("."))
    for entry in entries:
        if entry.is_file(follow_symlinks=False):
            st = entry.stat(follow_symlinks=False)
            found.setdefault(st.st_ino, (st.st_size, "manifest" if entry.name.startswith("pieces.sqlite")
                                         else "other"))
        if not entry.is_dir(follow_symlinks=False):
            continue
        for dirpath, _dirs, names in os.walk(entry.path):
            for name in names:
                st = os.lstat(os.path.join(dirpath, name))
                what = "meta" if name == "meta.json" else "manifest" if name.startswith("manifest") \
                    else "files" if name.endswith(".py") else "manifest" if entry.name == ".blobs" else "other"
                found.setdefault(st.st_ino, (st.st_size, what))
    return found


def written(before: dict[int, tuple[int, str]], after: dict[int, tuple[int, str]]) -> dict[str, int]:
    """New inodes, and the growth of those that were there."""
    totals = {"files": 0, "manifest": 0, "meta": 0, "other": 0}
    for ino, (size, what) in after.items():
        grown = size - before.get(ino, (0, what))[0]
        if grown > 0:
            totals[what] += grown
    totals["total"] = sum(totals.values())
    return totals


Version = tuple[dict[str, str], Manifest, PublishMeta]


def versions(size: int, runs: int, scratch: Path) -> list[Version]:
    """The full version of `size` facts, then `runs` versions of 10 more facts each."""
    facts = interleaved(1, size)
    files, manifest, meta, _ = build(facts, scratch)
    made = [(files, manifest, meta)]
    for _ in range(runs):
        facts += interleaved(len(facts) + 1, 10)
        files, manifest, meta, _ = build(facts, scratch)
        made.append((files, manifest, meta))
    return made


def replay(path: Path) -> None:
    """Publish the pickled versions into a fresh store (after a small one, so every module a
    publish uses is loaded); print each publish's wall and CPU seconds and bytes as JSON."""
    with open(path, "rb") as handle:
        made: list[Version] = pickle.load(handle)
    with tempfile.TemporaryDirectory() as tmp:
        store = VersionStore(Path(tmp) / "users")
        small, manifest, meta = made[-1]
        store.publish("warmup", {"__init__.py": "x = 1\n"}, meta)
        out = []
        for files, manifest, meta in made:
            before = inodes(store.root / USER) if (store.root / USER).exists() else {}
            wall, cpu = time.perf_counter(), time.process_time()
            store.publish(USER, files, meta, manifest=manifest)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            out.append({**written(before, inodes(store.root / USER)), "seconds": wall, "cpu": cpu})
    print(json.dumps(out))


def one_size(size: int, runs: int, rounds: int, baseline: Path | None) -> None:
    sides = {"this": Path(__file__).resolve().parent.parent, **({"baseline": baseline} if baseline else {})}
    found: dict[str, list[list[dict[str, float]]]] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        made = versions(size, runs, root)
        path = root / "versions.pickle"
        with open(path, "wb") as handle:
            pickle.dump(made, handle, protocol=pickle.HIGHEST_PROTOCOL)
        for _ in range(rounds):
            for side, tree in sides.items():
                env = {**os.environ, "PYTHONPATH": str(tree)}
                done = subprocess.run([sys.executable, __file__, "--replay", str(path)], env=env,
                                      capture_output=True, text=True, check=True)
                found[side].append(json.loads(done.stdout.splitlines()[-1]))
    files = len(made[0][0])
    medians: dict[str, dict[str, float]] = {}
    for side, results in found.items():
        full = {k: statistics.median(r[0][k] for r in results) for k in results[0][0]}
        inc = {k: statistics.median(v[k] for r in results for v in r[1:]) for k in results[0][0]}
        medians[side] = {"full_s": full["seconds"], "full_cpu": full["cpu"], "inc_s": inc["seconds"],
                         "inc_cpu": inc["cpu"]}
        print(f"{size:>7} facts  [{side}] full version: {full['total'] / 1e6:8.2f} MB  (files "
              f"{full['files'] / 1e6:.2f} MB, manifest {full['manifest'] / 1e6:.2f} MB, meta "
              f"{full['meta'] / 1e3:.1f} kB, {files} files); publish {full['seconds']:.2f} s "
              f"(CPU {full['cpu']:.2f} s)")
        print(f"{'':>7}  [{side}] +10 facts:    {inc['total'] / 1e3:8.1f} kB  (files {inc['files'] / 1e3:.1f} kB, "
              f"manifest {inc['manifest'] / 1e3:.1f} kB, meta {inc['meta'] / 1e3:.1f} kB, other "
              f"{inc['other'] / 1e3:.1f} kB); {100 * inc['total'] / full['total']:.2f} % of the full version; "
              f"publish {inc['seconds'] * 1000:.0f} ms (CPU {inc['cpu'] * 1000:.0f} ms); medians of {rounds} "
              f"round(s) x {runs} +10")
    if baseline is not None:
        this, base = medians["this"], medians["baseline"]
        print(f"{'':>7}  this / baseline: full publish {this['full_s'] / base['full_s']:.2f} "
              f"(CPU {this['full_cpu'] / base['full_cpu']:.2f}), +10 publish {this['inc_s'] / base['inc_s']:.2f} "
              f"(CPU {this['inc_cpu'] / base['inc_cpu']:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=3, help="+10 versions after the full one")
    parser.add_argument("--rounds", type=int, default=3, help="replays of the versions per side")
    parser.add_argument("--baseline", type=Path, help="another checkout whose code publishes the same versions")
    parser.add_argument("--replay", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.replay is not None:
        replay(args.replay)
        return
    for size in args.sizes:
        one_size(size, args.runs, args.rounds, args.baseline)


if __name__ == "__main__":
    main()
