"""The whole LLM path against a REAL small model (Gemma 3 270M served by llama.cpp), offline.

Marked `llm_real` (skipped by the default run; `pytest -m llm_real tests/test_llm_real.py`),
and skipped with a reason when the `local-llm` extra is not installed. A model this small
writes poor facts and poor code: these tests assert the SAFETY properties, not quality —

- extraction: every message the offline extractor keeps a fact of is kept (by a model fact
  citing it, or as its raw fact), and a session the model failed on is stored as raw facts
  with a recorded failure;
- the llm checkpoint: a version it published passes a fresh validator again (allowlist,
  mypy --strict, import, coverage); a failed one leaves the compiler's version current, the
  failure and its attempts recorded;
- `uac ask`: an answer or a clean one-line failure, nothing written;
- no command prints a traceback; exit codes are 0 or 1 (a problem found), never 2 or a crash.

The server runs in this process (`codegen.llm.local_model.serve`); every `uac` command is a
real subprocess talking to it through the `openai` client and our `Endpoint`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from codegen.llm import local_model

pytestmark = pytest.mark.llm_real

if not local_model.available():
    pytest.skip(f"the local-llm extra is not installed ({local_model.INSTALL_HINT})", allow_module_level=True)

REPO = Path(__file__).resolve().parent.parent
LAYER1 = REPO.parent / "shared" / "data" / "book_eval_layer1" / "01_bank_account_setup.yaml"
UAC = str(Path(sys.executable).parent / "uac")
USER = "michael"
MESSAGES = 10  # a short transcript: the first messages of one layer-1 session


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[local_model.LocalServer]:
    with local_model.serve(cache_dir=tmp_path_factory.mktemp("local-model"), max_tokens=512) as running:
        yield running


@pytest.fixture(scope="module")
def transcript(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not LAYER1.exists():
        pytest.skip(f"the layer-1 transcripts are not here ({LAYER1.parent})")
    case = yaml.safe_load(LAYER1.read_text(encoding="utf-8"))
    session = case["conversation_histories"][0]
    short = {"conversation_histories": [{**session, "messages": session["messages"][:MESSAGES]}]}
    path = tmp_path_factory.mktemp("transcript") / "bank_short.yaml"
    path.write_text(yaml.safe_dump(short, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def env(server: local_model.LocalServer, home: Path) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    # a slow model on a shared machine: long timeouts, and at most one repair to bound the run
    (home / "settings.json").write_text(json.dumps({"format": 1, "llm": {"timeout_seconds": 900, "max_repairs": 1}}))
    return {**os.environ, "OPENAI_BASE_URL": server.base_url, "UAC_MODEL": server.model, "UAC_HOME": str(home)}


def uac(env: dict[str, str], *args: str) -> tuple[int, Any]:
    """Run `uac ... --json`: (exit code, parsed output); never a traceback, never exit 2+."""
    proc = subprocess.run([UAC, *args, "--json"], env=env, capture_output=True, text=True, cwd=REPO, timeout=3600)
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    assert proc.returncode in (0, 1), (args, proc.returncode, proc.stderr)
    return proc.returncode, json.loads(proc.stdout) if proc.stdout.strip() else None


def facts(env: dict[str, str], user: str) -> list[dict[str, Any]]:
    return list(uac(env, "log", user)[1])


def test_server_answers_and_stops(tmp_path: Path) -> None:
    from codegen.llm import Endpoint, EndpointConfig, ModelUnavailable

    with local_model.serve(cache_dir=tmp_path, max_tokens=16) as running:
        endpoint = Endpoint(EndpointConfig(running.base_url, None, running.model, timeout_s=300))
        assert endpoint.models()
        endpoint.complete_text([{"role": "user", "content": "Say yes."}], purpose="probe")
        call = endpoint.usage.calls[-1]
        assert call.ok and not call.estimated and 0 < call.completion_tokens <= 16
    with pytest.raises(ModelUnavailable):  # stopped: nothing listens any more
        Endpoint(EndpointConfig(running.base_url, None, running.model, timeout_s=5, max_retries=0)).models()


def test_extraction_checkpoint_and_ask(env: dict[str, str], transcript: Path, tmp_path: Path) -> None:
    # the offline extractor's facts: what must not be lost
    uac(env, "ingest", "offline", str(transcript))
    offline_messages = {f["provenance"]["message_index"] for f in facts(env, "offline")}

    # the last good version: the compiler's, before the model's facts arrive
    uac(env, "add", USER, "The user banks with First National Bank.")
    code, first = uac(env, "checkpoint", USER)
    assert code == 0 and first["outcome"] == "published"
    good = first["version"]

    code, report = uac(env, "ingest", USER, str(transcript), "--llm")
    extraction = report["extraction"]
    assert extraction["usage"]["calls"] >= 1 and extraction["usage"]["prompt_tokens"] > 0
    _, failures = uac(env, "log", USER, "--failed")
    log = facts(env, USER)
    kept_messages = {f["provenance"]["message_index"] for f in log if f["provenance"]["session_id"]}
    assert offline_messages <= kept_messages, "a message the offline extractor keeps was lost"
    if extraction["failed_chunks"]:
        assert code == 1
        assert {f["session_id"] for f in failures} == set(extraction["failed_sessions"])
        assert all(f["reason"] and f["first_message"] is not None for f in failures)  # a chunk, a reason
        raw = {i for f in failures for i in f["fact_ids"]}
        assert raw <= {f["id"] for f in log}
    else:
        assert code == 0 and not failures and log

    code, result = uac(env, "checkpoint", USER, "--producer", "llm")
    _, history = uac(env, "history", USER)
    current = next(v["version"] for v in history if v["current"])
    if result["outcome"] == "failed":
        assert code == 1
        assert result["current_version"] == good == current  # the last good version stays current
        assert result["attempts"] and all(a["stage"] for a in result["attempts"])
        assert len(result["attempts"]) <= 2  # max_repairs 1
    else:
        assert code == 0 and result["outcome"] == "published"
        assert current == result["version"] != good
        assert recheck(env, current, tmp_path) == "valid"

    before = len(facts(env, USER))
    code, answer = uac(env, "ask", USER, "What is my full name?")
    if code == 0:
        assert answer["answered_by"] in ("code", "recall")
        assert answer["model"]["calls"] >= 1
    _, after_history = uac(env, "history", USER)
    assert len(facts(env, USER)) == before and after_history == history  # ask writes nothing


def recheck(env: dict[str, str], number: int, scratch: Path) -> str:
    """A stored version validated again from its files by a fresh validator (in a child
    process: this one hosts the model server's threads)."""
    script = textwrap.dedent(f"""
        from pathlib import Path
        from codegen.validate import ValidationSuccess, Validator
        from runtime.memory import Memory
        mem = Memory.open(read_only=True)
        info = mem.versions.get({USER!r}, {number})
        validator = Validator(Path({str(scratch / 'cache')!r}))
        result = validator.validate(mem.versions.files({USER!r}, {number}), user={USER!r}, version="recheck",
                                    facts={{f.id: f for f in mem.log({USER!r})}},
                                    quarantined=dict(info.meta.quarantined), stage_dir=Path({str(scratch / 'stage')!r}))
        print("valid" if isinstance(result, ValidationSuccess) else f"invalid: {{result.stage}} {{result.problems}}")
    """)
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()
