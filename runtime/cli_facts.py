"""`uac` commands over the fact log: add, ingest, log, retract, verify, export, import, forget, users."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Optional

import typer

from factlog.errors import InputError
from factlog.limits import MAX_FACT_ID
from factlog.records import parse_field_options, parse_map_options
from factlog.store import ExtractionFailure
from runtime.cli_app import JsonOpt, app, emit_json, fact_table, memory, out, say

# -- facts -------------------------------------------------------------------------------

MapOpt = typer.Option([], "--map", help="old=new: rename a field before the fact is made (repeatable)")
RetypeOpt = typer.Option(False, "--allow-retype", help="let a value change its field's established type")


@app.command()
def add(user: str, text: Optional[str] = typer.Argument(None),
        kind: Optional[str] = typer.Option(None, "--kind"),
        field: list[str] = typer.Option([], "--field", help="name=value (repeatable)"),
        key: Optional[str] = typer.Option(None, "--key", help="identity key: same kind+key = same entity"),
        valid_from: Optional[str] = typer.Option(None, "--valid-from"),
        valid_to: Optional[str] = typer.Option(None, "--valid-to"),
        field_map: list[str] = MapOpt, allow_retype: bool = RetypeOpt,
        as_json: bool = JsonOpt) -> None:
    """Append one fact (free text, or structured with --kind and --field)."""
    fields = parse_field_options(field)
    fact = memory().add(user, text, kind=kind, fields=fields, key=key, valid_from=valid_from,
                        valid_to=valid_to, field_map=parse_map_options(field_map), allow_retype=allow_retype)
    if as_json:
        emit_json(fact.to_json())
    else:
        say(f"added fact {fact.id} for {user}: {fact.text}")


@app.command()
def ingest(user: str, path: Path,
           kind: Optional[str] = typer.Option(None, "--kind", help="record file: each object is one fact of this kind"),
           key_field: Optional[str] = typer.Option(None, "--key-field", help="record field that names the entity"),
           field_map: list[str] = MapOpt,
           user_only: bool = typer.Option(False, "--user-only", help="transcripts: only the user's turns"),
           again: bool = typer.Option(False, "--again", help="add facts already ingested from this file again"),
           allow_retype: bool = RetypeOpt,
           checkpoint: bool = typer.Option(False, "--checkpoint", help="then checkpoint and run constraints"),
           llm: bool = typer.Option(False, "--llm", help="transcripts: a model extracts typed facts"),
           model: Optional[str] = typer.Option(None, "--model", help="with --llm: the model (else UAC_MODEL)"),
           base_url: Optional[str] = typer.Option(None, "--base-url",
                                                  help="with --llm: the endpoint (else OPENAI_BASE_URL)"),
           retry_failed: bool = typer.Option(False, "--retry-failed",
                                             help="with --llm: extract again the chunks that failed"),
           as_json: bool = JsonOpt) -> None:
    """Ingest a record file (JSONL / JSON array, with --kind) or a chat transcript (JSON, JSONL, YAML).
    Ingesting the same file again adds nothing (--again forces it). With --llm a model extracts
    the transcript, chunk by chunk; a chunk it fails on is kept as raw text and listed by
    `uac log USER --failed` (exit 1), and `--llm --retry-failed` extracts those again."""
    from runtime.cli_output import checkpoint_json, print_checkpoint
    from users.checkpoint import Failed

    mem = memory()
    if kind is not None and (llm or model or base_url or retry_failed):
        raise InputError("--llm, --model, --base-url and --retry-failed are for transcripts, not --kind")
    if kind is not None:
        report = mem.ingest_records(user, path, kind, key_field, field_map=parse_map_options(field_map),
                                    again=again, allow_retype=allow_retype)
    else:
        if key_field is not None or field_map:
            raise InputError("--key-field and --map go with --kind (record files)")
        report = mem.ingest_transcript(user, path, user_only=user_only, again=again, allow_retype=allow_retype,
                                       llm=llm, model=model, base_url=base_url, retry_failed=retry_failed)
    outcome = mem.checkpoint_and_alert(user) if checkpoint else None
    extraction = report.extraction
    if as_json:
        emit_json({"user": user, "source": report.source, "count": len(report.facts),
                   "skipped": report.skipped, "first_id": report.first_id, "last_id": report.last_id,
                   **({"extraction": extraction.to_json()} if extraction is not None else {}),
                   **({"checkpoint": checkpoint_json(outcome)} if outcome else {})})
    else:
        ids = f" (ids {report.first_id}-{report.last_id})" if report.facts else ""
        out.print(f"{path} for {user}: {report.summary}{ids}", markup=False)
        if extraction is not None:
            out.print(extraction.summary, markup=False)
            for failed in extraction.failed:
                out.print(f"session {failed.session_id} {failed.messages}: {failed.reason}", markup=False)
        if outcome is not None:
            print_checkpoint(outcome)
    if outcome is not None and isinstance(outcome.result, Failed):
        raise typer.Exit(1)  # the facts are stored; the last good version stays current
    if extraction is not None and extraction.failed:
        raise typer.Exit(1)  # kept as raw text facts, the failures recorded


@app.command()
def log(user: str, after: int = typer.Option(0, "--after", min=0, max=MAX_FACT_ID),
        limit: Optional[int] = typer.Option(None, "--limit", min=0, max=MAX_FACT_ID, help="only the last N"),
        failed: bool = typer.Option(False, "--failed", help="the chunks a model could not extract instead"),
        resolved: bool = typer.Option(False, "--resolved", help="with --failed: the resolved ones too"),
        as_json: bool = JsonOpt) -> None:
    """Print a user's facts in order (or, with --failed, the recorded extraction failures)."""
    mem = memory()
    if failed or resolved:
        if not failed:
            raise InputError("--resolved goes with --failed")
        _print_failures(mem.extraction_failures(user, include_resolved=resolved), user, as_json)
        return
    mem.require_user(user)
    facts = list(mem.log(user, after))
    if limit is not None:
        facts = facts[len(facts) - min(limit, len(facts)):]
    if as_json:
        emit_json([f.to_json() for f in facts])
    else:
        out.print(fact_table(facts, title=f"{user}: {len(facts)} facts"))


def _print_failures(failures: list[ExtractionFailure], user: str, as_json: bool) -> None:
    if as_json:
        emit_json([{**asdict(f), "fact_ids": list(f.fact_ids), "resolved_by": list(f.resolved_by),
                    "messages": f.messages} for f in failures])
        return
    out.print(f"{user}: {len(failures)} extraction failure{'' if len(failures) == 1 else 's'}", markup=False)
    for f in failures:
        state = f"resolved {f.resolved_at} by facts {_ids(f.resolved_by)}" if f.resolved_at else "open"
        out.print(f"#{f.id} {f.path} session {f.session_id} {f.messages}: {f.reason} ({f.attempts} attempt"
                  f"{'' if f.attempts == 1 else 's'}, last {f.failed_at}; raw facts {_ids(f.fact_ids)}; {state})",
                  markup=False)
    if any(f.open for f in failures):
        out.print("retry: uac ingest USER FILE --llm --retry-failed", markup=False)


def _ids(ids: tuple[int, ...]) -> str:
    return ", ".join(map(str, ids)) if ids else "none"


@app.command()
def retract(user: str, fact_id: int = typer.Argument(..., min=1, max=MAX_FACT_ID),
            reason: Optional[str] = typer.Option(None, "--reason"),
            as_json: bool = JsonOpt) -> None:
    """Withdraw a fact (by appending a retraction; nothing is erased)."""
    fact = memory().retract(user, fact_id, reason)
    if as_json:
        emit_json(fact.to_json())
    else:
        out.print(f"fact {fact.id} retracts fact {fact_id}")


@app.command()
def verify(user: Optional[str] = typer.Argument(None), as_json: bool = JsonOpt) -> None:
    """Re-hash every fact and each user's chain, every stored version's files and its anchor
    in the log; exit 1 naming the first fact (and every version) that does not match."""
    from rich.markup import escape

    mem = memory()
    report = mem.verify(user)
    versions = mem.version_problems(user)
    ok = report.ok and not versions
    if as_json:
        emit_json({**report.__dict__, "ok": ok, "facts_ok": report.ok, "version_problems": versions})
    else:
        if report.ok:
            out.print(f"[green]ok[/green]: {report.checked} facts verified")
        else:
            where = f" at fact {report.user}/{report.fact_id}" if report.fact_id is not None \
                else f" for user {report.user}" if report.user is not None else ""
            out.print(f"[red]FAILED[/red]{where}: {escape(report.reason or '')} "
                      f"({report.checked} facts verified before it)")
        for problem in versions:
            out.print(f"[red]FAILED[/red] version {problem['user']} v{problem['version']}: {problem['reason']}")
    if not ok:
        raise typer.Exit(1)


@app.command("export")
def export_(path: Path, user: Optional[str] = typer.Option(None, "--user"), as_json: bool = JsonOpt) -> None:
    """Export facts as JSONL (exact: ids, times and hashes)."""
    mem = memory()
    if user is not None:
        mem.require_user(user)
    count = mem.export(path, user)
    if as_json:
        emit_json({"exported": count, "path": str(path)})
    else:
        out.print(f"exported {count} facts to {path}", markup=False)


@app.command("import")
def import_(path: Path, as_json: bool = JsonOpt) -> None:
    """Import an export (all or nothing; facts already present are skipped)."""
    count = memory().import_(path)
    emit_json({"imported": count}) if as_json else out.print(f"imported {count} facts from {path}", markup=False)


@app.command()
def forget(user: str, yes: bool = typer.Option(False, "--yes", help="confirm erasing the user"),
           as_json: bool = JsonOpt) -> None:
    """Erase a user entirely: facts, versions, alerts and index entries."""
    if not yes:
        raise InputError(f"forget erases every fact of {user!r} for good; add --yes to confirm")
    gone = memory().forget(user)
    emit_json({"user": user, "facts_erased": gone}) if as_json else out.print(f"forgot {user}: {gone} facts erased")


@app.command()
def users(as_json: bool = JsonOpt) -> None:
    """List the users that have facts."""
    mem = memory()
    names = mem.users()
    if as_json:
        emit_json([{"user": u, "facts": mem.facts.head(u)} for u in names])
    else:
        for u in names:
            out.print(f"{u}\t{mem.facts.head(u)} facts")
