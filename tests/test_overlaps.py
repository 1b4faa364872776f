"""The sweep in constraints.overlaps finds exactly the pairs a comparison of every pair finds."""

from __future__ import annotations

import random
from datetime import date, timedelta

from constraints.overlaps import Span, overlapping_pairs


def every_pair(spans: list[Span[int]]) -> set[tuple[int, int]]:
    ordered = sorted(spans, key=lambda s: s.start)
    return {(a.item, b.item) for i, a in enumerate(ordered) for b in ordered[i + 1:]
            if b.start < a.end or b.start == a.start}


def test_the_sweep_finds_the_same_pairs_as_comparing_every_pair() -> None:
    rng = random.Random(8)
    day = date(2030, 1, 1)
    for _ in range(200):
        spans = []
        for item in range(rng.randint(0, 25)):
            start = day + timedelta(days=rng.randint(0, 30))
            spans.append(Span(start, start + timedelta(days=rng.choice([-1, 0, 0, 1, 2, 5])), item))
        found = [(a.item, b.item) for a, b in overlapping_pairs(spans)]
        assert len(found) == len(set(found))
        assert set(found) == every_pair(spans)


def test_an_end_before_the_start_is_an_instant() -> None:
    span = Span(date(2030, 1, 5), date(2030, 1, 1), "x")
    assert span.end == span.start
