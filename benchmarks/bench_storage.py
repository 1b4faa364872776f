"""Disk written per version: a full version, then +10 facts on top, at 10,000 / 100,000 facts.

    .venv/bin/python benchmarks/bench_storage.py [--sizes 10000 100000] [--runs 3]

Facts arrive interleaved across kinds (trips, hotels, flights, notes), with updates of
earlier entities and retractions, as `uac add` produces them over time. The package is
compiled (`codegen.compile.compile_package`), imported and walked into its manifest (with
parts, one per chunk list, where the manifest model has them), and published through
`VersionStore.publish` directly: no validation, so only storage is measured.

"Bytes written" by a publish are the sizes of the inodes that appeared in the user's
folder (a file hard-linked from an older version costs nothing), split into package files,
manifest (`manifest.json` and the blobs of its tree, which only `.blobs/` holds) and
`meta.json`. The baseline is the first (full) version of the same run.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shutil
import statistics
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
    totals = {"files": 0, "manifest": 0, "meta": 0, "other": 0}
    for ino, (size, what) in after.items():
        if ino not in before:
            totals[what] += size
    totals["total"] = sum(totals.values())
    return totals


def one_size(size: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = VersionStore(root / "users")
        facts = interleaved(1, size)
        files, manifest, meta, _ = build(facts, root)
        before = inodes(store.root) if store.root.exists() else {}
        store.publish(USER, files, meta, manifest=manifest)
        full = written(before, inodes(store.root / USER))
        increments = []
        for _ in range(runs):
            facts += interleaved(len(facts) + 1, 10)
            files, manifest, meta, _ = build(facts, root)
            before = inodes(store.root / USER)
            started = time.perf_counter()
            store.publish(USER, files, meta, manifest=manifest)
            publish = time.perf_counter() - started
            increments.append({**written(before, inodes(store.root / USER)), "seconds": publish})
        median = {k: statistics.median(r[k] for r in increments) for k in increments[0]}
        print(f"{size:>7} facts  full version: {full['total'] / 1e6:8.2f} MB  (files {full['files'] / 1e6:.2f} MB, "
              f"manifest {full['manifest'] / 1e6:.2f} MB, meta {full['meta'] / 1e3:.1f} kB, {len(files)} files)")
        print(f"{'':>7}  +10 facts:    {median['total'] / 1e3:8.1f} kB  (files {median['files'] / 1e3:.1f} kB, "
              f"manifest {median['manifest'] / 1e3:.1f} kB, meta {median['meta'] / 1e3:.1f} kB, other "
              f"{median['other'] / 1e3:.1f} kB); {100 * median['total'] / full['total']:.2f} % of the full version; "
              f"publish {median['seconds'] * 1000:.0f} ms (median of {runs})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for size in args.sizes:
        one_size(size, args.runs)


if __name__ == "__main__":
    main()
