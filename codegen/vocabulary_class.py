"""The class module of a canonical kind that has no records yet, written by the compiler
from the vocabulary (`factlog.vocabulary`): every canonical field, optional, exactly the
class the compiler writes for that kind from structured facts that use only canonical
fields. The llm producer uses it when the model places free-text facts into a kind the
package has no class for: the class is never the model's text."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from codegen.compile import class_doc
from codegen.naming import KindNames, kind_names
from codegen.render import Header, class_module
from codegen.schema import spec_digest, spec_from_stats
from factlog.model import check_user_id
from factlog.vocabulary import CANONICAL


@dataclass(frozen=True)
class VocabularyClass:
    names: KindNames  # class name, attribute, stem (the module), singular
    fields: tuple[tuple[str, str], ...]  # (field name, annotation text), as the class declares them
    source: str  # the class module (`<stem>.py`)


@lru_cache(maxsize=512)  # pure: (user, kind) -> the same bytes; asked for every kind at every llm checkpoint
def vocabulary_class(user: str, kind: str) -> VocabularyClass | None:
    """The compiler's class module for canonical `kind` without records; None for a kind
    the vocabulary does not have."""
    if kind not in CANONICAL:
        return None
    check_user_id(user)
    names = kind_names([kind])[kind]
    spec = spec_from_stats(names, {}, 0)
    header = Header(user, None, spec_digest(spec), "the field types of its records", f"class {names.class_name}")
    source = class_module(spec, header, class_doc(kind), None)
    fields = tuple((f.name, f"{f.type.base} | None") for f in spec.fields)  # canonical fields: scalars
    return VocabularyClass(names, fields, source)
