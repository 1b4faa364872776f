"""`uac eval transcripts --llm`: answer a case's question from memory, then an LLM judge scores it.

1. **The answer, from memory only.** `uac ask` (`Memory.ask`: the model writes a query over
   the typed module, the sandbox runs it) and the context `uac recall` gives for the
   question; the model then answers the question in words from those two and nothing else
   (it never sees the transcript).
2. **The judge.** The model reads the question, the case's `evaluation_criteria` and
   `expected_behavior` and the answer, and returns `JudgeVerdict` as structured output: a
   score from 0 to 1 and its reasons. Read tolerantly and re-asked once with the validation
   error (`Endpoint.complete_json`, as everywhere model output is parsed); still invalid:
   `StructuredOutputError`.

Every model call is counted: the tokens and the seconds of the ask, answer and judge calls
are in the result. A model that cannot be reached raises `ModelUnavailable` (one line).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pydantic import BaseModel, ConfigDict, Field

from codegen.llm import Endpoint, EndpointConfig, Usage
from factlog.model import JsonValue
from runtime.render_value import printable

if TYPE_CHECKING:
    from runtime.memory import Memory

PASS_SCORE: Final = 0.5  # a judged case passes at this score or above (and when it validated)
MAX_ANSWER_TOKENS: Final = 600
MAX_RUBRIC_CHARS: Final = 6000  # criteria and expected behaviour, each, in the judge's prompt
MAX_ANSWER_CHARS: Final = 6000  # the answer, in the judge's prompt

ANSWER_PROMPT = """\
You are an assistant with a memory of past conversations with this user. Answer the user's \
question using ONLY the memory below: the result of a query over the user's typed records, and \
facts recalled for the question (each cited as [fact N]). If the memory does not hold the answer, \
say so plainly; never invent details. Answer briefly and directly."""

JUDGE_PROMPT = """\
You grade an assistant's answer against a rubric. Read the question, the evaluation criteria, \
the expected behaviour and the answer. Give a score from 0 to 1: 1 when the answer meets every \
criterion, 0 when it meets none or states wrong facts; partial credit in between. Answer with \
JSON only: {"score": 0.0-1.0, "reasons": "one or two sentences: what was met, what was missed"}."""


class JudgeVerdict(BaseModel):
    """What the judge answers (structured output; unknown keys are refused)."""

    model_config = ConfigDict(extra="forbid")

    score: float = Field(ge=0.0, le=1.0)
    reasons: str = Field(min_length=1)


@dataclass(frozen=True)
class Judged:
    """A case's answer and its verdict, with what the model calls cost."""

    answer: str
    answered_by: str  # "code" when the typed module answered the question, else "recall"
    expression: str | None
    score: float
    reasons: str
    tokens: int
    model_seconds: float
    calls: int

    def to_json(self) -> dict[str, JsonValue]:
        return {"score": round(self.score, 3), "reasons": printable(self.reasons),
                "answer": printable(self.answer), "answered_by": self.answered_by,
                "expression": None if self.expression is None else printable(self.expression),
                "tokens": self.tokens, "model_seconds": round(self.model_seconds, 3), "calls": self.calls}


def _memory_text(value_text: str | None, expression: str | None, reason: str, context: str) -> str:
    typed = (f"The query `{expression}` over the typed records returned: {value_text}" if expression is not None
             else f"No query over the typed records answered it ({reason or 'no reason given'}).")
    return f"{typed}\n\nRecalled facts:\n{context or '(nothing recalled)'}"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + " [...]"


def answer_and_judge(mem: Memory, user: str, question: str, *, criteria: str, expected: str, context: str,
                     model: str | None = None, base_url: str | None = None) -> Judged:
    """See the module docstring; `context` is what `uac recall` gave for `question`."""
    config = EndpointConfig.resolve(base_url=base_url, model=model)
    asked = mem.ask(user, question, model=config.model, base_url=config.base_url)
    endpoint = Endpoint(config, Usage())
    memory = _memory_text(asked.value_text if asked.answered else None, asked.expression if asked.answered else None,
                          asked.reason, context)
    answer = endpoint.complete_text(
        [{"role": "system", "content": ANSWER_PROMPT},
         {"role": "user", "content": f"Memory:\n{memory}\n\nQuestion: {question}"}],
        purpose="eval-answer", max_tokens=MAX_ANSWER_TOKENS).strip()
    verdict = endpoint.complete_json(
        [{"role": "system", "content": JUDGE_PROMPT},
         {"role": "user", "content": f"Question: {question}\n\nEvaluation criteria:\n"
                                     f"{_clip(criteria, MAX_RUBRIC_CHARS) or '(none)'}\n\nExpected behaviour:\n"
                                     f"{_clip(expected, MAX_RUBRIC_CHARS) or '(none)'}\n\nThe answer:\n"
                                     f"{_clip(answer, MAX_ANSWER_CHARS) or '(empty)'}"}],
        JudgeVerdict, purpose="eval-judge")
    totals = endpoint.usage.totals()
    spent = {key: totals.get(key, 0.0) + asked.usage.get(key, 0.0)
             for key in ("prompt_tokens", "completion_tokens", "seconds", "calls")}
    return Judged(answer, "code" if asked.answered else "recall", asked.expression if asked.answered else None,
                  verdict.score, verdict.reasons, int(spent["prompt_tokens"] + spent["completion_tokens"]),
                  spent["seconds"], int(spent["calls"]))
