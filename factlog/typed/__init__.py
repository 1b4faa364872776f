"""Typed facts from conversation, offline and deterministic: a reader per domain
(`trips`, `documents`, `medicines`, `events`, `money`, ...), a per-session `Context`
carrying what was last talked about, and `read_sentence`, the one entry point `factlog.extract.RuleExtractor` calls.

The names are loaded on first use, so a module of this package that needs no reader
(`factlog.typed.prior`, asked by every `uac add`) loads none of them, nor the drug table.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from factlog.typed.model import Context, TypedFact
    from factlog.typed.reader import read_sentence

__all__ = ["Context", "TypedFact", "read_sentence"]
_HOMES = {"Context": "factlog.typed.model", "TypedFact": "factlog.typed.model", "read_sentence": "factlog.typed.reader"}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(home), name)
