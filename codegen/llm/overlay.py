"""What the llm producer lays over the compiler's package, read and written as source text.

The compiler's package stays the base: every record of a structured fact is compiled. Two
kinds of files come from the model on top of it:

- a class module (`trip.py`) rewritten with a docstring and `@property` helpers. It is
  used only if its class keeps the compiled class's signature exactly (decorator, fields,
  annotations, defaults, order: `class_signature`), else the compiled module stays. A
  module the model was shown ends with `WRITTEN_MARK` (its rewrite, or the compiled module
  when it left it as it was), so later versions keep it, without asking again, while the
  compiled signature does not change;
- a records module per collection (`trip_llm.py`): records of the collection's class the
  model built from free-text facts, each citing them (`fact_ids`). Its text is the model's
  answer for this checkpoint, verbatim (so a validator's line numbers are the model's),
  then `CARRIED_MARK` and `_<collection>_llm_kept`, the records of earlier versions whose
  facts are all still live. `__init__.py` joins both lists after the compiled chunks.

A kind of the canonical vocabulary the package has no class for (`vocabulary_collections`)
gets the compiler's class module from the vocabulary and the model's records module, and
`__init__.py` binds it (`with_new_collections`); a singular kind's records module binds its
one value (`passport: Passport | None = Passport(...)`, `read_singular`).

Nothing here decides what is safe: the validator reads exactly the files returned.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import AbstractSet, Mapping

from codegen.vocabulary_class import vocabulary_class
from factlog.vocabulary import CANONICAL

WRITTEN_MARK = "# Reviewed by the llm producer's model: the compiled class's fields, kept exactly."
CARRIED_MARK = "# Records of earlier versions, carried forward (every fact they cite is still live):"
DEFAULT_RECORDS_DOC = '"""Records built from free-text facts by the llm producer; `fact_ids` cites them."""\n'
ANSWER_LIST = "_{attribute}_llm"
CARRIED_LIST = "_{attribute}_llm_kept"


@dataclass(frozen=True)
class Collection:
    """A list collection of the package whose class module holds only that class; or a
    kind of the vocabulary the package has no class for (`generated`: its class module,
    written by the compiler from the vocabulary; `singular`: one value, e.g. `passport`)."""

    attribute: str  # trips
    class_name: str  # Trip
    module: str  # trip (its class module, `trip.py`)
    records_module: str  # trip_llm (the model's records)
    generated: str | None = None  # the class module of a vocabulary kind with no compiled class
    singular: bool = False  # `passport: Passport | None` (only for a vocabulary kind)
    kind: str = ""  # the vocabulary kind (for a generated class)
    fields: tuple[tuple[str, str], ...] = ()  # a generated class's fields (name, annotation)


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _joins(tree: ast.Module) -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, list[str]]]]:
    """`__init__.py`'s relative imports (local name -> (module, name)) and list joins
    (attribute -> (class name, joined list names))."""
    imported: dict[str, tuple[str, str]] = {}
    joins: dict[str, tuple[str, list[str]]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.level == 1 and stmt.module:
            for alias in stmt.names:
                imported[alias.asname or alias.name] = (stmt.module, alias.name)
        elif (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
              and isinstance(stmt.value, ast.List) and isinstance(stmt.annotation, ast.Subscript)
              and isinstance(stmt.annotation.slice, ast.Name)
              and all(isinstance(e, ast.Starred) and isinstance(e.value, ast.Name) for e in stmt.value.elts)):
            names = [e.value.id for e in stmt.value.elts
                     if isinstance(e, ast.Starred) and isinstance(e.value, ast.Name)]
            joins[stmt.target.id] = (stmt.annotation.slice.id, names)
    return imported, joins


def collections(files: Mapping[str, str]) -> dict[str, Collection]:
    """The package's list collections whose class module is a plain class module (a
    docstring, imports and the one dataclass: not the notes' class, not a singular value)."""
    tree = _parse(files.get("__init__.py", ""))
    if tree is None:
        return {}
    imported, joins = _joins(tree)
    found: dict[str, Collection] = {}
    for attribute, (class_name, _) in sorted(joins.items()):
        module = imported.get(class_name, ("", ""))[0]
        if not module or module == "notes" or class_signature(files.get(f"{module}.py", ""), class_name) is None:
            continue
        if not _only_the_class(files[f"{module}.py"], class_name):
            continue
        found[attribute] = Collection(attribute, class_name, module, _records_name(module, files))
    return found


def vocabulary_collections(user: str, files: Mapping[str, str]) -> dict[str, Collection]:
    """The kinds of the canonical vocabulary the package has no class for, each with the
    class module the compiler writes for it (`codegen.vocabulary_class`): where the model
    may place free-text facts besides the compiled collections. A kind whose class,
    attribute or module name the package already uses (a structured record of it: the
    structured one always wins) is not offered."""
    tree = _parse(files.get("__init__.py", ""))
    if tree is None:
        return {}
    imported, joins = _joins(tree)
    bound = set(imported) | set(joins)
    found: dict[str, Collection] = {}
    for kind in sorted(CANONICAL):
        made = vocabulary_class(user, kind)
        if made is None:
            continue
        names = made.names
        if names.attribute in bound or names.class_name in bound or f"{names.stem}.py" in files:
            continue
        found[names.attribute] = Collection(names.attribute, names.class_name, names.stem,
                                            _records_name(names.stem, files), made.source, names.singular, kind,
                                            made.fields)
    return found


def _records_name(module: str, files: Mapping[str, str]) -> str:
    name = f"{module}_llm"
    while f"{name}.py" in files:  # a compiled module of that name (a kind called `trip_llm`)
        name += "_"
    return name


def _only_the_class(source: str, class_name: str) -> bool:
    tree = _parse(source)
    if tree is None:
        return False
    body = [s for i, s in enumerate(tree.body) if not (i == 0 and _docstring(s)) and not isinstance(s, ast.ImportFrom)]
    return len(body) == 1 and isinstance(body[0], ast.ClassDef) and body[0].name == class_name


def _docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def class_signature(source: str, class_name: str) -> str | None:
    """What records depend on in class `class_name` of a module: its decorators, bases and
    fields (names, annotations, defaults, in order), as text; None if there is no such class."""
    tree = _parse(source)
    if tree is None:
        return None
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == class_name:
            fields = [(ast.dump(s.target), ast.dump(s.annotation), ast.dump(s.value) if s.value else "")
                      for s in stmt.body if isinstance(s, ast.AnnAssign)]
            return repr(([ast.dump(d) for d in stmt.decorator_list], [ast.dump(b) for b in stmt.bases],
                         [ast.dump(k) for k in stmt.keywords], fields))
    return None


def model_written(source: str) -> bool:
    return source.rstrip("\n").endswith(WRITTEN_MARK)


def marked(source: str) -> str:
    return source.rstrip("\n") + "\n\n" + WRITTEN_MARK + "\n"


def take_class_module(answer: str, compiled: str, class_name: str) -> str | None:
    """The model's class module, marked, when its class has the compiled signature; else None."""
    wanted = class_signature(compiled, class_name)
    if wanted is None or class_signature(answer, class_name) != wanted:
        return None
    return marked(answer)


RECORDS_MARK = "# Records module of the llm producer: the model's records, validated like every file."


def with_records_mark(source: str) -> str:
    """A records module as published: ending with `RECORDS_MARK` (after the model's lines, so
    a validator's line numbers stay the model's), whatever the model wrote in it."""
    return source.rstrip("\n") + "\n\n" + RECORDS_MARK + "\n"


def is_records_text(source: str) -> bool:
    """A records module this producer laid out (`RECORDS_MARK`, its default docstring, or the
    carried mark), or one holding a list named like the model's (`_<collection>_llm`)."""
    return source.rstrip("\n").endswith(RECORDS_MARK) or source.startswith(DEFAULT_RECORDS_DOC) \
        or f"\n{CARRIED_MARK}\n" in source or re.search(r"^_\w+_llm(_kept)?\s*:", source, re.MULTILINE) is not None


def answer_part(source: str) -> str:
    """The part of a records module that was the model's answer (before `CARRIED_MARK`, or
    `RECORDS_MARK`)."""
    text = source.rstrip("\n")
    if text.endswith(RECORDS_MARK):
        source = text[: -len(RECORDS_MARK)].rstrip("\n") + "\n"
    index = source.find("\n" + CARRIED_MARK)
    return source if index < 0 else source[: index + 1]


def unmarked(source: str) -> str:
    """A taken class module as the model wrote it (without `WRITTEN_MARK`)."""
    text = source.rstrip("\n")
    return text[: -len(WRITTEN_MARK)].rstrip("\n") + "\n" if text.endswith(WRITTEN_MARK) else source


@dataclass(frozen=True)
class Records:
    """Records read from a records module: their source texts and the imports they may need."""

    items: tuple[tuple[str, tuple[int, ...]], ...]  # (source of the call, its fact ids)
    imports: tuple[tuple[str, str, str, int], ...]  # (local name, module, name, level)


def read_records(source: str) -> Records | None:
    """Every record of every list of a records module; None if it is not of that shape
    (a docstring, `from` imports and annotated lists of calls)."""
    tree = _parse(source)
    if tree is None:
        return None
    items: list[tuple[str, tuple[int, ...]]] = []
    imports: list[tuple[str, str, str, int]] = []
    lines = source.split("\n")
    for index, stmt in enumerate(tree.body):
        if index == 0 and _docstring(stmt):
            continue
        if isinstance(stmt, ast.ImportFrom):
            imports += [(a.asname or a.name, stmt.module or "", a.name, stmt.level) for a in stmt.names]
        elif isinstance(stmt, (ast.AnnAssign, ast.Assign)) and isinstance(stmt.value, ast.List) \
                and all(isinstance(e, ast.Call) for e in stmt.value.elts):
            for element in stmt.value.elts:
                items.append((_segment(lines, element), _fact_ids(element)))
        else:
            return None
    return Records(tuple(items), tuple(imports))


def _segment(lines: list[str], node: ast.expr) -> str:
    """The source text of `node` (`ast.get_source_segment` without splitting the whole text
    again for each node: columns are UTF-8 byte offsets)."""
    first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    start, end = node.col_offset, node.end_col_offset if node.end_col_offset is not None else -1
    if first == last:
        return lines[first].encode("utf-8")[start:end].decode("utf-8")
    head = lines[first].encode("utf-8")[start:].decode("utf-8")
    tail = lines[last].encode("utf-8")[:end].decode("utf-8")
    return "\n".join([head, *lines[first + 1:last], tail])


def _fact_ids(call: ast.expr) -> tuple[int, ...]:
    assert isinstance(call, ast.Call)
    for keyword in call.keywords:
        if keyword.arg == "fact_ids" and isinstance(keyword.value, ast.List):
            ids = [e.value for e in keyword.value.elts if isinstance(e, ast.Constant) and type(e.value) is int]
            if len(ids) == len(keyword.value.elts):
                return tuple(ids)
    return ()


def carried_records(previous: Mapping[str, str], collection: Collection, live: AbstractSet[int],
                    ) -> tuple[Records, int]:
    """The records of the previous version's records lists for `collection` whose facts are
    all live (and which cite any), and how many were dropped."""
    tree = _parse(previous.get("__init__.py", ""))
    if tree is None:
        return Records((), ()), 0
    imported, joins = _joins(tree)
    _, names = joins.get(collection.attribute, ("", []))
    ours = {ANSWER_LIST.format(attribute=collection.attribute), CARRIED_LIST.format(attribute=collection.attribute)}
    modules = sorted({imported[n][0] for n in names if n in ours and n in imported})
    items: list[tuple[str, tuple[int, ...]]] = []
    imports: list[tuple[str, str, str, int]] = []
    dropped = 0
    for module in modules:
        found = read_records(previous.get(f"{module}.py", ""))
        if found is None:
            continue
        for text, ids in found.items:
            if ids and all(i in live for i in ids):
                items.append((text, ids))
            else:
                dropped += 1
        imports += found.imports
    return Records(tuple(items), tuple(imports)), dropped


def records_module(collection: Collection, answer: str | None, carried: Records) -> str | None:
    """The records module: the model's answer verbatim, then the carried records (with the
    imports they need that the answer does not bind); None when there is neither."""
    if answer is None and not carried.items:
        return None
    text = answer.rstrip("\n") + "\n" if answer is not None else DEFAULT_RECORDS_DOC
    if not carried.items:
        return text
    bound = _bound_names(answer) if answer is not None else set()
    lines = ["", "", CARRIED_MARK]
    for local, module, name, level in carried.imports:
        if local in bound:
            continue
        bound.add(local)
        alias = f" as {local}" if local != name else ""
        lines.append(f"from {'.' * level}{module} import {name}{alias}")
    lines += ["", f"{CARRIED_LIST.format(attribute=collection.attribute)}: list[{collection.class_name}] = ["]
    lines += [f"    {item},".replace("\n", "\n    ") for item, _ in carried.items]
    lines.append("]")
    return text + "\n".join(lines) + "\n"


def _bound_names(source: str) -> set[str]:
    tree = _parse(source)
    if tree is None:
        return set()
    names: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom):
            names.update(a.asname or a.name for a in stmt.names)
        elif isinstance(stmt, (ast.ClassDef, ast.FunctionDef)):
            names.add(stmt.name)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            names.add(stmt.target.id)
        elif isinstance(stmt, ast.Assign):
            names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    return names


def joined_init(init_source: str, joined: Mapping[str, tuple[str, list[str]]]) -> str:
    """`__init__.py` with, per collection, `from .<records module> import <lists>` before the
    first join and the lists appended to its join: `trips: list[Trip] = [*_trips_000,
    *_trips_llm_kept, *_trips_llm]`. `joined`: attribute -> (records module, list names)."""
    tree = _parse(init_source)
    if tree is None or not joined:
        return init_source
    lines = init_source.split("\n")
    first_join: int | None = None
    edits: list[tuple[int, int, str]] = []  # (line index, column, text to insert)
    for stmt in tree.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and isinstance(stmt.value, ast.List):
            if first_join is None:
                first_join = stmt.lineno - 1
            extra = joined.get(stmt.target.id)
            if extra and extra[1] and stmt.value.end_lineno is not None and stmt.value.end_col_offset is not None:
                row = stmt.value.end_lineno - 1
                column = _char_column(lines[row], stmt.value.end_col_offset - 1)
                before = "\n".join(lines[:row] + [lines[row][:column]]).rstrip()
                lead = "" if before.endswith(("[", ",")) else ", "
                edits.append((row, column, lead + ", ".join(f"*{name}" for name in extra[1])))
    for row, column, text in sorted(edits, reverse=True):
        lines[row] = lines[row][:column] + text + lines[row][column:]
    if first_join is None:
        return init_source
    imports = [f"from .{module} import {', '.join(names)}" for _, (module, names) in sorted(joined.items()) if names]
    lines[first_join:first_join] = imports + [""]
    return "\n".join(lines)


def _char_column(line: str, byte_offset: int) -> int:
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", "replace"))


SINGULAR_NAME = "{attribute}"  # the one value of a singular records module (a sibling import keeps its name)


def read_singular(source: str, collection: Collection) -> Records | None:
    """A singular records module's one value: a docstring, `from` imports and
    `<attribute>: <Class> | None = <Class>(...)`; None if it is not of that shape (the
    answer is then not taken: a singular value is one record or none)."""
    tree = _parse(source)
    if tree is None:
        return None
    name = SINGULAR_NAME.format(attribute=collection.attribute)
    imports: list[tuple[str, str, str, int]] = []
    value: tuple[str, tuple[int, ...]] | None = None
    lines = source.split("\n")
    for index, stmt in enumerate(tree.body):
        if index == 0 and _docstring(stmt):
            continue
        if isinstance(stmt, ast.ImportFrom):
            imports += [(a.asname or a.name, stmt.module or "", a.name, stmt.level) for a in stmt.names]
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name \
                and value is None and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) \
                and stmt.value.func.id == collection.class_name:
            value = (_segment(lines, stmt.value), _fact_ids(stmt.value))
        else:
            return None
    if value is None or not value[1]:
        return None
    return Records((value,), tuple(imports))


def carried_singular(previous: Mapping[str, str], collection: Collection, live: AbstractSet[int],
                     ) -> tuple[Records, int]:
    """The previous version's model-written value of a singular vocabulary kind, when every
    fact it cites is still live (else it is dropped: count 1)."""
    tree = _parse(previous.get("__init__.py", ""))
    if tree is None:
        return Records((), ()), 0
    imported, _ = _joins(tree)
    module, name = imported.get(collection.attribute, ("", ""))
    if module != collection.records_module or name != SINGULAR_NAME.format(attribute=collection.attribute):
        return Records((), ()), 0
    found = read_singular(previous.get(f"{module}.py", ""), collection)
    if found is None:
        return Records((), ()), 0
    if all(i in live for i in found.items[0][1]):
        return found, 0
    return Records((), ()), 1


def singular_module(collection: Collection, records: Records) -> str:
    """A singular records module holding `records`' one value (carried from an earlier version)."""
    lines = [DEFAULT_RECORDS_DOC.rstrip("\n"), CARRIED_MARK]
    seen: set[str] = set()
    for local, module, name, level in records.imports:
        if local not in seen:
            seen.add(local)
            lines.append(f"from {'.' * level}{module} import {name}" + (f" as {local}" if local != name else ""))
    lines += ["", f"{SINGULAR_NAME.format(attribute=collection.attribute)}: {collection.class_name} | None = "
                  f"{records.items[0][0]}"]
    return "\n".join(lines) + "\n"


def with_new_collections(init_source: str, added: Mapping[str, Collection]) -> str:
    """`__init__.py` binding the vocabulary collections in `added`: the class import, and an
    empty join (`trips: list[Trip] = []`, which `joined_init` then extends) before the notes
    join, or a singular value imported from its records module (`from .passport_llm import
    passport as passport`)."""
    tree = _parse(init_source)
    if tree is None or not added:
        return init_source
    lines = init_source.split("\n")
    first_join = notes_join = None
    for stmt in tree.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and isinstance(stmt.value, ast.List):
            first_join = stmt.lineno - 1 if first_join is None else first_join
            if stmt.target.id == "notes":
                notes_join = stmt.lineno - 1
    imports: list[str] = []
    joins: list[str] = []
    for attribute, collection in sorted(added.items()):
        imports.append(f"from .{collection.module} import {collection.class_name} as {collection.class_name}")
        if collection.singular:
            imports.append(f"from .{collection.records_module} import "
                           f"{SINGULAR_NAME.format(attribute=attribute)} as {attribute}")
        else:
            joins.append(f"{attribute}: list[{collection.class_name}] = []")
    if first_join is None:  # no join yet: the imports, then the joins, at the end
        return "\n".join([*lines, *imports, *joins, ""] if lines and lines[-1] == "" else [*lines, *imports, *joins])
    at_join = len(lines) if notes_join is None else notes_join
    lines[at_join:at_join] = joins
    lines[first_join:first_join] = imports
    return "\n".join(lines)
