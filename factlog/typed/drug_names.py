"""Finding the drug, brand and class names of the bundled drug table in a sentence by word
lookup (one to three words at a time, case-folded), which costs far less than one regular
expression over some four hundred names; used the way a compiled pattern is."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from factlog.reference.drugs import drug_index
from factlog.reference.tables import drug_table

_TOKEN = re.compile(r"#?[A-Za-z0-9][A-Za-z0-9'-]*")
EXTRA_NAMES = ("sulfa",)  # a class word conversation uses that the table lists under another name


@dataclass(frozen=True)
class Found:
    """A name found: where it is and the text as written."""

    begin: int
    finish: int
    text: str

    def start(self) -> int:
        return self.begin

    def end(self) -> int:
        return self.finish

    def group(self, _: int = 0) -> str:
        return self.text


class DrugNames:
    """The table's names: `finditer`, `search`, `match` (a name starting at a position) and
    `fullmatch` (the whole text is a name), whole words only, case-insensitively."""

    def __init__(self, names: set[str]) -> None:
        self._names = frozenset(" ".join(m.group(0) for m in _TOKEN.finditer(name.casefold())) for name in names)
        self._longest = max(len(name.split()) for name in self._names)

    def finditer(self, text: str, pos: int = 0) -> tuple[Found, ...]:
        return self._find(text, pos)

    @lru_cache(maxsize=64)  # noqa: B019 - one table for the process: the instance lives as long
    def _find(self, text: str, pos: int) -> tuple[Found, ...]:
        tokens = [m for m in _TOKEN.finditer(text, pos)]
        words = [m.group(0).casefold() for m in tokens]
        found: list[Found] = []
        i = 0
        while i < len(tokens):
            for n in range(min(self._longest, len(tokens) - i), 0, -1):
                if " ".join(words[i:i + n]) in self._names:
                    begin, finish = tokens[i].start(), tokens[i + n - 1].end()
                    if finish < len(text) and text[finish] == "-" or begin > 0 and text[begin - 1] == "-":
                        continue
                    found.append(Found(begin, finish, text[begin:finish]))
                    i += n
                    break
            else:
                i += 1
        return tuple(found)

    def search(self, text: str) -> Found | None:
        found = self.finditer(text)
        return found[0] if found else None

    def match(self, text: str, pos: int = 0) -> Found | None:
        found = self.finditer(text, pos)
        return found[0] if found and found[0].begin == pos else None

    def fullmatch(self, text: str) -> Found | None:
        found = self.match(text)
        return found if found is not None and found.finish == len(text) else None


@cache
def drug_names() -> DrugNames:
    """Every drug, brand and class name the table knows."""
    index = drug_index()
    return DrugNames({*index.member_classes, *index.brands, *index.class_names, *drug_table().all_brands(), *EXTRA_NAMES})
