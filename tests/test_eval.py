"""`uac eval`: analytical cases, alert scenarios, reports and compare (docs/EVAL.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest
from scripted_llm import ScriptedLLM

from runtime.eval_alerts import Expected, judge, scenario
from runtime.eval_labels import Extraction, Label, TypedFact, entity_states, field_misses, names_same_thing, normal
from runtime.eval_score import score

Uac = Callable[..., Any]
REPO = Path(__file__).resolve().parents[1]
ANALYTICAL = REPO / "benchmarks" / "evals" / "analytical.json"
ALERTS_FACTS = REPO / "benchmarks" / "evals" / "alerts_facts.json"
CONVERSATIONS = Path(__file__).with_name("eval_conversations.json")


def cases_of(path: Path, key: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(path.read_text())[key]
    return found


def write(path: Path, key: str, items: list[Any]) -> Path:
    path.write_text(json.dumps({key: items}))
    return path


def run_json(uac: Uac, *args: str) -> tuple[int, dict[str, Any]]:
    r = uac(*args, "--json")
    assert r.code in (0, 1), r.err
    data: dict[str, Any] = json.loads(r.out)
    return r.code, data


# -- scoring --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind, value, gold, expected", [
    ("int", 3, 3, True), ("int", 3.0, 3, True), ("int", 4, 3, False), ("int", True, 1, False),
    ("int", "3", 3, False),
    ("float", 100.9, 100.0, True), ("float", 101.5, 100.0, False), ("float", 0.005, 0.0, True),
    ("float", 0.02, 0.0, False),
    ("string", "Book 12", "book 12", True), ("string", "book 12 (2024)", "Book 12", True),
    ("string", "Tokyo", "I went to tokyo", True), ("string", "", "x", False), ("string", "Paris", "Rome", False),
    ("string", ["Rome"], "rome", True),
    ("set", {"A", "b"}, ["a", "B"], True), ("set", ["a", "a", "b"], ["b", "a"], True), ("set", ["a"], ["a", "b"], False),
    ("set", {"x": 1, "y": 2}, ["X", "Y"], True),
    ("list", ["A", "b"], ["a", "B"], True), ("list", ["b", "a"], ["a", "b"], False), ("list", (1, 2.0), [1.0, 2], True),
    ("list", "ab", ["a", "b"], False),
])
def test_scoring_is_deterministic_and_exact(kind: Any, value: object, gold: object, expected: bool) -> None:
    assert score(kind, value, gold) is expected


# -- analytical -----------------------------------------------------------------------------


def analytical_subset() -> list[dict[str, Any]]:
    """One case per record type, the smallest with an answer kind not yet chosen, so that
    every kind is there (the file is seeded: always the same cases)."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for case in cases_of(ANALYTICAL, "cases"):
        by_type.setdefault(case["type"], []).append(case)
    chosen: list[dict[str, Any]] = []
    kinds: set[str] = set()
    for name in sorted(by_type):
        ranked = sorted(by_type[name], key=lambda c: (c["answer_kind"] in kinds, c["n"]))
        chosen.append(ranked[0])
        kinds.add(ranked[0]["answer_kind"])
    return chosen


def test_the_shipped_analytical_set_is_large_enough() -> None:
    cases = cases_of(ANALYTICAL, "cases")
    assert len(cases) >= 50 and len({c["type"] for c in cases}) >= 5 and max(c["n"] for c in cases) == 500
    assert all(c.get("expression") and len(c["records"]) == c["n"] for c in cases)
    assert {c["answer_kind"] for c in cases} == {"int", "float", "string", "set", "list"}


def test_analytical_subset_at_100_percent_with_a_report(uac: Uac, tmp_path: Path) -> None:
    subset = analytical_subset()
    assert len({c["type"] for c in subset}) == 6 and len({c["answer_kind"] for c in subset}) == 5
    report = tmp_path / "a.json"
    code, data = run_json(uac, "eval", "analytical", str(write(tmp_path / "cases.json", "cases", subset)),
                          "--report", str(report))
    assert code == 0, [c for c in data["cases"] if c["status"] != "pass"]
    assert json.loads(report.read_text()) == data
    assert data["format"] == 1 and data["command"] == "analytical" and data["producer"] == "compiler"
    assert {"git_revision", "model", "settings", "started_at", "seconds"} <= set(data)
    assert data["summary"]["accuracy"] == 1.0 and data["summary"]["cases"] == len(subset)
    assert set(data["summary"]["by_type"]) == {c["type"] for c in subset}
    assert [c["id"] for c in data["cases"]] == [c["case_id"] for c in subset]
    assert all(c["status"] == "pass" and c["seconds"] > 0 for c in data["cases"])
    chart = (tmp_path / "a.json.svg").read_text()
    assert chart.startswith("<svg") and all(f">{c['type']}<" in chart for c in subset) and ">1/1<" in chart


def test_a_bad_case_is_an_error_row_and_the_run_goes_on(uac: Uac, tmp_path: Path) -> None:
    good = {"case_id": "count", "type": "purchases", "n": 2, "question": "How many?", "answer_kind": "int", "gold": 2,
            "records": [{"item": "a", "amount": 1.5}, {"item": "b", "amount": 2.5}], "expression": "len(records)"}
    wrong = {**good, "case_id": "wrong", "gold": 3}
    failing = {**good, "case_id": "raises", "expression": "records[5].amount"}
    no_expression = {k: v for k, v in good.items() if k != "expression"} | {"case_id": "no-expression"}
    bad = [{"case_id": "no-records", "type": "x", "question": "q", "answer_kind": "int", "gold": 1},
           {**good, "case_id": "bad-kind", "answer_kind": "dict"}, "not an object"]
    items = [good, *bad, wrong, failing, no_expression]
    code, data = run_json(uac, "eval", "analytical", str(write(tmp_path / "c.json", "cases", items)),
                          "--report", str(tmp_path / "r.json"))
    assert code == 1
    rows = {c["id"]: c for c in data["cases"]}
    assert [c["status"] for c in data["cases"]] == ["pass", "error", "error", "error", "fail", "fail", "error"]
    assert "'records'" in rows["no-records"]["detail"] and "answer_kind" in rows["bad-kind"]["detail"]
    assert "#4" in rows and "object" in rows["#4"]["detail"]
    assert "answered 2, expected 3" in rows["wrong"]["detail"]
    assert "IndexError" in rows["raises"]["detail"]
    assert "--ask" in rows["no-expression"]["detail"]
    assert data["summary"]["errors"] == 4 and data["summary"]["passed"] == 1


@pytest.mark.parametrize("content, message", [
    (None, "no such file"), ("{not json", "not JSON"), ('{"items": []}', "'cases' list"), ("[1, 2]", "'cases' list"),
])
def test_a_bad_file_exits_2_in_one_line_and_writes_no_report(uac: Uac, tmp_path: Path, content: str | None,
                                                              message: str) -> None:
    path = tmp_path / "cases.json"
    if content is not None:
        path.write_text(content)
    report = tmp_path / "r.json"
    r = uac("eval", "analytical", str(path), "--report", str(report))
    assert r.code == 2 and message in r.err and len(r.err.strip().splitlines()) == 1, r.err
    assert not report.exists()


@pytest.mark.parametrize("args, message", [
    (("--workers", "0"), "--workers"), (("--producer", "nosuch"), "no producer named"),
])
def test_bad_options_exit_2(uac: Uac, tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    path = write(tmp_path / "c.json", "cases", [])
    r = uac("eval", "analytical", str(path), "--report", str(tmp_path / "r.json"), *args)
    assert r.code == 2 and message in r.err, r.err
    r = uac("eval", "alerts", str(path), "--split", "train")
    assert r.code == 2 and "--split" in r.err, r.err


def test_ask_answers_through_the_model(uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    case = {"case_id": "ask-sum", "type": "purchases", "kind": "purchase", "n": 3, "question": "How much did I spend?",
            "answer_kind": "float", "gold": 6.0,
            "records": [{"item": "a", "amount": 1.0}, {"item": "b", "amount": 2.0}, {"item": "c", "amount": 3.0}]}
    scripted_llm.queue(json.dumps({"expression": "sum(p.amount for p in purchases)", "answerable": True,
                                   "reason": "sums the amounts"}))
    code, data = run_json(uac, "eval", "analytical", str(write(tmp_path / "c.json", "cases", [case])), "--ask",
                          "--report", str(tmp_path / "r.json"))
    assert code == 0, data["cases"]
    [row] = data["cases"]
    assert row["expression"] == "sum(p.amount for p in purchases)" and row["tokens"] > 0
    assert data["model"] == scripted_llm.model and data["summary"]["tokens"] == row["tokens"]
    [request] = scripted_llm.chat_requests
    assert "How much did I spend?" in json.dumps(request.json)


# -- alerts ---------------------------------------------------------------------------------


def facts_subset() -> list[dict[str, Any]]:
    """A positive and a negative of a few built-ins: one session-time trigger, one spread over sessions."""
    wanted = {"passport_expiry-soon-01", "drug_allergy-daughter-02", "negative_drug_allergy-stopped-02",
              "negative_passport_trip-domestic-01"}
    return [s for s in cases_of(ALERTS_FACTS, "scenarios") if s["id"] in wanted]


def test_the_facts_set_covers_every_builtin_with_negatives() -> None:
    from constraints.builtin import BUILTIN

    scenarios = cases_of(ALERTS_FACTS, "scenarios")
    named = {e["constraint"] for s in scenarios for e in s["expected"]}
    assert named == {c.name for c in BUILTIN}
    assert sum(1 for s in scenarios if s["negative"]) >= 10
    assert len({s["id"] for s in scenarios}) == len(scenarios)


def test_alerts_facts_subset_passes(uac: Uac, tmp_path: Path) -> None:
    subset = facts_subset()
    assert len(subset) == 4
    code, data = run_json(uac, "eval", "alerts", str(write(tmp_path / "s.json", "scenarios", subset)),
                          "--report", str(tmp_path / "r.json"))
    assert code == 0, [c for c in data["cases"] if c["status"] != "pass"]
    assert data["command"] == "alerts" and data["summary"]["pass_rate"] == 1.0
    assert data["summary"]["false_alerts_on_negatives"] == 0 and data["summary"]["early_alerts"] == 0


def test_conversations_with_labels_and_split(uac: Uac, tmp_path: Path) -> None:
    code, data = run_json(uac, "eval", "alerts", str(CONVERSATIONS), "--report", str(tmp_path / "r.json"))
    assert code == 0, data["cases"]
    extraction = data["summary"]["extraction"]["passport"]
    assert extraction["labels"] == 2 and extraction["recall"] == 1.0 and extraction["precision"] == 1.0
    code, data = run_json(uac, "eval", "alerts", str(CONVERSATIONS), "--split", "test",
                          "--report", str(tmp_path / "r2.json"))
    assert [c["id"] for c in data["cases"]] == ["negative_passport_expiry-01"]


def test_llm_extract_sends_each_session_to_the_model(uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    said = {"message_index": 0, "text": "The user's passport expires on 2025-02-01.", "subject": None,
            "kind": "passport", "fields": [{"name": "expiry_date", "value": "2025-02-01"}],
            "valid_from": None, "valid_to": None, "entity": None}
    scripted_llm.queue(json.dumps({"facts": [said]}), json.dumps({"facts": []}))
    item = {"id": "llm_passport-01", "sessions": [
        {"session_id": "s1", "timestamp": "2024-09-01T09:00:00",
         "messages": [{"role": "user", "content": "My passport runs out on Feb 1 next year."}]},
        {"session_id": "s2", "timestamp": "2025-01-10T09:00:00",
         "messages": [{"role": "user", "content": "Any tips for packing light?"}]}],
        "expected": [{"constraint": "passport_expiry", "concepts": [["passport"]]}],
        "labels": [{"session_id": "s1", "kind": "passport", "fields": {"expiry_date": "2025-02-01"}}]}
    code, data = run_json(uac, "eval", "alerts", str(write(tmp_path / "s.json", "scenarios", [item])),
                          "--llm-extract", "--report", str(tmp_path / "r.json"))
    assert code == 0, data["cases"]
    [row] = data["cases"]
    assert row["tokens"] > 0 and data["model"] == scripted_llm.model and data["settings"]["llm_extract"] is True
    assert data["summary"]["extraction"]["passport"]["recall"] == 1.0
    assert len(scripted_llm.chat_requests) == 2


def test_bad_scenarios_are_error_rows(uac: Uac, tmp_path: Path) -> None:
    good = facts_subset()[0]
    items = [{"id": "no-sessions", "sessions": []},
             {**good, "id": "bad-trigger", "trigger_session": "s9"},
             {**good, "id": "bad-fact", "sessions": [{"session_id": "s1", "timestamp": "2025-01-01T00:00:00",
                                                      "facts": [{"kind": "trip", "fields": {"departure_date": "soon"}}]}]},
             {**good, "id": "bad-time", "sessions": [{"session_id": "s1", "timestamp": "yesterday", "facts": []}]}]
    code, data = run_json(uac, "eval", "alerts", str(write(tmp_path / "s.json", "scenarios", items)),
                          "--report", str(tmp_path / "r.json"))
    assert code == 1 and [c["status"] for c in data["cases"]] == ["error"] * 4
    details = {c["id"]: c["detail"] for c in data["cases"]}
    assert "sessions" in details["no-sessions"] and "s9" in details["bad-trigger"]
    assert "departure_date" in details["bad-fact"] and "timestamp" in details["bad-time"]


def alert(message: str, constraint: str = "c", severity: str = "warning", ident: str = "a") -> dict[str, Any]:
    return {"id": ident, "constraint": constraint, "severity": severity, "message": message}


def test_judge_early_missing_and_negative() -> None:
    base = {"id": "x", "sessions": [{"session_id": s, "timestamp": f"2025-01-0{i + 1}T00:00:00", "facts": []}
                                    for i, s in enumerate(("s1", "s2", "s3"))],
            "trigger_session": "s2",
            "expected": [{"concepts": [["passport"], ["tokyo", "japan"]], "constraint": "c"}]}
    case = scenario(base)
    hit = alert("passport expires before your Japan trip")
    assert judge(case, [("s1", []), ("s2", [hit]), ("s3", [])])[0] == "pass"
    status, detail, counts = judge(case, [("s1", [hit]), ("s2", [hit]), ("s3", [])])
    assert status == "fail" and "early" in detail and counts["early_alerts"] == 1
    status, detail, _ = judge(case, [("s1", []), ("s2", [alert("passport expires soon")]), ("s3", [hit])])
    assert status == "fail" and "not active at s2" in detail
    assert judge(case, [("s1", []), ("s2", [alert("passport Tokyo", constraint="other")])])[0] == "fail"
    other = alert("bill due", ident="b")
    status, _, counts = judge(case, [("s1", [other]), ("s2", [hit, other])])
    assert status == "pass" and counts["false_alerts"] == 1  # reported, not failing a positive
    negative = scenario({**base, "negative": True, "expected": [], "trigger_session": "s3"})
    assert judge(negative, [("s1", []), ("s2", []), ("s3", [])])[0] == "pass"
    assert judge(negative, [("s1", []), ("s2", [other]), ("s3", [])])[0] == "fail"
    assert Expected(None, None, (("A",),)).met_by(alert("a b"))


def test_extraction_counts_and_normalising() -> None:
    assert normal("2025-03-05") == normal("2025-03-05T00:00:00") and normal("$5,000") == normal(5000)
    assert normal("  New  York ") == normal("new york") and normal(1) == normal(1.0)
    counts = Extraction()
    facts = [TypedFact("s1", "passport", {"expiry_date": "2025-03-05", "country": "USA"}),
             TypedFact("s2", "trip", {"destination": "Tokyo"}), TypedFact("s2", "trip", {"destination": "Oslo"})]
    labels = [Label("s1", "passport", {"expiry_date": "2025-03-05T00:00:00"}), Label("s2", "trip", {"destination": "tokyo"}),
              Label("s1", "trip", {"destination": "Oslo"})]  # wrong session: no match
    missed = counts.add(facts, labels)
    assert missed == [labels[2]]
    found = counts.to_json()
    assert found["passport"] == {"facts": 1, "labels": 1, "matched": 1, "precision": 1.0, "recall": 1.0,
                                 "matched_entity": 1, "precision_entity": 1.0, "recall_entity": 1.0,
                                 "found_facts": 1, "found_labels": 1, "precision_found": 1.0, "recall_found": 1.0}
    # the Oslo trip labelled in another session is still found as a thing
    assert found["trip"] == {"facts": 2, "labels": 2, "matched": 1, "precision": 0.5, "recall": 0.5,
                             "matched_entity": 1, "precision_entity": 0.5, "recall_entity": 0.5,
                             "found_facts": 2, "found_labels": 2, "precision_found": 1.0, "recall_found": 1.0}


def test_a_thing_is_found_whatever_its_dates_but_not_under_another_name_or_owner() -> None:
    label = Label("s2", "trip", {"destination": "Tokyo", "departure_date": "2025-03-14", "subject": "user"})
    assert names_same_thing(TypedFact("s1", "trip", {"country": "Japan", "departure_date": "2025-04-01"}), label)
    assert not names_same_thing(TypedFact("s2", "trip", {"destination": "Osaka"}), label)
    assert not names_same_thing(TypedFact("s2", "trip", {"destination": "Tokyo", "subject": "Ava"}), label)
    assert not names_same_thing(TypedFact("s2", "trip", {"departure_date": "2025-03-14"}), label)  # names nothing
    assert not names_same_thing(TypedFact("s2", "document", {"destination": "Tokyo"}), label)
    drug = Label("s1", "medication", {"name": "warfarin", "dose": "5 mg"})
    assert names_same_thing(TypedFact("s3", "medication", {"name": "Coumadin", "status": "stopped"}), drug)
    # a kind that names no thing (one passport per person): its kind and owner suffice
    assert names_same_thing(TypedFact("s1", "passport", {"expiry_date": "2031-01-01"}),
                            Label("s1", "passport", {"expiry_date": "2030-01-01"}))
    counts = Extraction()
    counts.add([TypedFact("s1", "trip", {"destination": "Rome"}), TypedFact("s1", "trip", {"destination": "Paris"})],
               [label])
    assert counts.to_json()["trip"]["precision_found"] == 0.0 and counts.to_json()["trip"]["recall_found"] == 0.0


def test_labels_are_compared_with_entity_states_per_session() -> None:
    facts = [TypedFact("s1", "trip", {"destination": "Tokyo", "speaker": "user"}, "tokyo"),
             TypedFact("s1", "trip", {"departure_date": "2025-03-14"}, "tokyo"),
             TypedFact("s1", "passport", {"expiry_date": "2025-03-19"}, "passport"),
             TypedFact("s2", "trip", {"departure_date": "2025-03-14", "speaker": "assistant"}, "tokyo"),  # restated
             TypedFact("s3", "trip", {"return_date": "2025-03-24"}, "tokyo"),
             TypedFact("s3", "note", {"dates": ["2025-03-01"]})]
    states = entity_states(facts)
    assert [(s.session_id, s.kind, dict(s.fields)) for s in states] == [
        ("s1", "trip", {"destination": "Tokyo", "speaker": "user", "departure_date": "2025-03-14"}),
        ("s1", "passport", {"expiry_date": "2025-03-19"}),
        ("s3", "trip", {"destination": "Tokyo", "speaker": "assistant", "departure_date": "2025-03-14",
                        "return_date": "2025-03-24"}),
        ("s3", "note", {"dates": ["2025-03-01"]})]
    label = Label("s3", "trip", {"destination": "Tokyo", "departure_date": "2025-03-14", "return_date": "2025-03-24"})
    assert Extraction().add(states, [label]) == [] and Extraction().add(facts, [label]) == [label]


# -- compare --------------------------------------------------------------------------------


def test_compare_prints_better_and_worse(uac: Uac, tmp_path: Path) -> None:
    def report(statuses: dict[str, str]) -> dict[str, Any]:
        return {"format": 1, "command": "analytical", "git_revision": None, "producer": "compiler", "model": None,
                "settings": {}, "started_at": "", "seconds": 1, "summary": {},
                "cases": [{"id": k, "status": v, "detail": f"why {k}", "seconds": 0.1} for k, v in statuses.items()]}

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(report({"one": "pass", "two": "fail", "three": "pass", "gone": "pass"})))
    b.write_text(json.dumps(report({"one": "pass", "two": "pass", "three": "error", "new": "fail"})))
    r = uac("eval", "compare", str(a), str(b))
    assert r.code == 0, r.err
    assert "A: 3/4 pass; B: 2/4 pass" in r.out
    assert "better (1):\n  two: fail -> pass" in r.out and "worse (1):\n  three: pass -> error: why three" in r.out
    assert "added (1):\n  new: - -> fail" in r.out and "removed (1):\n  gone: pass -> -" in r.out
    data = json.loads(uac("eval", "compare", str(a), str(b), "--json").out)
    assert {c["id"]: c["change"] for c in data["changes"]} == {"two": "better", "three": "worse", "new": "added",
                                                               "gone": "removed"}
    (tmp_path / "bad.json").write_text('{"format": 1, "cases": [{"id": 1}]}')
    r = uac("eval", "compare", str(a), str(tmp_path / "bad.json"))
    assert r.code == 2 and "case 1" in r.err


# -- the whole shipped sets (slow: a checkpoint per case or session) -----------------------


# CI runs the whole shipped set (issue 12), about 6-10 s on a quiet machine
def test_the_whole_analytical_set_at_100_percent(uac: Uac, tmp_path: Path) -> None:
    code, data = run_json(uac, "eval", "analytical", str(ANALYTICAL), "--report", str(tmp_path / "r.json"),
                          "--workers", "2")
    assert code == 0 and data["summary"]["accuracy"] == 1.0, [c for c in data["cases"] if c["status"] != "pass"]


# CI runs the whole shipped set (issue 12), about 6-10 s on a quiet machine
def test_the_whole_facts_alerts_set_at_100_percent(uac: Uac, tmp_path: Path) -> None:
    code, data = run_json(uac, "eval", "alerts", str(ALERTS_FACTS), "--report", str(tmp_path / "r.json"))
    assert code == 0 and data["summary"]["pass_rate"] == 1.0, [c for c in data["cases"] if c["status"] != "pass"]


# CI runs every shipped conversation set's dev split (issue 12; the test split is held out
# and reported, not tuned on), about 15-25 s on a quiet machine
def test_the_dev_conversations_at_100_percent(uac: Uac, tmp_path: Path) -> None:
    files = sorted(str(path) for path in (REPO / "benchmarks" / "evals").glob("conversations_*.json"))
    assert len(files) >= 2
    code, data = run_json(uac, "eval", "alerts", *files, "--split", "dev", "--report", str(tmp_path / "r.json"))
    summary = data["summary"]
    assert code == 0 and summary["scenarios"] >= 100, summary
    assert summary["pass_rate"] == 1.0 and summary["false_alerts_on_negatives"] == 0, [
        (c["id"], c["detail"]) for c in data["cases"] if c["status"] != "pass"]


# -- transcripts ----------------------------------------------------------------------------

CASE_YAML = """\
test_id: tiny_01
category: layer1
conversation_histories:
- conversation_id: call_1
  timestamp: '2024-11-15 10:30:00'
  metadata: {business: First National Bank}
  messages:
  - {role: user, content: "Please open a checking account for me."}
  - {role: assistant, content: "Done. Your new checking account number is 4429853327, with a $250.00 opening deposit."}
user_question: What was my checking account number again?
evaluation_criteria: |
  The agent gives the account number 4429853327 and the $250.00 deposit.
"""


def test_transcripts_ingest_validate_and_report_the_proxy(uac: Uac, tmp_path: Path) -> None:
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "01_tiny.yaml").write_text(CASE_YAML)
    (folder / "02_broken.yaml").write_text("conversation_histories: [{messages: 5}]\n")
    code, data = run_json(uac, "eval", "transcripts", str(folder), "--report", str(tmp_path / "r.json"))
    assert code == 1 and data["command"] == "transcripts"
    good, broken = data["cases"]
    assert good["id"] == "tiny_01" and good["status"] == "pass" and good["validation"] == "published"
    assert good["facts"] >= 2 and good["notes"] >= 1 and good["proxy_rubric_terms"]["terms"] == 2
    # the account number and the deposit are typed values (a note's identifiers and amounts at least)
    assert good["rubric_terms_typed"]["in_fields"] == 2 and good["rubric_terms_typed"]["in_no_field"] == []
    assert data["summary"]["rubric_terms_typed"]["terms"] == 2
    assert broken["status"] == "error" and "messages" in broken["detail"]
    assert data["summary"]["validated"] == 1 and "proxy" in data["summary"]["proxy_rubric_terms_in_recall"]["note"]
    r = uac("eval", "transcripts", str(tmp_path / "nowhere"))
    assert r.code == 2 and "no such folder" in r.err


def test_transcripts_llm_answers_from_memory_and_a_judge_scores(uac: Uac, tmp_path: Path,
                                                               scripted_llm: ScriptedLLM) -> None:
    from scripted_llm import Reply

    folder = tmp_path / "cases"
    folder.mkdir()
    for name, test_id in (("01.yaml", "judged"), ("02.yaml", "outage"), ("03.yaml", "low")):
        (folder / name).write_text(CASE_YAML.replace("tiny_01", test_id))
    not_by_code = json.dumps({"expression": "", "answerable": False, "reason": "only free text holds it"})
    scripted_llm.queue(
        not_by_code, "Your checking account number is 4429853327.",  # judged: ask, answer,
        '{"score": 1.5, "reasons": "too generous"}', '{"score": 0.9, "reasons": "gives the number"}',  # judge x2
        *[Reply(status=500)] * 3,  # outage: the ask's request and its two retries
        not_by_code, "I do not know.", '{"score": 0.2, "reasons": "the number is missing"}')  # low
    code, data = run_json(uac, "eval", "transcripts", str(folder), "--llm", "--report", str(tmp_path / "r.json"))
    assert code == 1 and data["model"] == scripted_llm.model and data["settings"]["llm"] is True
    judged, outage, low = data["cases"]
    assert judged["status"] == "pass" and judged["validation"] == "published", judged
    assert judged["judge"]["score"] == 0.9 and judged["judge"]["reasons"] == "gives the number"
    assert judged["judge"]["answer"] == "Your checking account number is 4429853327."
    assert judged["judge"]["answered_by"] == "recall" and judged["judge"]["calls"] == 4
    assert judged["tokens"] == judged["judge"]["tokens"] > 0 and judged["judge"]["model_seconds"] >= 0
    assert outage["status"] == "error" and outage["detail"].startswith("model: ") and "HTTP 500" in outage["detail"]
    assert outage["validation"] == "published" and "judge" not in outage  # the run went on, the row kept its facts
    assert low["status"] == "fail" and low["detail"].startswith("judge: 0.20 < 0.5: the number is missing")
    assert data["summary"]["validated"] == 3 and data["summary"]["passed"] == 1  # the judge decides the pass
    summary = data["summary"]["judge"]
    assert summary["judged"] == 2 and summary["mean_score"] == 0.55 and summary["at_pass_score"] == 1
    assert summary["model_errors"] == 1 and summary["tokens"] == judged["tokens"] + low["tokens"]
    requests = [r.json for r in scripted_llm.chat_requests]
    answer_prompt = json.dumps(requests[1]["messages"])
    assert "What was my checking account number again?" in answer_prompt and "Recalled facts" in answer_prompt
    judge_prompt, reask = json.dumps(requests[2]["messages"]), json.dumps(requests[3]["messages"])
    assert "4429853327 and the $250.00 deposit" in judge_prompt and "Your checking account number" in judge_prompt
    assert "not valid" in reask and "score" in reask
    assert len(requests) == 10


def test_transcripts_llm_needs_a_model(uac: Uac, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "UAC_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "01.yaml").write_text(CASE_YAML)
    r = uac("eval", "transcripts", str(folder), "--llm", "--report", str(tmp_path / "r.json"))
    assert r.code == 2 and "no model configured" in r.err and r.err.count("\n") == 1
    assert not (tmp_path / "r.json").exists()


# CI runs the whole shipped set (issue 12), about 6-10 s on a quiet machine
def test_the_layer1_transcripts_all_ingest_and_validate(uac: Uac, tmp_path: Path, shared_data: Path) -> None:
    code, data = run_json(uac, "eval", "transcripts", str(shared_data),
                          "--report", str(tmp_path / "r.json"), "--workers", "2")
    assert code == 0 and data["summary"]["validated"] == 20, [c for c in data["cases"] if c["status"] != "pass"]


@pytest.mark.parametrize("text", ["[" * 100_000, "\udcff", '{"format": 1, "cases": 3}'])
def test_a_bad_report_file_is_one_line_not_a_crash(tmp_path: Path, text: str) -> None:
    from factlog.errors import InputError
    from runtime.eval_report import read_report

    path = tmp_path / "report.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(InputError) as caught:
        read_report(path)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)


def test_field_misses_say_which_field_of_a_found_thing_disagrees() -> None:
    facts = [TypedFact("s1", "trip", {"destination": "Tokyo", "departure_date": "2025-03-14"}),
             TypedFact("s2", "trip", {"destination": "Tokyo", "departure_date": "2025-03-15", "booking_status": "booked"}),
             TypedFact("s1", "medication", {"name": "warfarin"})]
    labels = [Label("s2", "trip", {"destination": "Japan", "departure_date": "2025-03-14", "booking_status": "booked"}),
              Label("s1", "medication", {"name": "Coumadin", "dose": "5 mg"}),
              Label("s1", "medication", {"name": "sertraline"}),  # never found: no reason to give
              Label("s1", "trip", {"destination": "Tokyo"})]  # matched: no reason either
    # the s2 state agrees on more (session, place, status) than the s1 one (place, date)
    assert field_misses(facts, labels) == {"trip": {"departure_date: differs": 1},
                                           "medication": {"dose: missing": 1}}
    assert field_misses([TypedFact("s1", "trip", {"destination": "Tokyo"})],
                        [Label("s3", "trip", {"destination": "Tokyo"})]) == {"trip": {"session: differs": 1}}


def test_someone_elses_trip_is_not_the_labelled_users_thing() -> None:
    label = Label("s1", "trip", {"destination": "Tokyo"}, subject="user")
    assert names_same_thing(TypedFact("s2", "trip", {"destination": "Tokyo"}), label)  # no subject: the user's
    assert not names_same_thing(TypedFact("s1", "trip", {"destination": "Tokyo", "subject": "daughter"}), label)
