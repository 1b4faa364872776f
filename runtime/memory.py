"""The documented Python API: one `Memory` per workspace; the CLI is a thin layer over it.

    from runtime.memory import Memory
    mem = Memory.open("~/.uac")
    mem.add("alice", "Flying to Tokyo", kind="trip", fields={"destination": "Tokyo"})
    mem.log("alice")
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator, Sequence

from factlog.errors import InputError
from factlog.model import (Fact, JsonValue, NewFact, Provenance, check_user_id, fact_from_json,
                           parse_iso_date)
from factlog.records import read_records, record_facts, structured_fact
from factlog.sqlite import SqliteFactStore
from factlog.store import VerifyReport
from runtime.workspace import Workspace


@dataclass(frozen=True)
class IngestReport:
    user: str
    source: str
    facts: list[Fact]

    @property
    def first_id(self) -> int | None:
        return self.facts[0].id if self.facts else None

    @property
    def last_id(self) -> int | None:
        return self.facts[-1].id if self.facts else None


class Memory:
    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.facts: SqliteFactStore = workspace.open_facts()

    @staticmethod
    def open(home: Path | str | None = None) -> Memory:
        return Memory(Workspace.at(home))

    def close(self) -> None:
        self.facts.close()

    # -- writing facts ---------------------------------------------------------------

    def add(self, user: str, text: str | None = None, *, kind: str | None = None,
            fields: dict[str, JsonValue] | None = None, key: str | None = None,
            valid_from: str | None = None, valid_to: str | None = None,
            provenance: Provenance | None = None) -> Fact:
        """Append one fact: free text, or structured when `kind` is given."""
        check_user_id(user)
        if kind is not None:
            new = structured_fact(kind, fields or {}, text=text, key=key,
                                  valid_from=valid_from, valid_to=valid_to)
        else:
            if fields:
                raise InputError("fields need a kind (--kind)")
            if text is None:
                raise InputError("a free-text fact needs its text")
            if key is not None:
                raise InputError("an identity key needs a kind (--kind)")
            new = NewFact(text=text, valid_from=parse_iso_date(valid_from, "valid-from"),
                          valid_to=parse_iso_date(valid_to, "valid-to"))
        if provenance is not None:
            new = replace(new, provenance=provenance)
        return self.facts.append(user, [new])[0]

    def ingest_records(self, user: str, path: Path, kind: str, key_field: str | None = None) -> IngestReport:
        check_user_id(user)
        facts = record_facts(path, kind, key_field)
        return IngestReport(user, str(path), self.facts.append(user, facts))

    def ingest_transcript(self, user: str, path: Path, *, user_only: bool = False) -> IngestReport:
        """A chat transcript (JSON, JSONL or YAML), extracted offline, stored in one transaction."""
        from factlog.extract import RuleExtractor
        from factlog.ingest import ingest_transcript

        check_user_id(user)
        facts = ingest_transcript(path, RuleExtractor(), user_only=user_only)
        return IngestReport(user, str(path), self.facts.append(user, facts))

    def retract(self, user: str, fact_id: int, reason: str | None = None) -> Fact:
        self.facts.get(user, fact_id)  # NotFound with a clear message
        text = f"Retracts fact {fact_id}" + (f": {reason}" if reason else "")
        return self.facts.append(user, [NewFact(text=text, retracts=fact_id)])[0]

    def forget(self, user: str) -> int:
        """Erase a user everywhere: facts, versions, alert state, recall index."""
        check_user_id(user)
        gone = self.facts.forget(user)
        user_dir = self.workspace.users_dir / user
        if user_dir.exists():
            shutil.rmtree(user_dir)
        return gone

    # -- reading facts -----------------------------------------------------------------

    def log(self, user: str, after: int = 0, upto: int | None = None) -> Iterator[Fact]:
        return self.facts.facts(user, after, upto)

    def users(self) -> list[str]:
        return self.facts.users()

    def verify(self, user: str | None = None) -> VerifyReport:
        return self.facts.verify(user)

    # -- export / import ---------------------------------------------------------------

    def export(self, out: Path, user: str | None = None) -> int:
        """Write facts as JSONL (atomically: temp file, fsync, rename)."""
        facts = self.facts.facts(user) if user else self.facts.all_facts()
        tmp = out.with_name(f".{out.name}.tmp")
        count = 0
        with open(tmp, "w", encoding="utf-8") as fh:
            for fact in facts:
                fh.write(json.dumps(fact.to_json(), ensure_ascii=False, sort_keys=True) + "\n")
                count += 1
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, out)
        return count

    def import_(self, path: Path) -> int:
        facts = read_export(path)
        return self.facts.import_facts(facts)


def read_export(path: Path) -> Sequence[Fact]:
    facts: list[Fact] = []
    for lineno, record in read_records(path):
        try:
            facts.append(fact_from_json(record))
        except InputError as exc:
            raise InputError(f"{path}:{lineno}: {exc}") from None
    return facts
