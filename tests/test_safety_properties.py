"""The allowlist's one kind of method: a record class's `@property` returning one
expression over its own fields. Before/after strings: each hostile variant is refused with
the rule named, by the `ast` allowlist and by the libcst second reading where it applies."""

from __future__ import annotations

import pytest

from codegen import cst_audit
from codegen.safety_rules import check_source

HEAD = '''"""Trips."""

from dataclasses import dataclass, field
from datetime import date


@dataclass(frozen=True, kw_only=True)
class Trip:
    """A trip."""

    destination: str | None = None
    departure_date: date | None = None
    return_date: date | None = None
    cost_usd: float | None = None
    fact_ids: list[int] = field(default_factory=list)
'''

NIGHTS = '''
    @property
    def nights(self) -> int | None:
        """Nights away."""
        return (self.return_date - self.departure_date).days \\
            if self.return_date is not None and self.departure_date is not None else None
'''


def _with(method: str) -> str:
    return HEAD + method


@pytest.mark.parametrize("method", [
    NIGHTS,
    "\n    @property\n    def year(self) -> int | None:\n"
    "        return self.departure_date.year if self.departure_date is not None else None\n",
    "\n    @property\n    def expensive(self) -> bool:\n        return self.cost_usd is not None and self.cost_usd > 1000\n",
    "\n    @property\n    def cited(self) -> int:\n        return len(self.fact_ids)\n",
    "\n    @property\n    def rounded(self) -> float:\n"
    "        return round(abs(self.cost_usd or 0.0) / 2 + max(1, 2) - min(3, 4), 2)\n",
    "\n    @property\n    def label(self) -> str:\n        return str(self.destination) if not self.destination is None else 'x'\n",
])
def test_a_derived_property_is_allowed(method: str) -> None:
    source = _with(method)
    assert check_source(source).problems == ()
    assert cst_audit.audit(source) == ()


def test_before_the_extension_a_method_was_refused_and_now_only_a_property_is() -> None:
    plain_method = _with("\n    def nights(self) -> int:\n        return 1\n")
    assert [p.rule for p in check_source(plain_method).problems] == ["statement"]
    assert [p.rule for p in cst_audit.audit(plain_method)] == ["libcst:function"]


HOSTILE = [
    ("imports", "property",
     "\n    @property\n    def x(self) -> int:\n        import os\n        return 1\n"),
    ("open", "call", "\n    @property\n    def x(self) -> str:\n        return str(open('MARKER', 'w'))\n"),
    ("dunder-attr", "dunder", "\n    @property\n    def x(self) -> str:\n        return str(self.__class__)\n"),
    ("dunder-chain", "dunder",
     "\n    @property\n    def x(self) -> str:\n        return str(self.destination.__class__)\n"),
    ("method-call", "attribute",
     "\n    @property\n    def x(self) -> str:\n        return self.destination.upper()\n"),
    ("loop", "property",
     "\n    @property\n    def x(self) -> int:\n        for i in self.fact_ids:\n            pass\n        return 1\n"),
    ("lambda", "expression", "\n    @property\n    def x(self) -> int:\n        return (lambda: 1)()\n"),
    ("walrus", "expression", "\n    @property\n    def x(self) -> int:\n        return (y := 1)\n"),
    ("comprehension", "expression",
     "\n    @property\n    def x(self) -> int:\n        return sum([i for i in self.fact_ids])\n"),
    ("f-string", "expression", "\n    @property\n    def x(self) -> str:\n        return f'{self.destination}'\n"),
    ("global-name", "name", "\n    @property\n    def x(self) -> int:\n        return len(globals)\n"),
    ("other-builtin", "call", "\n    @property\n    def x(self) -> int:\n        return eval('1')\n"),
    ("getattr", "call", "\n    @property\n    def x(self) -> int:\n        return getattr(self, 'cost_usd')\n"),
    ("keyword-call", "call", "\n    @property\n    def x(self) -> int:\n        return max(self.fact_ids, key=len)\n"),
    ("power", "property", "\n    @property\n    def x(self) -> int:\n        return len(self.fact_ids) ** 99\n"),
    ("subscript", "expression", "\n    @property\n    def x(self) -> int:\n        return self.fact_ids[0]\n"),
    ("not-a-field", "property", "\n    @property\n    def x(self) -> int:\n        return self.secret\n"),
    ("extra-argument", "property", "\n    @property\n    def x(self, y: int = 1) -> int:\n        return y\n"),
    ("no-return-type", "property", "\n    @property\n    def x(self):\n        return 1\n"),
    ("two-statements", "property",
     "\n    @property\n    def x(self) -> int:\n        y: int = 1\n        return 1\n"),
    ("other-decorator", "statement", "\n    @staticmethod\n    def x() -> int:\n        return 1\n"),
    ("two-decorators", "statement",
     "\n    @property\n    @staticmethod\n    def x(self) -> int:\n        return 1\n"),
    ("private-name", "property", "\n    @property\n    def _x(self) -> int:\n        return 1\n"),
    ("dunder-method", "dunder", "\n    @property\n    def __hash__(self) -> int:\n        return 1\n"),
    ("shadows-field", "property", "\n    @property\n    def cost_usd(self) -> float:\n        return 1.0\n"),
    ("shadows-import", "rebind", "\n    @property\n    def date(self) -> int:\n        return 1\n"),
    ("shadows-builtin", "rebind", "\n    @property\n    def len(self) -> int:\n        return 1\n"),
    ("async", "statement", "\n    @property\n    async def x(self) -> int:\n        return 1\n"),
    ("yield", "expression", "\n    @property\n    def x(self) -> int:\n        return (yield 1)\n"),
    ("await", "expression", "\n    @property\n    def x(self) -> int:\n        return (await self.cost_usd)\n"),
]


@pytest.mark.parametrize(("case", "rule", "method"), HOSTILE, ids=[c for c, _, _ in HOSTILE])
def test_a_hostile_property_is_refused(case: str, rule: str, method: str) -> None:
    problems = check_source(_with(method)).problems
    assert rule in {p.rule for p in problems}, (case, problems)


@pytest.mark.parametrize("tail", [
    "\nproperty = 1\n",
    "\nlen = 1\n",
    "\nfrom .other import len\n",
])
def test_a_rebound_builtin_is_refused(tail: str) -> None:
    method = "\n    @property\n    def cited(self) -> int:\n        return len(self.fact_ids)\n"
    problems = check_source(_with(method) + tail).problems
    assert "rebind" in {p.rule for p in problems}, problems


def test_a_property_outside_a_class_is_refused() -> None:
    source = '"""Doc."""\n\n\n@property\ndef x(self) -> int:\n    return 1\n'
    assert "statement" in {p.rule for p in check_source(source).problems}


def test_an_enum_still_takes_no_method() -> None:
    source = '"""Doc."""\nfrom enum import Enum\n\n\nclass A(Enum):\n    X = 1\n\n    @property\n' \
             '    def y(self) -> int:\n        return 1\n'
    assert "statement" in {p.rule for p in check_source(source).problems}
