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
        self.end = max(start, end)
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
        while open_spans and (
            open_spans[0][0] < span.start
            or (open_spans[0][0] == span.start and open_spans[0][1] < span.start)
        ):
            heapq.heappop(open_spans)
        for _, _, _, earlier in open_spans:
            yield earlier, span
        heapq.heappush(open_spans, (span.end, span.start, sequence, span))
