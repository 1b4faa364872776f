"""The storage interface of the fact log.

The embedded default is `factlog.sqlite.SqliteFactStore`, the server store
`factlog.postgres.PostgresFactStore`; `factlog.stores.open_store` opens one from its location. Appends are
all-or-nothing per call; nothing is ever updated in place; `forget` is the only destructive
operation and it erases a user entirely. An id is never given out twice: appends continue
after the highest id the user ever had, even if facts were deleted behind the store's back
(which `verify` then reports).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Protocol, Sequence

from factlog.model import Fact, NewFact


@dataclass(frozen=True)
class Appended:
    """What a sourced append did: the facts it stored, and how many it skipped because
    their source was already ingested."""

    stored: list[Fact]
    skipped: int


@dataclass(frozen=True)
class VerifyReport:
    """The outcome of re-hashing a user's chain (or every user's)."""

    checked: int
    ok: bool
    user: str | None = None  # first user whose chain breaks
    fact_id: int | None = None  # first fact that does not match
    reason: str | None = None


@dataclass(frozen=True)
class NewFailure:
    """A chunk of a session (or, from older ingests, a whole session) a model could not turn
    into valid facts (or could not be reached for): what to record beside the raw facts that
    keep its messages. A failure is one per (source, session, message range)."""

    source: str  # the transcript file's content digest (`factlog.sources.content_digest`)
    path: str  # the file as it was named to the ingest (for the listing only)
    session_id: str
    reason: str  # one line: what failed
    raw: str  # the model's last answer ("" when none came)
    first_message: int | None = None  # the chunk's first and last message index (inclusive);
    last_message: int | None = None  # both None: the whole session

    def __post_init__(self) -> None:
        if (self.first_message is None) != (self.last_message is None) or (
                self.first_message is not None and self.last_message is not None
                and not 0 <= self.first_message <= self.last_message):
            raise ValueError(f"not a message range: {self.first_message}..{self.last_message}")


@dataclass(frozen=True)
class ExtractionFailure:
    """A recorded extraction failure of the messages `first_message`..`last_message` of a
    session (both None: the whole session, as older ingests recorded it). `fact_ids` are the
    raw facts stored for it; a retry that extracts those messages resolves it (`resolved_at`,
    `resolved_by`: the facts it stored); a retry that fails again counts in `attempts` and
    leaves it open."""

    user: str
    id: int
    source: str
    path: str
    session_id: str
    reason: str
    raw: str
    failed_at: str  # ISO date-time, UTC, of the last failure
    attempts: int
    fact_ids: tuple[int, ...]
    resolved_at: str | None = None
    resolved_by: tuple[int, ...] = ()
    first_message: int | None = None
    last_message: int | None = None

    @property
    def open(self) -> bool:
        return self.resolved_at is None

    @property
    def messages(self) -> str:
        """The range as the listing shows it (`messages_text`)."""
        return messages_text(self.first_message, self.last_message)


def messages_text(first: int | None, last: int | None) -> str:
    """A failure's message range as listings show it: `messages 80-159`, `message 7`, or
    `all messages` (a whole session)."""
    if first is None or last is None:
        return "all messages"
    if first == last:
        return f"message {first}"
    return f"messages {first}-{last}"


class FactStore(Protocol):
    """Everything the packages above the fact log ask of a store. `runtime` opens one with
    `factlog.stores.open_store`; everyone else is typed against this protocol, so a second
    implementation (a server database) passes the contract suite (`tests/contract`) and
    plugs in unchanged."""

    @property
    def keyed(self) -> bool:
        """Whether the log is chained with a key (HMAC) rather than plain hashes."""
        ...

    def append(self, user: str, facts: Sequence[NewFact], *, allow_retype: bool = True) -> list[Fact]:
        """Append in one transaction; ids continue after the user's high-water mark. With
        `allow_retype=False` a value that changes its field's established type is refused
        (`factlog.field_types`); nothing is written then."""
        ...

    def append_sourced(self, user: str, items: Sequence[tuple[NewFact, str | None]], *, again: bool = False,
                       allow_retype: bool = True) -> Appended:
        """Append, in one transaction, the facts whose source (`factlog.sources`) is not
        stored yet, and store their sources; with `again`, append every fact."""
        ...

    def known_sources(self, user: str, sources: Sequence[str]) -> set[str]:
        """Which of `sources` the user's log already stored facts for."""
        ...

    def append_extraction(self, user: str, items: Sequence[tuple[NewFact, str | None]], *,
                          failure: NewFailure | None = None, resolves: int | None = None,
                          again: bool = False, allow_retype: bool = True) -> Appended:
        """`append_sourced` plus, in the same transaction, the extraction's
        bookkeeping: `failure` is recorded citing the facts stored (the same session and
        message range already recorded for the same source counts one more attempt, keeps
        the facts it cited, and is open again), or the failure numbered `resolves` is marked
        resolved by them. NotFound, and nothing written, if `resolves` names
        no open failure of the user (another ingest may have resolved it first)."""
        ...

    def extraction_failures(self, user: str, *, source: str | None = None,
                            include_resolved: bool = False) -> list[ExtractionFailure]:
        """The user's recorded extraction failures (of one source file), open ones only
        unless `include_resolved`, in id order."""
        ...

    def import_facts(self, facts: Sequence[Fact]) -> int:
        """Restore exported facts exactly (ids, times, hashes), all or nothing; facts already
        stored with the same hash are skipped. Returns how many were added."""
        ...

    def facts(self, user: str, after: int = 0, upto: int | None = None) -> Iterator[Fact]:
        """The user's facts with after < id <= upto, in id order."""
        ...

    def all_facts(self) -> Iterator[Fact]:
        """Every user's facts, by user, then id."""
        ...

    def get(self, user: str, fact_id: int) -> Fact:
        """One fact; raises NotFound."""
        ...

    def facts_by_id(self, user: str, ids: Iterable[int]) -> list[Fact]:
        """The user's facts with these ids (those that exist; others are left out), in id
        order: what a reader of a few hundred scattered facts asks instead of `get` each."""
        ...

    def head(self, user: str) -> int:
        """The user's last stored fact id (0 when the user has none)."""
        ...

    def high_water(self, user: str) -> int:
        """The highest id the user's log ever gave out; deletes cannot lower it."""
        ...

    def knows(self, user: str) -> bool:
        """Whether the log holds, or held and did not forget, facts of `user`."""
        ...

    def users(self) -> list[str]:
        """Every user with a stored fact, sorted."""
        ...

    def forget(self, user: str) -> int:
        """Erase the user and every trace of their text; returns how many facts went."""
        ...

    def verify(self, user: str | None = None) -> VerifyReport:
        """Re-hash and walk the chain(s), and compare each user's last id with the mark."""
        ...

    def close(self) -> None: ...
