"""Finding overlapping intervals without comparing every pair: the pairs, or the groups they connect.

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


def overlapping_groups(spans: Iterable[Span[T]]) -> Iterator[list[Span[T]]]:
    """Each group of two or more spans connected by overlaps (as `overlapping_pairs` counts
    them), its spans in start order (equal starts in the order given); groups in start order.

    Sorted by start, a span joins the group before it when it starts before the group's
    latest end or on the group's latest start: nothing later can join two groups, so a
    group ends at the first span that does neither. O(n log n) for n spans.
    """
    group: list[Span[T]] = []
    latest_end: date | None = None
    for span in sorted(spans, key=lambda s: s.start):
        if group and latest_end is not None and (span.start < latest_end or span.start == group[-1].start):
            group.append(span)
            if span.end > latest_end:
                latest_end = span.end
            continue
        if len(group) > 1:
            yield group
        group, latest_end = [span], span.end
    if len(group) > 1:
        yield group
