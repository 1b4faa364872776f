"""Producers as a protocol: the request, the repair loop with feedback, the attempts in the
version's metadata, the registry by entry point, and the choice through Memory and `uac`.

Real SQLite, real validation (safety, mypy, import, coverage), in a copy of the seeded
workspace of tests/uac_home.py (v2 current, log position 6).
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest
from fact_helpers import make_fact
from old_workspace import old_workspace
from raw_facts import append_raw
from uac_home import USER, clone_home

import codegen.compile
import users.checkpoint
from codegen.compile import compile_package
from codegen.producer import (
    CompilerProducer,
    Produced,
    Producer,
    ProducerRequest,
    producer_named,
    producer_names,
)
from codegen.quarantine import declared_quarantine
from codegen.render import quarantine_source
from factlog.errors import InputError
from runtime.memory import Memory
from runtime.watch import Watcher
from users.checkpoint import CheckpointPolicy, Failed, Published
from users.versions import PublishMeta, VersionInfo

Uac = Callable[..., Any]


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return clone_home(tmp_path_factory, tmp_path / "home")


def compiled(request: ProducerRequest) -> dict[str, str]:
    return dict(compile_package(request.user, request.facts).files)


@dataclass
class Scripted:
    """Answers attempt n with `script[n - 1]` (a function of the request), reporting usage."""

    script: list[Callable[[ProducerRequest], dict[str, str]]]
    name: str = "scripted"
    requests: list[ProducerRequest] = field(default_factory=list)
    feedback_texts: list[str | None] = field(default_factory=list)

    def produce(self, request: ProducerRequest) -> Produced:
        self.requests.append(request)
        self.feedback_texts.append(request.feedback.format_for_llm() if request.feedback else None)
        files = self.script[min(request.attempt, len(self.script)) - 1](request)
        return Produced(files, {"prompt_tokens": 100.0 * request.attempt, "completion_tokens": 10.0, "seconds": 0.5})


def unsafe(request: ProducerRequest) -> dict[str, str]:
    return {**compiled(request), "evil.py": "import os\nos.system('true')\n"}


def mistyped(value: str) -> Callable[[ProducerRequest], dict[str, str]]:
    def make(request: ProducerRequest) -> dict[str, str]:
        files = compiled(request)
        return {**files, "__init__.py": files["__init__.py"] + f"\nbad_count: int = {value!r}\n"}
    return make


def run(mem: Memory, producer: Producer, **kwargs: Any) -> users.checkpoint.CheckpointResult:
    return users.checkpoint.checkpoint(mem.facts, mem.versions, mem.validator, USER,
                                       stage_root=mem.workspace.cache_dir / "stage", producer=producer, **kwargs)


def test_fails_twice_then_passes_and_the_metadata_tells_every_attempt(mem: Memory) -> None:
    mem.add(USER, "I collect stamps")
    current = mem.versions.current(USER)
    assert current is not None and current.number == 2
    producer = Scripted([unsafe, mistyped("three"), compiled])

    result = run(mem, producer)

    assert isinstance(result, Published), result
    meta = result.version.meta
    assert meta.producer == "scripted"
    assert [(a.number, a.stage) for a in meta.attempts] == [(1, "safety"), (2, "mypy"), (3, "passed")]
    assert any("evil.py" in p and "import" in p for p in meta.attempts[0].problems)
    assert any("bad_count" in p or "assignment" in p for p in meta.attempts[1].problems)
    assert meta.attempts[2].problems == []
    assert [a.usage["prompt_tokens"] for a in meta.attempts] == [100.0, 200.0, 300.0]
    assert meta.usage == {"prompt_tokens": 600.0, "completion_tokens": 30.0, "seconds": 1.5}
    assert all(a.seconds > 0 for a in meta.attempts)
    # what the producer was told
    first, second, third = producer.requests
    assert [r.attempt for r in producer.requests] == [1, 2, 3]
    assert first.feedback is None and first.failed_files is None
    assert second.feedback is not None and second.feedback.stage == "safety"
    assert producer.feedback_texts[1] == second.feedback.format_for_llm()
    assert producer.feedback_texts[1].startswith("Validation failed at stage 'safety'")  # type: ignore[union-attr]
    assert "evil.py" in producer.feedback_texts[1]  # type: ignore[operator]
    assert second.failed_files is not None and "evil.py" in second.failed_files
    assert third.feedback is not None and third.feedback.stage == "mypy"
    assert third.failed_files is not None and "bad_count" in third.failed_files["__init__.py"]
    # the request: the whole log, the live ids, the previous version's files
    assert [f.id for f in first.facts] == [f.id for f in mem.log(USER)]
    assert first.live_ids == frozenset(f.id for f in mem.log(USER))
    assert first.previous is not None and first.previous.number == 2
    assert dict(first.previous.files) == mem.versions.files(USER, 2)
    # stored: meta.json in format 2 with the attempts; read back equal
    stored = json.loads((result.version.path / "meta.json").read_text())
    assert stored["format"] == 2 and stored["producer"] == "scripted"
    assert [a["stage"] for a in stored["attempts"]] == ["safety", "mypy", "passed"]
    assert mem.versions.current(USER) == result.version
    assert "I collect stamps" in [n.text for n in mem.module(USER).notes]


def test_fails_one_plus_max_repairs_times_keeps_the_last_good_version_and_the_facts(mem: Memory) -> None:
    mem.add(USER, "A fact no attempt may lose")
    before = list(mem.log(USER))
    current = mem.versions.current(USER)
    producer = Scripted([mistyped("one"), mistyped("two"), mistyped("three")])

    result = run(mem, producer, max_repairs=2)

    assert isinstance(result, Failed), result
    assert result.stage == "mypy" and result.producer == "scripted"
    assert [(a.number, a.stage) for a in result.attempts] == [(1, "mypy"), (2, "mypy"), (3, "mypy")]
    assert all(a.problems for a in result.attempts)
    assert len(producer.requests) == 3
    assert mem.versions.current(USER) == current
    assert list(mem.log(USER)) == before
    assert [e.action for e in mem.versions.events(USER)] == ["publish", "publish"]
    retry = mem.checkpoint(USER)  # the compiler, next time: nothing was lost
    assert isinstance(retry, Published) and retry.version.meta.attempts[0].stage == "passed"
    assert "A fact no attempt may lose" in [n.text for n in mem.module(USER).notes]


def test_a_producer_that_repeats_its_failed_files_is_not_asked_again(mem: Memory) -> None:
    mem.add(USER, "one more")
    producer = Scripted([mistyped("same")])
    result = run(mem, producer)
    assert isinstance(result, Failed) and [a.stage for a in result.attempts] == ["mypy"]
    assert len(producer.requests) == 2  # the second answer was the same files: not validated again


def test_the_compiler_answers_safety_feedback_by_quarantining_the_culprits(
        mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the compiler's own limits miss, safety names on a record's line; the compiler
    producer reads that feedback, leaves the facts out, declares them in `_quarantined`."""
    monkeypatch.setattr(codegen.compile, "fact_problem", lambda fact: None)
    bad = append_raw(mem.workspace.facts_db, USER, kind="trip", key="T9", fields={"__secret": "x"})
    result = mem.checkpoint(USER)
    assert isinstance(result, Published), result
    assert [(a.number, a.stage) for a in result.version.meta.attempts] == [(1, "safety"), (2, "passed")]
    assert result.version.meta.producer == "compiler"
    files = mem.versions.files(USER, result.version.number)
    left_out = mem.manifest(USER, result.version.number).quarantined  # the validator read it from the module
    assert declared_quarantine(files) == left_out
    assert list(left_out) == [bad.id]
    assert mem.module(USER)._quarantined == left_out


def test_bad_usage_figures_are_left_out_and_a_bad_name_is_refused_before_any_work(mem: Memory) -> None:
    @dataclass
    class Sloppy:
        name: str = "sloppy"

        def produce(self, request: ProducerRequest) -> Produced:
            usage: Any = {"tokens": 5, "nan": float("nan"), "neg": -1.0, "flag": True, 3: 1.0, "": 2.0}
            return Produced(compiled(request), usage)

    mem.add(USER, "usage")
    result = run(mem, Sloppy())  # type: ignore[arg-type]
    assert isinstance(result, Published) and result.version.meta.usage == {"tokens": 5.0}
    mem.add(USER, "named badly")
    with pytest.raises(InputError, match="producer name 'Bad Name'"):
        run(mem, Sloppy(name="Bad Name"))  # type: ignore[arg-type]
    assert mem.versions.current(USER) == result.version


def test_quarantine_declaration_round_trips_and_is_absent_when_empty() -> None:
    source = quarantine_source({12: 'too "long"', 3: "dunder\nname"})
    assert declared_quarantine({"__init__.py": source}) == {3: "dunder\nname", 12: 'too "long"'}
    assert declared_quarantine({"__init__.py": "x: int = 1\n"}) == {}
    assert declared_quarantine({"__init__.py": "_quarantined = {'a': 1, 4: 'ok'}\n"}) == {4: "ok"}
    assert declared_quarantine({"__init__.py": "_quarantined = {"}) == {}
    package = compile_package("u", [make_fact(1, "a note")])
    assert "_quarantined" not in package.files["__init__.py"]


# -- the registry --------------------------------------------------------------------------

PLUGIN = '''
from codegen.compile import compile_package
from codegen.producer import Produced


class EchoProducer:
    name = "test_echo:v1"

    def produce(self, request):
        files = compile_package(request.user, request.facts).files
        return Produced(dict(files), {"prompt_tokens": 7.0})


def broken():
    raise RuntimeError("no model here")
'''


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A distribution, installed on sys.path for this test only, registering producers."""
    root = tmp_path / "site"
    (root / "uac_test_producers").mkdir(parents=True)
    (root / "uac_test_producers" / "__init__.py").write_text(PLUGIN)
    info = root / "uac_test_producers-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: uac-test-producers\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent("""\
        [uac.producers]
        test_echo = uac_test_producers:EchoProducer
        test_broken = uac_test_producers:broken
        """))
    monkeypatch.syspath_prepend(str(root))
    return root


def test_the_project_registers_the_compiler() -> None:
    assert "compiler" in producer_names()
    assert isinstance(producer_named("compiler"), CompilerProducer)


def test_unknown_and_broken_producers_are_one_line_errors(plugin: Path) -> None:
    with pytest.raises(InputError) as caught:
        producer_named("nosuch")
    message = str(caught.value)
    assert "\n" not in message and "nosuch" in message and "compiler" in message and "test_echo" in message
    with pytest.raises(InputError, match="could not be loaded: RuntimeError: no model here"):
        producer_named("test_broken")


def test_a_registered_producer_is_chosen_by_name(plugin: Path, mem: Memory) -> None:
    assert {"compiler", "test_echo", "test_broken"} <= set(producer_names())
    mem.add(USER, "chosen by name")
    result = mem.checkpoint(USER, producer="test_echo")
    assert isinstance(result, Published), result
    assert result.version.meta.producer == "test_echo:v1"
    assert result.version.meta.usage == {"prompt_tokens": 7.0}


def test_cli_checkpoint_producer(plugin: Path, uac: Uac, home: Path) -> None:
    assert uac("--home", str(home), "add", USER, "via the CLI").code == 0
    r = uac("--home", str(home), "checkpoint", USER, "--producer", "test_echo", "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["outcome"] == "published"
    shown = json.loads(uac("--home", str(home), "show", USER, "--json").out)
    assert shown["producer"] == "test_echo:v1" and [a["stage"] for a in shown["attempts"]] == ["passed"]


def test_cli_failed_checkpoint_reports_the_attempts(uac: Uac, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import runtime.checkpoint_service

    real = users.checkpoint.checkpoint
    producer = Scripted([mistyped("a"), mistyped("b")])
    monkeypatch.setattr(runtime.checkpoint_service, "checkpoint",
                        lambda *args, **kwargs: real(*args, **{**kwargs, "producer": producer, "max_repairs": 1}))
    assert uac("--home", str(home), "add", USER, "trigger").code == 0
    r = uac("--home", str(home), "checkpoint", USER, "--json")
    assert r.code == 1
    data = json.loads(r.out)
    assert data["producer"] == "scripted" and [a["stage"] for a in data["attempts"]] == ["mypy", "mypy"]
    r = uac("--home", str(home), "checkpoint", USER)
    assert r.code == 1 and "after 2 attempts by scripted; v2 stays current" in r.err


def test_cli_unknown_producer_exits_2_with_one_line_and_writes_nothing(uac: Uac, home: Path) -> None:
    before = sorted(p.name for p in (home / "users" / USER).iterdir())
    for command in (["checkpoint", USER], ["watch", USER]):
        r = uac("--home", str(home), *command, "--producer", "nosuch")
        assert r.code == 2, (command, r.out, r.err)
        assert len(r.err.strip().splitlines()) == 1 and "no producer named 'nosuch'" in r.err
    assert sorted(p.name for p in (home / "users" / USER).iterdir()) == before


def test_the_watcher_hands_its_producer_to_every_step(tmp_path: Path) -> None:
    calls: list[dict[str, Any]] = []

    class Fake:
        def users(self) -> list[str]:
            return ["a"]

        def watch_step(self, user: str, policy: CheckpointPolicy, clock_tick: bool, **kwargs: Any) -> object:
            calls.append(kwargs)
            return None

    chosen = CompilerProducer()
    Watcher(Fake(), tmp_path / "facts.db", None, lambda *_: None, producer=chosen).run_pass()
    Watcher(Fake(), tmp_path / "facts.db", None, lambda *_: None).run_pass()
    assert calls == [{"producer": chosen}, {}]


# -- version metadata as a format ----------------------------------------------------------

def meta_file(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "version": 3, "created_at": "2026-12-01T10:00:00+00:00", "parent": 2, "files_sha256": "ab",
        "log_position": 7, "input_hash": "h", "producer": "compiler",
        "attempts": [{"number": 1, "stage": "passed", "problems": [], "usage": {}, "seconds": 0.1}],
        "usage": {}, "format": 2,
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not ...}


@pytest.mark.parametrize("changes", [
    {"producer": "gpt 4"}, {"producer": "Compiler"}, {"log_position": True}, {"log_position": "7"},
    {"attempts": [{"number": 0, "stage": "passed"}]}, {"attempts": [{"number": 1, "stage": "Passed!"}]},
    {"attempts": [{"number": 1, "stage": "mypy", "problems": ["x" * 5000]}]},
    {"usage": {"prompt_tokens": float("inf")}}, {"usage": {"seconds": True}}, {"format": 3},
    {"quarantined": {"0": "x"}}, {"manifest_sha256": "xyz"}, {"surprise": 1}, {"version": ...},
    {"entities": {"trip/a": ["1"]}}, {"timings": {"mypy": -1}}, {"parent": 0},
])
def test_every_bad_meta_json_is_one_input_error_line(tmp_path: Path, changes: dict[str, Any]) -> None:
    with pytest.raises(InputError) as caught:
        VersionInfo.from_meta_json(USER, tmp_path / "v000003", meta_file(**changes))
    message = str(caught.value)
    assert "\n" not in message and str(tmp_path / "v000003" / "meta.json") in message, message


def test_meta_json_reads_every_format_and_round_trips(tmp_path: Path) -> None:
    info = VersionInfo.from_meta_json(USER, tmp_path, meta_file(manifest_sha256="a" * 64))
    assert info.manifest_sha256 == "a" * 64 and info.meta.attempts[0].stage == "passed"
    again = VersionInfo.from_meta_json(USER, tmp_path, json.loads(json.dumps(info.meta_json())))
    assert again == info
    old = {k: v for k, v in meta_file().items() if k not in ("format", "attempts", "usage")}
    legacy = VersionInfo.from_meta_json(USER, tmp_path, {**old, "record_counts": {"trips": 1},
                                                          "entities": {"trip/a": [1]}, "renamed_fields": {},
                                                          "quarantined": {"4": "why"}, "retractions": {"2": 3}})
    assert legacy.meta.format == 2 and legacy.meta.attempts == [] and legacy.meta.quarantined == {4: "why"}
    assert legacy.meta.retractions == {2: 3}


def test_the_workspace_written_before_formats_still_reads() -> None:
    for path in sorted((old_workspace() / "users").glob("*/v*/meta.json")):
        info = VersionInfo.from_meta_json(path.parent.parent.name, path.parent, json.loads(path.read_text()))
        assert info.meta.producer == "compiler" and info.meta.log_hash is not None and info.meta.attempts == []


def test_metadata_takes_what_format_1_took() -> None:
    """No new limits on the old fields: a long entity id (a long key) still publishes."""
    meta = PublishMeta(1, "h", "compiler", entities={"trip/" + "k" * 5000: [1]}, record_counts={"trips": 1})
    assert list(meta.entities) == ["trip/" + "k" * 5000]


def test_any_registered_name_is_a_valid_producer_in_metadata() -> None:
    for name in ("compiler", "llm:qwen2.5-7b", "scripted", "test_echo:v1", "my_llm:org/model@2"):
        assert PublishMeta(1, "h", name).producer == name
    for name in ("", "gpt-4", "llm:", "Compiler", "a b", "x" * 65):
        with pytest.raises(InputError):
            PublishMeta(1, "h", name)
