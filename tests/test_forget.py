"""`forget` erases a user everywhere: log, versions, caches, recall index — no text left behind."""

from __future__ import annotations

from pathlib import Path

from runtime.memory import Memory
from users.checkpoint import Published

SECRET = "Quixotrail4417"


def test_forget_leaves_no_trace_of_the_user_in_any_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    mem = Memory.open(home)
    mem.add("alice", f"My childhood nickname was {SECRET}.")
    mem.add("alice", "Trip", kind="trip", key="T1", fields={"destination": f"{SECRET} Bay"})
    mem.add("bob", "Bob likes tea.")
    assert isinstance(mem.checkpoint_and_alert("alice").result, Published)
    assert mem.recall("alice", f"nickname {SECRET}").items
    assert any(SECRET.encode() in p.read_bytes() for p in home.rglob("*") if p.is_file())

    assert mem.forget("alice") == 2
    mem.close()
    leftovers = [p for p in home.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert leftovers == []
    assert not (home / "users" / "alice").exists()
    again = Memory.open(home)
    assert again.users() == ["bob"] and again.verify().ok

