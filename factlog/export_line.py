"""A line of `uac export` (JSONL): one stored fact, hash included, as `uac import`
reads it back.

Format 1 is what exports held before formats were versioned: the 13 keys of
`Fact.to_json()` and no `format` key. Lines written now add `"format": 1`. Every part is
checked as untrusted input on import: the shape here, the content by `NewFact` (as when
restoring: fields need only be safe JSON), the hash chain by the store.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt, StrictStr

from factlog.errors import InputError
from factlog.formats import Format
from factlog.model import Fact, NewFact, Provenance, check_user_id, parse_iso_date
from factlog.records import read_records
from factlog.timeparse import parse_datetime


def _iso_moment(text: str) -> str:
    try:
        parse_datetime(text)
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO date-time") from None
    return text


IsoText = Annotated[StrictStr, AfterValidator(_iso_moment)]


class ExportedProvenance(BaseModel):
    """Where the fact came from (`Provenance`), as exported."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    session_id: Annotated[StrictStr, Field(max_length=256)] | None = None
    message_index: Annotated[StrictInt, Field(ge=0)] | None = None
    role: Literal["user", "assistant", "system", "tool"] | None = None  # factlog.model.ROLES
    session_ts: IsoText | None = None


class ExportLine(Format):
    """One exported fact."""

    FORMAT: ClassVar[int] = 1

    user: StrictStr
    id: Annotated[StrictInt, Field(ge=1)]
    recorded_at: IsoText
    text: StrictStr
    kind: StrictStr | None
    fields: dict[str, Any]
    key: StrictStr | None
    valid_from: StrictStr | None
    valid_to: StrictStr | None
    retracts: StrictInt | None
    provenance: ExportedProvenance | None
    prev_hash: StrictStr
    hash: StrictStr

    @classmethod
    def of(cls, fact: Fact) -> ExportLine:
        return cls.model_validate(fact.to_json())

    def line(self) -> str:
        """The line as written (no newline): compact JSON, keys sorted, UTF-8 as is."""
        return self.dump(indent=None)

    def fact(self) -> Fact:
        """The stored fact, its content checked (InputError); the hash is the store's to check."""
        origin = self.provenance or ExportedProvenance()
        new = NewFact(
            text=self.text, kind=self.kind, fields=self.fields, key=self.key,
            valid_from=parse_iso_date(self.valid_from, "valid_from"),
            valid_to=parse_iso_date(self.valid_to, "valid_to"), retracts=self.retracts,
            provenance=Provenance(origin.session_id, origin.message_index, origin.role, origin.session_ts),
            restoring=True,
        )
        return Fact(
            user=check_user_id(self.user), id=self.id, recorded_at=self.recorded_at, text=new.text,
            kind=new.kind, fields=new.fields, key=new.key, valid_from=new.valid_from,
            valid_to=new.valid_to, retracts=new.retracts, provenance=new.provenance,
            prev_hash=self.prev_hash, hash=self.hash,
        )


def export_text(facts: Iterable[Fact]) -> str:
    """The export of `facts`: one line each."""
    return "".join(ExportLine.of(fact).line() + "\n" for fact in facts)


def read_export(path: Path) -> list[Fact]:
    """The facts of an export file (JSONL, or a JSON array), each checked; InputError names the line."""
    facts: list[Fact] = []
    for lineno, record in read_records(path):
        where = f"{path}, line {lineno}"
        line = ExportLine.load(record, source=where)
        try:
            facts.append(line.fact())
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
    return facts
