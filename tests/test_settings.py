"""`<home>/settings.json` (`runtime.settings.Settings`, format 1): optional; a bad file is
one line naming it (exit 2) and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest
from uac_home import USER, clone_home

from factlog.errors import InputError
from runtime.settings import SETTINGS_FILE, Settings, load_settings
from users.checkpoint import CheckpointPolicy

Uac = Callable[..., Any]


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(("-wal", "-shm"))}


def test_no_file_means_the_defaults(tmp_path: Path) -> None:
    settings = load_settings(tmp_path)
    assert settings == Settings() and settings.producer == "compiler"
    assert settings.policy() == CheckpointPolicy()
    assert settings.llm.model is None and settings.llm.max_repairs is None


def test_a_full_file_and_options_that_win_over_it(tmp_path: Path) -> None:
    (tmp_path / SETTINGS_FILE).write_text(json.dumps({
        "format": 1, "producer": "compiler", "checkpoint": {"every_facts": 5, "every_seconds": 30},
        "llm": {"base_url": "http://localhost:8080/v1", "model": "small", "timeout_seconds": 60, "max_repairs": 2}}))
    settings = load_settings(tmp_path)
    assert settings.policy() == CheckpointPolicy(5, 30.0)
    assert settings.policy(every_facts=2) == CheckpointPolicy(2, 30.0)
    assert settings.policy(every_seconds=0) == CheckpointPolicy(5, 0)
    assert settings.llm.model == "small" and settings.llm.timeout_seconds == 60.0
    assert Settings.parse(settings.dump(), source="again") == settings


@pytest.mark.parametrize(("text", "needle"), [
    ("{not json", "not valid JSON"),
    ("[]", "expected a JSON object"),
    ('{"producer": "compiler", "colour": "red"}', "colour"),
    ('{"checkpoint": {"every_facts": 0}}', "checkpoint.every_facts"),
    ('{"checkpoint": {"every_facts": true}}', "checkpoint.every_facts"),
    ('{"checkpoint": {"every_seconds": "10"}}', "checkpoint.every_seconds"),
    ('{"llm": {"api_key": "sk-123"}}', "environment"),
    ('{"llm": {"timeout_seconds": -1}}', "llm.timeout_seconds"),
    ('{"producer": "a b"}', "producer"),
    ('{"retention": {"keep": 0}}', "retention.keep"),
    ('{"retention": {"keep": "all"}}', "retention.keep"),
    ('{"format": 2}', "newer release"),
])
def test_a_bad_file_is_one_line_naming_it(tmp_path: Path, text: str, needle: str) -> None:
    (tmp_path / SETTINGS_FILE).write_text(text)
    with pytest.raises(InputError, match=SETTINGS_FILE) as caught:
        load_settings(tmp_path)
    assert needle in str(caught.value) and "\n" not in str(caught.value)
    assert "sk-123" not in str(caught.value)


def test_a_folder_or_a_huge_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / SETTINGS_FILE).mkdir()
    with pytest.raises(InputError, match="cannot be read"):
        load_settings(tmp_path)
    (tmp_path / SETTINGS_FILE).rmdir()
    (tmp_path / SETTINGS_FILE).write_text(" " * 70_000 + "{}")
    with pytest.raises(InputError, match="larger than"):
        load_settings(tmp_path)


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return clone_home(tmp_path_factory, tmp_path / "home")


@pytest.mark.parametrize("command", [("checkpoint", USER), ("watch", USER)])
def test_checkpoint_and_watch_refuse_a_bad_settings_file(uac: Uac, home: Path, command: tuple[str, ...]) -> None:
    (home / SETTINGS_FILE).write_text('{"checkpoint": {"every_facts": "many"}}')
    uac("--home", str(home), "add", USER, "a new fact to checkpoint")
    before = tree(home)
    r = uac("--home", str(home), *command)
    assert r.code == 2 and r.err.startswith("error: ") and r.err.count("\n") == 1, r
    assert SETTINGS_FILE in r.err and "every_facts" in r.err and "Traceback" not in r.err + r.out
    assert tree(home) == before


def test_checkpoint_uses_the_settings_producer(uac: Uac, home: Path) -> None:
    uac("--home", str(home), "add", USER, "a new fact to checkpoint")
    (home / SETTINGS_FILE).write_text('{"producer": "nobody"}')
    r = uac("--home", str(home), "checkpoint", USER)
    assert r.code == 2 and "unknown producer 'nobody'" in r.err
    (home / SETTINGS_FILE).write_text('{"producer": "compiler", "checkpoint": {"every_facts": 3}}')
    assert uac("--home", str(home), "checkpoint", USER, "--json").code == 0
