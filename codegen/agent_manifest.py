"""The agent manifest: a compact, deterministic text summary of a user's module for an
agent's context, built from the validator's manifest (`codegen.manifest.Manifest`) — the
shape of the data, never the data itself.

It says, per public name a query expression can read: the collection (`trips: list[Trip]`
or a singular `passport: Passport | None`), its size (or whether the singular value is
present), its class's fields grouped by type (`str?` is `str | None`; every record also
has `fact_ids: list[int]`, left out of the field lists), and each date field's range;
then the other public values (type and size, not their value), the classes no collection
holds, how many facts the module quarantined, the active alerts the caller passes (the
constraints live above codegen) and the version.

Equal inputs give equal text: collections sorted by name with the notes last, fields in
declaration order within their type group, alerts in the caller's order.

Within `limit` characters: when the whole text is longer, blocks are taken in order
whole, or else in their short form (name, type and size, the field list left out), or
else left out, and a last line says exactly what was cut — a cut is never silent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from codegen.manifest import ClassInfo, CollectionInfo, Manifest
from codegen.record_shape import split_top_level
from factlog.errors import InputError
from factlog.vocabulary import NOTE_ATTRIBUTE, PROVENANCE_FIELD

DEFAULT_LIMIT = 2000
MAX_ALERT_CHARS = 200  # one alert line at most; a longer message ends in "…"
MIN_LIMIT = 200  # below this not even the header and the cut line fit
_CUT_NAMES = 6  # names listed in the cut line before "+N more"


@dataclass(frozen=True)
class _Block:
    kind: str  # "collection", "value", "class", "alert", "quarantine"
    name: str
    full: str
    short: str | None = None  # the form without field lists; None: whole or nothing
    describes: str | None = None  # the class whose fields its whole form lists
    needs: str | None = None  # the class whose fields its whole form refers to ("fields above")


@dataclass
class _Cut:
    shortened: list[str] = field(default_factory=list)  # blocks kept in their short form
    left_out: dict[str, list[str]] = field(default_factory=dict)  # kind -> names left out

    def __bool__(self) -> bool:
        return bool(self.shortened or self.left_out)


def short_type(annotation: str) -> str:
    """`str | None` -> `str?` (also `Optional[str]`, `None | str`); others unchanged but
    for spaces around `|` and after commas."""
    text = annotation.strip()
    if text.startswith("Optional[") and text.endswith("]"):
        return short_type(text[len("Optional["):-1]) + "?"
    parts = [p.strip() for p in split_top_level(text, "|")]
    if len(parts) > 1 and "None" in parts:
        rest = [p for p in parts if p != "None"]
        inner = "|".join(rest)
        return (inner if len(rest) == 1 else f"({inner})") + "?"
    return "|".join(parts).replace(", ", ",")


def fields_text(info: ClassInfo, ranges: dict[str, tuple[str, str]] | None = None) -> str:
    """A class's fields grouped by type, in the order each type first appears, provenance
    left out: `str?: destination, country; date?: departure_date 2024-03-10..2024-05-04`."""
    groups: dict[str, list[str]] = {}
    for name, annotation in info.fields:
        if name == PROVENANCE_FIELD:
            continue
        shown = name
        if ranges and name in ranges:
            low, high = ranges[name]
            shown += f" {low}" if low == high else f" {low}..{high}"
        groups.setdefault(short_type(annotation), []).append(shown)
    return "; ".join(f"{kind}: {', '.join(names)}" for kind, names in groups.items()) or "no fields"


def _ranges(manifest: Manifest, name: str) -> dict[str, tuple[str, str]]:
    return {f: (r.min, r.max) for f, r in sorted(manifest.date_ranges.get(name, {}).items())}


def _collection_block(manifest: Manifest, name: str, collection: CollectionInfo, described: set[str]) -> _Block:
    cls = collection.record_class
    if collection.singular:
        head = f"{name}: {cls} | None = {'present' if collection.size else 'None'}" if cls else f"{name} = None"
    else:
        head = f"{name}: list[{cls or 'object'}] ({collection.size})"
    info = manifest.classes.get(cls) if cls else None
    if cls is None or info is None:
        return _Block("collection", name, head)
    if cls in described:
        return _Block("collection", name, f"{head} {cls}: fields above", head, needs=cls)
    described.add(cls)
    return _Block("collection", name, f"{head} {fields_text(info, _ranges(manifest, name))}", head, describes=cls)


def _blocks(manifest: Manifest, alerts: Sequence[str]) -> list[_Block]:
    blocks: list[_Block] = []
    described: set[str] = set()
    for name in sorted(manifest.collections, key=lambda n: (n == NOTE_ATTRIBUTE, n)):
        blocks.append(_collection_block(manifest, name, manifest.collections[name], described))
    for name, other in sorted(manifest.others.items()):
        size = f" ({other.size})" if other.size is not None else ""
        blocks.append(_Block("value", name, f"{name}: {other.type}{size}"))
    held = {c.record_class for c in manifest.collections.values()}
    for name, info in sorted(manifest.classes.items()):
        if info.public and name not in held and name not in described:
            blocks.append(_Block("class", name, f"class {name}: {fields_text(info)}", f"class {name}"))
    if manifest.quarantined:
        ids = sorted(manifest.quarantined)
        shown = ", ".join(map(str, ids[:10])) + (f", +{len(ids) - 10} more" if len(ids) > 10 else "")
        blocks.append(_Block("quarantine", "quarantined", f"quarantined facts (left out of the module): {shown}",
                             f"quarantined facts: {len(ids)}"))
    if alerts:
        blocks.append(_Block("alert", "alerts", f"active alerts ({len(alerts)}):"))
        for i, alert in enumerate(alerts, 1):
            line = " ".join(alert.split())
            if len(line) > MAX_ALERT_CHARS:
                line = line[:MAX_ALERT_CHARS - 1] + "…"
            blocks.append(_Block("alert", f"#{i}", f"- {line}"))
    return blocks


def _header(manifest: Manifest, version: int | None, *, short: bool = False) -> str:
    records = sum(c.size for c in manifest.collections.values())
    where = f"v{version}" if version is not None else "module"
    if short:
        return f"{where}: {len(manifest.collections)} collections, {records} records (X? = X | None):"
    return (f"{where}: {len(manifest.collections)} collections, {records} records. "
            f"Names a query expression can read (X? = X | None; every record also has "
            f"{PROVENANCE_FIELD}: list[int]):")


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:_CUT_NAMES])
    return shown + (f", +{len(names) - _CUT_NAMES} more" if len(names) > _CUT_NAMES else "")


_KIND_WORDS = {"collection": "collections", "value": "values", "class": "classes", "alert": "alerts",
               "quarantine": "quarantine lines"}


def _cut_line(cut: _Cut, limit: int) -> str:
    parts = []
    if cut.shortened:
        parts.append(f"field lists of {_names(cut.shortened)}")
    for kind, names in cut.left_out.items():
        if kind == "alert":
            count = len([n for n in names if n.startswith("#")])
            parts.append(f"{count} alerts" if count else "the alerts heading")
        else:
            parts.append(f"{len(names)} {_KIND_WORDS[kind]} ({_names(names)})")
    return f"[cut to {limit} characters: left out {'; '.join(parts)}. `uac manifest USER --json` has everything]"


_PRIORITY = {"collection": 0, "value": 1, "quarantine": 2, "alert": 3, "class": 4}
FIRST_ALERTS = 3  # alerts that go before the field lists; the others after them


def _fit(header: str, blocks: list[_Block], limit: int, reserve: int) -> tuple[list[str], _Cut]:
    """First every block's short form (collections, values, quarantine, the first
    `FIRST_ALERTS` alerts, classes: in that priority), then as many whole forms as fit, in
    the text's order, then the other alerts; a block whose fields it refers to ("fields
    above") is whole only when that one is."""
    room = limit - reserve - len(header)
    chosen: dict[int, str] = {}
    late = [i for i, b in enumerate(blocks) if b.kind == "alert" and b.name.startswith("#")][FIRST_ALERTS:]
    for i in sorted(set(range(len(blocks))) - set(late), key=lambda i: _PRIORITY[blocks[i].kind]):
        block = blocks[i]
        text = block.short if block.short is not None else block.full
        if len(text) + 1 <= room:
            chosen[i] = text
            room -= len(text) + 1
    whole: set[str] = set()
    for i, block in enumerate(blocks):
        if i not in chosen:
            continue
        if chosen[i] != block.full:
            needs = block.needs is None or block.needs in whole
            if needs and len(block.full) - len(chosen[i]) <= room:
                room -= len(block.full) - len(chosen[i])
                chosen[i] = block.full
        if chosen[i] == block.full and block.describes is not None:
            whole.add(block.describes)
    for i in late:
        if len(blocks[i].full) + 1 <= room:
            chosen[i] = blocks[i].full
            room -= len(blocks[i].full) + 1
    cut = _Cut()
    for i, block in enumerate(blocks):
        if i not in chosen:
            cut.left_out.setdefault(block.kind, []).append(block.name)
        elif chosen[i] != block.full:
            cut.shortened.append(block.name)
    return [header, *(chosen[i] for i in sorted(chosen))], cut


def agent_manifest(manifest: Manifest, *, version: int | None = None, alerts: Sequence[str] = (),
                   limit: int = DEFAULT_LIMIT) -> str:
    """The module's agent manifest within `limit` characters (at least `MIN_LIMIT`); when
    it had to cut, its last line says what it left out."""
    if limit < MIN_LIMIT:
        raise InputError(f"limit {limit} is below {MIN_LIMIT} characters")
    header = _header(manifest, version)
    blocks = _blocks(manifest, alerts)
    whole = "\n".join([header, *(b.full for b in blocks)])
    if len(whole) <= limit:
        return whole
    if len(header) > limit // 2:  # a tight limit: the header's short form
        header = _header(manifest, version, short=True)
    reserve = 0
    while reserve < limit:
        lines, cut = _fit(header, blocks, limit, reserve)
        line = _cut_line(cut, limit)
        text = "\n".join([*lines, line])
        if len(text) <= limit:
            return text
        reserve = max(reserve + 40, len(line) + 1)
    # Nothing but the header fits beside the cut line: what was left out, counted.
    counts: dict[str, int] = {}
    for block in blocks:
        if block.kind != "alert" or block.name.startswith("#"):
            counts[block.kind] = counts.get(block.kind, 0) + 1
    left = ", ".join(f"{n} {_KIND_WORDS[k]}" for k, n in sorted(counts.items(), key=lambda kn: _PRIORITY[kn[0]]))
    return f"{header}\n[cut to {limit} characters: left out {left}. `uac manifest USER --json` has everything]"


def agent_manifest_data(manifest: Manifest, *, version: int | None = None,
                        alerts: Sequence[str] = ()) -> dict[str, object]:
    """The same summary as JSON-ready data, nothing cut: per collection its class, size
    (or presence), fields `{name: annotation}` and date ranges; other values; classes
    no collection holds; quarantined fact ids; alerts; version."""
    collections: dict[str, object] = {}
    for name, c in sorted(manifest.collections.items()):
        info = manifest.classes.get(c.record_class) if c.record_class else None
        collections[name] = {
            "singular": c.singular, "class": c.record_class, "size": c.size,
            "fields": {f: t for f, t in info.fields if f != PROVENANCE_FIELD} if info else {},
            "date_ranges": {f: {"min": lo, "max": hi} for f, (lo, hi) in _ranges(manifest, name).items()},
        }
    held = {c.record_class for c in manifest.collections.values()}
    return {
        "version": version,
        "collections": collections,
        "values": {n: {"type": o.type, "size": o.size} for n, o in sorted(manifest.others.items())},
        "classes": {n: dict(i.fields) for n, i in sorted(manifest.classes.items()) if i.public and n not in held},
        "quarantined": sorted(manifest.quarantined),
        "alerts": list(alerts),
    }
