"""The versioned module store: atomic publish, history, rollback, isolation, bad input,
crash safety and concurrent publishers."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from factlog.errors import InputError, NotFound
from users.store import EPOCH_FILE, FORGET_LOCK, VersionStore
from users.versions import PublishMeta

REPO = Path(__file__).resolve().parents[1]


def package(destination: str, fact_id: int = 1) -> dict[str, str]:
    """A tiny package in the shape CONTRACTS.md describes."""
    trip = textwrap.dedent(f'''\
        """Trips. Generated; do not edit."""
        from __future__ import annotations

        from dataclasses import dataclass, field


        @dataclass(frozen=True, kw_only=True)
        class Trip:
            destination: str
            fact_ids: list[int] = field(default_factory=list)


        trips: list[Trip] = [Trip(destination={destination!r}, fact_ids=[{fact_id}])]
        ''')
    init = '"""Generated."""\nfrom .trip import Trip as Trip\nfrom .trip import trips as trips\n'
    return {"__init__.py": init, "trip.py": trip}


def meta(position: int = 1, producer: str = "compiler") -> PublishMeta:
    return PublishMeta(
        log_position=position,
        input_hash=f"sha256-{position}",
        producer=producer,
        timings={"parse": 0.01, "mypy": 0.5},
        record_counts={"trips": 1},
        entities={"trip:a": [1]},
        retractions={7: 9},
    )


@pytest.fixture
def versions(tmp_path: Path) -> VersionStore:
    return VersionStore(tmp_path / "users")


def visible_state(versions: VersionStore, user: str) -> tuple[int | None, list[int]]:
    current = versions.current(user)
    return (current.number if current else None), [v.number for v in versions.history(user)]


def test_publish_current_history_files_and_meta(versions: VersionStore) -> None:
    assert versions.current("alice") is None and versions.history("alice") == []
    first = versions.publish("alice", package("Oslo"), meta(1))
    second = versions.publish("alice", package("Rome"), meta(2, "llm:qwen2.5-7b"))
    assert (first.number, first.name, first.parent) == (1, "v000001", None)
    assert (second.number, second.parent) == (2, 1)
    assert versions.current("alice") == second
    assert [v.number for v in versions.history("alice")] == [1, 2]
    assert versions.files("alice", 1) == package("Oslo")
    assert versions.files("alice", "v000002") == package("Rome") == versions.files("alice", "v2")
    stored = json.loads((second.path / "meta.json").read_text())
    assert stored["producer"] == "llm:qwen2.5-7b" and stored["log_position"] == 2
    assert stored["timings"] == {"parse": 0.01, "mypy": 0.5}
    assert stored["retractions"] == {"7": 9} and stored["entities"] == {"trip:a": [1]}
    assert versions.get("alice", 2).meta == meta(2, "llm:qwen2.5-7b")
    assert [(e.action, e.version, e.previous) for e in versions.events("alice")] == [
        ("publish", 1, None), ("publish", 2, 1)]
    assert versions.users() == ["alice"]


def test_rollback_moves_pointer_and_next_publish_gets_fresh_number(versions: VersionStore) -> None:
    for place in ("Oslo", "Rome", "Paris"):
        versions.publish("alice", package(place), meta())
    assert versions.rollback("alice", 1).number == 1
    assert versions.current("alice").number == 1  # type: ignore[union-attr]
    assert versions.load("alice").trips[0].destination == "Oslo"
    fourth = versions.publish("alice", package("Lima"), meta())
    assert (fourth.number, fourth.parent) == (4, 1)
    assert [(e.action, e.version, e.previous) for e in versions.events("alice")][-2:] == [
        ("rollback", 1, 3), ("publish", 4, 1)]
    with pytest.raises(NotFound):
        versions.rollback("alice", 9)
    assert versions.current("alice").number == 4  # type: ignore[union-attr]


def test_publish_if_newer_never_moves_current_back_in_the_log(versions: VersionStore) -> None:
    versions.publish("alice", package("Lisbon"), meta(position=5))
    assert versions.publish_if_newer("alice", package("Oslo"), meta(position=4)) is None
    assert versions.publish_if_newer("alice", package("Oslo"), meta(position=5)) is None
    assert visible_state(versions, "alice") == (1, [1])
    newer = versions.publish_if_newer("alice", package("Rome"), meta(position=6))
    assert newer is not None and newer.number == 2


def test_two_users_with_the_same_class_names_load_in_isolation(versions: VersionStore) -> None:
    versions.publish("alice", package("Oslo", 1), meta())
    versions.publish("bob", package("Rome", 5), meta())
    versions.publish("alice", package("Lima", 2), meta())
    alice_1, alice_2, bob = versions.load("alice", 1), versions.load("alice"), versions.load("bob")
    assert alice_1.trips[0].destination == "Oslo"
    assert alice_2.trips[0].destination == "Lima"
    assert bob.trips[0].destination == "Rome" and bob.trips[0].fact_ids == [5]
    assert len({alice_1.__name__, alice_2.__name__, bob.__name__}) == 3
    assert alice_1.Trip is not bob.Trip
    assert sys.modules[bob.__name__] is bob
    for info in versions.history("alice") + versions.history("bob"):
        assert not (info.path / "__pycache__").exists()  # loading leaves versions untouched


@pytest.mark.parametrize("user", ["../x", "/etc", "", "a/b", "..", ".hidden", "x" * 65, "a\x00b"])
def test_bad_user_ids_are_refused_and_write_nothing(versions: VersionStore, user: str) -> None:
    calls: list[Callable[[], Any]] = [
        lambda: versions.publish(user, package("Oslo"), meta()),
        lambda: versions.current(user),
        lambda: versions.history(user),
        lambda: versions.get(user, 1),
        lambda: versions.rollback(user, 1),
        lambda: versions.load(user),
        lambda: versions.forget(user),
    ]
    for call in calls:
        with pytest.raises(InputError):
            call()
    assert not versions.root.exists()


def test_user_folder_symlinked_out_of_the_store_is_refused(versions: VersionStore, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    versions.root.mkdir()
    (versions.root / "mallory").symlink_to(outside)
    with pytest.raises(InputError, match="leave the store"):
        versions.publish("mallory", package("Oslo"), meta())
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("files", [
    {"__init__.py": "", "../a.py": "x = 1\n"},
    {"__init__.py": "", "a/b.py": "x = 1\n"},
    {"__init__.py": "", "x.sh": "rm -rf /\n"},
    {"__init__.py": "", "Trip.py": ""},
    {"__init__.py": "", "meta.json": "{}"},
    {"trip.py": "x = 1\n"},
    {},
    {"__init__.py": "\udcff"},
    {"__init__.py": 3},
])
def test_bad_files_are_refused_and_stored_data_stays(versions: VersionStore, files: dict[str, Any]) -> None:
    versions.publish("alice", package("Oslo"), meta())
    with pytest.raises(InputError):
        versions.publish("alice", files, meta())
    assert visible_state(versions, "alice") == (1, [1])
    assert versions.files("alice", 1) == package("Oslo")


@pytest.mark.parametrize("number", [0, -1, "abc", True, "../v000001", 1.0, None, "v1/../2"])
def test_bad_version_numbers(versions: VersionStore, number: Any) -> None:
    versions.publish("alice", package("Oslo"), meta())
    with pytest.raises(InputError):
        versions.get("alice", number)
    with pytest.raises(InputError):
        versions.rollback("alice", number)
    assert visible_state(versions, "alice") == (1, [1])


def test_unknown_versions_and_users(versions: VersionStore) -> None:
    with pytest.raises(NotFound):
        versions.get("nobody", 1)
    with pytest.raises(NotFound):
        versions.load("nobody")
    versions.publish("alice", package("Oslo"), meta())
    with pytest.raises(NotFound):
        versions.files("alice", 2)


@pytest.mark.parametrize("kwargs", [
    {"producer": "gpt-4"}, {"producer": "llm:"}, {"log_position": -1}, {"input_hash": "a b"},
    {"timings": {"mypy": float("nan")}}, {"record_counts": {"trips": -2}},
    {"entities": {"trip:a": [0]}}, {"retractions": {3: True}},
])
def test_bad_metadata_is_refused(kwargs: dict[str, Any]) -> None:
    base: dict[str, Any] = {"log_position": 1, "input_hash": "h", "producer": "compiler"}
    with pytest.raises(InputError):
        PublishMeta(**{**base, **kwargs})


def test_published_files_are_read_only(versions: VersionStore) -> None:
    info = versions.publish("alice", package("Oslo"), meta())
    assert not stat.S_IMODE(info.path.stat().st_mode) & 0o222
    for entry in info.path.iterdir():
        assert not stat.S_IMODE(entry.stat().st_mode) & 0o222, entry.name
    if os.geteuid() != 0:  # root ignores permission bits
        with pytest.raises(PermissionError):
            (info.path / "trip.py").write_text("x = 1\n")


def test_forget_removes_everything_of_one_user(versions: VersionStore) -> None:
    versions.publish("alice", package("Oslo"), meta())
    versions.publish("alice", package("Rome"), meta())
    versions.publish("bob", package("Lima"), meta())
    name = versions.load("alice").__name__
    assert versions.forget("alice") is True
    assert not (versions.root / "alice").exists()
    assert name not in sys.modules
    assert versions.users() == ["bob"] and versions.current("alice") is None
    left = {p.name for p in versions.root.iterdir()} - {EPOCH_FILE, FORGET_LOCK}  # store-wide, no names
    assert left == {"bob"}
    assert versions.forget("alice") is False
    assert versions.publish("alice", package("Kyiv"), meta()).number == 1


def test_forget_clears_what_a_crashed_forget_left(versions: VersionStore) -> None:
    versions.publish("alice", package("Oslo"), meta())
    leftover = versions.root / ".tmp-forget-0123"
    (leftover / "v000001").mkdir(parents=True)
    (leftover / "v000001" / "trip.py").write_text("secret")
    os.chmod(leftover / "v000001", 0o555)
    assert versions.users() == ["alice"]
    versions.forget("alice")
    assert {p.name for p in versions.root.iterdir()} <= {EPOCH_FILE, FORGET_LOCK}


def test_leftover_temp_dirs_are_ignored_then_cleaned(versions: VersionStore) -> None:
    versions.publish("alice", package("Oslo"), meta())
    junk = versions.root / "alice" / ".tmp-v000002-deadbeef"
    junk.mkdir()
    (junk / "__init__.py").write_text("half")
    os.chmod(junk, 0o555)
    assert visible_state(versions, "alice") == (1, [1])
    assert versions.publish("alice", package("Rome"), meta()).number == 2
    assert not junk.exists()


# -- crash injection -----------------------------------------------------------------------

STEPS = ("open", "write", "fsync", "mkdir", "chmod", "rename", "replace")


class Injected(OSError):
    pass


def count_steps(monkeypatch: pytest.MonkeyPatch, fail_at: int | None) -> list[str]:
    """Wrap the os calls a publish makes; the `fail_at`-th one raises."""
    seen: list[str] = []
    for name in STEPS:
        real = getattr(os, name)

        def wrapper(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            seen.append(_name)
            if fail_at is not None and len(seen) - 1 == fail_at:
                raise Injected(f"injected failure at {_name}")
            return _real(*args, **kwargs)

        monkeypatch.setattr(os, name, wrapper)
    return seen


def test_crash_at_every_publish_step_leaves_old_or_new(tmp_path: Path) -> None:
    probe = VersionStore(tmp_path / "probe")
    probe.publish("alice", package("Oslo"), meta())
    with pytest.MonkeyPatch.context() as mp:
        steps = count_steps(mp, None)
        probe.publish("alice", package("Rome"), meta())
    assert {"rename", "replace", "fsync"} <= set(steps)
    for index, step in enumerate(steps):
        versions = VersionStore(tmp_path / f"run{index}")
        versions.publish("alice", package("Oslo"), meta())
        with pytest.MonkeyPatch.context() as mp:
            count_steps(mp, index)
            try:
                versions.publish("alice", package("Rome"), meta())
            except Injected:
                pass
        current, numbers = visible_state(versions, "alice")
        assert current in (1, 2), (index, step)
        assert numbers in ([1], [1, 2]), (index, step)
        expected = {1: package("Oslo"), 2: package("Rome")}
        for number in numbers:  # every visible version is complete
            assert versions.files("alice", number) == expected[number], (index, step)
            versions.get("alice", number)
        assert versions.load("alice").trips[0].destination == ("Oslo" if current == 1 else "Rome")
        after = versions.publish("alice", package("Lima"), meta())
        assert after.number == numbers[-1] + 1 and versions.current("alice") == after
        leftovers = [p.name for p in (versions.root / "alice").iterdir() if p.name.startswith(".tmp")]
        assert leftovers == [], (index, step)


CRASH_SCRIPT = """
import os, sys
from pathlib import Path
from users.store import EPOCH_FILE, FORGET_LOCK, VersionStore
from users.versions import PublishMeta
step = sys.argv[2]
real = getattr(os, step)
def crash(*args, **kwargs):
    if step == "replace" or not str(args[1]).endswith("current"):
        os._exit(3)
    return real(*args, **kwargs)
setattr(os, step, crash)
files = {"__init__.py": "from .trip import trips as trips\\n", "trip.py": "trips: list[int] = []\\n"}
VersionStore(Path(sys.argv[1])).publish("alice", files, PublishMeta(2, "h", "compiler"))
"""


@pytest.mark.parametrize("step", ["rename", "replace"])
def test_real_process_crash_mid_publish(versions: VersionStore, step: str) -> None:
    versions.publish("alice", package("Oslo"), meta())
    done = subprocess.run([sys.executable, "-c", CRASH_SCRIPT, str(versions.root), step],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr
    leftovers = [p for p in (versions.root / "alice").iterdir() if p.name.startswith(".tmp")]
    assert leftovers  # the crash really left a half-done write behind
    current, numbers = visible_state(versions, "alice")
    assert current == 1
    assert numbers == ([1] if step == "rename" else [1, 2])
    assert versions.publish("alice", package("Rome"), meta()).number == numbers[-1] + 1
    assert not [p for p in (versions.root / "alice").iterdir() if p.name.startswith(".tmp")]


# -- concurrency ---------------------------------------------------------------------------

def test_concurrent_threads_get_distinct_numbers(versions: VersionStore) -> None:
    results: list[int] = []
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in range(3):
                results.append(versions.publish("alice", package(f"w{worker}-{i}"), meta()).number)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(results) == list(range(1, 19))
    assert [v.number for v in versions.history("alice")] == list(range(1, 19))
    assert len(versions.events("alice")) == 18


PUBLISH_SCRIPT = """
import sys
from pathlib import Path
from users.store import EPOCH_FILE, FORGET_LOCK, VersionStore
from users.versions import PublishMeta
store = VersionStore(Path(sys.argv[1]))
for i in range(4):
    files = {"__init__.py": f"x: int = {i}\\n"}
    print(store.publish("alice", files, PublishMeta(i, "h", "compiler")).number, flush=True)
"""


def test_concurrent_processes_get_distinct_numbers(versions: VersionStore) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", PUBLISH_SCRIPT, str(versions.root)], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    numbers = []
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        numbers += [int(line) for line in out.split()]
    assert sorted(numbers) == list(range(1, 13))
    assert [v.number for v in versions.history("alice")] == list(range(1, 13))


def test_forget_while_publishing_loses_nothing_it_reports(versions: VersionStore) -> None:
    """A publish that waited on the lock while `forget` ran lands in a fresh folder."""
    published: list[int] = []
    versions.publish("alice", package("Oslo"), meta())

    def work() -> None:
        for _ in range(5):
            published.append(versions.publish("alice", package("Rome"), meta()).number)

    thread = threading.Thread(target=work)
    thread.start()
    versions.forget("alice")
    thread.join()
    # Numbers restart at 1 in the fresh folder; every publish after the forget survives.
    restart = max((i for i, n in enumerate(published) if n == 1), default=len(published))
    assert [v.number for v in versions.history("alice")] == published[restart:]
    for number in published[restart:]:
        assert versions.files("alice", number) == package("Rome")
