"""A corpus of record chunks around a few class modules, for differential tests of
`codegen.record_types` against real `mypy --strict`: the compiler's shape, then single
mutations of it (each field given each value of a pool, a field dropped, an unknown
keyword, another class called, imports renamed or missing), then random combinations.
"""

from __future__ import annotations

import random

HEADER = '"""Generated classes."""\n\nfrom dataclasses import dataclass, field\nfrom datetime import date, datetime, time\n'

THING = HEADER + '''

@dataclass(frozen=True, kw_only=True)
class Thing:
    """A record."""

    name: str
    count: int | None = None
    amount: float | None = None
    total: float = 0.0
    flag: bool | None = None
    day: date | None = None
    moment: datetime | None = None
    at: time | None = None
    tags: list[str] = field(default_factory=list)
    days: list[date] = field(default_factory=list)
    maybe: list[int | None] | None = None
    fact_ids: list[int] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class Other:
    name: str
    fact_ids: list[int] = field(default_factory=list)
'''

# Classes the record check must not claim to understand, with a chunk that suits each.
ODD_CLASSES = {
    "plain": (HEADER + "\n\n@dataclass\nclass Plain:\n    name: str\n    count: int = 0\n", "Plain"),
    "nokw": (HEADER + "\n\n@dataclass(frozen=True)\nclass Nokw:\n    name: str\n    count: int = 0\n", "Nokw"),
    "noinit": (HEADER + "\n\n@dataclass(init=False)\nclass Noinit:\n    name: str = ''\n", "Noinit"),
    "hidden": (HEADER + "\n\n@dataclass(kw_only=True)\nclass Hidden:\n    name: str = ''\n"
                        "    count: int = field(init=False, default=0)\n", "Hidden"),
    "literal": ('from dataclasses import dataclass\nfrom typing import Literal\n\n\n'
                '@dataclass(kw_only=True)\nclass Lit:\n    name: Literal["a", "b"]\n', "Lit"),
    "derived": (HEADER + "\n\n@dataclass(kw_only=True)\nclass Base:\n    name: str = ''\n\n\n"
                         "@dataclass(kw_only=True)\nclass Derived(Base):\n    count: int = 0\n", "Derived"),
    "shadow": (HEADER + "\n\n@dataclass(kw_only=True)\nclass Shadow:\n    date: date | None = None\n"
                        "    when: date | None = None\n", "Shadow"),
    "aliased": ('from dataclasses import dataclass\nfrom datetime import date as _date\n\n\n'
                '@dataclass(kw_only=True)\nclass Aliased:\n    day: _date | None = None\n', "Aliased"),
    "helper": (HEADER + "\n\n@dataclass(kw_only=True)\nclass Helper:\n    field: int = 0\n    name: str = ''\n",
               "Helper"),
    "anyfield": ('from dataclasses import dataclass\nfrom typing import Any\n\n\n'
                 '@dataclass(kw_only=True)\nclass Anyf:\n    name: Any = None\n', "Anyf"),
}

VALUES = [
    "'x'", "''", "1", "0", "-1", "1.5", "-2.5", "True", "False", "None", "b'x'",
    "date(2024, 1, 2)", "date(2024, 1)", "date(2024, 1, 2, 3)", "datetime(2024, 1, 2)",
    "datetime(2024, 1, 2, 3, 4)", "datetime(2024, 1, 2, 3, 4, 5, 6)", "datetime(2024, 1, 2, 3, 4, 5, 6, 7)",
    "datetime(2024)", "time()", "time(1, 2)", "time(1, 2, 3, 4)", "time(1, 2, 3, 4, 5)", "_date(2024, 1, 2)",
    "date(2024, 1, True)", "[]", "[1, 2]", "[1, None]", "[None]", "['a', 'b']", "[1, 'a']", "[1.5]",
    "[True]", "[date(2024, 1, 2)]", "[datetime(2024, 1, 2)]", "[[1]]", "(1, 2)", "{'a': 1}", "{1}",
    "Other(name='x')", "-True", "-0.0", "[-1, None]",
]
# Values of the right type per field, so that random records are often well typed.
GOOD = {"name": ["'n'", "''"], "count": ["3", "-3", "None"], "amount": ["2.5", "2", "-1", "None"],
        "total": ["0.0", "7", "-7.5"], "flag": ["True", "False", "None"],
        "day": ["date(2024, 3, 8)", "None"], "moment": ["datetime(2024, 3, 8)", "datetime(2024, 3, 8, 9, 30, 1, 5)"],
        "at": ["time()", "time(9)", "time(9, 30, 1, 5)", "None"], "tags": ["[]", "['a', 'b']"],
        "days": ["[]", "[date(2024, 3, 8), date(2024, 3, 9)]"], "maybe": ["[]", "[1, None]", "None", "[None]"],
        "fact_ids": ["[]", "[1, 2]", "[-1]"]}

FIELDS = ["name", "count", "amount", "total", "flag", "day", "moment", "at", "tags", "days", "maybe", "fact_ids"]
BASE = {"name": "'n'", "count": "3", "amount": "2.5", "flag": "False", "day": "date(2024, 3, 8)",
        "moment": "datetime(2024, 3, 8, 9, 30)", "at": "time(9, 30)", "tags": "['a']",
        "days": "[date(2024, 3, 8)]", "fact_ids": "[1, 2]"}

IMPORTS = "from datetime import date, datetime, time\nfrom .thing import Thing, Other\n"


def chunk(list_name: str, records: list[str], *, imports: str = IMPORTS, annotation: str = "Thing") -> str:
    body = "".join(f"    {record},\n" for record in records)
    return f'"""Chunk {list_name}."""\n\n{imports}\n{list_name}: list[{annotation}] = [\n{body}]\n'


def record(values: dict[str, str], called: str = "Thing") -> str:
    return f"{called}(" + ", ".join(f"{k}={v}" for k, v in values.items()) + ")"


def cases(extra_random: int, seed: int = 9) -> list[tuple[str, str]]:
    """(description, chunk text) pairs; every chunk's list is named after its index."""
    found: list[tuple[str, list[str], dict[str, str]]] = []  # description, records, options

    def add(description: str, records: list[str], **options: str) -> None:
        found.append((description, records, options))

    add("compiler shape", [record(BASE), record({"name": "'m'"})])
    for name in FIELDS:
        for value in VALUES:
            add(f"{name}={value}", [record({**BASE, name: value})])
        add(f"without {name}", [record({k: v for k, v in BASE.items() if k != name})])
    add("unknown keyword", [record({**BASE, "colour": "'red'"})])
    add("another class called", [record({"name": "'x'"}, "Other")])
    add("list of one class holding another", [record({"name": "'x'"}, "Other")], annotation="Other",
        imports="from .thing import Thing\n")
    add("annotated Other, holding Other", [record({"name": "'x'"}, "Other")], annotation="Other")
    add("date renamed", [record({**BASE, "day": "_date(2024, 1, 2)"})],
        imports="from datetime import date as _date, datetime, time\nfrom .thing import Thing, Other\n")
    add("class renamed", [record({"name": "'x'"}, "T")], annotation="T",
        imports="from datetime import date\nfrom .thing import Thing as T\n")
    add("no datetime import", [record({**BASE, "day": "date(2024, 1, 2)"})], imports="from .thing import Thing\n")
    add("datetime imported as date", [record({**BASE, "day": "date(2024, 1, 2, 3)"})],
        imports="from datetime import datetime as date, time\nfrom datetime import datetime\n"
                "from .thing import Thing\n")
    add("class from a missing module", [record({"name": "'x'"})], imports="from .nowhere import Thing\n")
    add("class missing from its module", [record({"name": "'x'"}, "Nope")], annotation="Nope",
        imports="from .thing import Nope\n")
    add("type ignore comment", [record({"name": "'x'"}) + "  # type: ignore"])
    add("mypy comment", [record({"name": "'x'"})], imports="# mypy: disallow-any-expr\n" + IMPORTS)
    add("typing import", [record({"name": "'x'"})], imports="from typing import Any\n" + IMPORTS)
    add("list named like the class", [record({"name": "'x'"})], annotation="Thing")
    for key, (_, cls) in ODD_CLASSES.items():
        add(f"odd class {key}", [f"{cls}(name='x')", f"{cls}(count=1)", f"{cls}(day=date(2024, 1, 2))",
                                 f"{cls}(date=date(2024, 1, 2), when=date(2024, 1, 2))", f"{cls}(name='a')"],
            annotation=cls, imports=f"from datetime import date\nfrom .{key} import {cls}\n")
        add(f"odd class {key}, one field", [f"{cls}(name='a')"], annotation=cls,
            imports=f"from .{key} import {cls}\n")
        add(f"odd class {key}, date fields", [f"{cls}(day=date(2024, 1, 2))", f"{cls}(when=date(2024, 1, 2))"],
            annotation=cls, imports=f"from datetime import date\nfrom .{key} import {cls}\n")
    rng = random.Random(seed)
    for number in range(extra_random):
        records = []
        for _ in range(rng.randint(1, 4)):
            chosen = rng.sample(FIELDS, rng.randint(0, len(FIELDS)))
            if "name" not in chosen and rng.random() < 0.9:
                chosen.append("name")
            values = {name: rng.choice(GOOD[name] * 600 + VALUES) for name in chosen}
            records.append(record(values, rng.choice(["Thing"] * 20 + ["Other"])))
        add(f"random {number}", records)
    out = []
    for index, (description, records, options) in enumerate(found):
        name = f"_things_{index:04d}"
        if description == "list named like the class":
            name = "Thing"
        out.append((description, chunk(name, records, **options)))
    return out


def package(chunks: list[str]) -> dict[str, str]:
    """A package holding the class modules and `chunks` as `c0000.py`, `c0001.py`, ...;
    an `__init__.py` of a docstring only."""
    files = {"__init__.py": '"""Corpus."""\n', "thing.py": THING}
    files.update({f"{key}.py": text for key, (text, _) in ODD_CLASSES.items()})
    files.update({f"c{index:04d}.py": text for index, text in enumerate(chunks)})
    return files
