"""The rules of the hash-chained log that every store applies the same way: the row a fact is
stored as, how a new fact gets its hash, which retraction an append may make, what `verify`
reports for a broken chain or a missing tail, how an imported fact's hash is checked, and the
chain key's messages."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

from factlog.errors import InputError
from factlog.hashing import GENESIS, canonical_json, content_hash
from factlog.model import Fact, NewFact
from factlog.store import VerifyReport

KEY_SETTING = "chain_key_fingerprint"
WRONG_KEY = "the configured chain key is not the key this log was chained with"
KEY_HINT = "set UAC_CHAIN_KEY, or UAC_CHAIN_KEY_FILE, or put it in chain.key next to facts.db (mode 0600)"


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def fact_to_row(fact: Fact) -> tuple[Any, ...]:
    p = fact.provenance
    return (
        fact.user, fact.id, fact.recorded_at, fact.text, fact.kind, canonical_json(fact.fields),
        fact.key, fact.valid_from.isoformat() if fact.valid_from else None,
        fact.valid_to.isoformat() if fact.valid_to else None, fact.retracts,
        p.session_id, p.message_index, p.role, p.session_ts, fact.prev_hash, fact.hash,
    )


def with_hash(key: bytes | None, fact: Fact) -> Fact:
    """`fact` (just built here, with an empty hash, and not yet seen by anyone) given its
    hash in place: a copy per fact (`dataclasses.replace`) was a tenth of a batch append."""
    object.__setattr__(fact, "hash", content_hash(fact.body(), key))
    return fact


def check_import_hash(fact: Fact, key: bytes | None) -> bool:
    """An imported fact must carry the hash this workspace would give it, or (into a keyed
    workspace) a plain hash that matches its content: True means it must be re-chained."""
    body = fact.body()
    if content_hash(body, key) == fact.hash:
        return False
    where = f"fact {fact.user}/{fact.id}"
    if key is None:
        raise InputError(f"{where}: its hash does not match its content: it was changed, or it comes from a "
                         f"log chained with a key ({KEY_HINT} to import it)")
    if content_hash(body) == fact.hash:
        return True
    raise InputError(f"{where}: its hash does not match its content under this workspace's chain key "
                     "(it was changed, or chained with another key)")


def missing_tail(stored: int, mark: int) -> str:
    if stored > mark:
        return f"fact {stored} is above the id high-water mark {mark} (the mark was tampered with)"
    gone = f"fact {mark} is" if stored + 1 == mark else f"facts {stored + 1}-{mark} are"
    return f"the log once held facts up to id {mark}; {gone} missing (deleted behind the log's back)"


def chain_problem(fact: Fact, expected_id: int, expected_prev: str, key: bytes | None) -> str | None:
    if fact.id != expected_id:
        return f"expected fact id {expected_id}, found {fact.id} (a fact is missing)"
    if fact.prev_hash != expected_prev:
        return "prev_hash does not match the hash of the fact before it"
    if content_hash(fact.body(), key) != fact.hash:
        what = "its keyed hash (the fact was changed, or re-hashed without the key)" if key \
            else "its hash (the fact was changed after it was written)"
        return f"content does not match {what}"
    return None


def check_retraction(user: str, target: int, fid: int, retracted: set[int], batch: Sequence[Fact],
                     stored_retracts: Callable[[int], tuple[bool, int | None]]) -> None:
    """Refuse fact `fid`'s retraction of `target` unless `target` is an earlier fact (of this
    append's `batch`, or stored: `stored_retracts(id)` says whether it is and what it retracts)
    that is no retraction itself and not retracted yet (`retracted`)."""
    if target >= fid or target < 1:
        raise InputError(f"cannot retract fact {target} of user {user!r}: it does not exist")
    earlier = next((f for f in batch if f.id == target), None)
    if earlier is None:
        found, target_retracts = stored_retracts(target)
        if not found:
            raise InputError(f"cannot retract fact {target} of user {user!r}: it does not exist")
    else:
        target_retracts = earlier.retracts
    if target_retracts is not None:
        raise InputError(f"fact {target} is itself a retraction; add the fact again instead")
    if target in retracted:
        raise InputError(f"fact {target} is already retracted")


def chained(user: str, facts: Sequence[NewFact], head: int, prev_hash: str, key: bytes | None, retracted: set[int],
            stored_retracts: Callable[[int], tuple[bool, int | None]]) -> list[Fact]:
    """`facts` as the user's next facts after `head` (whose hash is `prev_hash`): numbered,
    stamped with one time, each retraction checked (`check_retraction`; `retracted`: the
    targets already retracted, updated) and each hashed onto the one before (`with_hash`)."""
    recorded_at = utc_now()
    stored: list[Fact] = []
    for offset, new in enumerate(facts, start=1):
        fid = head + offset
        if new.retracts is not None:
            check_retraction(user, new.retracts, fid, retracted, stored, stored_retracts)
            retracted.add(new.retracts)
        fact = with_hash(key, Fact(
            user=user, id=fid, recorded_at=recorded_at, text=new.text, kind=new.kind,
            fields=new.fields, key=new.key, valid_from=new.valid_from, valid_to=new.valid_to,
            retracts=new.retracts, provenance=new.provenance, prev_hash=prev_hash, hash="",
        ))
        prev_hash = fact.hash
        stored.append(fact)
    return stored


def walked(facts: Iterable[Fact], key: bytes | None, marks: Mapping[str, int] | None) -> VerifyReport:
    """`verify`'s walk over `facts` (by user, then id): each re-hashed and linked to the one
    before it from fact 1 (`chain_problem`), then each user's last id compared with its
    high-water mark (`marks`; None: a log without marks, its last ids)."""
    checked = 0
    current: str | None = None
    expected_id, expected_prev = 1, GENESIS
    last: dict[str, int] = {}
    for fact in facts:
        if fact.user != current:
            current, expected_id, expected_prev = fact.user, 1, GENESIS
        problem = chain_problem(fact, expected_id, expected_prev, key)
        if problem:
            return VerifyReport(checked, False, fact.user, fact.id, problem)
        checked += 1
        last[fact.user] = fact.id
        expected_id, expected_prev = fact.id + 1, fact.hash
    marks = last if marks is None else marks
    for name in sorted(set(marks) | set(last)):
        stored, mark = last.get(name, 0), marks.get(name, 0)
        if stored != mark:
            return VerifyReport(checked, False, name, stored + 1, missing_tail(stored, mark))
    return VerifyReport(checked, True)


def rechained(fact: Fact, key: bytes | None, source_tail: dict[str, tuple[int, str]],
              stored_hash: Callable[[str, int], str | None]) -> Fact:
    """An unkeyed export's fact, hashed under this log's key onto the stored fact before it
    (`stored_hash(user, id)`). The plain chain must link up within the export (checked here,
    `source_tail`: each user's last exported id and hash so far) before it is trusted."""
    last_id, last_hash = source_tail.get(fact.user, (0, GENESIS))
    if fact.id != last_id + 1 or fact.prev_hash != last_hash:
        raise InputError(f"fact {fact.user}/{fact.id}: re-chaining an unkeyed export under the chain key "
                         "needs the user's whole log from fact 1, in order")
    source_tail[fact.user] = (fact.id, fact.hash)
    prev = (stored_hash(fact.user, fact.id - 1) if fact.id > 1 else None) or GENESIS
    return with_hash(key, replace(fact, prev_hash=prev, hash=""))
