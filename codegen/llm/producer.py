"""The llm producer (`uac checkpoint USER --producer llm [--full]`): the compiler's package,
with class modules and records the model writes laid over it (`codegen.llm.overlay`).

Per checkpoint:
- the compiler compiles every record of structured facts, incrementally, in a state
  directory of its own (`<state_dir>/compiler`): those records never depend on the model;
- the model is asked (`Endpoint.complete_json`, schema `prompts.Answer`: files by name) to
  rewrite the class modules whose compiled signature has no model-written module yet
  (the first time, or after a structured fact changed its fields), and to turn the new
  free-text facts (this checkpoint's, in batches of `batch_facts` facts / `batch_chars`
  characters; with `full`, every live one of the log) into records of those classes;
- the model may also place facts into any kind of the canonical vocabulary the package
  has no class for (`overlay.vocabulary_collections`): the class module is then the
  compiler's, generated from the vocabulary, and a singular kind (passport) is one value,
  offered only while no structured record of it exists; once a version holds records of
  such a kind, its generated class module is offered for rewriting like a compiled one
  (the same signature rule);
- what it assigned in earlier versions is carried forward from the previous version's
  files; a record citing a fact that is no longer live is dropped.
The prompt holds the agent manifest of the fresh compiled files (`prompts.package_summary`,
read from their text: nothing is imported before validation), the class modules it is to
rewrite and the facts to place, never the whole log: tokens follow the new facts.

A failed validation comes back as `request.feedback`: problems in the model's files (or of
the whole package, like coverage) go to the model with the files it wrote and the lines
named (`prompts.repair_prompt`); problems in compiled files go to the compiler (its
quarantine). Repairs stop after `max_repairs` (settings `llm.max_repairs`, at most 3) by
answering with the failed files again, which ends the checkpoint's loop. A model that does
not answer (`ModelUnavailable`) or answers no valid JSON (`StructuredOutputError`) fails
the attempt as `ProducerFailed`: the checkpoint fails, the last good version stays current.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Mapping, Sequence

from codegen.llm.config import EndpointConfig, LlmSettingsLike
from codegen.llm.endpoint import Endpoint
from codegen.llm.errors import ModelUnavailable, StructuredOutputError
from codegen.llm.overlay import (
    ANSWER_LIST,
    CARRIED_LIST,
    DEFAULT_RECORDS_DOC,
    Collection,
    Records,
    answer_part,
    carried_records,
    carried_singular,
    class_signature,
    collections,
    is_records_text,
    joined_init,
    marked,
    model_written,
    read_records,
    read_singular,
    records_module,
    singular_module,
    take_class_module,
    unmarked,
    vocabulary_collections,
    with_new_collections,
    with_records_mark,
)
from codegen.llm.prompts import SYSTEM, Answer, package_summary, repair_prompt, write_prompt
from codegen.problems import Problem
from codegen.producer import CompilerProducer, Produced, ProducerFailed, ProducerRequest
from codegen.validate import ValidationFailure
from factlog.model import Fact

MAX_REPAIRS = 3  # the most repairs this producer asks for, whatever the settings say
BATCH_FACTS = 50  # free-text facts per model call
BATCH_CHARS = 12_000  # characters of fact text per model call
MAX_QUOTED = 20  # lines quoted from the failed files in a repair prompt


class LlmProducer:
    name = "llm"

    def __init__(self, *, full: bool = False, settings: LlmSettingsLike | None = None,
                 config: EndpointConfig | None = None, max_repairs: int | None = None,
                 batch_facts: int = BATCH_FACTS, batch_chars: int = BATCH_CHARS) -> None:
        self.full = full
        self.settings = settings
        self.config = config
        wanted = getattr(settings, "max_repairs", None) if max_repairs is None else max_repairs
        self.max_repairs = MAX_REPAIRS if wanted is None else max(0, min(MAX_REPAIRS, int(wanted)))
        self.batch_facts = max(1, batch_facts)
        self.batch_chars = max(1, batch_chars)

    def configured(self, *, settings: LlmSettingsLike | None = None, full: bool = False) -> LlmProducer:
        """This producer with the workspace's `llm` settings and the `--full` option."""
        return LlmProducer(full=full, settings=settings, config=self.config,
                           batch_facts=self.batch_facts, batch_chars=self.batch_chars)

    def produce(self, request: ProducerRequest) -> Produced:
        if request.failed_files is not None and request.attempt > 1 + self.max_repairs:
            return Produced(dict(request.failed_files), {})  # no more repairs: the checkpoint stops
        config = self.config or EndpointConfig.resolve(settings=self.settings)
        started = time.perf_counter()
        compiled = CompilerProducer().produce(dataclasses.replace(
            request, state_dir=None if request.state_dir is None else request.state_dir / "compiler",
            feedback=_compiler_feedback(request)))
        files = dict(compiled.files)
        colls = collections(files)
        offered = vocabulary_collections(request.user, files)
        previous: Mapping[str, str] = {} if self.full or request.previous is None else request.previous.files
        counts: dict[str, float] = {"records_carried": 0.0, "records_dropped": 0.0}
        carried: dict[str, Records] = {}
        for attribute, collection in {**colls, **offered}.items():
            carry = carried_singular if collection.singular else carried_records
            kept, dropped = carry(previous, collection, request.live_ids) if previous else (Records((), ()), 0)
            carried[attribute] = kept
            counts["records_carried"] += len(kept.items)
            counts["records_dropped"] += dropped
        to_write = self._class_modules(files, previous, colls)
        kept_classes = self._vocabulary_class_modules(previous, offered, carried, to_write)
        owned = set(to_write) | {f"{c.records_module}.py" for c in (*colls.values(), *offered.values())}
        singular = {f"{c.records_module}.py" for c in offered.values() if c.singular}
        try:
            with Endpoint(config) as endpoint:
                try:
                    answer = self._answer(request, endpoint, files, colls, offered, to_write, owned, singular,
                                          counts)
                except (ModelUnavailable, StructuredOutputError) as exc:
                    raise ProducerFailed(str(exc), _usage(endpoint, counts, started)) from None
                usage = _usage(endpoint, counts, started)
        except BaseException:
            if compiled.settle is not None:  # the compiler's state write, left running: waited for here
                compiled.settle()
            raise
        asked = usage.get("calls", 0.0) > 0
        files = self._overlay(files, colls, to_write, answer, carried, usage, asked)
        files["__init__.py"] = self._vocabulary(files, offered, answer, carried, usage,
                                                VocabularyClasses(to_write, kept_classes, asked))
        return Produced(files, usage, compiled.settle)

    # ------------------------------------------------------------------ the answer
    def _class_modules(self, files: dict[str, str], previous: Mapping[str, str],
                       colls: Mapping[str, Collection]) -> dict[str, str]:
        """The compiled class modules the model is to rewrite; a model-written module of the
        previous version with the same signature is kept in `files` instead."""
        to_write: dict[str, str] = {}
        for collection in colls.values():
            name = f"{collection.module}.py"
            before = previous.get(name)
            signature = class_signature(files[name], collection.class_name)
            if before is not None and model_written(before) and \
                    class_signature(before, collection.class_name) == signature:
                files[name] = before
            else:
                to_write[name] = files[name]
        return to_write

    @staticmethod
    def _vocabulary_class_modules(previous: Mapping[str, str], offered: Mapping[str, Collection],
                                  carried: Mapping[str, Records], to_write: dict[str, str]) -> dict[str, str]:
        """The class modules of vocabulary kinds the previous version already holds records of:
        the model's rewrite of the previous version when it kept the generated signature
        (returned, kept as it is), else the generated module, added to `to_write` (the model
        is asked once to add a docstring and properties, as for a compiled class)."""
        kept: dict[str, str] = {}
        for attribute, collection in offered.items():
            name = f"{collection.module}.py"
            before = previous.get(name)
            if before is None or collection.generated is None or not carried.get(attribute, Records((), ())).items:
                continue
            if model_written(before) and class_signature(before, collection.class_name) == \
                    class_signature(collection.generated, collection.class_name):
                kept[name] = before
            else:
                to_write[name] = collection.generated
        return kept

    def _answer(self, request: ProducerRequest, endpoint: Endpoint, files: Mapping[str, str],
                colls: Mapping[str, Collection], offered: Mapping[str, Collection], to_write: Mapping[str, str],
                owned: set[str], singular: set[str], counts: dict[str, float]) -> dict[str, str]:
        summary = package_summary(request.user, files, colls,
                                  None if request.previous is None or self.full else request.previous.number,
                                  offered)
        if request.feedback is not None and request.failed_files is not None:
            before = _answer_of(request.failed_files, owned, to_write)
            model_part, _ = _split(request.feedback, owned)
            if not model_part.problems:
                return before  # nothing of the model's to mend: the compiler mends its part
            counts["repairs"] = 1.0
            quoted = _quoted(model_part.problems, request.failed_files)
            prompt = repair_prompt(summary, before, model_part.format_for_llm(), quoted)
            messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]
            got = endpoint.complete_json(messages, Answer, purpose="checkpoint-repair")
            return self._accepted(got, owned, {}, counts, to_write, singular)
        facts = self._facts(request)
        counts["facts_sent"] = float(len(facts))
        counts["classes_sent"] = float(len(to_write))
        batches = _batches(facts, self.batch_facts, self.batch_chars) or [[]]
        answer: dict[str, str] = {}
        for number, batch in enumerate(batches, start=1):
            modules = to_write if number == 1 else {}
            if not modules and not batch:
                continue
            prompt = write_prompt(summary, modules, batch, (number, len(batches)))
            got = endpoint.complete_json([{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}],
                                         Answer, purpose="checkpoint")
            answer = self._accepted(got, owned, answer, counts, to_write, singular)
        return answer

    def _facts(self, request: ProducerRequest) -> list[Fact]:
        """The free-text facts to place: the new ones, or with `full` (or no version yet) every live one."""
        source: Sequence[Fact] = request.facts if self.full or request.previous is None else request.new_facts
        return [f for f in source if f.kind is None and f.retracts is None and f.id in request.live_ids]

    @staticmethod
    def _accepted(got: Answer, owned: set[str], answer: dict[str, str], counts: dict[str, float],
                  class_modules: Mapping[str, str], singular: set[str]) -> dict[str, str]:
        """The answer's files this producer asked for, merged into `answer` (records of one
        module from several batches become one list; a singular value: the last one given);
        others are ignored and counted."""
        merged = dict(answer)
        for item in got.files:
            if item.name not in owned:
                counts["files_ignored"] = counts.get("files_ignored", 0.0) + 1
                continue
            earlier = merged.get(item.name)
            merged[item.name] = item.source if earlier is None or item.name in class_modules \
                or item.name in singular else _merged_records(earlier, item.source)
        return merged

    # ----------------------------------------------------------------- the files
    @staticmethod
    def _overlay(files: dict[str, str], colls: Mapping[str, Collection], to_write: Mapping[str, str],
                 answer: Mapping[str, str], carried: Mapping[str, Records], usage: dict[str, float],
                 asked: bool) -> dict[str, str]:
        joined: dict[str, tuple[str, list[str]]] = {}
        for attribute, collection in colls.items():
            name = f"{collection.module}.py"
            if name in to_write and name in answer:
                taken = take_class_module(answer[name], to_write[name], collection.class_name)
                if taken is None:  # other fields than compiled: the compiled module, asked again next time
                    usage["class_modules_refused"] = usage.get("class_modules_refused", 0.0) + 1
                else:
                    files[name] = taken
            elif name in to_write and asked:  # shown and left as it was: not asked again while unchanged
                files[name] = marked(to_write[name])
            records_name = f"{collection.records_module}.py"
            kept = carried.get(attribute, Records((), ()))
            text = records_module(collection, answer.get(records_name), kept)
            if text is None:
                continue
            files[records_name] = with_records_mark(text)
            lists = ([CARRIED_LIST.format(attribute=attribute)] if kept.items else []) + \
                ([ANSWER_LIST.format(attribute=attribute)] if records_name in answer else [])
            joined[attribute] = (collection.records_module, lists)
        files["__init__.py"] = joined_init(files["__init__.py"], joined)
        return files


    @staticmethod
    def _vocabulary(files: dict[str, str], offered: Mapping[str, Collection], answer: Mapping[str, str],
                    carried: Mapping[str, Records], usage: dict[str, float], classes: VocabularyClasses) -> str:
        """Lay the records of vocabulary kinds the package has no class for over `files`: the
        class module the compiler generates from the vocabulary (never the model's), the
        records module (the answer verbatim, or what was carried), and the new names in
        `__init__.py`, which is returned. A singular answer not of the one-value shape is
        not taken (usage `records_refused`)."""
        added: dict[str, Collection] = {}
        joined: dict[str, tuple[str, list[str]]] = {}
        for attribute, collection in sorted(offered.items()):
            name = f"{collection.records_module}.py"
            got = answer.get(name)
            kept = carried.get(attribute, Records((), ()))
            if collection.singular:
                taken = got is not None and read_singular(got, collection) is not None
                if got is not None and not taken:
                    usage["records_refused"] = usage.get("records_refused", 0.0) + 1
                text: str | None = (got or "").rstrip("\n") + "\n" if taken else \
                    singular_module(collection, kept) if kept.items else None
            else:
                text = records_module(collection, got, kept)
                if text is not None:
                    lists = ([CARRIED_LIST.format(attribute=attribute)] if kept.items else []) + \
                        ([ANSWER_LIST.format(attribute=attribute)] if got is not None else [])
                    joined[attribute] = (collection.records_module, lists)
            if text is None or collection.generated is None:
                continue
            files[f"{collection.module}.py"] = classes.module(collection, answer, usage)
            files[name] = with_records_mark(text)
            added[attribute] = collection
        return joined_init(with_new_collections(files["__init__.py"], added), joined)


@dataclasses.dataclass(frozen=True)
class VocabularyClasses:
    """Where a vocabulary kind's class module comes from: the model's rewrite asked for this
    time (taken only with the generated signature), the model's module of the previous
    version, or the generated one (marked as shown when the model was asked and left it)."""

    to_write: Mapping[str, str]
    kept: Mapping[str, str]
    asked: bool

    def module(self, collection: Collection, answer: Mapping[str, str], usage: dict[str, float]) -> str:
        name = f"{collection.module}.py"
        generated = collection.generated or ""
        if name in self.kept:
            return self.kept[name]
        if name in self.to_write and name in answer:
            taken = take_class_module(answer[name], generated, collection.class_name)
            if taken is not None:
                return taken
            usage["class_modules_refused"] = usage.get("class_modules_refused", 0.0) + 1
        elif name in self.to_write and self.asked:
            return marked(generated)
        return generated


def _compiler_feedback(request: ProducerRequest) -> ValidationFailure | None:
    """The feedback as the compiler sees it: the problems in its own files only (not in a
    records module, nor in a class module the model wrote), so a record the model wrote
    never gets a fact quarantined."""
    if request.feedback is None or request.failed_files is None:
        return None
    mine = {name for name, text in request.failed_files.items() if is_records_text(text) or model_written(text)}
    return _split(request.feedback, mine)[1]


def _split(feedback: ValidationFailure, owned: set[str]) -> tuple[ValidationFailure, ValidationFailure]:
    """The feedback's problems in the model's files (and of no file: coverage, import) and those
    in compiled files, each as a failure of the same stage (possibly without problems)."""
    model = tuple(p for p in feedback.problems if p.file in owned or p.file == "")
    compiler = tuple(p for p in feedback.problems if not (p.file in owned or p.file == ""))
    return (ValidationFailure(feedback.stage, model, feedback.timings),
            ValidationFailure(feedback.stage, compiler, feedback.timings))


def _answer_of(failed: Mapping[str, str], owned: set[str], to_write: Mapping[str, str]) -> dict[str, str]:
    """The model's files of the failed attempt, as it wrote them."""
    answer: dict[str, str] = {}
    for name in owned:
        text = failed.get(name)
        if text is None:
            continue
        if name in to_write:
            if model_written(text):
                answer[name] = unmarked(text)
        else:
            part = answer_part(text)
            if part.strip() != DEFAULT_RECORDS_DOC.strip():
                answer[name] = part
    return answer


def _quoted(problems: Sequence[Problem], files: Mapping[str, str]) -> list[str]:
    lines: list[str] = []
    for problem in problems:
        if len(lines) >= MAX_QUOTED:
            break
        text = files.get(problem.file)
        if text is None or problem.line < 1:
            continue
        rows = text.split("\n")
        if problem.line <= len(rows):
            lines.append(f"{problem.file}:{problem.line}: {rows[problem.line - 1].strip()[:300]}")
    return lines


def _merged_records(first: str, second: str) -> str:
    """Two answers for one records module as one: the imports of both (a name bound once),
    one list of all records. Texts not of the records shape are joined as they are (the
    validator then says what is wrong)."""
    a, b = read_records(first), read_records(second)
    if a is None or b is None:
        return first.rstrip("\n") + "\n\n" + second
    list_name, annotation = _list_head(first) or _list_head(second) or ("", "")
    if not list_name:
        return first.rstrip("\n") + "\n\n" + second
    seen: set[str] = set()
    lines: list[str] = []
    for local, module, name, level in a.imports + b.imports:
        if local not in seen:
            seen.add(local)
            lines.append(f"from {'.' * level}{module} import {name}" + (f" as {local}" if local != name else ""))
    lines += ["", f"{list_name}: {annotation} = ["]
    lines += [f"    {item},".replace("\n", "\n    ") for item, _ in a.items + b.items]
    lines.append("]")
    return "\n".join(lines) + "\n"


def _list_head(source: str) -> tuple[str, str] | None:
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for stmt in tree.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            return stmt.target.id, ast.unparse(stmt.annotation)
    return None


def _batches(facts: Sequence[Fact], most: int, chars: int) -> list[list[Fact]]:
    """Consecutive batches of at most `most` facts and about `chars` characters of text."""
    batches: list[list[Fact]] = []
    current: list[Fact] = []
    size = 0
    for fact in facts:
        if current and (len(current) >= most or size + len(fact.text) > chars):
            batches.append(current)
            current, size = [], 0
        current.append(fact)
        size += len(fact.text)
    if current:
        batches.append(current)
    return batches


def _usage(endpoint: Endpoint, counts: Mapping[str, float], started: float) -> dict[str, float]:
    totals: dict[str, Any] = endpoint.usage.totals()
    usage = {key: float(value) for key, value in totals.items() if isinstance(value, (int, float))}
    usage.update(counts)
    usage["producer_seconds"] = time.perf_counter() - started
    return usage
