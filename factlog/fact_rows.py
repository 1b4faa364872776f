"""Rows of the facts table as `Fact`s, with the values that repeat from fact to fact held once.

A full checkpoint holds every fact of a log in memory, so what one fact costs is what a big
log costs. A `FactReader` shares, across the rows it reads, the values that repeat: the
user, kind, recording time, identity key, provenance and validity dates, the fields'
names and their short string values, and `prev_hash` (the string object of the previous
row's hash, which is that same text in a chain read in id order). Sharing equal immutable
values changes no fact: every field compares, hashes and serializes as before.

`FactReader.facts(rows)` decodes the fields of many rows with one `json.loads` of their
texts joined as a JSON array (the decoder also shares names within one document). That is
only done for texts that cannot run into their neighbours: each starts with `{` and holds
a single `}`, its last character, so every top-level value of the array ends where a row
ends, and as many values as rows means one value per row. Any other text (nested objects,
a tampered row), and every text of a page whose joined array does not decode to one value
per row, is decoded on its own: `json.loads` of that row alone, which raises as it would.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any, Sequence

from factlog.model import Fact, JsonValue, Provenance
from factlog.timeparse import parse_date

SHARED_STRING_CHARS = 24  # field values up to this length are shared between facts
_NO_PROVENANCE = Provenance()

Row = Sequence[Any]  # user, id, recorded_at, text, kind, fields, key, valid_from, valid_to,
#                     retracts, session_id, message_index, role, session_ts, prev_hash, hash


class FactReader:
    """Turns rows into facts, sharing equal values across every row it reads (see module).
    Keep one for a read; what it holds is released with it."""

    def __init__(self) -> None:
        self._strings: dict[str, str] = {}
        self._provenances: dict[tuple[Any, ...], Provenance] = {}
        self._dates: dict[str, date] = {}
        self._last_hash = ""
        self._last_recorded = ""

    def fact(self, row: Row) -> Fact:
        """One row (its fields decoded alone)."""
        return self._fact(row, self._shared_fields(json.loads(row[5])))

    def facts(self, rows: Sequence[Row]) -> list[Fact]:
        """Many rows, in their order (fields decoded together where that is safe)."""
        fields = self._decoded(rows)
        return [self._fact(row, values) for row, values in zip(rows, fields)]

    def _decoded(self, rows: Sequence[Row]) -> list[Any]:
        texts: list[str] = [row[5] for row in rows]
        simple = [i for i, text in enumerate(texts)
                  if isinstance(text, str) and text[:1] == "{" and text.find("}") == len(text) - 1]
        decoded: list[Any] = [None] * len(texts)
        together = self._together([texts[i] for i in simple]) if simple else []
        if len(together) != len(simple):  # some text is not JSON alone: each is decoded alone
            simple = []
        if simple:
            strings = self._strings
            for i, values in zip(simple, together):
                for name, value in values.items():  # the names are shared by the decoder
                    if type(value) is str and len(value) <= SHARED_STRING_CHARS:
                        values[name] = strings.setdefault(value, value)
                decoded[i] = values
        if len(simple) != len(texts):
            single = set(range(len(texts))).difference(simple)
            for i in single:
                decoded[i] = self._shared_fields(json.loads(texts[i]))
        return decoded

    @staticmethod
    def _together(texts: list[str]) -> list[Any]:
        """The texts decoded as one JSON array; [] when that fails (see module)."""
        try:
            decoded = json.loads("[" + ",".join(texts) + "]")
        except ValueError:
            return []
        return decoded if isinstance(decoded, list) else []

    def _shared_fields(self, values: Any) -> Any:
        if type(values) is not dict:
            return values
        strings = self._strings
        shared: dict[str, JsonValue] = {}
        for name, value in values.items():
            if type(value) is str and len(value) <= SHARED_STRING_CHARS:
                value = strings.setdefault(value, value)
            shared[strings.setdefault(name, name)] = value
        return shared

    def _fact(self, row: Row, fields: Any) -> Fact:
        (user, fid, recorded_at, text, kind, _, key, vfrom, vto, retracts,
         session_id, message_index, role, session_ts, prev_hash, hash_) = row
        strings = self._strings
        if prev_hash == self._last_hash:
            prev_hash = self._last_hash
        self._last_hash = hash_
        if recorded_at == self._last_recorded:  # a batch of appends shares its time
            recorded_at = self._last_recorded
        else:
            recorded_at = self._last_recorded = strings.setdefault(recorded_at, recorded_at)
        if session_id is None and message_index is None and role is None and session_ts is None:
            provenance = _NO_PROVENANCE
        else:
            where = (session_id, message_index, role, session_ts)
            provenance = self._provenances.get(where) or self._provenances.setdefault(where, Provenance(*where))
        return Fact(
            strings.setdefault(user, user), fid, recorded_at, text,
            None if kind is None else strings.setdefault(kind, kind), fields,
            None if key is None else strings.setdefault(key, key),
            self._date(vfrom) if vfrom else None, self._date(vto) if vto else None, retracts,
            provenance, prev_hash, hash_,
        )

    def _date(self, text: str) -> date:
        found = self._dates.get(text)
        if found is None:
            found = self._dates[text] = parse_date(text)
        return found
