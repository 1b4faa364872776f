"""Entity identity: which facts describe the same thing, and which thing a record is.

The one owner of the rule; the compiler (`codegen.live`), recall, the semantic diff
(`users.records.entity_ids`) and alert ids (`constraints.model.entity_key`) all ask here.

Identity of a fact (`fact_identity`), after normalizing its kind (`trips` is `trip`):

- a singular canonical kind (`passport`, `profile`): the kind itself, one entity per user
  whatever the keys;
- a kind and a key: `"kind/key"` (live facts with the same kind and key are one entity);
- a kind without a key: `"kind#<id>"`, an entity of its own;
- no kind (free text, a note): `"note#<id>"`.

`shared_identity` is the same rule for the identities several facts can share (the first
two cases); it is None for the others.

Identity of a record, from the facts it cites (`record_identity(fact_ids, facts_by_id,
content=...)`): the identity of the first cited fact (smallest id) that has a kind; else
of the smallest cited fact (`"note#<id>"`), or `"#<id>"` when that fact is unknown; a
record citing no fact is named by its content, `"content:<12 hex digits>"` (pass the
record's JSON text as `content`). The first fact of an entity stays in its records'
provenance when later facts update it, so the identity is stable across versions. This is
the key of a record in a version's manifest.

Older names for a record, kept exactly because they are stored (alert ids in alert state)
or shown (diff entity ids), are built from the same two parts: `first_cited(fact_ids)`
(the smallest cited id) and `content_digest(text)`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

from factlog.kinds import normalize_kind
from factlog.model import Fact
from factlog.vocabulary import CANONICAL

NOTE = "note"  # the identity prefix of a fact without a kind


def kind_identity(kind: str, key: str | None, fact_id: int) -> str:
    """The identity of fact `fact_id` of the normalized `kind` with `key` (see module)."""
    domain = CANONICAL.get(kind)
    if domain is not None and domain.singular:
        return kind
    if key is not None:
        return f"{kind}/{key}"
    return f"{kind}#{fact_id}"


def fact_identity(fact: Fact) -> str:
    """`passport`, `trip/tokyo`, `trip#12` or `note#12` (see module)."""
    if fact.kind is None:
        return f"{NOTE}#{fact.id}"
    return kind_identity(normalize_kind(fact.kind), fact.key, fact.id)


def shared_identity(fact: Fact) -> str | None:
    """The identity when other facts can share it (a singular canonical kind, or a kind
    with a key); None for free text and for keyless facts, each an entity of its own."""
    if fact.kind is None:
        return None
    kind = normalize_kind(fact.kind)
    domain = CANONICAL.get(kind)
    if domain is not None and domain.singular:
        return kind
    return None if fact.key is None else f"{kind}/{fact.key}"


def first_cited(fact_ids: Iterable[int]) -> int | None:
    """The smallest cited fact id (None for none): the fact that created the entity."""
    return min(fact_ids, default=None)


def content_digest(text: str) -> str:
    """12 hex digits of sha256 of `text`: the name of a record that cites no fact."""
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:12]


def record_identity(fact_ids: Iterable[int], facts_by_id: Mapping[int, Fact], content: str = "") -> str:
    """The identity of a record citing `fact_ids` (see module); `content` (the record's JSON
    text) names a record that cites no fact."""
    ids = sorted(set(fact_ids))
    for fact_id in ids:
        fact = facts_by_id.get(fact_id)
        if fact is not None and fact.kind is not None:
            return fact_identity(fact)
    if not ids:
        return f"content:{content_digest(content)}"
    first = facts_by_id.get(ids[0])
    return fact_identity(first) if first is not None else f"#{ids[0]}"
