"""What the store records about a version (`meta.json`); its history lines are `users.events`.

`PublishMeta` is what a checkpoint hands to `VersionStore.publish`; it is checked on
construction (`InputError`, one line). The store adds the number, time, parent and a hash
of the files, giving `VersionInfo`; `meta.json` holds both (`VersionFile`, a persisted
format: `factlog.formats`). Format 1 is what was written before formats were versioned
(no `format` key, no attempts); it reads as it is.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any, ClassVar, Mapping, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from factlog.errors import InputError
from factlog.formats import Format, first_problem
from factlog.model import JsonValue

# A producer's recorded name: a registered name (lowercase, `_`), optionally with a detail
# after a colon (`llm:qwen2.5-7b`).
PRODUCER_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,63}(?::[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127})?", re.ASCII)
VERSION_NAME = re.compile(r"v(\d{6,})", re.ASCII)
MAX_REASON = 1000  # characters of a quarantine reason
MAX_PROBLEMS = 50  # problems kept per attempt (then one "... and N more" line)
MAX_PROBLEM = 2000  # characters of one problem line
MAX_ATTEMPTS = 100


def version_name(number: int) -> str:
    return f"v{number:06d}"


def check_version_number(number: object) -> int:
    """A version number from untrusted input: a positive int (or its decimal / `vNNNNNN` text)."""
    if isinstance(number, str):
        text = number.strip()
        match = re.fullmatch(r"v(\d+)", text, re.ASCII)
        text = match.group(1) if match else text
        if text.isascii() and text.isdigit() and len(text) <= 12:
            number = int(text)
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise InputError(f"version {number!r} is not a version number (1, 2, ... or v000001)")
    return number


# -- field types (strict: a JSON `true` is not a number, `"3"` is not a count) ---------------
Count = Annotated[int, Field(strict=True, ge=0)]
FactId = Annotated[int, Field(strict=True, ge=1)]
FactKey = Annotated[int, Field(ge=1)]  # a fact id as a JSON object key ("12")
Seconds = Annotated[float, Field(strict=True, ge=0, allow_inf_nan=False)]  # an int is fine, a bool is not
Name = Annotated[str, Field(strict=True, min_length=1)]  # an entity id, attribute or stage
UsageName = Annotated[str, Field(strict=True, min_length=1, max_length=200)]
Text = Annotated[str, Field(strict=True)]
Sha256 = Annotated[str, Field(strict=True, pattern=r"^[0-9a-f]{64}$")]
VersionNumber = Annotated[int, BeforeValidator(check_version_number)]
Reason = Annotated[str, Field(strict=True, min_length=1, max_length=MAX_REASON)]
Problem = Annotated[str, Field(strict=True, max_length=MAX_PROBLEM)]


def _positional(names: tuple[str, ...], args: tuple[Any, ...], data: dict[str, Any]) -> dict[str, Any]:
    if len(args) > len(names):
        raise TypeError(f"at most {len(names)} positional arguments")
    return {**dict(zip(names, args)), **data}


_LOADING: ContextVar[bool] = ContextVar("_LOADING", default=False)  # inside `PublishMeta.load`
M = TypeVar("M", bound="PublishMeta")


class Attempt(BaseModel):
    """One call of the producer and the validation of what it returned."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    number: FactId  # 1-based
    stage: Annotated[str, Field(strict=True, pattern=r"^[a-z][a-z_-]{0,31}$")]  # "passed" or the failing stage
    problems: Annotated[list[Problem], Field(max_length=MAX_PROBLEMS + 1)] = []
    usage: dict[UsageName, Seconds] = {}  # what the producer reported (tokens, seconds, ...)
    seconds: Seconds = 0.0  # producing and validating


class PublishMeta(Format):
    """What the checkpoint knows about a version it asks the store to publish.

    `retractions` maps a retracted fact id to the fact that retracted it. `entities`,
    `record_counts`, `renamed_fields` and `quarantined` are the compiler's bookkeeping of
    format 1 (still read; the version's manifest takes it over). `attempts` lists every
    call of the producer with the stage it reached, `usage` their totals.
    """

    FORMAT: ClassVar[int] = 2

    log_position: Count
    input_hash: Annotated[str, Field(strict=True, pattern=r"^[A-Za-z0-9:_-]{1,200}$")]
    producer: Annotated[str, Field(strict=True, pattern="^" + PRODUCER_PATTERN.pattern + "$")]
    timings: dict[Name, Seconds] = {}  # stage -> seconds
    record_counts: dict[Name, Count] = {}  # attribute -> records
    entities: dict[Name, list[FactId]] = {}
    retractions: dict[FactKey, FactId] = {}
    renamed_fields: dict[Text, dict[Text, Text]] = {}  # kind -> original -> Python
    # The anchor: the chain hash of the fact at `log_position`, so `verify` can tell that the
    # log still holds the facts this version was built from. None in versions published
    # before anchors existed (unanchored).
    log_hash: Sha256 | None = None
    quarantined: dict[FactKey, Reason] = {}  # fact id -> why it was left out
    attempts: Annotated[list[Attempt], Field(max_length=MAX_ATTEMPTS)] = []
    usage: dict[UsageName, Seconds] = {}  # totals over the attempts

    def __init__(self, *args: Any, **data: Any) -> None:
        """Keywords, or `PublishMeta(log_position, input_hash, producer, ...)`; InputError if bad."""
        try:
            super().__init__(**_positional(("log_position", "input_hash", "producer"), args, data))
        except ValidationError as exc:
            if _LOADING.get():  # `load` reports it, naming the file
                raise
            raise InputError(f"version metadata: {first_problem(exc)}") from None

    @classmethod
    def load(cls: type[M], data: object, *, source: str) -> M:
        token = _LOADING.set(True)
        try:
            return super().load(data, source=source)
        finally:
            _LOADING.reset(token)

    def to_json(self) -> dict[str, JsonValue]:
        data: dict[str, JsonValue] = self.model_dump(mode="json")
        if data.get("log_hash") is None:  # absent rather than null, as format 1 wrote
            data.pop("log_hash", None)
        return data

    @staticmethod
    def from_json(data: Mapping[str, Any], *, source: str = "version metadata") -> PublishMeta:
        fields = {k: v for k, v in data.items() if k in PublishMeta.model_fields}
        return PublishMeta.load(fields, source=source)


class VersionFile(PublishMeta):
    """`meta.json`: the store's fields and the checkpoint's."""

    version: VersionNumber
    created_at: Text  # ISO date-time, UTC
    parent: VersionNumber | None  # the version that was current when this one was published
    files_sha256: Text  # over the sorted (name, source) pairs
    file_sha256: dict[Text, Text] = {}  # file name -> sha256; empty in older versions
    manifest_sha256: Sha256 | None = None  # of manifest.json; absent in versions written before manifests

    def meta(self) -> PublishMeta:
        return PublishMeta.model_construct(**{name: getattr(self, name) for name in PublishMeta.model_fields})


class VersionInfo(BaseModel):
    """One published, immutable version of a user's package."""

    model_config = ConfigDict(frozen=True)

    user: str
    number: int
    path: Path
    created_at: str  # ISO date-time, UTC
    parent: int | None  # the version that was current when this one was published
    files_sha256: str  # over the sorted (name, source) pairs
    meta: PublishMeta
    file_sha256: dict[str, str] = {}  # file name -> sha256; empty in older versions
    manifest_sha256: str | None = None  # of manifest.json; None in versions written before manifests

    @property
    def name(self) -> str:
        return version_name(self.number)

    def meta_json(self) -> dict[str, JsonValue]:
        """The content of `meta.json`."""
        data: dict[str, JsonValue] = {
            "version": self.number,
            "created_at": self.created_at,
            "parent": self.parent,
            "files_sha256": self.files_sha256,
        }
        if self.file_sha256:
            data["file_sha256"] = dict(self.file_sha256)
        if self.manifest_sha256 is not None:
            data["manifest_sha256"] = self.manifest_sha256
        data.update(self.meta.to_json())
        return data

    def to_json(self) -> dict[str, JsonValue]:
        data: dict[str, JsonValue] = {"user": self.user, "name": self.name, "path": str(self.path)}
        data.update(self.meta_json())
        return data

    @staticmethod
    def from_meta_json(user: str, path: Path, data: object) -> VersionInfo:
        """A version from its `meta.json` content (any format this release reads); InputError if bad."""
        doc = VersionFile.load(data, source=str(path / "meta.json"))
        return VersionInfo.model_construct(
            user=user, number=doc.version, path=path, created_at=doc.created_at, parent=doc.parent,
            files_sha256=doc.files_sha256, meta=doc.meta(), file_sha256=dict(doc.file_sha256),
            manifest_sha256=doc.manifest_sha256)
