"""The JSON report every `uac eval` run writes, and `uac eval compare` over two of them.

    {"format": 1, "command": "analytical|alerts|transcripts", "git_revision", "producer",
     "model", "settings", "started_at", "seconds", "summary": {...},
     "cases": [{"id", "status": "pass|fail|error", "detail", "seconds", "tokens"?, ...}]}

A case row may carry more keys (its type, n, category, ...); `compare` reads only `id` and
`status` (and `detail` to show), so reports of different runs and versions compare. Of an
alerts report's summary it also reads the extraction figures per kind (`precision`,
`recall`, and `precision_entity`, `recall_entity`, `precision_found`, `recall_found` where
the report has them: older reports lack them and show "-").
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from factlog.durable import replace_file
from factlog.errors import InputError
from factlog.model import JsonValue

FORMAT = 1
Status = Literal["pass", "fail", "error"]
STATUSES: tuple[Status, ...] = ("pass", "fail", "error")
_RANK = {"pass": 2, "fail": 1, "error": 0}
_REPO = Path(__file__).resolve().parents[1]


def git_revision() -> str | None:
    """The commit of the code that ran (with `-dirty` when its files differ), None outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=_REPO, capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=_REPO,
                                capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("-dirty" if status.returncode == 0 and status.stdout.strip() else "")


def now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


@dataclass
class CaseRow:
    id: str
    status: Status
    detail: str
    seconds: float
    tokens: int | None = None
    extra: dict[str, JsonValue] = field(default_factory=dict)

    def to_json(self) -> dict[str, JsonValue]:
        row: dict[str, JsonValue] = {"id": self.id, "status": self.status, "detail": self.detail,
                                     "seconds": round(self.seconds, 3)}
        if self.tokens is not None:
            row["tokens"] = self.tokens
        row.update(self.extra)
        return row


def report(command: str, *, producer: str, model: str | None, settings: dict[str, JsonValue], started_at: str,
           seconds: float, summary: dict[str, Any], cases: list[CaseRow]) -> dict[str, Any]:
    return {"format": FORMAT, "command": command, "git_revision": git_revision(), "producer": producer,
            "model": model, "settings": settings, "started_at": started_at, "seconds": round(seconds, 3),
            "summary": summary, "cases": [case.to_json() for case in cases]}


def write_report(path: Path, data: dict[str, Any]) -> None:
    """Atomically (temp file, fsync, rename); the folder is made if missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))


def check_report_path(path: Path) -> None:
    """Refuse (before any work) a report path that cannot be written: a folder, or a parent
    that is a file."""
    if path.is_dir():
        raise InputError(f"--report {path}: is a folder; give a file name")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise InputError(f"--report {path}: {parent} is not a folder")
            break


def rate(passed: int, total: int) -> float:
    return round(passed / total, 4) if total else 0.0


def group_rates(rows: list[CaseRow], key: str) -> dict[str, JsonValue]:
    """Per value of `key` among the rows' extras: {"passed", "total", "rate"}, keys sorted
    (numbers numerically)."""
    groups: dict[str, list[CaseRow]] = {}
    for row in rows:
        groups.setdefault(str(row.extra.get(key)), []).append(row)

    def order(name: str) -> tuple[int, float, str]:
        try:
            return (0, float(name), name)
        except ValueError:
            return (1, 0.0, name)

    found: dict[str, JsonValue] = {}
    for name in sorted(groups, key=order):
        members = groups[name]
        passed = sum(1 for r in members if r.status == "pass")
        found[name] = {"passed": passed, "total": len(members), "rate": rate(passed, len(members))}
    return found


# -- compare ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    id: str
    before: str | None  # None: not in A
    after: str | None  # None: not in B
    detail: str

    @property
    def direction(self) -> Literal["better", "worse", "changed", "added", "removed"]:
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        difference = _RANK[self.after] - _RANK[self.before]
        return "better" if difference > 0 else "worse" if difference < 0 else "changed"


def read_report(path: Path) -> dict[str, Any]:
    """A report file, checked enough to compare: InputError naming the file otherwise (read
    under the same size, encoding and nesting limits as a case file)."""
    from runtime.eval_cases import read_json_file

    data, _ = read_json_file(path, "cases")
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("cases"), list):
        raise InputError(f"{path}: not a `uac eval` report (format {FORMAT} with a 'cases' list)")
    for index, case in enumerate(data["cases"]):
        if not isinstance(case, dict) or not isinstance(case.get("id"), str) or case.get("status") not in STATUSES:
            raise InputError(f"{path}: case {index + 1} needs an 'id' and a 'status' of {list(STATUSES)}")
    return data


def compare(a: dict[str, Any], b: dict[str, Any]) -> list[Change]:
    """Every case whose status differs between A and B, or that only one of them holds, in
    B's order (then A's)."""
    before = {case["id"]: case for case in a["cases"]}
    after = {case["id"]: case for case in b["cases"]}
    changes: list[Change] = []
    for case_id, case in after.items():
        old = before.get(case_id)
        if old is None or old["status"] != case["status"]:
            changes.append(Change(case_id, None if old is None else old["status"], case["status"],
                                  str(case.get("detail", ""))))
    changes += [Change(case_id, case["status"], None, str(case.get("detail", "")))
                for case_id, case in before.items() if case_id not in after]
    return changes


def pass_rate(data: dict[str, Any]) -> tuple[int, int]:
    cases = data["cases"]
    return sum(1 for case in cases if case["status"] == "pass"), len(cases)


EXTRACTION_FIGURES = ("precision", "recall", "precision_entity", "recall_entity", "precision_found", "recall_found")


@dataclass(frozen=True)
class KindChange:
    kind: str
    before: dict[str, float | None]  # figure -> value; None: not in that report
    after: dict[str, float | None]


def extraction_changes(a: dict[str, Any], b: dict[str, Any]) -> list[KindChange]:
    """Each kind whose extraction figures differ between the two reports' summaries (a kind
    only one report has included), kinds sorted; reports without figures give none."""
    first, second = _extraction(a), _extraction(b)
    changes = []
    for kind in sorted(set(first) | set(second)):
        before, after = first.get(kind, _NO_FIGURES), second.get(kind, _NO_FIGURES)
        if before != after:
            changes.append(KindChange(kind, before, after))
    return changes


_NO_FIGURES: dict[str, float | None] = dict.fromkeys(EXTRACTION_FIGURES)


def _extraction(data: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    summary = data.get("summary")
    found = summary.get("extraction") if isinstance(summary, dict) else None
    if not isinstance(found, dict):
        return {}
    return {str(kind): {name: _figure(counts.get(name)) for name in EXTRACTION_FIGURES}
            for kind, counts in found.items() if isinstance(counts, dict)}


def _figure(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
