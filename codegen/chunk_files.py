"""The package's files as the compiler writes them into the state's `files` table: chunk
modules (split in halves while too large for a file), class modules and `__init__.py`,
each with its header (position and input hash, see `codegen.compile`)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol, TypeVar

from codegen.compile_state import CLASS_CHUNK, FileRow, StateDb
from codegen.render import Export, Header, Record, chunk_module, chunk_module_lines, class_module, init_module
from codegen.schema import ClassSpec, spec_digest
from factlog.limits import MAX_FILE_BYTES

MAX_CHUNK_BYTES = MAX_FILE_BYTES // 2  # a chunk over this is split in halves
INIT = "__init__.py"
INIT_KIND = "/init"  # the `kind` of `__init__.py` in the state's files table


def hash_of(hashes: Iterable[str]) -> str:
    """sha256 over the items, each followed by a line break (non-ASCII characters as '?')."""
    items = list(hashes)
    if not items:
        return hashlib.sha256().hexdigest()
    return hashlib.sha256(("\n".join(items) + "\n").encode("ascii", "replace")).hexdigest()


class Item(Protocol):
    """One record of a chunk (an entity or a note): its line, the temporal names it uses
    (comma-separated), and its (fact id, hash) pairs."""

    @property
    def line(self) -> str: ...

    @property
    def needs(self) -> str: ...

    def cites(self) -> tuple[tuple[int, str], ...]: ...


_I = TypeVar("_I", bound=Item)


def _too_large(source: str) -> bool:
    """A chunk's source is over MAX_CHUNK_BYTES in UTF-8 (at most 4 bytes a character)."""
    return len(source) * 4 > MAX_CHUNK_BYTES and len(source.encode("utf-8", "surrogatepass")) > MAX_CHUNK_BYTES


class Writer:
    """Renders files into the state's files table."""

    def __init__(self, user: str, db: StateDb) -> None:
        self.user, self.db = user, db
        self.written: dict[str, str] = {}  # file name -> source, as written by this compile

    def _put(self, row: FileRow, source: str) -> None:
        self.db.put_file(row, source)
        self.written[row.name] = source

    def chunk(self, kind: str, index: int, spec: ClassSpec, items: Sequence[_I],
              record: Callable[[_I], Record], fresh: bool = False) -> None:
        """One chunk's files (none when it has no records); `record` builds an item's
        `Record` (for a module that must alias a name). `fresh`: the kind has no files yet."""
        if not fresh:
            self.db.delete_files(kind, index)
        if items:
            names = spec.names
            self._chunk(kind, index, spec, f"{names.stem}_{index:03d}", f"_{names.attribute}_{index:03d}", items,
                        record)

    def _chunk(self, kind: str, index: int, spec: ClassSpec, stem: str, list_name: str,
               items: Sequence[_I], record: Callable[[_I], Record]) -> None:
        """One chunk module, or, when its records are too large together for one file (many
        long notes), its two halves as `<stem>_1` and `<stem>_2`, and so on: every fact the
        door accepts fits a file on its own, so no number of them blocks a checkpoint."""
        pairs = sorted(pair for item in items for pair in item.cites())
        contents = f"{list_name}, {len(items)} record(s) of class {spec.names.class_name}"
        input_hash = hash_of([h for _, h in pairs])
        header = Header(self.user, pairs[-1][0] if pairs else 0, input_hash, "facts in this file", contents)
        needed = {name for text in {item.needs for item in items} for name in text.split(",") if name}
        source = chunk_module_lines(spec, list_name, [item.line for item in items], needed, header)
        if source is None:
            source = chunk_module(spec, list_name, [record(item) for item in items], header)
        if len(items) > 1 and _too_large(source):
            half = len(items) // 2
            for part, piece in enumerate((items[:half], items[half:]), start=1):
                self._chunk(kind, index, spec, f"{stem}_{part}", f"{list_name}_{part}", piece, record)
            return
        self._put(FileRow(f"{stem}.py", kind, index, list_name, input_hash), source)

    def class_file(self, kind: str, spec: ClassSpec, doc: str, singular: tuple[Record, Sequence[str]] | None) -> None:
        names = spec.names
        if singular is not None:
            pairs = sorted(zip(singular[0].fact_ids, singular[1]))
            input_hash = hash_of(h for _, h in pairs)
            header = Header(self.user, pairs[-1][0], input_hash, "facts in this file", f"class {names.class_name}")
        else:
            input_hash = spec_digest(spec)
            header = Header(self.user, None, input_hash, "the field types of its records",
                            f"class {names.class_name}")
        source = class_module(spec, header, doc, None if singular is None else singular[0])
        self._put(FileRow(f"{names.stem}.py", kind, CLASS_CHUNK, "", input_hash), source)

    def init(self, position: int, exports: Sequence[Export], quarantined: Mapping[int, str]) -> str:
        rows = [r for r in self.db.file_rows() if r.name != INIT]
        input_hash = hash_of(r.input_hash for r in rows)
        contents = ", ".join(e.spec.names.attribute for e in exports)
        header = Header(self.user, position, input_hash, "the whole log", contents)
        self._put(FileRow(INIT, INIT_KIND, CLASS_CHUNK, "", input_hash), init_module(exports, header, quarantined))
        return input_hash
