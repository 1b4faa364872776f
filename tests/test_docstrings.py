"""The `>>>` examples of the documented API (runtime/memory.py) run, each docstring on its own
copy of the seeded workspace (tests/uac_home.py: `alice` with v1 and v2) as `mem`, with
`tmp` an empty folder; `...` in an expected output matches anything."""

from __future__ import annotations

import doctest
from datetime import datetime, timezone
from pathlib import Path

import pytest
from uac_home import clone_home

import runtime.memory
from runtime.memory import Memory

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
EXAMPLES = [test for test in doctest.DocTestFinder().find(runtime.memory) if test.examples]


def test_the_api_has_examples() -> None:
    names = {test.name.rsplit(".", 1)[-1] for test in EXAMPLES}
    for method in ("add", "ingest_conversation", "retract", "forget", "log", "checkpoint", "checkpoint_and_alert",
                   "module", "manifest", "rollback", "diff", "query", "alerts", "recall", "agent_manifest",
                   "tools", "openai_tools", "call_tool", "export"):
        assert method in names, f"Memory.{method} has no >>> example"


@pytest.mark.parametrize("test", EXAMPLES, ids=[test.name for test in EXAMPLES])
def test_docstring_examples_run(test: doctest.DocTest, tmp_path_factory: pytest.TempPathFactory,
                                tmp_path: Path) -> None:
    mem = Memory.open(clone_home(tmp_path_factory, tmp_path / "home"))
    (tmp_path / "tmp").mkdir()
    test.globs = {**test.globs, "mem": mem, "tmp": tmp_path / "tmp", "datetime": datetime, "timezone": timezone}
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    try:
        found: list[str] = []
        runner.run(test, out=found.append)
    finally:
        mem.close()
    assert runner.failures == 0, "".join(found)
