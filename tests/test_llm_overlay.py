"""The llm producer's overlay as text: joins, carried records, merged batches (no model, no mypy)."""

from __future__ import annotations

import ast

from codegen.llm.overlay import (
    CARRIED_MARK,
    Collection,
    Records,
    answer_part,
    carried_records,
    class_signature,
    joined_init,
    read_records,
    records_module,
    take_class_module,
)
from codegen.llm.producer import _merged_records

TRIPS = Collection("trips", "Trip", "trip", "trip_llm")
INIT = '''"""Doc."""

from .trip import Trip as Trip
from .trip_000 import _trips_000

trips: list[Trip] = [*_trips_000]
empty: list[Trip] = []
'''


def test_the_join_takes_the_lists_after_the_compiled_chunks() -> None:
    text = joined_init(INIT, {"trips": ("trip_llm", ["_trips_llm_kept", "_trips_llm"]),
                              "empty": ("trip_llm", ["_x_llm"])})
    ast.parse(text)
    assert "trips: list[Trip] = [*_trips_000, *_trips_llm_kept, *_trips_llm]" in text
    assert "empty: list[Trip] = [*_x_llm]" in text
    assert text.index("from .trip_llm import _trips_llm_kept, _trips_llm") < text.index("trips: list")


def test_carried_records_keep_only_those_whose_facts_are_all_live() -> None:
    module = records_module(TRIPS, "from datetime import date\nfrom .trip import Trip\n\n_trips_llm: list[Trip] = [\n"
                            "    Trip(ref='a', departure_date=date(2027, 1, 2), fact_ids=[3]),\n"
                            "    Trip(ref='b',\n         fact_ids=[4, 5]),\n    Trip(ref='c', fact_ids=[]),\n]\n",
                            Records((), ()))
    assert module is not None
    previous = {"__init__.py": joined_init(INIT, {"trips": ("trip_llm", ["_trips_llm"])}), "trip_llm.py": module}
    kept, dropped = carried_records(previous, TRIPS, frozenset({3, 4}))
    assert [ids for _, ids in kept.items] == [(3,)] and dropped == 2  # 5 retracted; none cited
    again = records_module(TRIPS, "from .trip import Trip\n\n_trips_llm: list[Trip] = [Trip(ref='d', fact_ids=[9])]\n",
                           kept)
    assert again is not None and CARRIED_MARK in again
    tree = ast.parse(again)
    bound = [a.asname or a.name for s in tree.body if isinstance(s, ast.ImportFrom) for a in s.names]
    assert sorted(bound) == ["Trip", "date"]  # `Trip` bound once, `date` added for the carried record
    assert answer_part(again).startswith("from .trip import Trip") and CARRIED_MARK not in answer_part(again)


def test_batches_of_one_module_merge_into_one_list() -> None:
    first = "from .trip import Trip\n\n_trips_llm: list[Trip] = [Trip(ref='a', fact_ids=[1])]\n"
    second = "from datetime import date\nfrom .trip import Trip\n\n_trips_llm: list[Trip] = [\n" \
             "    Trip(ref='b', departure_date=date(2027, 1, 2), fact_ids=[2]),\n]\n"
    merged = _merged_records(first, second)
    found = read_records(merged)
    assert found is not None and [ids for _, ids in found.items] == [(1,), (2,)]
    assert merged.count("from .trip import Trip") == 1


def test_a_class_rewrite_is_taken_only_with_the_compiled_signature() -> None:
    compiled = "from dataclasses import dataclass\n\n\n@dataclass(frozen=True, kw_only=True)\nclass Trip:\n" \
               "    ref: str\n    cost: float | None = None\n"
    rewrite = compiled.replace("class Trip:\n", 'class Trip:\n    """A trip."""\n') + \
        "\n    @property\n    def dear(self) -> bool:\n        return (self.cost or 0) > 9\n"
    assert class_signature(rewrite, "Trip") == class_signature(compiled, "Trip")
    assert take_class_module(rewrite, compiled, "Trip") is not None
    for changed in (rewrite.replace("float | None = None", "float | None = 1.0"),
                    rewrite.replace("    ref: str\n    cost: float | None = None\n",
                                    "    cost: float | None = None\n    ref: str\n"),
                    rewrite.replace("frozen=True", "frozen=False"),
                    rewrite.replace("class Trip", "class Voyage")):
        assert take_class_module(changed, compiled, "Trip") is None


def test_records_are_read_back_exactly_with_non_ascii_and_several_lines() -> None:
    source = "from .trip import Trip\n\n_trips_llm: list[Trip] = [\n    Trip(destination='Zürich', fact_ids=[1]), " \
             "Trip(destination='Åre',\n         ref='ß', fact_ids=[2]),\n]\n"
    found = read_records(source)
    tree = ast.parse(source)
    value = tree.body[1].value  # type: ignore[attr-defined]
    assert found is not None
    assert [text for text, _ in found.items] == [ast.get_source_segment(source, e) for e in value.elts]
