"""A full compile's memory is bounded per fact: what it allocates beyond the facts
themselves (entities, record lines, sources, the state's rows) stays under a fixed number
of bytes per fact, so a million-fact checkpoint fits in memory. Measured with tracemalloc
(allocations, not time)."""

from __future__ import annotations

import tracemalloc
from datetime import date, timedelta
from pathlib import Path

from fact_helpers import make_fact

from codegen.compile import ListLog, compile_incremental, compile_package
from factlog.model import Fact, JsonValue

KINDS = ["trip", "expense", "contact", "book", "medication", "event", "pet", "allergy"]
BYTES_PER_FACT = 800  # a fresh build that kept every entity and line to the end took about 1,000


def _interleaved(n: int) -> list[Fact]:
    """Kinds in turn; every 10th fact a note, every 20th an update of an earlier entity."""
    facts = []
    for i in range(1, n + 1):
        kind = KINDS[i % len(KINDS)]
        if i % 10 == 0:
            facts.append(make_fact(i, f"Call 'Sam' about plans #{i}", fields={"dates": ["2020-01-01"]}))
        elif i % 20 == 5 and i > 200:
            facts.append(make_fact(i, "corrected", kind=kind, key=f"k{i - 160}", fields={"amount": i * 1.5}))
        else:
            fields: dict[str, JsonValue] = {
                "name": f"{kind} {i}", "city": ["Paris", "Rome", "Oslo"][i % 3],
                "date": (date(2020, 1, 1) + timedelta(days=i % 2000)).isoformat(),
                "amount": float(i % 900), "flag": i % 3 == 0, "code": f"{i % 40}C",
            }
            facts.append(make_fact(i, f"{kind} {i}", kind=kind, key=f"k{i}", fields=fields))
    return facts


def test_a_fresh_build_allocates_a_bounded_amount_per_fact(tmp_path: Path) -> None:
    n = 10_000
    log = ListLog(_interleaved(n))
    compile_package("alice", list(log.after(0))[:200])  # warm the process-wide caches and templates
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        compiled = compile_incremental("alice", tmp_path / "state.sqlite", log)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert compiled.rebuilt is not None and len(compiled.files) > 20
    assert (peak - before) / n < BYTES_PER_FACT, f"{(peak - before) / n:.0f} bytes per fact"
