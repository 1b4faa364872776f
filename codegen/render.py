"""Stage 3: source text of the package's modules, from jinja2 templates.

Templates only lay out structure; every value and name that reaches them is made safe
here: values are Python literals (`codegen.literals`), names are checked identifiers, and
free text (original field names) appears only as escaped literals in comments.

An imported name that a field of the class would shadow is aliased (`date as _date`,
`field as _field`), so a field may be called `date`, `time` or `field`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import jinja2

from codegen.literals import Aliases, py_literal, str_literal
from codegen.naming import fresh_alias
from codegen.schema import ClassSpec, PyType
from factlog.vocabulary import PROVENANCE_FIELD

GENERATOR = "codegen.compile, deterministic compiler v1"
_TEMPORAL = {"date": date, "datetime": datetime, "time": time}


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _render(template: str, **context: object) -> str:
    return _environment().get_template(template).render(**context)


@dataclass(frozen=True)
class Header:
    user: str  # a checked user id (safe inside a docstring)
    position: int | None  # None: the file is made from no fact (a class module: from its spec)
    input_hash: str  # hex
    scope: str  # what the position (or, without one, the input hash) covers, e.g. "the whole log"
    contents: str  # made of identifiers only


def header_source(header: Header) -> str:
    return _render(
        "header.jinja2",
        generator=GENERATOR,
        user=header.user,
        position=header.position,
        scope=header.scope,
        input_hash=header.input_hash,
        contents=header.contents,
    ).rstrip("\n")


@dataclass(frozen=True)
class Record:
    """One record: (Python field name, Python value) pairs, None values omitted."""

    values: tuple[tuple[str, object], ...]
    fact_ids: tuple[int, ...]


def temporal_kinds(value: object, found: set[str]) -> None:
    """Collect which of date/datetime/time a value uses (datetime is checked before date)."""
    if isinstance(value, datetime):
        found.add("datetime")
    elif isinstance(value, date):
        found.add("date")
    elif isinstance(value, time):
        found.add("time")
    elif isinstance(value, list):
        for item in value:
            temporal_kinds(item, found)


def record_source(class_name: str, record: Record, aliases: Aliases) -> str:
    args = [f"{name}={py_literal(value, aliases)}" for name, value in record.values]
    args.append(f"{PROVENANCE_FIELD}=[{', '.join(map(str, record.fact_ids))}]")
    return f"{class_name}({', '.join(args)})"


def _type_names(t: PyType, found: set[str]) -> None:
    if t.base in _TEMPORAL:
        found.add(t.base)
    elif t.base == "dict":
        found.add("Any")
    elif t.base == "list" and t.item is not None:
        _type_names(t.item, found)


def annotation(t: PyType, alias: dict[str, str]) -> str:
    if t.base in _TEMPORAL:
        return alias[t.base]
    if t.base == "dict":
        return f"dict[str, {alias['Any']}]"
    if t.base == "list":
        item = annotation(t.item, alias) if t.item is not None else "str"
        return f"list[{item} | None]" if t.item_nullable else f"list[{item}]"
    return t.base


def _spelled(name: str, alias: dict[str, str]) -> str:
    return name if alias[name] == name else f"{name} as {alias[name]}"


def _imports(names: Iterable[str], alias: dict[str, str]) -> list[str]:
    wanted = set(names)
    temporal = [_spelled(n, alias) for n in ("date", "datetime", "time") if n in wanted]
    lines = [f"from datetime import {', '.join(temporal)}"] if temporal else []
    if "Any" in wanted:
        lines.append(f"from typing import {_spelled('Any', alias)}")
    return lines


def _literal_aliases(alias: dict[str, str]) -> Aliases:
    return Aliases(**{n: alias[n] for n in ("date", "datetime", "time") if n in alias})


def _aliases(names: Iterable[str], taken: set[str]) -> dict[str, str]:
    result: dict[str, str] = {}
    for name in sorted(names):
        result[name] = fresh_alias(name, taken)
        taken.add(result[name])
    return result


def class_module(spec: ClassSpec, header: Header, class_doc: str, record: Record | None) -> str:
    """The class of a kind; for a singular kind also its one value (`passport = ...`)."""
    needed: set[str] = {"field"}
    for f in spec.fields:
        _type_names(f.type, needed)
    if record is not None:
        for _, value in record.values:
            temporal_kinds(value, needed)
    taken = {f.name for f in spec.fields} | {spec.names.class_name, spec.names.attribute}
    alias = _aliases(needed, taken)
    aliases = _literal_aliases(alias)
    fields = [
        {
            "name": f.name,
            "annotation": annotation(f.type, alias) + ("" if f.required or f.empty_list else " | None"),
            "default": "" if f.required else
            f" = {alias['field']}(default_factory=list)" if f.empty_list else " = None",
            "comment": f"from {str_literal(f.original)}" if f.original != f.name else "",
        }
        for f in spec.fields
    ]
    return _render(
        "class_module.py.jinja2",
        docstring=header_source(header),
        field_import=_spelled("field", alias),
        field_name=alias["field"],
        imports=_imports(needed, alias),
        class_name=spec.names.class_name,
        class_doc=class_doc,
        fields=fields,
        provenance=PROVENANCE_FIELD,
        attribute=spec.names.attribute,
        record=None if record is None else record_source(spec.names.class_name, record, aliases),
    )


def chunk_module(spec: ClassSpec, list_name: str, records: Sequence[Record], header: Header) -> str:
    """A list of at most a few hundred records, one per line, importing only what it uses."""
    needed: set[str] = set()
    for record in records:
        for _, value in record.values:
            temporal_kinds(value, needed)
    alias = _aliases(needed, {spec.names.class_name, list_name})
    aliases = _literal_aliases(alias)
    imports = _imports(needed, alias)
    return _chunk_source(spec, list_name, imports, [record_source(spec.names.class_name, r, aliases) for r in records],
                         header)


def record_line(class_name: str, record: Record) -> tuple[str, frozenset[str]]:
    """A record's source, written with the plain names `date`, `datetime` and `time`, and
    which of them it uses (for `chunk_module_lines`)."""
    needed: set[str] = set()
    for _, value in record.values:
        temporal_kinds(value, needed)
    return record_source(class_name, record, Aliases()), frozenset(needed)


def chunk_module_lines(spec: ClassSpec, list_name: str, lines: Sequence[str], needed: Iterable[str],
                       header: Header) -> str | None:
    """`chunk_module` from record lines of `record_line` (the same text); None when the
    module would have to import one of the names under an alias (then use `chunk_module`)."""
    alias = _aliases(needed, {spec.names.class_name, list_name})
    if any(alias[name] != name for name in alias):
        return None
    return _chunk_source(spec, list_name, _imports(alias, alias), lines, header)


def _chunk_source(spec: ClassSpec, list_name: str, imports: list[str], lines: Sequence[str], header: Header) -> str:
    return _render(
        "chunk_module.py.jinja2",
        docstring=header_source(header),
        imports=[*imports, f"from .{spec.names.stem} import {spec.names.class_name}"],
        list_name=list_name,
        class_name=spec.names.class_name,
        records=lines,
    )


@dataclass(frozen=True)
class Export:
    """What `__init__.py` takes from one kind's modules."""

    spec: ClassSpec
    chunks: tuple[tuple[str, str], ...]  # (module stem, list name) per record chunk


def init_module(exports: Sequence[Export], header: Header, quarantined: Mapping[int, str] | None = None) -> str:
    """The package's `__init__.py`; live facts left out are declared in `_quarantined` (only
    when there are any, so a package without quarantine keeps its bytes)."""
    imports: list[str] = []
    assignments: list[str] = []
    for export in exports:
        names = export.spec.names
        if names.singular:
            line = f"{names.class_name} as {names.class_name}, {names.attribute} as {names.attribute}"
            imports.append(f"from .{names.stem} import {line}")
            continue
        imports.append(f"from .{names.stem} import {names.class_name} as {names.class_name}")
        imports.extend(f"from .{stem} import {list_name}" for stem, list_name in export.chunks)
        joined = ", ".join(f"*{list_name}" for _, list_name in export.chunks)
        assignments.append(f"{names.attribute}: list[{names.class_name}] = [{joined}]")
    if quarantined:
        assignments.append(quarantine_source(quarantined))
    return _render("init_module.py.jinja2", docstring=header_source(header), imports=imports, assignments=assignments)


QUARANTINE_NAME = "_quarantined"


def quarantine_source(quarantined: Mapping[int, str]) -> str:
    """`_quarantined: dict[int, str] = {12: "reason", ...}`, ids ascending, one per line."""
    items = "".join(f"\n    {fact_id}: {str_literal(reason)}," for fact_id, reason in sorted(quarantined.items()))
    return f"{QUARANTINE_NAME}: dict[int, str] = {{{items}\n}}"
