"""The facts' own rules have one owner each, in the fact log, and every package asks it:
entity identity (`factlog.identity`), liveness and update order (`factlog.liveness`),
reading stored dates (`factlog.timeparse`), and `JsonValue`. Before, each rule was written
two to four times (`codegen.live`, `users.checkpoint`, `runtime.recall_index`,
`users.records`, `constraints.model`) and `JsonValue` twice."""

from __future__ import annotations

import ast
import tempfile
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.live import select_live
from constraints.model import Finding, constraint, entity_key
from factlog.identity import content_digest, fact_identity, first_cited, record_identity, shared_identity
from factlog.liveness import dead_ids, effective_date, effective_day, killed_by, live_ids, superseders, update_order
from factlog.model import Fact, JsonValue, Provenance
from factlog.timeparse import day_of, parse_date, parse_datetime, try_date, try_datetime
from runtime.recall_index import RecallIndex
from users.records import Collection, Record, entity_ids, record_json

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("factlog", "codegen", "users", "constraints", "runtime")


def fact(fid: int, kind: str | None = None, key: str | None = None, *, retracts: int | None = None,
         valid_from: date | None = None, recorded_at: str = "2026-01-02T03:04:05+00:00",
         fields: dict[str, JsonValue] | None = None, user: str = "alice") -> Fact:
    return Fact(user, fid, recorded_at, f"fact {fid}", kind, fields or {}, key, valid_from, None, retracts,
                Provenance(), "0" * 64, "0" * 64)


# -- identity -------------------------------------------------------------------------------

def test_the_identity_of_a_fact() -> None:
    assert fact_identity(fact(1, "passport", "p1")) == "passport"  # singular canonical kind
    assert fact_identity(fact(2, "trips", "tokyo")) == "trip/tokyo"  # kind normalized
    assert fact_identity(fact(3, "trip")) == "trip#3"
    assert fact_identity(fact(4)) == "note#4"
    assert [shared_identity(fact(1, "passport")), shared_identity(fact(2, "trips", "tokyo")),
            shared_identity(fact(3, "trip")), shared_identity(fact(4))] == ["passport", "trip/tokyo", None, None]


def test_the_identity_of_a_record_from_the_facts_it_cites() -> None:
    facts = {f.id: f for f in (fact(3), fact(5, "trip", "tokyo"), fact(7, "trip", "tokyo"), fact(9))}
    assert record_identity([7, 5, 3], facts) == "trip/tokyo"  # the first cited fact with a kind
    assert record_identity([9], facts) == "note#9"
    assert record_identity([12, 40], facts) == "#12"  # cites no fact we know
    text = '{"a": 1}'
    assert record_identity([], facts, text) == f"content:{content_digest(text)}"
    assert first_cited([7, 5, 9]) == 5 and first_cited([]) is None


@dataclass(frozen=True)
class Trip:
    destination: str
    fact_ids: list[int]


def test_stored_and_shown_record_names_keep_their_spelling() -> None:
    """Alert ids are stored in alert state and diff entity ids are shown: both unchanged."""
    @constraint(name="trip_check")
    def check(module: object, now: datetime) -> list[Finding]:
        return [Finding("info", "x", (Trip("Tokyo", [12, 14]),)), Finding("info", "y", (Trip("Oslo", []),))]

    ids = [a.id for a in check.check(object(), datetime.now(timezone.utc))]
    assert ids[0] == "trip_check:f12"
    assert ids[1].startswith("trip_check:h") and len(ids[1]) == len("trip_check:h") + 12
    assert entity_key(Trip("Tokyo", [14, 12])) == "f12"
    tokyo = Record("Trip", {"destination": "Tokyo"}, [12, 14], None)
    oslo = Record("Trip", {"destination": "Oslo"}, [], None)
    paired = entity_ids(Collection("trips", False, [tokyo, oslo]), use_identity=False)
    assert paired[0][0] == "#12" and paired[1][0].startswith("content:")
    assert paired[1][0] == "content:" + content_digest(repr(record_json(oslo)))
    assert record_json(oslo) == {"destination": "Oslo", "fact_ids": []}


FACTS = st.lists(
    st.tuples(st.sampled_from([None, "trip", "trips", "passport", "profile", "note_x"]),
              st.sampled_from([None, "a", "b"]), st.integers(0, 3), st.integers(0, 12)),
    min_size=1, max_size=14,
)


def _log(spec: list[tuple[str | None, str | None, int, int]]) -> list[Fact]:
    out: list[Fact] = []
    for i, (kind, key, day, retract) in enumerate(spec, start=1):
        if retract and retract < i and retract % 3 == 0:
            out.append(fact(i, retracts=retract))
        else:
            out.append(fact(i, kind, key if kind else None, valid_from=date(2026, 1, 1 + day) if day else None))
    return out


@settings(max_examples=60, deadline=None)
@given(FACTS)
def test_compiler_checkpoint_and_recall_agree_on_identity_and_liveness(
        spec: list[tuple[str | None, str | None, int, int]]) -> None:
    log = _log(spec)
    live = select_live(log)
    assert {f.id for f in live.facts} == live_ids(log)
    for entities in live.entities.values():
        for entity in entities:
            assert {fact_identity(f) for f in log if f.id in entity.fact_ids} == {entity.ident}
    by_id = {f.id: f for f in log}
    for entities in live.entities.values():
        for entity in entities:
            assert record_identity(entity.fact_ids, by_id) == entity.ident
    with tempfile.TemporaryDirectory() as folder, RecallIndex(Path(folder) / "recall.db") as index:
        index.sync_facts("alice", log)
        rows = index._db.execute("SELECT fact_id, entity, day FROM docs WHERE source = 'fact'").fetchall()
    assert {r[0] for r in rows} == live_ids(log)
    for fact_id, entity, day in rows:
        assert entity == shared_identity(by_id[fact_id])
        assert day == effective_day(by_id[fact_id]) == effective_date(by_id[fact_id]).isoformat()


def test_liveness_and_update_order() -> None:
    log = [fact(1, "trip", "a"), fact(2, retracts=1), fact(3, retracts=2), fact(4, "trip", "a")]
    assert killed_by(log[1]) == (1, 2) and killed_by(log[0]) == ()
    assert dead_ids(log) == {1, 2, 3} and live_ids(log) == {4}  # a retracted retraction stays dead
    dated = fact(5, valid_from=date(2025, 1, 1))
    assert effective_date(dated) == date(2025, 1, 1)
    assert effective_date(fact(6)) == date(2026, 1, 2)
    assert effective_date(fact(7, recorded_at="garbage")) == date.min
    assert sorted([fact(6), dated], key=update_order)[0] is dated
    assert superseders([("2025-01-01", 1, ["a", "b"]), ("2025-01-02", 2, ["b"])]) == {1: 2}


# -- dates ----------------------------------------------------------------------------------

def test_stored_dates_read_one_way() -> None:
    assert parse_date("2026-12-01") == date(2026, 12, 1)
    assert parse_datetime("2026-12-01T09:00:00+00:00").hour == 9
    assert try_date("2026-02-30") is None and try_datetime("soon") is None
    assert day_of("2026-12-01T09:00:00+00:00") == date(2026, 12, 1)
    assert day_of(None) is None and day_of("") is None and day_of("12/01/2026") is None


# -- one owner each -------------------------------------------------------------------------

def _sources() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"), str(path)))
            for package in PACKAGES for path in sorted((REPO / package).rglob("*.py"))]


def test_each_rule_has_one_definition_in_the_fact_log() -> None:
    owners = {"JsonValue": "factlog/model.py", "dead_ids": "factlog/liveness.py",
              "effective_date": "factlog/liveness.py", "superseders": "factlog/liveness.py",
              "fact_identity": "factlog/identity.py", "kind_identity": "factlog/identity.py",
              "shared_identity": "factlog/identity.py", "entity_of": None}
    found: dict[str, list[str]] = {name: [] for name in owners}
    for path, tree in _sources():
        for node in ast.walk(tree):
            names = [node.name] if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else \
                [t.id for t in node.targets if isinstance(t, ast.Name)] if isinstance(node, ast.Assign) else \
                [node.target.id] if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) else []
            for name in names:
                if name in found:
                    found[name].append(str(path.relative_to(REPO)))
    assert found == {name: [owner] if owner else [] for name, owner in owners.items()}


def test_only_the_time_module_calls_fromisoformat() -> None:
    calls = [f"{path.relative_to(REPO)}:{node.lineno}" for path, tree in _sources() for node in ast.walk(tree)
             if isinstance(node, ast.Attribute) and node.attr == "fromisoformat"
             and path != REPO / "factlog" / "timeparse.py"]
    assert calls == []
