"""A note's typed fields, read from a kind-less fact: the one reading of `NOTE_FIELDS`.

The vocabulary names the fields and their types (`factlog.vocabulary.NOTE_FIELDS`); the
compiler renders what this returns. Where each comes from:

- `dates`: `fields["dates"]` (ISO dates, a string or a list), else the fact's `valid_from`;
- `times`, `identifiers`, `emails`, `phones`: the strings of the list of that name;
- `amounts_usd`, `percentages`: the finite numbers of the list of that name, as floats;
- `amounts_<currency>` (e.g. `amounts_eur`): the items of `fields["amounts_other"]`
  (`{"value": 40.0, "currency": "EUR"}`, `factlog.recognizers`) in that currency, never
  converted; a currency without a field stays in the fact only;
- `speaker`: the provenance's role (else a string `fields["speaker"]`); `session_id`: the
  provenance's session.

A value of another shape (a fact from another producer, or typed by hand) is left out,
never guessed; a note that gives nothing has empty lists and None.
"""

from __future__ import annotations

import math
import re
from datetime import date

from factlog.model import Fact, JsonValue
from factlog.timeparse import try_date
from factlog.vocabulary import NOTE_FIELDS

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_OTHER_PREFIX = "amounts_"
_LISTS = tuple(name for name, annotation in NOTE_FIELDS.items()
               if annotation.startswith("list[") and name != "dates")
_FLOATS = frozenset(name for name in _LISTS if NOTE_FIELDS[name] == "list[float]")
# currency code (upper case) -> field, for the float lists named `amounts_<code>` but USD's
_CURRENCIES = {name[len(_OTHER_PREFIX):].upper(): name for name in _FLOATS
               if name.startswith(_OTHER_PREFIX) and name != "amounts_usd"}

NoteExtra = tuple[tuple[str, JsonValue], ...]


def note_dates(fact: Fact) -> tuple[date, ...]:
    """The dates a note mentions, ascending, each once (see the module docstring)."""
    raw = fact.fields.get("dates")
    items = raw if isinstance(raw, list) else [raw]
    found: set[date] = set()
    for item in items:
        if isinstance(item, str) and _ISO_DATE.fullmatch(item):
            day = try_date(item)
            if day is not None:
                found.add(day)
    if not found and fact.valid_from is not None:
        found.add(fact.valid_from)
    return tuple(sorted(found))


def note_extra(fact: Fact) -> NoteExtra:
    """The note's fields but `text` and `dates` that it gives (non-empty lists, non-None
    scalars), in `NOTE_FIELDS` order."""
    fields = fact.fields
    values: dict[str, JsonValue] = {}
    for name in _LISTS:
        raw = fields.get(name)
        if isinstance(raw, list) and raw:
            kept: list[JsonValue] = _numbers(raw) if name in _FLOATS else [v for v in raw if isinstance(v, str)]
            if kept:
                values[name] = kept
    other = fields.get("amounts_other")
    others: dict[str, list[JsonValue]] = {}
    for item in other if isinstance(other, list) else ():
        if isinstance(item, dict):
            currency = item.get("currency")
            target = _CURRENCIES.get(currency.upper()) if isinstance(currency, str) else None
            if target is not None:
                others.setdefault(target, []).extend(_numbers([item.get("value")]))
    values.update({name: amounts for name, amounts in others.items() if amounts})
    speaker = fact.provenance.role
    given = fields.get("speaker")
    if speaker is None and isinstance(given, str):
        speaker = given
    if speaker is not None:
        values["speaker"] = speaker
    if fact.provenance.session_id is not None:
        values["session_id"] = fact.provenance.session_id
    return tuple((name, values[name]) for name in NOTE_FIELDS if name in values)


def _numbers(items: list[JsonValue]) -> list[JsonValue]:
    return [float(v) for v in items
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)]
