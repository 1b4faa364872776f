"""What a `uac` command loads: each command imports only what it uses.

The real entry point (`runtime.cli.main`) runs in a fresh interpreter; an exit hook in the
launcher writes `sys.modules`, and a fork hook records every import a forked query worker
makes. `uac add` must not load the compiler, the validator, the version store, pydantic or
rich; `uac query` (and its worker) must not load the compiler, the validator (libcst, mypy,
jinja2), pydantic or rich. `uac --help` and every command's `--help` still list everything.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from uac_home import USER, clone_home

from factlog.errors import NotFound
from runtime.memory import Memory

REPO = Path(__file__).resolve().parents[1]
OURS = {"factlog", "codegen", "users", "constraints", "runtime"}
LAUNCH = """
import atexit, json, os, sys
dump = sys.argv.pop(1)
atexit.register(lambda: open(dump, "w").write(json.dumps(sorted(sys.modules))))

class ChildImports:  # in a forked child (the query worker): every import it asks for
    def find_spec(self, name, path=None, target=None):
        with open(dump + ".child", "a") as found:
            found.write(name + "\\n")

os.register_at_fork(after_in_child=lambda: sys.meta_path.insert(0, ChildImports()))
sys.argv[0] = "uac"
from runtime.cli import main
main()
"""
# The compiler, the validator and their libraries: only a checkpoint needs them.
CHECKPOINT_ONLY = {"libcst", "mypy", "jinja2"}
# The model client: only the commands that call a model (`ingest --llm`, `ask`, the llm producer).
MODEL_ONLY = {"openai", "httpx"}
CHECKPOINT_MODULES = {"codegen.compile", "codegen.render", "codegen.validate", "codegen.cst_audit",
                      "codegen.safety", "codegen.typecheck", "codegen.producer", "users.checkpoint"}
# Appending a fact needs neither pydantic (typer's coercion, the version store) nor rich.
NOT_FOR_ADD = CHECKPOINT_ONLY | MODEL_ONLY | {"pydantic", "pydantic_core", "rich"}
# What the CLI itself may load besides the standard library and our packages.
CLI_LIBRARIES = {"typer", "click", "shellingham", "annotated_doc", "typing_extensions"}
# A query reads the version (plain dataclasses) and imports the user's package: no pydantic.
NOT_FOR_QUERY = CHECKPOINT_ONLY | MODEL_ONLY | {"pydantic", "pydantic_core", "rich"}
# Of our modules, `uac add` needs the fact log and the command layer.
ADD_MODULES = {"runtime", "runtime.cli", "runtime.cli_agents", "runtime.cli_app", "runtime.cli_eval", "runtime.cli_facts",
               "runtime.cli_modules", "runtime.cli_params", "runtime.cli_serve", "runtime.cli_warm",
               "runtime.cli_worker", "runtime.memory", "runtime.facts_service",
               "runtime.workspace",
               "runtime.warm_client"}
# A command the warm worker runs: the `uac` process loads the client and the standard library only.
ROUTED_MODULES = {"runtime", "runtime.cli", "runtime.warm_client", "runtime.warm_wire"}


def loaded(tmp_path: Path, *args: str, warm: str = "off") -> set[str]:
    """The modules `uac ARGS` had loaded when it exited (it must exit 0)."""
    return run_loading(tmp_path, *args, warm=warm)[0]


def run_loading(tmp_path: Path, *args: str, warm: str = "off") -> tuple[set[str], set[str], str]:
    """What `uac ARGS` had loaded when it exited (it must exit 0), what any process it
    forked imported, and what it printed."""
    dump = tmp_path / "modules.json"
    child = tmp_path / "modules.json.child"
    child.unlink(missing_ok=True)
    result = subprocess.run([sys.executable, "-c", LAUNCH, str(dump), *args], capture_output=True, text=True,
                            cwd=REPO, timeout=300, env={**os.environ, "UAC_WARM": warm})
    assert result.returncode == 0, (result.stdout, result.stderr)
    forked = set(child.read_text().split()) if child.exists() else set()
    return set(json.loads(dump.read_text())), forked, result.stdout


def packages(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules if not m.startswith("_")}


def third_party(modules: set[str]) -> set[str]:
    return packages(modules) - set(sys.stdlib_module_names) - OURS


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the seeded workspace (v2 published) for the commands to run in."""
    return clone_home(tmp_path_factory, tmp_path_factory.mktemp("imports") / "home")


def test_add_loads_the_fact_log_and_the_command_layer_only(seeded: Path, tmp_path: Path) -> None:
    modules = loaded(tmp_path, "--home", str(seeded), "add", USER, "I like oolong too")
    assert not packages(modules) & NOT_FOR_ADD, sorted(packages(modules) & NOT_FOR_ADD)
    assert third_party(modules) <= CLI_LIBRARIES, third_party(modules)
    ours = {m for m in modules if m.split(".")[0] in OURS}
    assert {m for m in ours - ADD_MODULES if m.split(".")[0] != "factlog"} == set(), sorted(ours - ADD_MODULES)
    assert not {"factlog.formats", "factlog.export_line", "factlog.transcripts", "factlog.extract"} & ours


def test_structured_add_and_json_output_load_no_more(seeded: Path, tmp_path: Path) -> None:
    modules = loaded(tmp_path, "--home", str(seeded), "add", USER, "--kind", "trip", "--key", "osl",
                     "--field", "destination=Oslo", "--field", "cost_usd=410", "--json")
    assert not packages(modules) & NOT_FOR_ADD, sorted(packages(modules) & NOT_FOR_ADD)
    assert third_party(modules) <= CLI_LIBRARIES, third_party(modules)


def test_query_does_not_load_the_compiler_or_the_validator(seeded: Path, tmp_path: Path) -> None:
    modules = loaded(tmp_path, "--home", str(seeded), "query", USER, "sum(t.cost_usd for t in trips)")
    assert not packages(modules) & (CHECKPOINT_ONLY | {"rich"}), sorted(packages(modules) & (CHECKPOINT_ONLY | {"rich"}))
    assert not modules & CHECKPOINT_MODULES, sorted(modules & CHECKPOINT_MODULES)
    assert not {m for m in modules if m.startswith("constraints")}
    assert not {"users.diff", "users.anchors"} & modules  # diffs and version checks: other commands


@pytest.mark.parametrize("expression", ["sum(t.cost_usd for t in trips)", "len(trips)", "trips[0]",
                                        "sorted(t.destination for t in trips)"])
def test_query_and_its_worker_load_no_pydantic(seeded: Path, tmp_path: Path, expression: str) -> None:
    """Reading the version (`meta.json`, the manifest) is plain dataclasses; the worker is a
    fork of the command and imports nothing of that kind while it evaluates."""
    modules, forked, printed = run_loading(tmp_path, "--home", str(seeded), "query", USER, expression)
    assert printed.strip()
    assert not packages(modules) & NOT_FOR_QUERY, sorted(packages(modules) & NOT_FOR_QUERY)
    assert third_party(modules) <= CLI_LIBRARIES, third_party(modules)
    assert not {"factlog.formats", "users.events", "runtime.settings"} & modules
    assert not packages(forked) & NOT_FOR_QUERY, sorted(packages(forked) & NOT_FOR_QUERY)


def test_checking_a_version_loads_no_manifest_code(seeded: Path, tmp_path: Path) -> None:
    """A query checks its version (the manifest file's hash, the blobs its index names) but
    reads no manifest: `codegen.manifest` (the walk, the reader) stays unloaded."""
    modules = loaded(tmp_path, "--home", str(seeded), "query", USER, "len(trips)")
    assert "codegen.manifest" not in modules


def test_query_json_and_a_numbered_version_load_no_pydantic(seeded: Path, tmp_path: Path) -> None:
    modules, _, printed = run_loading(tmp_path, "--home", str(seeded), "query", USER, "len(trips)",
                                      "--version", "1", "--json")
    assert json.loads(printed)["value"] >= 1
    assert not packages(modules) & NOT_FOR_QUERY, sorted(packages(modules) & NOT_FOR_QUERY)


def test_a_command_the_warm_worker_runs_loads_only_the_client(seeded: Path, tmp_path: Path) -> None:
    from runtime import warm_client

    assert warm_client.start(seeded) is not None
    try:
        before = warm_client.status(seeded)
        for args in (("query", USER, "sum(t.cost_usd for t in trips)"), ("show", USER), ("checkpoint", USER)):
            modules = loaded(tmp_path, "--home", str(seeded), *args, warm="on")
            ours = {m for m in modules if m.split(".")[0] in OURS}
            assert ours == ROUTED_MODULES, sorted(ours ^ ROUTED_MODULES)
            assert not third_party(modules), third_party(modules)  # no typer, pydantic, rich
        after = warm_client.status(seeded)
        assert before is not None and after is not None and after["served"] == int(before["served"]) + 3  # type: ignore[call-overload]
    finally:
        warm_client.stop(seeded)


def test_help_lists_every_command_and_each_help_works(uac, home: Path) -> None:  # type: ignore[no-untyped-def]
    from typer.main import get_command

    from runtime.cli import app

    group = get_command(app)
    names = list(getattr(group, "commands"))
    assert {"add", "query", "checkpoint", "watch", "demo", "recall"} <= set(names)
    r = uac("--help")
    assert r.code == 0
    for name in names:
        command = getattr(group, "commands")[name]
        first_line = (command.help or "").split("\n")[0].split()
        assert name in r.out and " ".join(first_line[:3]) in " ".join(r.out.split()), name
        r_cmd = uac(name, "--help")
        assert r_cmd.code == 0 and "Usage" in r_cmd.out and name in r_cmd.out, (name, r_cmd.err)


def test_checkpoint_still_loads_the_compiler_when_it_runs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert subprocess.run([sys.executable, "-c", "from runtime.cli import main; main()", "--home", str(home),
                           "add", "bo", "I like tea"], cwd=REPO, capture_output=True, timeout=300).returncode == 0
    modules = loaded(tmp_path, "--home", str(home), "checkpoint", "bo")
    assert {"codegen.compile", "codegen.validate"} <= modules


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40)
       | st.sampled_from([":smile:", "at 10:30: :+1:", "a\tb", "x\ry", "[bold]x[/bold]", "Flight:LH123", "::"]))
def test_plain_lines_print_as_the_console_prints_them(text: str) -> None:
    """`say` writes directly only what rich would print unchanged."""
    from rich.console import Console

    from runtime import cli_app

    console = Console(file=io.StringIO(), highlight=False, soft_wrap=True)
    console.print(text, markup=False)
    stdout, sys.stdout = sys.stdout, io.StringIO()
    try:
        cli_app.say(text)
        said = sys.stdout.getvalue()
    finally:
        sys.stdout = stdout
    if text.isprintable() and ":" not in text:
        assert said == text + "\n"
    assert said == getattr(console.file, "getvalue")()


SERVICES = ("versions", "modules", "queries", "alert_runs", "checkpoints", "recalls", "forgetting")


def test_memory_makes_its_services_on_first_use_once_across_threads(home: Path) -> None:
    mem = Memory.open(home)
    try:
        mem.add("ann", "I like tea")
        assert not set(SERVICES) & set(vars(mem)), "appending made a service it does not use"
        mem.require_user("ann")  # the log knows her: no need to ask the version store
        assert not set(SERVICES) & set(vars(mem))
        with pytest.raises(NotFound):
            mem.require_user("bob")  # the log does not: asks the version store, and only that
        assert set(SERVICES) & set(vars(mem)) == {"versions"}
        seen: list[object] = []
        start = threading.Barrier(8)

        def ask() -> None:
            start.wait()
            seen.append(mem.forgetting)  # makes every other service on the way

        threads = [threading.Thread(target=ask) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len({id(s) for s in seen}) == 1
        assert set(SERVICES) <= set(vars(mem))
        assert mem.recalls.versions is mem.versions is mem.checkpoints.versions
    finally:
        mem.close()


def test_a_run_builds_the_command_it_names_and_help_builds_all(uac, seeded: Path,  # type: ignore[no-untyped-def]
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import typer.main

    from runtime.cli import app

    built: list[str] = []
    real = typer.main.get_command_from_info

    def counted(*args: Any, **kwargs: Any) -> Any:
        info = kwargs.get("command_info", args[0] if args else None)
        built.append(getattr(getattr(info, "callback", None), "__name__", "?"))
        return real(*args, **kwargs)

    monkeypatch.setattr(typer.main, "get_command_from_info", counted)
    r = uac("--home", str(seeded), "query", USER, "len(trips)")
    assert r.code == 0 and int(r.out) >= 1 and built == ["query"]
    built.clear()
    assert uac("--home", str(seeded), "--help").code == 0
    every = len(app.registered_commands) + sum(len(g.typer_instance.registered_commands)
                                               for g in app.registered_groups if g.typer_instance)
    assert len(built) == every >= 20
    built.clear()
    r = uac("--home", str(seeded), "nosuch")  # typer's own error, which lists nothing but needs the group
    assert r.code == 2 and "No such command 'nosuch'" in r.err and len(built) == every
    built.clear()
    r = uac("--home", str(seeded), "query")
    assert r.code == 2 and "Missing argument" in r.err and built == ["query"]
