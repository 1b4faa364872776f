"""The manifest of a compiled package read from its text (`codegen.source_manifest`) gives
the same agent manifest as the validator's manifest of the imported module: the llm
producer's prompt and `uac manifest` describe a package with one summary."""

from __future__ import annotations

from pathlib import Path

from test_agent_manifest import manifest_of, ten_kind_facts
from test_golden import golden_facts

from codegen.agent_manifest import agent_manifest
from codegen.compile import compile_package
from codegen.source_manifest import source_manifest
from factlog.model import Fact


def _both(facts: list[Fact], directory: Path) -> tuple[str, str]:
    files = compile_package(facts[0].user, facts).files
    imported = agent_manifest(manifest_of(facts, directory), version=3, limit=10_000)
    read = agent_manifest(source_manifest(files), version=3, limit=10_000)
    return imported, read


def test_the_golden_package_reads_as_its_imported_manifest(tmp_path: Path) -> None:
    imported, read = _both(golden_facts(), tmp_path)
    assert read == imported
    assert "date?: issue_date, expiry_date 2031-04-30" in read and "datetime?: start 2024-06-12T12:30:00" in read


def test_ten_kinds_read_as_their_imported_manifest(tmp_path: Path) -> None:
    imported, read = _both(ten_kind_facts(), tmp_path)
    assert read == imported and "profile: Profile | None = present" in read


def test_nothing_is_imported_and_a_broken_init_is_an_empty_manifest() -> None:
    files = {"__init__.py": "import os\nos.system('touch /tmp/x')\ntrips: list[Trip] = [*_t]\n("}
    manifest = source_manifest(files)
    assert manifest.collections == {} and manifest.classes == {}
