"""The task pages (docs/tasks/*.md) run as written: each page's ```python blocks execute in
order in one namespace, in a fresh home (`~/.uac` is a new workspace). A block whose first
line is `# ~/.uac/constraints/NAME.py` is that file: it is written there, not executed. A
page that asks a model gets the scripted OpenAI-compatible server (tests/scripted_llm.py)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from scripted_llm import ScriptedLLM
from uac_home import template_home

TASKS = Path(__file__).resolve().parents[1] / "docs" / "tasks"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.M | re.S)
FILE_LINE = re.compile(r"# (~/\.uac/constraints/[a-z0-9_]+\.py)\n")
PAGES = sorted(p.name for p in TASKS.glob("*.md") if p.name != "README.md")
MODEL_REPLIES = {  # page -> what the scripted model answers, in order
    "ask-aggregate-questions.md": [json.dumps({
        "expression": "sum(t.cost_usd for t in trips if t.departure_date.year == 2024)", "answerable": True,
        "reason": "sums the costs of the trips that left in 2024"})],
}


def python_blocks(page: str) -> list[str]:
    return [body for lang, body in FENCE.findall((TASKS / page).read_text(encoding="utf-8")) if lang == "python"]


def test_every_task_has_a_page_with_code() -> None:
    assert PAGES == ["ask-aggregate-questions.md", "bring-your-own-constraint.md", "diff-what-changed.md",
                     "get-proactive-alerts.md", "remember-from-tool-calls.md"]
    index = (TASKS / "README.md").read_text(encoding="utf-8")
    for page in PAGES:
        assert python_blocks(page), page
        assert f"]({page})" in index, f"docs/tasks/README.md does not link {page}"


@pytest.mark.parametrize("page", PAGES)
def test_task_page_runs_as_written(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   tmp_path_factory: pytest.TempPathFactory, scripted_llm: ScriptedLLM) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("UAC_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    home = tmp_path / ".uac"
    # a warm validation cache (content-keyed: mypy's cache of the standard library, verdicts),
    # so the page's first checkpoint does not pay mypy's cold start
    shutil.copytree(template_home(tmp_path_factory) / "cache" / "validation", home / "cache" / "validation")
    scripted_llm.queue(*MODEL_REPLIES.get(page, []))
    namespace: dict[str, object] = {}
    for number, source in enumerate(python_blocks(page), 1):
        name = f"docs/tasks/{page} python block {number}"
        target = FILE_LINE.match(source)
        code = compile(source, name, "exec")
        if target is not None:
            path = Path(target.group(1)).expanduser()
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(source, encoding="utf-8")
        else:
            exec(code, namespace)  # noqa: S102
    assert (home / "facts.db").is_file()  # it ran in the fresh home
    assert len(scripted_llm.chat_requests) == len(MODEL_REPLIES.get(page, []))
