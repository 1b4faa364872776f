"""Store contract: extraction bookkeeping (`append_extraction`, `extraction_failures`,
`known_sources`). Every test runs against every store (`kit`)."""

from __future__ import annotations

import pytest

from factlog.errors import InputError, NotFound
from factlog.model import NewFact
from factlog.store import FactStore, NewFailure

DIGEST = "d" * 64


def failure(session: str = "s1", reason: str = "invalid", raw: str = "{bad") -> NewFailure:
    return NewFailure(DIGEST, "chat.json", session, reason, raw)


def test_a_failure_is_recorded_with_the_raw_facts_it_kept(store: FactStore) -> None:
    done = store.append_extraction("alice", [(NewFact("one"), "transcript:x:s1:0:0"), (NewFact("two"), None)],
                                   failure=failure())
    assert [f.id for f in done.stored] == [1, 2]
    [recorded] = store.extraction_failures("alice")
    assert (recorded.id, recorded.user, recorded.source, recorded.path, recorded.session_id) == \
        (1, "alice", DIGEST, "chat.json", "s1")
    assert (recorded.reason, recorded.raw, recorded.attempts, recorded.fact_ids) == ("invalid", "{bad", 1, (1, 2))
    assert recorded.open and recorded.resolved_by == () and recorded.failed_at
    assert store.known_sources("alice", ["transcript:x:s1:0:0", "transcript:x:s1:0:1"]) == {"transcript:x:s1:0:0"}
    assert store.extraction_failures("bob") == [] and store.extraction_failures("alice", source="e" * 64) == []


def test_a_second_failure_of_a_session_counts_an_attempt(store: FactStore) -> None:
    store.append_extraction("alice", [(NewFact("one"), "src:1")], failure=failure())
    again = store.append_extraction("alice", [(NewFact("one"), "src:1")], failure=failure(reason="still", raw="no"))
    assert again.stored == [] and again.skipped == 1
    store.append_extraction("alice", [], failure=failure("s2"))
    first, second = store.extraction_failures("alice")
    assert (first.attempts, first.reason, first.raw, first.fact_ids) == (2, "still", "no", (1,))
    assert (second.id, second.session_id, second.fact_ids) == (2, "s2", ())


def test_a_retry_resolves_its_failure_with_its_facts(store: FactStore) -> None:
    store.append_extraction("alice", [(NewFact("raw"), "src:raw")], failure=failure())
    done = store.append_extraction("alice", [(NewFact("typed", kind="trip"), "llm:1"),
                                             (NewFact("Retracts fact 1", retracts=1), None)], resolves=1)
    assert [f.id for f in done.stored] == [2, 3]
    assert store.extraction_failures("alice") == []
    [resolved] = store.extraction_failures("alice", include_resolved=True)
    assert resolved.resolved_at and resolved.resolved_by == (2, 3) and not resolved.open


def test_resolving_an_unknown_failure_writes_nothing(store: FactStore) -> None:
    with pytest.raises(NotFound):
        store.append_extraction("alice", [(NewFact("typed"), "llm:1")], resolves=7)
    assert store.head("alice") == 0 and store.known_sources("alice", ["llm:1"]) == set()


def test_a_refused_fact_records_no_failure(store: FactStore) -> None:
    store.append("alice", [NewFact("cost", kind="trip", fields={"cost_usd": 10.0})])
    with pytest.raises(InputError):
        store.append_extraction("alice", [(NewFact("x", kind="trip", fields={"cost_usd": "lots"}), None)],
                                failure=failure(), allow_retype=False)
    assert store.head("alice") == 1 and store.extraction_failures("alice") == []


def test_forget_erases_the_failures_and_their_raw_text(store: FactStore) -> None:
    store.append_extraction("alice", [(NewFact("one"), None)], failure=failure(raw="secret answer"))
    store.append_extraction("bob", [(NewFact("uno"), None)], failure=failure())
    store.forget("alice")
    assert store.extraction_failures("alice", include_resolved=True) == []
    assert len(store.extraction_failures("bob")) == 1


def chunk_failure(first: int | None, last: int | None, reason: str = "invalid") -> NewFailure:
    return NewFailure(DIGEST, "chat.json", "s1", reason, "{bad", first, last)


def test_each_chunk_of_a_session_is_its_own_failure(store: FactStore) -> None:
    store.append_extraction("alice", [(NewFact("a"), "src:a")], failure=chunk_failure(0, 79))
    store.append_extraction("alice", [(NewFact("b"), "src:b")], failure=chunk_failure(80, 159))
    store.append_extraction("alice", [(NewFact("c"), "src:c")], failure=chunk_failure(None, None))
    store.append_extraction("alice", [(NewFact("b"), "src:b"), (NewFact("b2"), "src:b2")],
                            failure=chunk_failure(80, 159, "still"))
    first, second, whole = store.extraction_failures("alice")
    assert (first.id, first.first_message, first.last_message, first.attempts, first.fact_ids) == (1, 0, 79, 1, (1,))
    assert (second.id, second.first_message, second.last_message, second.attempts, second.reason,
            second.fact_ids) == (2, 80, 159, 2, "still", (2, 4))
    assert (whole.id, whole.first_message, whole.last_message, whole.fact_ids) == (3, None, None, (3,))
    assert (first.messages, whole.messages) == ("messages 0-79", "all messages")
    store.append_extraction("alice", [(NewFact("Retracts fact 2", retracts=2), None)], resolves=2)
    assert [f.id for f in store.extraction_failures("alice")] == [1, 3]
    [resolved] = [f for f in store.extraction_failures("alice", include_resolved=True) if f.id == 2]
    assert (resolved.first_message, resolved.last_message, resolved.resolved_by) == (80, 159, (5,))


def test_a_half_range_is_not_a_failure() -> None:
    for first, last in ((0, None), (None, 3), (5, 4), (-1, 2)):
        with pytest.raises(ValueError):
            chunk_failure(first, last)


def test_a_resolved_failure_is_not_resolved_twice(store: FactStore) -> None:
    store.append_extraction("alice", [(NewFact("raw"), "src:raw")], failure=chunk_failure(0, 9))
    store.append_extraction("alice", [(NewFact("typed"), "llm:1"), (NewFact("Retracts fact 1", retracts=1), None)],
                            resolves=1)
    with pytest.raises(NotFound):  # a second retry racing the first: nothing written
        store.append_extraction("alice", [(NewFact("typed again"), "llm:2")], resolves=1)
    assert store.head("alice") == 3 and store.known_sources("alice", ["llm:2"]) == set()
    [resolved] = store.extraction_failures("alice", include_resolved=True)
    assert resolved.resolved_by == (2, 3)
