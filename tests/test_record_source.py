"""The compiler's fast record lines are the general path's text, byte for byte, or they
refuse (and the compiler renders the record by the general path)."""

from __future__ import annotations

from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.compile import _entity_record
from codegen.compile_state import EntityRow, Member
from codegen.naming import KindNames
from codegen.record_source import Unhandled, entity_line, line_plan, note_line
from codegen.render import Record, record_line
from codegen.schema import ClassSpec, FieldSpec, PyType
from factlog.model import JsonValue
from factlog.vocabulary import NOTE_CLASS

temporal_text = st.one_of(
    st.dates().map(str), st.datetimes().map(lambda d: d.isoformat()), st.times().map(lambda t: t.isoformat()),
    st.datetimes().map(lambda d: d.isoformat(sep=" ", timespec="minutes")),
    st.sampled_from(["2024-02-30", "2024-01-01T10:00+02:00", "10:00Z", "24:00", "", "x", "2024-01-01T25:00"]),
)
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.just(10**400),
                        st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12), temporal_text)
json_value = st.recursive(json_scalar, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.text(max_size=5), inner, max_size=3), max_leaves=8)
scalar_type = st.sampled_from(["bool", "int", "float", "str", "date", "datetime", "time", "dict"]).map(PyType)
py_type = st.recursive(scalar_type, lambda inner: st.builds(PyType, st.just("list"), st.none() | inner, st.booleans()),
                       max_leaves=3)


@st.composite
def entities(draw: st.DrawFn) -> tuple[ClassSpec, dict[str, object]]:
    count = draw(st.integers(0, 5))
    specs = tuple(FieldSpec(f"f{i}", f"f{i}", draw(py_type), draw(st.booleans()), draw(st.booleans()))
                  for i in range(count))
    fields = {f"f{i}": draw(json_value) for i in range(count) if draw(st.booleans())}
    return ClassSpec(KindNames("thing", "Thing", "things", "thing", False), specs), fields


@settings(max_examples=400, deadline=None)
@given(entities(), st.lists(st.integers(1, 10**6), min_size=1, max_size=3, unique=True))
def test_entity_lines_match_the_general_path(entity: tuple[ClassSpec, dict[str, object]], ids: list[int]) -> None:
    spec, fields = entity
    members = [Member(i, "2024-01-01", "h", dict(fields) if n == 0 else {}) for n, i in enumerate(ids)]
    row = EntityRow("thing/x", "thing", 0, members)
    try:
        expected = record_line("Thing", _entity_record(spec, row))
    except Exception:  # noqa: BLE001 - the general path's failure must be the fast path's too
        expected = None
    try:
        fast = entity_line(line_plan(spec), row.merged(), row.fact_ids())
    except Exception:  # noqa: BLE001 - a refusal: the compiler renders by the general path
        return
    assert fast == expected


note_extra = st.lists(st.tuples(st.sampled_from(["times", "amounts_usd", "speaker", "identifiers"]), st.one_of(
    st.text(max_size=8), st.lists(st.text(max_size=6), max_size=3),
    st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=3))), max_size=3, unique_by=lambda p: p[0])


@given(st.text(max_size=40), st.lists(st.dates(), max_size=3, unique=True), note_extra, st.integers(1, 10**9))
def test_note_lines_match_the_general_path(text: str, dates: list[date], extra: list[tuple[str, JsonValue]],
                                           fact_id: int) -> None:
    days = tuple(sorted(dates))
    assert note_line(text, days, extra, fact_id) == record_line(
        NOTE_CLASS, Record((("text", text), ("dates", list(days)), *extra), (fact_id,)))


def test_a_note_value_the_fast_path_does_not_know_is_refused() -> None:
    for value in ([float("nan")], [1], {"a": 1}, [None], 3):
        try:
            note_line("x", (), [("amounts_usd", value)], 1)
        except Unhandled:
            continue
        raise AssertionError(value)
