"""Typed facts from conversation, offline and deterministic: a reader per domain
(`trips`, `documents`, `medicines`, `events`, `money`), a per-session `Context` carrying what was last talked about,
and `read_sentence`, the one entry point `factlog.extract.RuleExtractor` calls."""

from factlog.typed.model import Context, TypedFact
from factlog.typed.reader import read_sentence

__all__ = ["Context", "TypedFact", "read_sentence"]
