"""`uac eval analytical|alerts|transcripts|compare`: measure the memory on case files (docs/EVAL.md).

Every run writes a JSON report (`--report PATH`, default `<home>/eval/<command>-<time>.json`)
and exits 1 when any case did not pass (0 when all did); a bad FILE exits 2 with one line,
a bad case inside a good file is that case's error row. The cases run in throwaway
workspaces: the workspace of `--home` is never written (but for the default report).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from runtime.cli_app import JsonOpt, State, app, emit_json, out, say

if TYPE_CHECKING:
    from runtime.eval_report import CaseRow
    from runtime.eval_run import EvalOptions

eval_app = typer.Typer(help="Measure the memory on case files: analytical, alerts; compare two runs.",
                       no_args_is_help=True)
app.add_typer(eval_app, name="eval")

ProducerOpt = typer.Option(None, "--producer", help="the registered producer that writes the package "
                                                     "(default: compiler)")
ReportOpt = typer.Option(None, "--report", help="where to write the JSON report "
                                                "(default: <home>/eval/<command>-<time>.json)")
WorkersOpt = typer.Option(1, "--workers", help="cases run in parallel, each in its own process")
ModelOpt = typer.Option(None, "--model", help="model name (default: UAC_MODEL or settings)")
BaseUrlOpt = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL)")
FAILURES_SHOWN = 30


def _report_path(command: str, given: Optional[Path]) -> Path:
    from runtime.eval_report import check_report_path

    if given is None:
        from datetime import datetime, timezone

        from runtime.workspace import default_home

        home = Path(State.home).expanduser() if State.home else default_home()
        given = home / "eval" / f"{command}-{datetime.now(timezone.utc):%Y%m%dT%H%M%S}.json"
    check_report_path(given)
    return given


def _options(producer: Optional[str], **more: Any) -> EvalOptions:
    from runtime.eval_run import EvalOptions

    if producer is not None:
        from codegen.producer import producer_named

        producer_named(producer)  # an unknown name: exit 2 before any work
    return EvalOptions(producer=producer, **more)


def _model_name(options: EvalOptions, uses_model: bool) -> str | None:
    if not uses_model:
        return None
    from codegen.llm import EndpointConfig

    try:
        return EndpointConfig.resolve(base_url=options.base_url, model=options.model).model
    except Exception:  # the run reports its own errors; the name is for the report only
        return options.model


def _finish(command: str, rows: list[CaseRow], summary: dict[str, Any], options: EvalOptions, settings: dict[str, Any],
            started_at: str, seconds: float, report_path: Path, as_json: bool, uses_model: bool,
            lines: list[str]) -> None:
    from runtime.eval_report import report, write_report

    data = report(command, producer=options.producer or "compiler", model=_model_name(options, uses_model),
                  settings=settings, started_at=started_at, seconds=seconds, summary=summary, cases=rows)
    write_report(report_path, data)
    if as_json:
        emit_json(data)
    else:
        for line in lines:
            say(line)
        failures = [row for row in rows if row.status != "pass"]
        for row in failures[:FAILURES_SHOWN]:
            say(f"  {row.status.upper():5} {row.id}: {row.detail}")
        if len(failures) > FAILURES_SHOWN:
            say(f"  ... and {len(failures) - FAILURES_SHOWN} more (see the report)")
        say(f"report: {report_path}")
    if any(row.status != "pass" for row in rows):
        raise typer.Exit(1)


def _rates(title: str, groups: dict[str, Any]) -> str:
    return f"{title}: " + ", ".join(f"{name} {g['passed']}/{g['total']}" for name, g in groups.items())


@eval_app.command("analytical")
def eval_analytical(file: Path = typer.Argument(..., help="case file: {\"cases\": [...]}"),
                    producer: Optional[str] = ProducerOpt,
                    ask: bool = typer.Option(False, "--ask", help="a case without an expression is "
                                                                  "answered by `uac ask` (a model)"),
                    model: Optional[str] = ModelOpt, base_url: Optional[str] = BaseUrlOpt,
                    report: Optional[Path] = ReportOpt, workers: int = WorkersOpt, as_json: bool = JsonOpt) -> None:
    """Aggregate questions over structured records: ingest, checkpoint, answer, score exactly."""
    from time import perf_counter

    from runtime.eval_analytical import run_analytical_case, summary
    from runtime.eval_cases import read_json_file
    from runtime.eval_report import now_iso
    from runtime.eval_run import check_workers, run_cases

    check_workers(workers)
    report_path = _report_path("analytical", report)
    options = _options(producer, ask=ask, model=model, base_url=base_url)
    _, cases = read_json_file(file, "cases")
    started_at, started = now_iso(), perf_counter()
    rows = run_cases(cases, run_analytical_case, options, id_key="case_id", workers=workers,
                     progress=not as_json, label="analytical")
    _mark_duplicates(rows)
    found = summary(rows)
    lines = [f"analytical: {found['passed']}/{found['cases']} correct ({found['accuracy']:.1%}); "
             f"{found['errors']} error(s); {found['seconds_per_case']} s per case"
             + (f"; {found['tokens']} tokens" if found["tokens"] else ""),
             _rates("by type", found["by_type"]), _rates("by n", found["by_n"])]
    settings = {"file": file.name, "ask": ask, "workers": workers}
    from runtime.eval_chart import write_chart

    lines.append(f"chart: {write_chart(report_path, rows, f'uac eval analytical: {file.name}')}")
    _finish("analytical", rows, found, options, settings, started_at, perf_counter() - started, report_path,
            as_json, ask, lines)


@eval_app.command("alerts")
def eval_alerts(files: list[Path] = typer.Argument(..., help="scenario files: {\"scenarios\": [...]}"),
                producer: Optional[str] = ProducerOpt,
                llm_extract: bool = typer.Option(False, "--llm-extract", help="conversations are extracted "
                                                                              "by a model (`ingest --llm`)"),
                split: str = typer.Option("all", "--split", help="dev, test or all"),
                model: Optional[str] = ModelOpt, base_url: Optional[str] = BaseUrlOpt,
                report: Optional[Path] = ReportOpt, workers: int = WorkersOpt, as_json: bool = JsonOpt) -> None:
    """Multi-session scenarios: expected alerts at the right session, none early, none on negatives."""
    from time import perf_counter

    from factlog.errors import InputError
    from runtime.eval_alerts import SPLITS, run_alerts_case, summary
    from runtime.eval_cases import read_json_file
    from runtime.eval_report import EXTRACTION_FIGURES, now_iso
    from runtime.eval_run import check_workers, run_cases

    if split not in SPLITS:
        raise InputError(f"--split must be one of {', '.join(SPLITS)}, not {split!r}")
    check_workers(workers)
    report_path = _report_path("alerts", report)
    options = _options(producer, llm_extract=llm_extract, model=model, base_url=base_url)
    scenarios: list[Any] = []
    for file in files:
        scenarios += read_json_file(file, "scenarios")[1]
    if split != "all":
        scenarios = [s for s in scenarios if not isinstance(s, dict) or s.get("split") == split]
    started_at, started = now_iso(), perf_counter()
    rows = run_cases(scenarios, run_alerts_case, options, id_key="id", workers=workers, progress=not as_json,
                     label="alerts")
    _mark_duplicates(rows)
    found = summary(rows)
    lines = [f"alerts: {found['passed']}/{found['scenarios']} scenarios pass ({found['pass_rate']:.1%}); "
             f"{found['errors']} error(s); {found['early_alerts']} early, {found['false_alerts']} false alert(s) "
             f"({found['false_alerts_on_negatives']} on negatives); {found['seconds_per_scenario']} s per scenario",
             _rates("by category", found["by_category"])]
    for kind, counts in found["extraction"].items():
        shown = {k: "-" if counts[k] is None else counts[k]
                 for k in EXTRACTION_FIGURES}
        lines.append(f"extraction {kind}: precision {shown['precision']}, recall {shown['recall']} "
                     f"({counts['matched']}/{counts['labels']} labels, {counts['facts']} typed facts); "
                     f"as entities {shown['precision_entity']} / {shown['recall_entity']} "
                     f"({counts['matched_entity']}/{counts['labels']}); things found {shown['precision_found']} / "
                     f"{shown['recall_found']} ({counts['found_labels']}/{counts['labels']})")
    for kind, reasons in found["field_misses"].items():
        lines.append(f"found but not matched, {kind}: " + ", ".join(f"{reason} {count}" for reason, count in
                                                                     list(reasons.items())[:6]))
    settings = {"files": [file.name for file in files], "split": split, "llm_extract": llm_extract,
                "workers": workers}
    _finish("alerts", rows, found, options, settings, started_at, perf_counter() - started, report_path, as_json,
            llm_extract, lines)


@eval_app.command("transcripts")
def eval_transcripts(folder: Path = typer.Argument(..., help="a folder of three-layer YAML cases"),
                     producer: Optional[str] = ProducerOpt,
                     llm: bool = typer.Option(False, "--llm", help="answer each question from memory and "
                                                                   "score it with an LLM judge"),
                     model: Optional[str] = ModelOpt, base_url: Optional[str] = BaseUrlOpt,
                     report: Optional[Path] = ReportOpt,
                     workers: int = WorkersOpt, as_json: bool = JsonOpt) -> None:
    """Three-layer transcript cases: ingest, validate, a rubric-term proxy; --llm: an LLM judge."""
    from time import perf_counter

    from runtime.eval_report import now_iso
    from runtime.eval_run import check_workers, run_cases
    from runtime.eval_transcripts import case_files, run_transcript_case, summary

    check_workers(workers)
    report_path = _report_path("transcripts", report)
    options = _options(producer, judge=llm, model=model, base_url=base_url)
    if llm:
        from codegen.llm import EndpointConfig

        EndpointConfig.resolve(base_url=base_url, model=model)  # no model configured: exit 2, nothing run
    files = case_files(folder)
    started_at, started = now_iso(), perf_counter()
    rows = run_cases([str(path) for path in files], run_transcript_case, options, id_key="test_id",
                     workers=workers, progress=not as_json, label="transcripts")
    _mark_duplicates(rows)
    found = summary(rows)
    proxy = found["proxy_rubric_terms_in_recall"]
    lines = [f"transcripts: {found['validated']}/{found['cases']} ingested and validated; {found['facts']} facts "
             f"({found['typed_facts']} typed), {found['notes']} notes; {found['seconds_per_case']} s per case",
             f"proxy (no judge): {proxy['found']}/{proxy['terms']} rubric key terms in the recalled context"]
    judge = found.get("judge")
    if judge:
        lines.append(f"judge: mean score {judge['mean_score']} over {judge['judged']} case(s), "
                     f"{judge['at_pass_score']} at {judge['pass_score']} or above; {judge['tokens_per_case']} tokens "
                     f"and {judge['model_seconds_per_case']} s of model time per case")
    settings = {"folder": folder.name, "llm": llm, "workers": workers}
    _finish("transcripts", rows, found, options, settings, started_at, perf_counter() - started, report_path,
            as_json, llm, lines)


def _mark_duplicates(rows: list[CaseRow]) -> None:
    """A case id seen before is an error row of its own (`compare` matches cases by id)."""
    seen: set[str] = set()
    for position, row in enumerate(rows):
        if row.id in seen:
            row.status, row.detail = "error", f"duplicate case id {row.id!r}"
            row.id = f"{row.id}#{position + 1}"
        seen.add(row.id)


@eval_app.command("compare")
def eval_compare(a: Path = typer.Argument(..., help="the earlier report"),
                 b: Path = typer.Argument(..., help="the later report"), as_json: bool = JsonOpt) -> None:
    """What got better and worse from report A to report B, case by case."""
    from runtime.eval_report import EXTRACTION_FIGURES, compare, extraction_changes, pass_rate, read_report

    first, second = read_report(a), read_report(b)
    changes = compare(first, second)
    kinds = extraction_changes(first, second)
    (passed_a, total_a), (passed_b, total_b) = pass_rate(first), pass_rate(second)
    if as_json:
        emit_json({"a": {"passed": passed_a, "total": total_a, "git_revision": first.get("git_revision")},
                   "b": {"passed": passed_b, "total": total_b, "git_revision": second.get("git_revision")},
                   "changes": [{"id": c.id, "before": c.before, "after": c.after, "change": c.direction,
                                "detail": c.detail} for c in changes],
                   "extraction": [{"kind": k.kind, "before": k.before, "after": k.after} for k in kinds]})
        return
    say(f"A: {passed_a}/{total_a} pass; B: {passed_b}/{total_b} pass")
    for direction in ("better", "worse", "changed", "added", "removed"):
        chosen = [c for c in changes if c.direction == direction]
        if chosen:
            say(f"{direction} ({len(chosen)}):")
            for change in chosen:
                detail = f": {change.detail}" if change.detail and change.after not in (None, "pass") else ""
                say(f"  {change.id}: {change.before or '-'} -> {change.after or '-'}{detail}")
    if not changes:
        out.print("no case changed", markup=False)
    if kinds:
        say("extraction (precision / recall, strict; as entities; things found):")
    for kind in kinds:
        before, after = ([("-" if f[name] is None else f"{f[name]:.2f}") for name in EXTRACTION_FIGURES]
                         for f in (kind.before, kind.after))
        say(f"  {kind.kind}: {before[0]} / {before[1]} -> {after[0]} / {after[1]}; "
            f"{before[2]} / {before[3]} -> {after[2]} / {after[3]}; "
            f"{before[4]} / {before[5]} -> {after[4]} / {after[5]}")
