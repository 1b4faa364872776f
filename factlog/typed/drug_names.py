"""Finding the drug, brand and class names of the bundled drug table in a sentence by word
lookup (one to three words at a time, case-folded), which costs far less than one regular
expression over some four hundred names; used the way a compiled pattern is.

A drug or brand name of six letters or more is also found misspelt by one letter ("eloquis",
"amoxicilin", "sertaline") or spelt as it sounds ("ibuprophen"): same first letter, one
letter added, left out or changed anywhere but at the end (so "concert" is not "Concerta",
nor "ambient" "Ambien"), or with the final vowel a Spanish, Portuguese or Italian generic adds
("amoxicilina", "ibuprofeno", "penicilina"). Such a finding's `group()` is the name it stands for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from factlog.reference.drugs import drug_index, name_words
from factlog.reference.tables import drug_table

_TOKEN = re.compile(r"#?[A-Za-z0-9][A-Za-z0-9'-]*")
EXTRA_NAMES = ("sulfa",)  # a class word conversation uses that the table lists under another name


@dataclass(frozen=True)
class Found:
    """A name found: where it is and the text as written (the name meant, when misspelt)."""

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

    def __init__(self, names: set[str], spellable: set[str] | None = None) -> None:
        self._names = frozenset(" ".join(m.group(0) for m in _TOKEN.finditer(name.casefold())) for name in names)
        self._longest = max(len(name.split()) for name in self._names)
        self._sounds: dict[str, set[str]] = {}  # a name's sound key, and each with one letter left out -> names
        self._seen: dict[str, str | None] = {}  # words already looked up -> the name they misspell
        for name in spellable or ():
            folded = name.casefold()
            if len(folded) >= _SPELT and folded.isalpha():
                key = _sound(folded)
                for variant in {key, *(key[:i] + key[i + 1:] for i in range(1, len(key) - 1))}:
                    self._sounds.setdefault(variant, set()).add(folded)

    def misspelt(self, word: str) -> str | None:
        """The one drug name `word` is a misspelling of, or None."""
        folded = word.casefold()
        if len(folded) < _SPELT or not folded.isalpha() or not self._sounds or folded in self._names:
            return None
        if folded not in self._seen:
            if len(self._seen) > 50_000:
                self._seen.clear()
            self._seen[folded] = self._misspelt(folded)
        return self._seen[folded]

    def _misspelt(self, folded: str) -> str | None:
        key = _sound(folded)
        candidates = set(self._sounds.get(key, ()))
        for i in range(1, len(key) - 1):
            candidates |= self._sounds.get(key[:i] + key[i + 1:], set())
        close = sorted(name for name in candidates if _one_apart(key, _sound(name)))
        if not close and key[-1] in "ao":  # a Spanish, Portuguese or Italian generic: "amoxicilina", "sertralina"
            stems = {key[:-1], key[:-1] + "e"}
            close = sorted(name for stem in stems for name in self._sounds.get(stem, ()) if _sound(name) == stem)
        return close[0] if len(close) == 1 else None

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
                meant = self.misspelt(words[i]) if self._sounds else None
                if meant is not None:
                    found.append(Found(tokens[i].start(), tokens[i].end(), meant))
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


_SPELT = 6  # the shortest name found misspelt


def _sound(word: str) -> str:
    """A spelling key: "ph" as "f", "y" as "i", doubled letters once ("ibuprophen" = "ibuprofen")."""
    return re.sub(r"(.)\1+", r"\1", word.replace("ph", "f").replace("y", "i"))


def _one_apart(said: str, name: str) -> bool:
    """One letter added, left out or changed, never the first or the last ("eloquis" / "eliquis")."""
    if said == name:
        return True
    if said[0] != name[0] or said[-1] != name[-1] or abs(len(said) - len(name)) > 1:
        return False
    if len(said) == len(name):
        return sum(a != b for a, b in zip(said, name, strict=True)) == 1
    short, long = (said, name) if len(said) < len(name) else (name, said)
    return any(long[:i] + long[i + 1:] == short for i in range(1, len(long) - 1))


@cache
def drug_names() -> DrugNames:
    """Every drug, brand and class name the table knows (drugs and brands also misspelt)."""
    index = drug_index()
    brands = drug_table().all_brands()
    return DrugNames({*index.member_classes, *index.brands, *index.class_names, *brands, *EXTRA_NAMES},
                     {*index.member_classes, *(name_words(brand) for brand in brands)})
