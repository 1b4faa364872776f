"""Semantic diff between two versions of a user's package, read from their manifests
(`codegen.manifest`: no version is imported for it), and a plain text diff.

Schema: classes added / removed, fields added / removed / retyped (annotations compared as
text). Data: records added / removed / changed, matched by entity (see
`users.records.entity_ids`), with each changed field before → after. Every change cites
the facts that caused it:

- added record: its fact ids;
- removed record: its fact ids and the facts that retracted them, where known;
- changed record: the fact ids in the new record but not in the old one, plus the
  retractions of fact ids it lost, where known;
- class or field: the facts of the records that carry it (new side for added / retyped,
  old side for removed).

Retractions are known when the new version's metadata maps retracted fact ids to the
retracting facts (`PublishMeta.retractions`).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Literal

from codegen.manifest import Manifest, build_manifest, identity_from_map
from factlog.model import Fact, JsonValue
from factlog.record_json import record_json
from users import records as rec
from users.store import VersionStore

Change = Literal["added", "removed", "changed", "retyped"]


@dataclass(frozen=True)
class FieldChange:
    name: str
    change: Change  # added, removed or retyped
    before: str | None  # annotation text
    after: str | None
    fact_ids: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class ClassChange:
    name: str
    change: Change  # added, removed or changed
    fields: list[FieldChange] = field(default_factory=list)
    fact_ids: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class ValueChange:
    field: str
    before: JsonValue
    after: JsonValue


@dataclass(frozen=True)
class RecordChange:
    attribute: str
    entity: str
    change: Change  # added, removed or changed
    label: str
    fields: list[ValueChange] = field(default_factory=list)  # empty if only provenance changed
    fact_ids: list[int] = field(default_factory=list)  # the facts that caused the change
    retracted_by: list[int] = field(default_factory=list)  # retraction facts among them


@dataclass(frozen=True)
class ModuleDiff:
    classes: list[ClassChange]
    records: list[RecordChange]

    @property
    def is_empty(self) -> bool:
        return not self.classes and not self.records

    def to_json(self) -> dict[str, JsonValue]:
        counts: dict[str, JsonValue] = {}
        for kind, changes in (("classes", self.classes), ("records", self.records)):
            for change in ("added", "removed", "changed"):
                counts[f"{kind}_{change}"] = sum(1 for c in changes if c.change == change)
        return {
            "summary": counts,
            "classes": [_class_json(c) for c in self.classes],
            "records": [_record_json(r) for r in self.records],
        }

    def render_lines(self) -> list[str]:
        """Plain text lines, first character `+`, `-`, `~` or space. No rich markup: print
        them with markup off (user text may hold brackets)."""
        if self.is_empty:
            return ["no changes"]
        lines = []
        for c in self.classes:
            lines.append(f"{_MARK[c.change]} class {c.name}{_cite(c.fact_ids)}")
            for f in c.fields:
                types = f.after if f.change == "added" else f.before
                if f.change == "retyped":
                    types = f"{f.before} → {f.after}"
                lines.append(f"    {_MARK[f.change]} {f.name}: {types}{_cite(f.fact_ids)}")
        for r in self.records:
            where = r.attribute if r.entity == r.attribute else f"{r.attribute} {r.entity}"
            lines.append(f"{_MARK[r.change]} {where} {r.label}{_cite(r.fact_ids, r.retracted_by)}")
            for v in r.fields:
                lines.append(f"    {v.field}: {_show(v.before)} → {_show(v.after)}")
            if r.change == "changed" and not r.fields:
                lines.append("    (provenance only)")
        return lines

    def render(self) -> str:
        return "\n".join(self.render_lines())


_MARK = {"added": "+", "removed": "-", "changed": "~", "retyped": "~"}


def _cite(fact_ids: Sequence[int], retracted_by: Sequence[int] = ()) -> str:
    if not fact_ids:
        return ""
    cause = [i for i in fact_ids if i not in retracted_by]
    text = f"facts {', '.join(map(str, cause))}" if cause else ""
    if retracted_by:
        text += ("; " if text else "") + f"retracted by {', '.join(map(str, retracted_by))}"
    return f"  ({text})"


def _show(value: JsonValue) -> str:
    if value is None:
        return "—"
    return (value or '""') if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _class_json(c: ClassChange) -> dict[str, JsonValue]:
    fields: list[JsonValue] = [
        {"name": f.name, "change": f.change, "before": f.before, "after": f.after, "fact_ids": list(f.fact_ids)}
        for f in c.fields
    ]
    return {"name": c.name, "change": c.change, "fields": fields, "fact_ids": list(c.fact_ids)}


def _record_json(r: RecordChange) -> dict[str, JsonValue]:
    fields: list[JsonValue] = [{"field": v.field, "before": v.before, "after": v.after} for v in r.fields]
    return {
        "attribute": r.attribute, "entity": r.entity, "change": r.change, "label": r.label,
        "fields": fields, "fact_ids": list(r.fact_ids), "retracted_by": list(r.retracted_by),
    }


def _facts_of_class(
    colls: Mapping[str, rec.Collection], class_name: str, field_name: str | None = None
) -> list[int]:
    """Fact ids of the records of a class (that have `field_name` set, if given)."""
    ids: set[int] = set()
    for collection in colls.values():
        for record in collection.records:
            if record.class_name != class_name:
                continue
            if field_name is None or record.get(field_name) is not None:
                ids.update(rec.fact_ids(record))
    return sorted(ids)


def _class_changes(old: Manifest | None, new: Manifest, old_colls: Mapping[str, rec.Collection],
                   new_colls: Mapping[str, rec.Collection]) -> list[ClassChange]:
    before = {} if old is None else rec.record_classes(old)
    after = rec.record_classes(new)
    changes = []
    for name in sorted(before.keys() | after.keys()):
        if name not in before:
            changes.append(ClassChange(name, "added", fact_ids=_facts_of_class(new_colls, name)))
        elif name not in after:
            changes.append(ClassChange(name, "removed", fact_ids=_facts_of_class(old_colls, name)))
        else:
            fields = []
            a, b = before[name], after[name]
            for f in [*a, *(f for f in b if f not in a)]:
                if f not in b:
                    fields.append(FieldChange(f, "removed", a[f], None, _facts_of_class(old_colls, name, f)))
                elif f not in a:
                    fields.append(FieldChange(f, "added", None, b[f], _facts_of_class(new_colls, name, f)))
                elif a[f] != b[f]:
                    fields.append(FieldChange(f, "retyped", a[f], b[f], _facts_of_class(new_colls, name, f)))
            if fields:
                cited = sorted({i for f in fields for i in f.fact_ids})
                changes.append(ClassChange(name, "changed", fields, cited))
    return changes


def _compare(attribute: str, entity: str, old: rec.Record, new: rec.Record,
             retractions: Mapping[int, int]) -> RecordChange | None:
    names = rec.field_names(old) + [n for n in rec.field_names(new) if n not in rec.field_names(old)]
    values = []
    for name in names:
        a, b = old.get(name), new.get(name)
        if not rec.same_value(a, b):
            values.append(ValueChange(name, record_json(a), record_json(b)))
    old_ids, new_ids = set(rec.fact_ids(old)), set(rec.fact_ids(new))
    if not values and old_ids == new_ids:
        return None
    by = sorted({retractions[i] for i in old_ids - new_ids if i in retractions})
    cited = sorted((new_ids - old_ids) | set(by))
    return RecordChange(attribute, entity, "changed", rec.label(new), values, cited, by)


def _record_changes(old_colls: Mapping[str, rec.Collection], new_colls: Mapping[str, rec.Collection],
                    use_identity: bool, retractions: Mapping[int, int]) -> list[RecordChange]:
    changes = []
    for attribute in sorted(old_colls.keys() | new_colls.keys()):
        grouped: dict[str, tuple[list[rec.Record], list[rec.Record]]] = {}
        for side, colls in ((0, old_colls), (1, new_colls)):
            if attribute in colls:
                for entity, record in rec.entity_ids(colls[attribute], use_identity):
                    grouped.setdefault(entity, ([], []))[side].append(record)
        for entity, (olds, news) in grouped.items():
            for a, b in zip(olds, news):
                changed = _compare(attribute, entity, a, b, retractions)
                if changed is not None:
                    changes.append(changed)
            for a in olds[len(news):]:
                ids = rec.fact_ids(a)
                by = sorted({retractions[i] for i in ids if i in retractions})
                changes.append(RecordChange(attribute, entity, "removed", rec.label(a), [], sorted({*ids, *by}), by))
            for b in news[len(olds):]:
                changes.append(RecordChange(attribute, entity, "added", rec.label(b), [], rec.fact_ids(b)))
    return changes


def diff_manifests(old: Manifest | None, new: Manifest, *,
                   retractions: Mapping[int, int] | None = None) -> ModuleDiff:
    """What changed from version `old` (None: nothing, before the first version) to `new`,
    read from their manifests. Records are matched by entity identity when both sides
    have identities, else by first fact id; `retractions` maps a retracted fact id to its
    retraction."""
    old_colls = {} if old is None else rec.collections(old)
    new_colls = rec.collections(new)
    use_identity = old is not None and old.identified and new.identified
    return ModuleDiff(
        _class_changes(old, new, old_colls, new_colls),
        _record_changes(old_colls, new_colls, use_identity, retractions or {}),
    )


def diff_modules(
    old: ModuleType,
    new: ModuleType,
    *,
    old_entities: Mapping[str, Sequence[int]] | None = None,
    new_entities: Mapping[str, Sequence[int]] | None = None,
    retractions: Mapping[int, int] | None = None,
) -> ModuleDiff:
    """What changed from `old` to `new` (two loaded modules). Entity maps (entity id ->
    fact ids) are used only when both sides have one; `retractions` maps a retracted fact
    id to its retraction."""
    both = bool(old_entities) and bool(new_entities)
    return diff_manifests(
        build_manifest(vars(old), identity=identity_from_map(old_entities or {}) if both else None),
        build_manifest(vars(new), identity=identity_from_map(new_entities or {}) if both else None),
        retractions=retractions,
    )


def diff_versions(store: VersionStore, user: str, a: int | str, b: int | str,
                  facts: Callable[[], Mapping[int, Fact]] | None = None) -> ModuleDiff:
    """Diff two stored versions from their manifests and retractions (`facts`: the log's
    facts by id, for entity ids of versions written before manifests)."""
    info_a, info_b = store.get(user, a), store.get(user, b)
    retractions = {**info_a.meta.retractions, **info_b.meta.retractions}
    return diff_manifests(store.manifest_of(info_a, facts), store.manifest_of(info_b, facts),
                          retractions=retractions)


def unified_text_diff(files_a: Mapping[str, str], files_b: Mapping[str, str], *,
                      label_a: str = "a", label_b: str = "b") -> str:
    """A unified diff of two packages, file by file (added / removed files against /dev/null)."""
    out: list[str] = []
    for name in sorted(files_a.keys() | files_b.keys()):
        before = _lines(files_a.get(name))
        after = _lines(files_b.get(name))
        out.extend(difflib.unified_diff(
            before, after,
            fromfile=f"{label_a}/{name}" if name in files_a else "/dev/null",
            tofile=f"{label_b}/{name}" if name in files_b else "/dev/null",
        ))
    return "".join(out)


def _lines(source: str | None) -> list[str]:
    if source is None:
        return []
    lines = source.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines
