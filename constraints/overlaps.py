"""Finding overlapping intervals without comparing every pair.

Spans are swept in start order while a heap holds the ones still open, so the cost is
O(n log n) plus the number of overlapping pairs reported.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from datetime import date
from typing import Generic, TypeVar

T = TypeVar("T")


class Span(Generic[T]):
    """`[start, end)`; a span with end == start is an instant."""

    __slots__ = ("start", "end", "item")

    def __init__(self, start: date, end: date, item: T) -> None:
        self.start = start
        self.end = end if end > start else start
        self.item = item


def overlapping_pairs(spans: Iterable[Span[T]]) -> Iterator[tuple[Span[T], Span[T]]]:
    """Each pair (earlier, later) that overlaps.

    Two spans overlap when the later one starts before the earlier one ends, or both start
    at the same moment (so two instants at the same time clash; back-to-back spans do not).
    All spans must use the same point type (all dates or all datetimes).
    """
    ordered = sorted(spans, key=lambda s: s.start)
    # Heap of (end, start, sequence, span): the sequence breaks ties without comparing spans.
    open_spans: list[tuple[date, date, int, Span[T]]] = []
    for sequence, span in enumerate(ordered):
        start = span.start
        while open_spans and (
            (top := open_spans[0])[0] < start or (top[0] == start and top[1] < start)
        ):
            heapq.heappop(open_spans)
        for entry in open_spans:
            yield entry[3], span
        heapq.heappush(open_spans, (span.end, start, sequence, span))
