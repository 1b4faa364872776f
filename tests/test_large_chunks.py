"""Many large facts never block a checkpoint: a chunk whose records are too large together
for one file (the safety stage refuses files over 8 MiB) is split in halves.

Before: 140 notes of 64,000 characters, each accepted at the door, made `notes_000.py`
about 9 MB, and every checkpoint of the user failed at the safety stage."""

from __future__ import annotations

from pathlib import Path

from codegen.compile import MAX_CHUNK_BYTES
from factlog.limits import MAX_FILE_BYTES
from runtime.memory import Memory
from users.checkpoint import Published

WORDS = ("lorem ipsum dolor sit amet " * 2400)[:64_000]


def test_many_long_notes_are_split_across_files_and_all_reach_the_module(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "home")
    try:
        for i in range(140):
            mem.add("u", f"note {i}: {WORDS}")
        result = mem.checkpoint("u")
        assert isinstance(result, Published), result
        files = mem.versions.files("u", result.version.number)
        chunks = sorted(name for name in files if name.startswith("notes_000"))
        assert len(chunks) > 1 and "notes_000.py" not in chunks, chunks
        assert all(len(files[name].encode()) <= MAX_CHUNK_BYTES for name in chunks)
        assert sum(len(files[name].encode()) for name in chunks) > MAX_FILE_BYTES  # one file could not hold them
        assert mem.query("u", "len(notes)").value == 140
        assert mem.query("u", "sorted(int(n.text.split(':')[0][5:]) for n in notes)").value == list(range(140))
    finally:
        mem.close()
