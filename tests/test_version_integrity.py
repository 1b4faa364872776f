"""`uac verify` re-hashes stored versions too: an edited version file is named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from runtime.memory import Memory


def test_verify_names_a_version_whose_files_were_edited(tmp_path: Path, uac: Any) -> None:
    home = tmp_path / "h"
    mem = Memory.open(home)
    mem.add("alice", "Trip", kind="trip", key="T1", fields={"destination": "Oslo"})
    mem.checkpoint_and_alert("alice")
    assert uac("--home", str(home), "verify").code == 0
    trip = home / "users" / "alice" / "v000001" / "trip_000.py"
    trip.chmod(0o644)
    trip.write_text(trip.read_text().replace("Oslo", "Paris"))
    r = uac("--home", str(home), "verify", "--json")
    assert r.code == 1
    report = json.loads(r.out)
    assert report["facts_ok"] is True and report["ok"] is False
    assert report["version_problems"] == [{"user": "alice", "version": 1,
                                          "reason": "trip_000.py changed since it was published"}]
