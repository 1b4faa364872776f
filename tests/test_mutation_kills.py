"""Boundary tests that kill mutants which survived the rest of the suite (docs/MUTATION.md).

Every limit is pinned from both sides: the value at the limit is accepted and one past it
is refused, so moving the limit or turning `>` into `>=` fails here. The same goes for
the validation cache key (every input that changes the verdict must miss the cache), the
query allowlists (names that must stay refused are listed here, not read from the policy)
and the built-in constraints' day thresholds.
"""

from __future__ import annotations

import ast
import hashlib
import hmac
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
from constraint_records import Allergy, Bill, Document, Medication, Vehicle, record_class, user_module
from test_constraints import NOW, alerts, day, ulaanbaatar, us_passport

from codegen import safety
from codegen.problems import Problem
from codegen.safety import SafetyChecker, SafetyFailure, SafetySuccess
from codegen.safety_rules import Limits, check_source
from constraints import run_constraints
from constraints.builtin import (
    bills_due,
    document_expiry,
    medication_allergy,
    overlapping_trips,
    passport_expiry,
    passport_valid_for_trips,
    vehicle_service_due,
)
from factlog.errors import InputError
from factlog.hashing import GENESIS, canonical_json, content_hash, key_fingerprint
from factlog.limits import int_too_long, reserved_field_name
from factlog.model import JsonValue, NewFact, check_fields
from runtime.query_compile import QueryRejected, compile_query
from runtime.safe_eval import QueryFailure, QuerySuccess, evaluate

DEFAULT = Limits()


def rules(source: str, limits: Limits = DEFAULT) -> list[str]:
    return [p.rule for p in check_source(source, limits).problems]


# --- codegen safety: literal, depth and size limits ----------------------------------------------


def test_string_literal_at_the_limit_passes_and_one_more_is_refused() -> None:
    assert DEFAULT.max_string == 262_144
    assert rules(f'x = "{"a" * 262_144}"\n') == []
    assert rules(f'x = "{"a" * 262_145}"\n') == ["literal-size"]


def test_string_limit_counts_characters_in_any_position() -> None:
    small = Limits(max_string=5)
    assert rules('x = ["abcde", {"abcde": "abcde"}]\n', small) == []
    assert rules('x = {"k": "abcdef"}\n', small) == ["literal-size"]
    assert rules('x = {"abcdef": 1}\n', small) == ["literal-size"]
    assert rules('x: str = "ééééé"\n', small) == []  # characters, not bytes


@pytest.mark.parametrize("sign", ["", "-", "+"])
def test_integer_literal_of_32_digits_passes_and_33_are_refused(sign: str) -> None:
    assert DEFAULT.max_int_digits == 32
    assert rules(f"x = {sign}{'9' * 32}\n") == []
    assert rules(f"x = {sign}1{'0' * 32}\n") == ["literal-size"]
    assert rules(f"x = [{sign}1{'0' * 32}]\n") == ["literal-size"]


def test_values_nest_24_levels_and_25_are_refused() -> None:
    assert DEFAULT.max_depth == 24
    assert rules("x = " + "[" * 24 + "0" + "]" * 24 + "\n") == []
    assert rules("x = " + "[" * 25 + "0" + "]" * 25 + "\n") == ["nesting"]
    assert rules("x = " + "{1: " * 24 + "0" + "}" * 24 + "\n") == []
    assert set(rules("x = " + "{1: " * 25 + "0" + "}" * 25 + "\n")) == {"nesting"}


def test_annotations_nest_24_levels_and_25_are_refused() -> None:
    assert rules("x: " + "list[" * 24 + "int" + "]" * 24 + "\n") == []
    assert "nesting" in rules("x: " + "list[" * 25 + "int" + "]" * 25 + "\n")


def test_call_arguments_count_towards_the_depth() -> None:
    head = "from dataclasses import dataclass\n\n@dataclass\nclass Box:\n    v: object\n\n"
    assert rules(head + "x = " + "Box(" * 24 + "0" + ")" * 24 + "\n") == []
    assert rules(head + "x = " + "Box(" * 25 + "0" + ")" * 25 + "\n") == ["nesting"]
    assert rules(head + "x = " + "Box(v=" * 25 + "0" + ")" * 25 + "\n") == ["nesting"]


def test_file_size_limit_counts_utf8_bytes() -> None:
    small = Limits(max_file_bytes=20)
    assert rules("x = 1\n# " + "a" * 11 + "\n", small) == []  # 20 bytes
    assert rules("x = 1\n# " + "a" * 12 + "\n", small) == ["file-size"]  # 21 bytes
    assert rules("x = 1\n# " + "é" * 6 + "\n", small) == ["file-size"]  # 15 characters, 21 bytes


def test_default_file_size_is_eight_mebibytes() -> None:
    line = "#" + "a" * 20_000 + "\n"  # over 400 lines: the libcst second reading is skipped
    body = line * 419
    pad = 8 * 1024 * 1024 - len(body) - 1
    exact = body + "#" + "a" * (pad - 1) + "\n"
    assert len(exact.encode()) == 8 * 1024 * 1024
    assert rules(exact) == []
    assert rules(exact + "\n") == ["file-size"]


# --- codegen safety: the package ------------------------------------------------------------------


def package_of(count: int) -> dict[str, str]:
    files = {"__init__.py": '"""Package."""\n'}
    files.update({f"m{i:05d}.py": "x = 1\n" for i in range(count - 1)})
    return files


def test_a_package_of_10000_files_passes_and_10001_are_refused() -> None:
    checker = SafetyChecker()
    at_limit = checker.check(package_of(10_000))
    assert isinstance(at_limit, SafetySuccess) and at_limit.files == 10_000
    over = checker.check(package_of(10_001))
    assert isinstance(over, SafetyFailure) and over.parsed == 0
    assert [(p.rule, p.message) for p in over.problems] == [("file-name", "10001 files; at most 10000")]


def test_file_count_limit_follows_the_limits_given() -> None:
    checker = SafetyChecker(limits=Limits(max_files=3))
    assert isinstance(checker.check(package_of(3)), SafetySuccess)
    assert isinstance(checker.check(package_of(4)), SafetyFailure)


def test_package_level_problems_are_reported_exactly() -> None:
    """These problems are what the LLM is shown to repair the package: file, place and words matter."""
    long_name = "Bad-" + "x" * 100 + ".py"
    verdict = SafetyChecker(limits=Limits(max_files=2)).check(
        {"a.py": "x = 1\n", "__b__.py": "x = 1\n", long_name: "x = 1\n"})
    assert isinstance(verdict, SafetyFailure) and verdict.parsed == 0
    rule = "file names must match [a-z_][a-z0-9_]*.py (no other dunder files)"
    assert verdict.problems == (
        Problem("file-name", "", 0, 0, "3 files; at most 2"),
        Problem("file-name", "__init__.py", 0, 0, "a package needs an __init__.py"),
        Problem("file-name", "__b__.py", 0, 0, rule),
        Problem("file-name", long_name[:80], 0, 0, rule),
    )
    verdict = SafetyChecker().check({"__init__.py": b"x = 1\n"})  # type: ignore[dict-item]
    assert isinstance(verdict, SafetyFailure)
    assert verdict.problems == (Problem("file-name", "__init__.py", 0, 0, "file content must be text"),)


SOURCE = 'x = "a twenty char str"\n'


def test_cache_hits_for_the_same_text_and_limits(tmp_path: Path) -> None:
    first = SafetyChecker(tmp_path)
    assert first.check({"__init__.py": SOURCE}) == SafetySuccess(1, 1)
    assert first.check({"__init__.py": SOURCE}) == SafetySuccess(1, 0)  # memory
    assert SafetyChecker(tmp_path).check({"__init__.py": SOURCE}) == SafetySuccess(1, 0)  # disk


def test_cache_misses_when_the_limits_change(tmp_path: Path) -> None:
    assert isinstance(SafetyChecker(tmp_path).check({"__init__.py": SOURCE}), SafetySuccess)
    strict = SafetyChecker(tmp_path, limits=Limits(max_string=10))
    verdict = strict.check({"__init__.py": SOURCE})
    assert isinstance(verdict, SafetyFailure) and verdict.parsed == 1
    assert [p.rule for p in verdict.problems] == ["literal-size"]
    assert isinstance(SafetyChecker(tmp_path).check({"__init__.py": SOURCE}), SafetySuccess)


def test_cache_misses_when_the_rules_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    SafetyChecker(tmp_path).check({"__init__.py": SOURCE})
    monkeypatch.setattr(safety, "_RULES_DIGEST", "0" * 64)
    assert SafetyChecker(tmp_path).check({"__init__.py": SOURCE}) == SafetySuccess(1, 1)


def test_cache_misses_when_one_character_changes(tmp_path: Path) -> None:
    checker = SafetyChecker(tmp_path)
    checker.check({"__init__.py": SOURCE})
    hostile = SOURCE.replace('"a twenty char str"', "open('x')")
    verdict = checker.check({"__init__.py": hostile})
    assert isinstance(verdict, SafetyFailure) and verdict.parsed == 1
    # a verdict is keyed by the text, not by the file name
    assert checker.check({"__init__.py": SOURCE, "other.py": SOURCE}) == SafetySuccess(2, 0)


def test_a_lone_surrogate_gets_a_verdict_not_a_crash(tmp_path: Path) -> None:
    verdict = SafetyChecker(tmp_path).check({"__init__.py": 'x = "\ud800"\n'})
    assert isinstance(verdict, SafetyFailure) and verdict.parsed == 1


def test_the_memory_cache_keeps_as_many_verdicts_as_allowed() -> None:
    checker = SafetyChecker(memory_entries=2)
    files = {"__init__.py": "x = 1\n", "a.py": "y = 2\n"}
    assert checker.check(files) == SafetySuccess(2, 2)
    assert checker.check(files) == SafetySuccess(2, 0)
    checker.check({"__init__.py": "z = 3\n"})  # evicts the oldest verdict
    assert checker.check(files).parsed == 1  # type: ignore[union-attr]


def test_a_verdict_read_from_disk_equals_the_fresh_one(tmp_path: Path) -> None:
    """Problems, exports and sibling uses survive the disk cache, so the package checks still apply."""
    files = {
        "__init__.py": "from .trip import Trip\nfrom .trip import missing\n",
        "trip.py": "from dataclasses import dataclass\n\n@dataclass\nclass Trip:\n    name: str\n\nx = Trip('a')\n"
                   "y = open('f')\n",
        "more.py": "from .trip import x\nz = x(1)\nw = 'é' * 2\n",
    }
    fresh = SafetyChecker(tmp_path).check(files)
    cached = SafetyChecker(tmp_path).check(files)
    assert isinstance(fresh, SafetyFailure) and fresh.parsed == 3
    assert isinstance(cached, SafetyFailure) and cached.parsed == 0
    assert cached.problems == fresh.problems
    assert {(p.file, p.rule) for p in fresh.problems} >= {("trip.py", "call"), ("__init__.py", "import"),
                                                          ("more.py", "import")}
    lines = {(p.file, p.line, p.column) for p in fresh.problems if p.rule == "import"}
    assert lines == {("__init__.py", 2, 1), ("more.py", 1, 1)}


def test_a_damaged_cache_entry_is_checked_again(tmp_path: Path) -> None:
    SafetyChecker(tmp_path).check({"__init__.py": "x = open('f')\n"})
    for entry in tmp_path.rglob("*.json"):
        entry.write_text('{"problems": [], "exports": {}, "uses": [', "utf-8")
    verdict = SafetyChecker(tmp_path).check({"__init__.py": "x = open('f')\n"})
    assert isinstance(verdict, SafetyFailure) and verdict.parsed == 1


# --- query policy: expression limits -------------------------------------------------------------


def rejected(expression: str) -> str | None:
    try:
        compile_query(expression)
    except QueryRejected as error:
        return error.message
    return None


def test_expression_of_2000_characters_passes_and_2001_are_refused() -> None:
    assert rejected("1" + " " * 1999) is None
    assert rejected("1" + " " * 2000) == "expression is 2,001 characters (limit 2,000)"


def nodes(expression: str) -> int:
    return len(list(ast.walk(ast.parse(expression, mode="eval"))))


def test_expression_of_600_parts_passes_and_601_are_refused() -> None:
    at_limit = "[" + "0," * 597 + "]"
    assert nodes(at_limit) == 600
    assert rejected(at_limit) is None
    assert rejected("[" + "0," * 598 + "]") == "expression has over 600 parts"


def depth(expression: str) -> int:
    stack: list[tuple[ast.AST, int]] = [(ast.parse(expression, mode="eval"), 0)]
    deepest = 0
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in ast.iter_child_nodes(node))
    return deepest


def test_expression_nesting_40_levels_passes_and_41_are_refused() -> None:
    at_limit = "[" * 39 + "0" + "]" * 39
    assert depth(at_limit) == 40
    assert rejected(at_limit) is None
    assert rejected("[" * 40 + "0" + "]" * 40) == "expression nests deeper than 40 levels"


def test_format_spec_limits() -> None:
    assert rejected('f"{1:' + "x" * 30 + '}"') is None
    assert rejected('f"{1:' + "x" * 31 + '}"') is not None
    assert rejected('f"{1:>999}"') is None
    assert rejected('f"{1:>1000}"') is not None
    assert rejected('f"{1:.999f}"') is None
    assert rejected('f"{1:.1000f}"') is not None
    assert rejected('f"{1:{2}}"') == "f-string format specs must be plain text"


@pytest.mark.parametrize("expression", ["_x", "trips._x", "f(_x=1)", "(lambda _x: 1)", "[1 for _x in y]",
                                        "x.__class__", "__import__"])
def test_underscore_names_are_refused_everywhere(expression: str) -> None:
    assert "names starting with '_'" in (rejected(expression) or "")


def test_a_lone_underscore_is_an_ordinary_name() -> None:
    assert rejected("[_ for _ in range(3)]") is None
    assert evaluate("[_ for _ in range(3)]", {}) == QuerySuccess([0, 1, 2], pytest.approx(0, abs=1e9))  # type: ignore[arg-type]


@pytest.mark.parametrize("expression", ["(x := 1)", "[(y := 1) for x in z]", "x[0] == 1 or (x.a := 1)"])
def test_assignment_expressions_are_refused(expression: str) -> None:
    message = rejected(expression)
    assert message is not None and ("not allowed" in message or "invalid" in message or message)


def test_assignment_targets_are_refused() -> None:
    # a comprehension target that is an attribute or subscript would write through the query
    assert rejected("[1 for x.a in [1]]") is not None
    assert rejected("[1 for x[0] in [1]]") is not None


# --- query guard: allowlists and size limits ------------------------------------------------------


@dataclass(frozen=True)
class Rec:
    n: int


NAMESPACE: dict[str, object] = {"s": "text", "n": 7, "xs": [1, 2], "d": {"a": 1}, "st": {1}, "day": date(2025, 1, 2),
                                "rec": Rec(3)}

# Attributes that would mutate data, reach outside or grow without a budget: each must stay refused.
MUST_REFUSE = [
    "s.format('{0.__class__}')", "s.format_map({})", "s.encode()", "s.translate({})", "s.expandtabs(10**6)",
    "s.maketrans('a', 'b')", "n.to_bytes(2, 'big')", "n.from_bytes(b'a', 'big')", "xs.append(1)",
    "xs.extend([1])", "xs.insert(0, 1)", "xs.pop()", "xs.clear()", "xs.sort()", "xs.remove(1)", "xs.reverse()",
    "d.update({})", "d.pop('a')", "d.setdefault('b', 1)", "d.clear()", "d.fromkeys([1])", "d.popitem()",
    "st.add(2)", "st.update({2})", "st.discard(1)", "st.pop()", "st.clear()", "date.fromtimestamp(0)",
    "day.fromtimestamp(0)", "rec.n.to_bytes(1, 'big')",
]


@pytest.mark.parametrize("expression", MUST_REFUSE)
def test_attributes_outside_the_allowlist_are_refused(expression: str) -> None:
    result = evaluate(expression, NAMESPACE)
    assert isinstance(result, QueryFailure) and result.kind == "forbidden", result
    assert NAMESPACE["xs"] == [1, 2] and NAMESPACE["d"] == {"a": 1} and NAMESPACE["st"] == {1}


@pytest.mark.parametrize(("expression", "value"), [
    ("s.upper()", "TEXT"), ("n.bit_length()", 3), ("xs.count(1)", 1), ("d.get('a')", 1), ("st.union({2})", {1, 2}),
    ("day.year", 2025), ("date.fromisoformat('2025-01-02')", date(2025, 1, 2)), ("rec.n", 3),
    ("s.ljust(6)", "text  "), ("'-'.join(['a', 'b'])", "a-b"), ("s.replace('t', 'T')", "TexT"),
])
def test_attributes_inside_the_allowlist_work(expression: str, value: object) -> None:
    result = evaluate(expression, NAMESPACE)
    assert isinstance(result, QuerySuccess) and result.value == value, result


def kind_of(expression: str) -> str:
    result = evaluate(expression, {}, time_limit_s=5.0)
    return "ok" if isinstance(result, QuerySuccess) else result.kind


@pytest.mark.parametrize(("ok", "over"), [
    ("len('a' * 1_000_000)", "len('a' * 1_000_001)"),
    ("len(1_000_000 * 'a')", "len(1_000_001 * 'a')"),
    ("len([0] * 1_000_000)", "len([0] * 1_000_001)"),
    ("len('a' * 999_999 + 'b')", "len('a' * 1_000_000 + 'b')"),
    ("len([0] * 999_999 + [1])", "len([0] * 1_000_000 + [1])"),
    ("len('a'.ljust(1_000_000))", "len('a'.ljust(1_000_001))"),
    ("len('ab'.replace('b', 'c' * 999_999))", "len('ab'.replace('b', 'c' * 1_000_000))"),
    ("len('-'.join(['a' * 999_999]))", "len('-'.join(['a' * 999_999, 'b']))"),
    ("(1 << 49_999) * (1 << 49_999) > 0", "(1 << 50_000) * (1 << 49_999) > 0"),
    ("2 ** 100_000 > 0", "2 ** 100_001 > 0"),
    ("1 << 99_999 > 0", "1 << 100_000 > 0"),
])
def test_size_limits_at_and_one_past(ok: str, over: str) -> None:
    assert kind_of(ok) == "ok"
    assert kind_of(over) == "memory"


def test_repeating_nested_structure_is_bounded() -> None:
    assert kind_of("len([[0] * 10] * 10_000)") == "ok"
    assert kind_of("len([['a' * 1000]] * 10_000)") == "memory"


def test_percent_formatting_is_refused() -> None:
    assert kind_of("'%s' % 1") == "forbidden"
    assert kind_of("7 % 3") == "ok"


# --- built-in constraints: day thresholds ---------------------------------------------------------

DEPART = day(30)


@pytest.mark.parametrize(("spare", "warned"), [(179, True), (180, False), (181, False)])
def test_passport_needs_180_days_after_departure(spare: int, warned: bool) -> None:
    """The margin runs from departure (arrival), not return: the trip lasts 10 days."""
    trip = ulaanbaatar(DEPART, day(40))
    found = alerts(passport_valid_for_trips, user_module(passport=us_passport(day(30 + spare)), trips=[trip]))
    assert [a.severity for a in found] == (["warning"] if warned else [])


def test_passport_margin_counts_from_departure_even_for_long_trips() -> None:
    """Expiry 185 days after departure but 5 after return: valid for the whole trip, enough margin."""
    trip = ulaanbaatar(DEPART, day(210))
    assert alerts(passport_valid_for_trips, user_module(passport=us_passport(day(215)), trips=[trip])) == []


@pytest.mark.parametrize(("expiry", "severity", "leg"), [
    (day(39), "critical", "return"), (day(40), "warning", None), (day(29), "critical", "departure"),
    (day(30), "critical", "return"),
])
def test_passport_expiring_during_the_trip_is_critical(expiry: date, severity: str, leg: str | None) -> None:
    [alert] = alerts(passport_valid_for_trips, user_module(passport=us_passport(expiry), trips=[ulaanbaatar(DEPART, day(40))]))
    assert alert.severity == severity
    if leg:
        assert f"Ulaanbaatar {leg}" in alert.message
    else:
        assert "on the day of your Ulaanbaatar return" in alert.message


def test_a_trip_returning_today_is_still_checked_and_yesterday_is_past() -> None:
    today = alerts(passport_valid_for_trips, user_module(passport=us_passport(day(-5)), trips=[ulaanbaatar(day(-3), day(0))]))
    assert [a.severity for a in today] == ["critical"] and "expired" in today[0].message
    assert alerts(passport_valid_for_trips, user_module(passport=us_passport(day(-5)),
                                                        trips=[ulaanbaatar(day(-3), day(-1))])) == []


def test_a_return_before_departure_counts_as_the_departure_day() -> None:
    [alert] = alerts(passport_valid_for_trips, user_module(passport=us_passport(day(35)), trips=[ulaanbaatar(day(35), day(20))]))
    assert alert.severity == "warning" and "on the day of" in alert.message


@pytest.mark.parametrize(("days_left", "severity"), [
    (29, "critical"), (30, "critical"), (31, "warning"), (59, "warning"), (60, "warning"), (61, "info"),
    (89, "info"), (90, "info"), (91, None),
])
def test_expiry_thresholds_at_each_edge(days_left: int, severity: str | None) -> None:
    found = alerts(passport_expiry, user_module(passport=us_passport(day(days_left))))
    assert [a.severity for a in found] == ([severity] if severity else [])
    document = Document(kind="visa", expiry_date=day(days_left), fact_ids=[3])
    found = alerts(document_expiry, user_module(documents=[document]))
    assert [a.severity for a in found] == ([severity] if severity else [])


@pytest.mark.parametrize(("due", "severity", "words"), [
    (-1, "critical", "1 day overdue"), (0, "warning", "due today"), (1, "warning", "due in 1 day"),
    (7, "warning", "due in 7 days"), (8, None, ""),
])
def test_bill_due_edges(due: int, severity: str | None, words: str) -> None:
    bill = Bill(payee="Power Co", due_date=day(due), amount_usd=12.5, fact_ids=[1])
    found = alerts(bills_due, user_module(bills=[bill]))
    assert [a.severity for a in found] == ([severity] if severity else [])
    if severity:
        assert words in found[0].message and "$12.50" in found[0].message


@pytest.mark.parametrize(("due", "alerted"), [(14, True), (15, False), (0, True), (-1, True)])
def test_vehicle_service_edges(due: int, alerted: bool) -> None:
    car = Vehicle(make="Volvo", next_service_date=day(due), fact_ids=[1])
    assert len(alerts(vehicle_service_due, user_module(vehicles=[car]))) == int(alerted)


@pytest.mark.parametrize(("ended", "alerted"), [(-1, False), (0, True), (None, True)])
def test_a_medication_ending_today_is_still_current(ended: int | None, alerted: bool) -> None:
    medication = Medication(name="Amoxil", drug_class="penicillin", end_date=None if ended is None else day(ended),
                            fact_ids=[1])
    allergy = Allergy(allergen="penicillin", drug_class="Penicillin", fact_ids=[2])
    found = alerts(medication_allergy, user_module(medications=[medication], allergies=[allergy]))
    assert len(found) == int(alerted)


def test_now_is_the_fixed_clock() -> None:
    assert NOW.date() == day(0)


# --- factlog: the hash format is persistent ------------------------------------------------------


def test_canonical_json_and_content_hash_are_pinned() -> None:
    """Stored logs were hashed with this exact spelling: any change breaks every chain on disk."""
    body = {"b": [1, 2.5, None, True], "a": "Zürich \u2028", "n": {"y": 1, "x": "é"}}
    assert canonical_json(body) == '{"a":"Zürich \u2028","b":[1,2.5,null,true],"n":{"x":"é","y":1}}'
    assert content_hash(body) == "fb6ed566e914f3f09d512eec32f0ced9e1dc26215b06bdd328e38498da4372da"
    assert GENESIS == "0" * 64
    with pytest.raises(ValueError):
        canonical_json({"x": float("nan")})


def test_keyed_hash_is_hmac_sha256_under_the_chain_key() -> None:
    """A keyed chain is HMAC-SHA256 of the same canonical body under the chain key itself:
    under any other key (or a fixed one) a forger without the key could re-hash the chain."""
    body = {"b": [1, 2.5, None, True], "a": "Zürich \u2028", "n": {"y": 1, "x": "é"}}
    data = canonical_json(body).encode("utf-8")
    for key in (b"k" * 32, b"o" * 32, b"\x00"):
        assert content_hash(body, key) == hmac.new(key, data, hashlib.sha256).hexdigest()
    assert content_hash(body, b"k" * 32) == "f69ad45d2feaf7ffc75b1abeb2eddd2984fe3f31d8a18c54a461a61eb365c636"
    assert content_hash(body, b"k" * 32) != content_hash(body, b"o" * 32) != content_hash(body)
    assert key_fingerprint(b"k" * 32) == "5615a76275723f231a3af0985e141afb" != key_fingerprint(b"o" * 32)


def test_records_lacking_a_field_are_ignored_not_fatal() -> None:
    """A list may mix record classes (one lacking a field): that record is skipped, the rest checked."""
    Undated = record_class("bill", without=("due_date",))
    found = alerts(bills_due, user_module(bills=[Bill(payee="Power Co", due_date=day(1), fact_ids=[1]),
                                                 Undated(payee="Gas Co", fact_ids=[2])]))
    assert [a.fact_ids for a in found] == [(1,)]
    NoFlag = record_class("trip", without=("is_international",))
    NoCountry = record_class("trip", without=("country",))
    NoReturn = record_class("trip", without=("return_date",))
    trips = [NoFlag(destination="Lima", country="Peru", departure_date=DEPART, fact_ids=[3]),
             NoCountry(destination="Oslo", is_international=True, departure_date=DEPART, fact_ids=[4]),
             NoReturn(destination="Rome", country="Italy", departure_date=DEPART, fact_ids=[5])]
    found = alerts(passport_valid_for_trips, user_module(passport=us_passport(day(60)), trips=trips))
    assert sorted(a.fact_ids for a in found) == [(1, 3), (1, 4), (1, 5)]
    [overlap] = alerts(overlapping_trips, user_module(trips=trips))  # the three, one group
    assert overlap.fact_ids == (3, 4, 5)


def test_a_skip_names_the_record_kind_and_field() -> None:
    Undated = record_class("bill", without=("due_date",))
    result = run_constraints(user_module(bills=[Undated(payee="Gas Co")]), NOW, [bills_due])
    assert [s.reason for s in result.skipped] == ["bill records have no 'due_date' field"]


# --- query policy: exact refusals and positions -------------------------------------------------


@pytest.mark.parametrize(("expression", "message", "line", "column"), [
    ("(yield)", "yield is not allowed in a query", 1, 2),
    ("await x", "await is not allowed in a query", 1, 1),
    ("a @ b", "MatMult is not allowed in a query", None, None),
    ("[x async for x in y]", "async comprehensions are not allowed", None, None),
    ("(x := 1)", "assignment expression (:=) is not allowed in a query", 1, 2),
    ("[1 for x.a in [1]]", "loop targets must be plain names", 1, 8),
    ("1 +\n _x", "names starting with '_' are not allowed (_x)", 2, 2),
    ("(" + "0," * 598 + ")", "expression has over 600 parts", 1, 2),
    ("-" * 40 + "0", "expression nests deeper than 40 levels", 1, 41),
])
def test_refusals_name_the_reason_and_the_place(expression: str, message: str, line: int | None,
                                                column: int | None) -> None:
    with pytest.raises(QueryRejected) as caught:
        compile_query(expression)
    assert (caught.value.kind, caught.value.message, caught.value.line, caught.value.column) == \
        ("forbidden", message, line, column)


def test_names_bound_by_the_query_are_not_builtins_it_reaches_for() -> None:
    assert evaluate("1 + open", {}) == QueryFailure("forbidden", "name 'open' is not available in queries", 1, 5)
    assert isinstance(ok := evaluate("[open for open in [1, 2]]", {}), QuerySuccess) and ok.value == [1, 2]
    assert isinstance(ok := evaluate("(lambda open: open)(3)", {}), QuerySuccess) and ok.value == 3


@pytest.mark.parametrize(("expression", "message"), [
    ("len('a' * 1_000_001)", "result would have 1,000,001 characters (limit 1,000,000)"),
    ("len([0] * 1_000_001)", "result would have 1,000,001 items (limit 1,000,000)"),
    ("len([[0]] * 1_000_001)", "result would have 1,000,001 items (limit 1,000,000)"),
    ("len([['a' * 999_985]] * 1)", "repeated nested structure is too large"),
    ("4 ** 50_001 > 0", "power result over 100,000 bits"),
    ("(1 << 50_000) * (1 << 49_999) > 0", "integer product over 100,000 bits"),
    ("1 << 100_000 > 0", "shift result over 100,000 bits"),
])
def test_memory_refusals_say_what_grew(expression: str, message: str) -> None:
    result = evaluate(expression, {}, time_limit_s=5.0)
    assert isinstance(result, QueryFailure) and (result.kind, result.message) == ("memory", message)


@pytest.mark.parametrize(("expression", "value"), [
    ("2.0 ** 2", 4.0), ("2 ** 0.5 > 1.41", True), ("(-2) ** 3", -8), ("2 ** -1", 0.5), ("1 ** 10**9", 1),
    ("2.5 * 3", 7.5), ("3 * 2.5", 7.5), ("len([[0]] * -3)", 0),
    ("len([['a' * 600_000, 'b' * 600_000]] * 0)", 0), ("len([['a' * 999_984]] * 1)", 1),
    ("4 ** 50_000 > 0", True), ("7 % 3", 1),
])
def test_operators_on_plain_numbers_and_empty_repeats_are_not_refused(expression: str, value: object) -> None:
    result = evaluate(expression, {}, time_limit_s=5.0)
    assert isinstance(result, QuerySuccess) and result.value == value, result


def test_dict_keys_count_towards_the_depth() -> None:
    """Tuples are hashable, so a key can nest as deep as a value can."""
    assert rules("x = {" + "(" * 23 + "0" + ",)" * 23 + ": 1}\n") == []
    assert rules("x = {" + "(" * 24 + "0" + ",)" * 24 + ": 1}\n") == ["nesting"]


# --- factlog: the door's limits, each at the limit and one past it ------------------------------
# The numbers are pinned here on purpose: a limit in factlog.limits that moves by one must
# fail a test (the door and the compiler share it, see test_ingest_door.py).


def nested(levels: int) -> JsonValue:
    value: JsonValue = 1
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(("ok", "over", "message"), [
    ({f"f{i}": 1 for i in range(256)}, {f"f{i}": 1 for i in range(257)}, "257 fields"),
    ({"n" * 128: 1}, {"n" * 129: 1}, "too long"),
    ({"v": nested(15)}, {"v": nested(16)}, "deeper than 16"),  # the field value is level 1
    ({"s": "x" * (256 * 1024)}, {"s": "x" * (256 * 1024 + 1)}, "262145 characters"),
    ({"d": {"k" * (256 * 1024): 1}}, {"d": {"k" * (256 * 1024 + 1): 1}}, "object key of 262145"),
    ({"a": "x" * 262142, "b": "x" * 262142}, {"a": "x" * 262142, "b": "x" * 262143}, "too large"),
    ({"n": 10 ** 32 - 1, "m": -(10 ** 32 - 1)}, {"n": 10 ** 32}, "more than 32 digits"),
])
def test_door_field_limits_at_and_one_past(ok: dict[str, JsonValue], over: dict[str, JsonValue],
                                           message: str) -> None:
    assert check_fields(ok) == ok
    with pytest.raises(InputError, match=message):
        check_fields(over)


def test_door_text_key_and_retraction_limits_at_and_one_past() -> None:
    NewFact("x" * (64 * 1024))
    NewFact("é" * (32 * 1024))  # bytes, not characters
    for text in ("x" * (64 * 1024 + 1), "é" * (32 * 1024) + "x"):
        with pytest.raises(InputError, match="65537 bytes"):
            NewFact(text)
    NewFact("k", kind="item", key="k" * 256)
    with pytest.raises(InputError, match="identity key"):
        NewFact("k", kind="item", key="k" * 257)
    NewFact("r", retracts=2 ** 63 - 1)  # SQLite's largest INTEGER
    with pytest.raises(InputError, match="retracts"):
        NewFact("r", retracts=2 ** 63)


@pytest.mark.parametrize(("name", "reserved"), [
    ("__secret", True), ("__x", True), ("__", False), ("__class__", False), ("__init__", False),
    ("_private", False), ("secret__", False), ("a__b", False),
])
def test_reserved_field_names_are_exactly_the_private_looking_ones(name: str, reserved: bool) -> None:
    assert reserved_field_name(name) is reserved
    if reserved:
        with pytest.raises(InputError, match="is not allowed"):
            check_fields({name: 1})
    else:
        assert check_fields({name: 1}) == {name: 1}


def test_int_too_long_is_exactly_more_than_32_digits() -> None:
    for n in (0, 10 ** 32 - 1, -(10 ** 32 - 1)):
        assert not int_too_long(n)
    for n in (10 ** 32, -(10 ** 32), 10 ** 40):
        assert int_too_long(n)
