"""A small fixed fact log compiles to exactly the files under tests/golden/expected/.

On an intended change, review the printed diff, then update the files with:
    UAC_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_golden.py
"""

from __future__ import annotations

import difflib
import json
import os
from datetime import date
from pathlib import Path

from fact_helpers import make_fact

from codegen.compile import compile_package
from factlog.model import Fact, Provenance

GOLDEN = Path(__file__).parent / "golden"
EXPECTED = GOLDEN / "expected"
UPDATE_COMMAND = "UAC_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_golden.py"


def golden_facts() -> list[Fact]:
    facts = []
    for item in json.loads((GOLDEN / "facts.json").read_text(encoding="utf-8")):
        valid_from = date.fromisoformat(item["valid_from"]) if item.get("valid_from") else None
        facts.append(make_fact(item["id"], item["text"], item.get("kind"), item.get("fields"), item.get("key"),
                               valid_from, item.get("retracts"), user="golden",
                               provenance=Provenance(**item["provenance"]) if "provenance" in item else None))
    return facts


def test_golden_package() -> None:
    files = compile_package("golden", golden_facts()).files
    if os.environ.get("UAC_UPDATE_GOLDEN") == "1":
        EXPECTED.mkdir(parents=True, exist_ok=True)
        for stale in EXPECTED.glob("*.py"):
            stale.unlink()
        for name, source in files.items():
            (EXPECTED / name).write_text(source, encoding="utf-8")
    expected = {p.name: p.read_text(encoding="utf-8") for p in sorted(EXPECTED.glob("*.py"))}
    diff: list[str] = []
    for name in sorted(set(files) | set(expected)):
        diff += difflib.unified_diff(
            expected.get(name, "").splitlines(keepends=True), files.get(name, "").splitlines(keepends=True),
            f"expected/{name}", f"generated/{name}",
        )
    if diff:
        print("".join(diff))
        print(f"\nThe generated package differs from tests/golden/expected. If intended, run:\n    {UPDATE_COMMAND}")
    assert not diff
