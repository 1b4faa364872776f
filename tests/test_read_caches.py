"""Reads without re-parsing: a version's metadata is parsed once per process while its
`meta.json` keeps its identity, another process's publish, rollback or forget is seen by
the next read, a tampered `meta.json` is refused even when its version was cached, and a
fresh process imports a version from the compiled code kept under `<home>/cache/bytecode`
(a corrupt entry is ignored and rewritten; forget erases the user's)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_tampered_version import TAMPERS
from uac_home import USER, clone_home

import codegen.loader
import users.folder_watch
import users.integrity
from codegen.loader import code_file
from runtime.memory import Memory
from runtime.safe_eval import QuerySuccess
from users.folder_watch import MAX_FOLDERS, WATCHED, FolderWatch
from users.integrity import IntegrityError
from users.versions import VersionInfo

SECRET = "Quixotrail4417"

# A fresh process: runs `len(trips)` (or the code given) and reports how its import went.
PROBE = """
import json, sys
from pathlib import Path
from codegen.loader import CODE_CACHE
from runtime.memory import Memory
mem = Memory.open(Path(sys.argv[1]), read_only=sys.argv[2] == "ro")
value = mem.query(sys.argv[3], "len(trips)").value
print(json.dumps({"value": value, "compiles": CODE_CACHE.compiles, "disk_hits": CODE_CACHE.disk_hits}))
mem.close()
"""


@pytest.fixture
def seeded(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    """A home whose compiled code is not kept yet (a checkpoint keeps the code it compiled:
    tests/test_checkpoint_cost.py), so the first reader compiles."""
    home = clone_home(tmp_path_factory, tmp_path / "h")
    shutil.rmtree(home / "cache" / "bytecode", ignore_errors=True)
    return home


def count_parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    real = VersionInfo.from_meta_json

    def counted(user: str, path: Path, data: object) -> VersionInfo:
        calls[0] += 1
        return real(user, path, data)

    monkeypatch.setattr(VersionInfo, "from_meta_json", staticmethod(counted))
    return calls


def probe(home: Path, user: str = USER, mode: str = "rw") -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", PROBE, str(home), mode, user],
                          capture_output=True, text=True, timeout=120, check=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def uac(home: Path, *args: str) -> str:
    """`uac` in another process."""
    done = subprocess.run([sys.executable, "-c", "from runtime.cli import main; main()", "--home", str(home), *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def trips(mem: Memory) -> object:
    result = mem.query(USER, "len(trips)")
    assert isinstance(result, QuerySuccess), result
    return result.value


def test_repeated_reads_parse_meta_json_once(seeded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parses = count_parses(monkeypatch)
    mem = Memory.open(seeded)
    try:
        for _ in range(5):
            assert trips(mem) == 3
        mem.alerts(USER)
        mem.recall(USER, "tokyo")
        mem.versions.history(USER)
        mem.versions.get(USER, 2)
        assert parses[0] == 2  # v2 once (query, alerts, recall, get), v1 once (history)
        assert mem.versions.loads == 1  # the worker kept serving the module imported once
        for _ in range(3):
            mem.versions.history(USER)
            assert trips(mem) == 3
        assert parses[0] == 2
    finally:
        mem.close()


def test_another_process_rollback_and_publish_are_seen_by_the_next_query(
        seeded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parses = count_parses(monkeypatch)
    mem = Memory.open(seeded)
    try:
        assert trips(mem) == 3
        uac(seeded, "rollback", USER, "1")
        assert trips(mem) == 2
        uac(seeded, "rollback", USER, "2")
        assert trips(mem) == 3
        assert parses[0] == 2  # v2 and v1 once each: moving the pointer back parses nothing
        uac(seeded, "add", USER, "Oslo trip", "--kind", "trip", "--key", "osl", "--field", "destination=Oslo")
        uac(seeded, "checkpoint", USER)
        assert trips(mem) == 4
        assert mem.versions.current(USER).number == 3  # type: ignore[union-attr]
        assert [v.number for v in mem.versions.history(USER)] == [1, 2, 3]
    finally:
        mem.close()


def test_another_process_forget_and_a_new_user_of_the_same_name_are_seen(seeded: Path) -> None:
    mem = Memory.open(seeded)
    try:
        assert trips(mem) == 3
        uac(seeded, "forget", USER, "--yes")
        assert mem.versions.current(USER) is None
        uac(seeded, "add", USER, "Oslo trip", "--kind", "trip", "--key", "osl", "--field", "destination=Oslo")
        uac(seeded, "checkpoint", USER)
        assert trips(mem) == 1  # the new user's v1, never the old user's cached v1 or v2
        assert mem.versions.get(USER, 1).meta.log_position == 1
    finally:
        mem.close()


def _writable(path: Path) -> Path:
    os.chmod(path.parent, 0o755)
    os.chmod(path, 0o644)
    return path


def wrong_file_hash(meta: Path) -> None:
    data = json.loads(meta.read_text())
    data["file_sha256"]["trip_000.py"] = "0" * 64
    _writable(meta).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def same_size_restored_mtime(meta: Path) -> None:
    before = meta.stat()
    text = meta.read_text()
    digest = json.loads(text)["file_sha256"]["trip_000.py"]
    _writable(meta).write_text(text.replace(digest, digest[::-1]))
    os.utime(meta, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = meta.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)


@pytest.mark.parametrize("tamper", [wrong_file_hash, same_size_restored_mtime], ids=lambda t: t.__name__)
def test_a_tampered_meta_json_is_refused_even_when_its_version_was_cached(seeded: Path, tamper: Any) -> None:
    mem = Memory.open(seeded)
    try:
        assert trips(mem) == 3
        tamper(seeded / "users" / USER / "v000002" / "meta.json")
        with pytest.raises(IntegrityError, match="trip_000.py changed since it was published"):
            mem.query(USER, "len(trips)")
        with pytest.raises(IntegrityError):
            mem.module(USER)
    finally:
        mem.close()


def test_an_unreadable_meta_json_is_refused_even_when_cached(seeded: Path) -> None:
    mem = Memory.open(seeded)
    try:
        assert trips(mem) == 3
        _writable(seeded / "users" / USER / "v000002" / "meta.json").write_text("{not json")
        with pytest.raises(Exception, match="cannot read .*meta.json"):
            mem.query(USER, "len(trips)")
    finally:
        mem.close()


def test_a_second_process_imports_from_the_kept_bytecode(seeded: Path) -> None:
    first = probe(seeded)
    assert first["value"] == 3 and first["compiles"] > 0 and first["disk_hits"] == 0
    second = probe(seeded)
    assert second == {"value": 3, "compiles": 0, "disk_hits": first["compiles"]}
    assert probe(seeded, mode="ro") == second  # read-only commands read it too


def test_a_read_only_open_never_creates_the_cache_folder(seeded: Path) -> None:
    cache = seeded / "cache"
    if cache.exists():
        import shutil
        shutil.rmtree(cache)
    assert probe(seeded, mode="ro")["value"] == 3
    assert not cache.exists()


def _entries(home: Path) -> list[Path]:
    return sorted((home / "cache" / "bytecode").glob("*/*.code"))


@pytest.mark.parametrize("damage", ["truncate", "flip", "swap", "empty", "garbage"])
def test_a_corrupt_bytecode_entry_is_ignored_and_rewritten(seeded: Path, damage: str) -> None:
    compiled = probe(seeded)["compiles"]
    entries = _entries(seeded)
    assert len(entries) == compiled
    victim, other = entries[0], entries[1]
    data = victim.read_bytes()
    if damage == "truncate":
        victim.write_bytes(data[:-7])
    elif damage == "flip":
        victim.write_bytes(data[:-3] + bytes([data[-3] ^ 0x55]) + data[-2:])
    elif damage == "swap":  # valid code, but of another source
        victim.write_bytes(other.read_bytes())
    elif damage == "empty":
        victim.write_bytes(b"")
    else:
        victim.write_bytes(os.urandom(len(data)))
    again = probe(seeded)
    assert again == {"value": 3, "compiles": 1, "disk_hits": compiled - 1}
    assert victim.read_bytes() == data  # rewritten
    assert probe(seeded)["compiles"] == 0


def test_an_entry_of_another_interpreter_is_not_read(seeded: Path) -> None:
    """The running interpreter's bytecode magic number is in an entry's name and header."""
    compiled = probe(seeded)["compiles"]
    entry = _entries(seeded)[0]
    key = entry.name.split("-", 1)[0]
    assert code_file(entry.parent, key) == entry and importlib.util.MAGIC_NUMBER.hex() in entry.name
    data = entry.read_bytes()
    magic = data.index(importlib.util.MAGIC_NUMBER)
    entry.write_bytes(data[:magic] + b"\x00\x0d\x0d\x0a" + data[magic + 4:])
    assert codegen.loader._read_code(entry.parent, key) is None
    assert probe(seeded) == {"value": 3, "compiles": 1, "disk_hits": compiled - 1}
    assert entry.read_bytes() == data


def test_forget_drops_the_cached_version_and_the_users_bytecode(tmp_path: Path) -> None:
    home = tmp_path / "home"
    mem = Memory.open(home)
    mem.add(USER, "Trip", kind="trip", key="T1", fields={"destination": f"{SECRET} Bay"})
    mem.add("bob", "Trip", kind="trip", key="T1", fields={"destination": "Paris"})
    mem.checkpoint(USER)
    mem.checkpoint("bob")
    assert probe(home)["value"] == 1 and probe(home, "bob")["value"] == 1  # fresh processes keep bytecode
    assert any(SECRET.encode() in p.read_bytes() for p in (home / "cache" / "bytecode").rglob("*.code"))
    assert trips(mem) == 1
    assert any(key.startswith(str(home / "users" / USER)) for key in mem.versions._infos)
    mem.forget(USER)
    assert not any(key.startswith(str(home / "users" / USER)) for key in mem.versions._infos)
    mem.close()
    leftovers = [p for p in home.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert leftovers == []
    bob = probe(home, "bob")
    assert bob["value"] == 1 and bob["compiles"] == 0 and bob["disk_hits"] > 0  # bob's code stays


# -- the integrity check without reading every entry -----------------------------------------


def count_scans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    real = users.integrity._identity

    def counted(path: Path) -> Any:
        calls[0] += 1
        return real(path)

    monkeypatch.setattr(users.integrity, "_identity", counted)
    return calls


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")
def test_repeated_queries_do_not_stat_every_file_of_the_version(seeded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scans = count_scans(monkeypatch)
    mem = Memory.open(seeded)
    try:
        assert trips(mem) == 3
        first = scans[0]
        for _ in range(5):
            assert trips(mem) == 3
        mem.module(USER)
        assert scans[0] == first  # the watch answered: no entry read again
    finally:
        mem.close()


@pytest.mark.parametrize("tamper", TAMPERS, ids=lambda t: t.__name__)
@pytest.mark.parametrize("watching", [True, False], ids=["watched", "scanned"])
def test_a_module_held_by_a_worker_is_refused_after_any_tamper(seeded: Path, monkeypatch: pytest.MonkeyPatch,
                                                               tamper: Any, watching: bool) -> None:
    if not watching:  # no inotify (another system, no instance left): the stat scan decides
        monkeypatch.setattr(WATCHED, "unchanged", lambda folder: False)
    mem = Memory.open(seeded)
    try:
        for _ in range(3):
            assert trips(mem) == 3
        problem = tamper(seeded / "users" / USER / "v000002")
        with pytest.raises(IntegrityError, match=problem):
            mem.query(USER, "len(trips)")
    finally:
        mem.close()


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "v000001"
    folder.mkdir()
    for name in ("__init__.py", "trip.py"):
        (folder / name).write_text("x = 1\n")
    return folder


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")
@pytest.mark.parametrize("change", ["write", "append_via_hard_link", "utime", "chmod", "create", "delete",
                                    "rename_inside", "replace_folder"])
def test_the_folder_watch_sees_every_kind_of_change(tmp_path: Path, change: str) -> None:
    watch = FolderWatch()
    folder = _folder(tmp_path)
    watch.arm(folder)
    assert watch.unchanged(folder) and watch.unchanged(folder)
    target = folder / "trip.py"
    if change == "write":
        target.write_text("x = 2\n")
    elif change == "append_via_hard_link":  # a blob shared with another folder, written there
        os.link(target, tmp_path / "blob")
        with open(tmp_path / "blob", "a") as handle:
            handle.write("y = 3\n")
    elif change == "utime":
        os.utime(target, ns=(1, 1))
    elif change == "chmod":
        os.chmod(target, 0o400)
    elif change == "create":
        (folder / "evil.py").write_text("")
    elif change == "delete":
        target.unlink()
    elif change == "rename_inside":
        target.rename(folder / "other.py")
    else:  # another folder now at the same path
        folder.rename(tmp_path / "old")
        _folder(tmp_path)
    assert not watch.unchanged(folder)
    watch.arm(folder)
    assert watch.unchanged(folder)


def test_the_folder_watch_answers_changed_when_unsure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _folder(tmp_path)
    watch = FolderWatch()
    assert not watch.unchanged(folder)  # never armed
    broken = FolderWatch()
    monkeypatch.setattr(broken, "_broken", True)
    broken.arm(folder)
    assert not broken.unchanged(folder)  # no inotify here
    if not sys.platform.startswith("linux"):
        return
    watch.arm(folder)
    assert watch.unchanged(folder)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # a forked copy must not read (steal) the parent's queue
        os.close(read)
        os.write(write, b"1" if not watch.unchanged(folder) else b"0")
        os._exit(0)
    os.close(write)
    assert os.read(read, 1) == b"1"
    os.close(read)
    os.waitpid(pid, 0)
    assert watch.unchanged(folder)
    for extra in range(MAX_FOLDERS):  # the least recently armed folder is dropped
        other = tmp_path / f"f{extra}"
        other.mkdir()
        watch.arm(other)
    assert not watch.unchanged(folder)
    monkeypatch.setattr(users.folder_watch, "MAX_WATCHES", 2)  # too many entries to watch
    watch.arm(folder)
    assert not watch.unchanged(folder)
