"""Build stored `Fact` objects directly (no store) for compiler tests."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

from codegen.compile import GeneratedPackage
from codegen.loader import load_package
from factlog.hashing import GENESIS, content_hash
from factlog.model import Fact, JsonValue, NewFact, Provenance


def make_fact(
    fact_id: int,
    text: str = "a fact",
    kind: str | None = None,
    fields: dict[str, JsonValue] | None = None,
    key: str | None = None,
    valid_from: date | None = None,
    retracts: int | None = None,
    user: str = "alice",
    recorded_at: str = "2024-06-01T12:00:00+00:00",
    provenance: Provenance | None = None,
) -> Fact:
    """A fact as the store would hand it back; the input is checked like `NewFact`."""
    provenance = provenance or Provenance()
    new = NewFact(text, kind, dict(fields or {}), key, valid_from, None, retracts, provenance)
    body: dict[str, Any] = {
        "user": user, "id": fact_id, "recorded_at": recorded_at, "text": new.text, "kind": new.kind,
        "fields": new.fields, "key": new.key, "valid_from": valid_from.isoformat() if valid_from else None,
        "valid_to": None, "retracts": retracts, "provenance": provenance.to_json(), "prev_hash": GENESIS,
    }
    return Fact(user, fact_id, recorded_at, new.text, new.kind, new.fields, new.key, valid_from, None,
                retracts, provenance, GENESIS, content_hash(body))


def write_package(package: GeneratedPackage, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, source in package.files.items():
        (directory / name).write_text(source, encoding="utf-8")
    return directory


_counter = [0]


def import_package(package: GeneratedPackage, directory: Path) -> ModuleType:
    """Write the package to `directory` and import it under a fresh module name."""
    _counter[0] += 1
    write_package(package, directory)
    return load_package(directory, f"_uac_test_pkg_{_counter[0]}")
