"""Validate conversation evaluation sets (`conversations_*.json`) and count their scenarios.

Usage: python3 benchmarks/evals/check_conversations.py [FILE ...]
Without arguments it checks every `conversations_*.json` next to this script. Prints one line per
problem and exits 2 when there is any; otherwise prints the scenario counts per category and split.

The rules (the format of the conversation evaluation set):
- the file is `{"format": 1, "source": str, "scenarios": [...]}`;
- a scenario has a unique `id` (across all files checked) starting with its `category`, a known
  category (or `negative_` + a known category, exactly when `negative` is true), `split` "dev" or
  "test", a `style`, 2-4 sessions with unique ids, ISO timestamps without a zone in increasing
  order, optional `metadata` object, and non-empty user/assistant messages;
- a positive scenario names an existing `trigger_session` and at least one expected alert; a
  negative expects none; every expected alert has `concepts`: non-empty groups of non-empty
  strings, and optionally `constraint` (str) and `severity` (critical, warning or info);
- every label names an existing session, a known kind with known fields, a `subject`, a `speaker`
  ("user" or "assistant"); `*_date` fields are ISO dates, `*_time` fields HH:MM, amounts numbers.

Standard library only.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from datetime import date, datetime
from pathlib import Path
from typing import Any

CATEGORIES = (
    "passport_trip", "visa_trip", "insurance_trip", "drug_interaction", "drug_allergy",
    "recurring_conflict", "warranty_issue", "promo_balance", "conflicting_payments", "bills_subscriptions",
)
SPLITS = ("dev", "test")
SEVERITIES = ("critical", "warning", "info")
SPEAKERS = ("user", "assistant")
ROLES = ("user", "assistant")

# Label kinds and fields: the canonical vocabulary plus the conversation additions.
KINDS: dict[str, set[str]] = {
    "profile": {"full_name", "home_city", "email", "phone", "occupation", "employer", "birth_date"},
    "passport": {"number", "country", "issue_date", "expiry_date"},
    "document": {"kind", "number", "holder", "expiry_date", "country", "issue_date", "start_date", "item",
                 "provider", "purchase_date"},
    "trip": {"destination", "country", "purpose", "booking_ref", "carrier", "departure_date", "return_date",
             "is_international", "cost_usd", "departure_time", "return_time", "booking_status", "confirmation"},
    "loyalty_program": {"program", "number"},
    "allergy": {"allergen", "drug_class", "severity", "person"},
    "medication": {"name", "drug_class", "dose", "person", "start_date", "end_date", "prescriber", "status"},
    "appointment": {"provider", "location", "person", "start", "end"},
    "account": {"institution", "kind", "last4"},
    "payment": {"payee", "reference", "status", "requested_by", "amount_usd", "scheduled_date", "from_account",
                "to_account"},
    "bill": {"payee", "amount_usd", "due_date", "recurring", "autopay"},
    "vehicle": {"make", "model", "plate", "vin", "year", "next_service_date"},
    "relative": {"name", "relationship", "birth_date"},
    "event": {"title", "location", "start", "end", "recurrence", "weekday", "start_time", "end_time", "status",
              "person"},
    "deadline": {"title", "due_date"},
    "preference": {"topic", "value", "condition"},
    "subscription": {"vendor", "amount_usd", "cadence", "due_date", "promo_end_date", "status"},
}
DOCUMENT_KINDS = ("passport", "visa", "drivers_licence", "id_card", "insurance", "warranty", "certificate")
BOOKING = ("booked", "planned", "cancelled")
MEDICATION_STATUS = ("current", "stopped", "planned")
NUMBER_FIELDS = ("amount_usd", "cost_usd")
DATETIME_FIELDS = ("start", "end")
TIME = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")
DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


def _with_vocabulary() -> None:
    """Fields the project's vocabulary has gained since this table was written are fields too."""
    here = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(here))
    try:
        from factlog.vocabulary import CANONICAL
    except Exception:  # noqa: BLE001 - the table above is enough without the package
        return
    finally:
        sys.path.remove(str(here))
    for kind, domain in CANONICAL.items():
        KINDS.setdefault(kind, set()).update(domain.fields)


def _is_date(value: object) -> bool:
    if not isinstance(value, str) or not DATE.match(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _timestamp(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return None if moment.tzinfo is not None else moment


def _nonempty_str(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


class Checker:
    def __init__(self) -> None:
        self.problems: list[str] = []
        self.ids: dict[str, str] = {}
        self.counts: Counter[tuple[str, str]] = Counter()

    def fail(self, where: str, what: str) -> None:
        self.problems.append(f"{where}: {what}")

    def check_file(self, path: Path) -> None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            self.fail(path.name, f"cannot read as JSON ({error})")
            return
        if not isinstance(data, dict):
            self.fail(path.name, "top level is not an object")
            return
        if data.get("format") != 1:
            self.fail(path.name, "'format' must be 1")
        if not _nonempty_str(data.get("source")):
            self.fail(path.name, "'source' must be a non-empty string")
        scenarios = data.get("scenarios")
        if not isinstance(scenarios, list) or not scenarios:
            self.fail(path.name, "'scenarios' must be a non-empty list")
            return
        for index, scenario in enumerate(scenarios):
            self.check_scenario(path.name, index, scenario)

    def check_scenario(self, name: str, index: int, scenario: Any) -> None:
        where = f"{name}[{index}]"
        if not isinstance(scenario, dict):
            self.fail(where, "scenario is not an object")
            return
        sid = scenario.get("id")
        if not isinstance(sid, str) or not sid.strip():
            self.fail(where, "'id' must be a non-empty string")
            sid = f"#{index}"
        else:
            where = f"{name}:{sid}"
            if sid in self.ids:
                self.fail(where, f"duplicate id (also in {self.ids[sid]})")
            self.ids[sid] = name
        category = scenario.get("category")
        negative = scenario.get("negative")
        if not isinstance(negative, bool):
            self.fail(where, "'negative' must be true or false")
        base = category[len("negative_"):] if isinstance(category, str) and category.startswith("negative_") else category
        if base not in CATEGORIES:
            self.fail(where, f"unknown category {category!r}")
        elif negative is not (category != base):
            self.fail(where, "'negative' must be true exactly when the category starts with 'negative_'")
        if isinstance(category, str) and isinstance(sid, str) and not sid.startswith(category):
            self.fail(where, f"id does not start with its category {category!r}")
        split = scenario.get("split")
        if split not in SPLITS:
            self.fail(where, f"'split' must be one of {', '.join(SPLITS)}")
        if not _nonempty_str(scenario.get("style")):
            self.fail(where, "'style' must be a non-empty string")
        sessions = self.check_sessions(where, scenario.get("sessions"))
        self.check_expected(where, scenario, sessions, negative is True)
        self.check_labels(where, scenario.get("labels"), sessions)
        self.counts[(str(category), str(split))] += 1

    def check_sessions(self, where: str, sessions: Any) -> set[str]:
        seen: set[str] = set()
        if not isinstance(sessions, list) or not 2 <= len(sessions) <= 4:
            self.fail(where, "'sessions' must be a list of 2-4 sessions")
            return seen
        previous: datetime | None = None
        for session in sessions:
            if not isinstance(session, dict):
                self.fail(where, "a session is not an object")
                continue
            session_id = session.get("session_id")
            if not isinstance(session_id, str) or not session_id.strip() or session_id in seen:
                self.fail(where, f"session_id {session_id!r} missing or repeated")
                continue
            seen.add(session_id)
            at = f"{where}/{session_id}"
            moment = _timestamp(session.get("timestamp"))
            if moment is None:
                self.fail(at, "'timestamp' must be ISO date-time without a zone")
            elif previous is not None and moment <= previous:
                self.fail(at, "timestamps must increase from session to session")
            previous = moment or previous
            metadata = session.get("metadata", {})
            if not isinstance(metadata, dict):
                self.fail(at, "'metadata' must be an object")
            messages = session.get("messages")
            if not isinstance(messages, list) or not messages:
                self.fail(at, "'messages' must be a non-empty list")
                continue
            for number, message in enumerate(messages):
                if not isinstance(message, dict) or message.get("role") not in ROLES \
                        or not _nonempty_str(message.get("content")):
                    self.fail(at, f"message {number} needs a role (user/assistant) and non-empty content")
        return seen

    def check_expected(self, where: str, scenario: dict[str, Any], sessions: set[str], negative: bool) -> None:
        expected = scenario.get("expected")
        trigger = scenario.get("trigger_session")
        if not isinstance(expected, list):
            self.fail(where, "'expected' must be a list")
            return
        if negative:
            if expected:
                self.fail(where, "a negative scenario expects no alert")
            if trigger is not None and trigger not in sessions:
                self.fail(where, f"trigger_session {trigger!r} is not a session")
            return
        if trigger not in sessions:
            self.fail(where, f"trigger_session {trigger!r} is not a session")
        if not expected:
            self.fail(where, "a positive scenario expects at least one alert")
        for alert in expected:
            if not isinstance(alert, dict):
                self.fail(where, "an expected alert is not an object")
                continue
            concepts = alert.get("concepts")
            if not isinstance(concepts, list) or not concepts or not all(
                    isinstance(group, list) and group and all(_nonempty_str(word) for word in group)
                    for group in concepts):
                self.fail(where, "'concepts' must be non-empty groups of non-empty strings")
            if "constraint" in alert and not _nonempty_str(alert["constraint"]):
                self.fail(where, "'constraint' must be a non-empty string")
            if "severity" in alert and alert["severity"] not in SEVERITIES:
                self.fail(where, f"'severity' must be one of {', '.join(SEVERITIES)}")

    def check_labels(self, where: str, labels: Any, sessions: set[str]) -> None:
        if not isinstance(labels, list):
            self.fail(where, "'labels' must be a list")
            return
        for number, label in enumerate(labels):
            at = f"{where}/label {number}"
            if not isinstance(label, dict):
                self.fail(at, "label is not an object")
                continue
            if label.get("session_id") not in sessions:
                self.fail(at, f"session {label.get('session_id')!r} does not exist")
            kind = label.get("kind")
            if kind not in KINDS:
                self.fail(at, f"unknown kind {kind!r}")
                continue
            if not _nonempty_str(label.get("subject")):
                self.fail(at, "'subject' must be a non-empty string")
            if label.get("speaker") not in SPEAKERS:
                self.fail(at, "'speaker' must be 'user' or 'assistant'")
            fields = label.get("fields")
            if not isinstance(fields, dict) or not fields:
                self.fail(at, "'fields' must be a non-empty object")
                continue
            for field, value in fields.items():
                self.check_field(at, kind, field, value)

    def check_field(self, at: str, kind: str, field: str, value: object) -> None:
        if field not in KINDS[kind]:
            self.fail(at, f"unknown field {field!r} for kind {kind!r}")
        elif field.endswith("_date") and not _is_date(value):
            self.fail(at, f"{field} {value!r} is not an ISO date")
        elif field.endswith("_time") and not (isinstance(value, str) and TIME.match(value)):
            self.fail(at, f"{field} {value!r} is not HH:MM")
        elif field in NUMBER_FIELDS and (isinstance(value, bool) or not isinstance(value, (int, float))):
            self.fail(at, f"{field} {value!r} is not a number")
        elif field in DATETIME_FIELDS and kind in ("appointment", "event") and _timestamp(value) is None:
            self.fail(at, f"{field} {value!r} is not an ISO date-time")
        elif field == "is_international" and not isinstance(value, bool):
            self.fail(at, "is_international must be true or false")
        elif kind == "document" and field == "kind" and value not in DOCUMENT_KINDS:
            self.fail(at, f"document kind {value!r} is not one of {', '.join(DOCUMENT_KINDS)}")
        elif kind == "trip" and field == "booking_status" and value not in BOOKING:
            self.fail(at, f"booking_status {value!r} is not one of {', '.join(BOOKING)}")
        elif kind == "medication" and field == "status" and value not in MEDICATION_STATUS:
            self.fail(at, f"medication status {value!r} is not one of {', '.join(MEDICATION_STATUS)}")
        elif value is None or (isinstance(value, str) and not value.strip()):
            self.fail(at, f"{field} is empty")


def main(argv: list[str]) -> int:
    _with_vocabulary()
    paths = [Path(arg) for arg in argv] or sorted(Path(__file__).resolve().parent.glob("conversations_*.json"))
    if not paths:
        print("no conversations_*.json to check", file=sys.stderr)
        return 2
    checker = Checker()
    for path in paths:
        checker.check_file(path)
    if checker.problems:
        for problem in checker.problems:
            print(problem, file=sys.stderr)
        return 2
    print(f"{len(checker.ids)} scenarios in {len(paths)} file(s)")
    print(f"{'category':<32} {'dev':>4} {'test':>4}")
    for category in sorted({category for category, _ in checker.counts}):
        dev, test = checker.counts[(category, "dev")], checker.counts[(category, "test")]
        print(f"{category:<32} {dev:>4} {test:>4}")
    positives = sum(n for (category, _), n in checker.counts.items() if not category.startswith("negative_"))
    print(f"positives {positives}, negatives {len(checker.ids) - positives}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
