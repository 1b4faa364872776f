"""What the store records about a version (`meta.json`); its history lines are `users.events`.

`PublishMeta` is what a checkpoint hands to `VersionStore.publish`; it is checked on
construction (`InputError`, one line). The store adds the number, time, parent and a hash
of the files, giving `VersionInfo`; `meta.json` holds both (a persisted format, read by
`VersionInfo.from_meta_json`: the format rule of `factlog.strict_json.format_body`).
Format 1 is what was written before formats were versioned (no `format` key, no
attempts); it reads as it is.

Plain dataclasses with strict readers (`factlog.strict_json`): reading a version is on
every query's path, which loads no pydantic. Strict as the models they replace: a JSON
`true` is not a number, `"3"` is not a count, an unknown key is refused; a fact id as an
object key is its decimal text.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Mapping, TypeVar

from factlog import strict_json as J
from factlog.errors import InputError
from factlog.model import JsonValue
from factlog.strict_json import Invalid, Where

# A producer's recorded name: a registered name (lowercase, `_`), optionally with a detail
# after a colon (`llm:qwen2.5-7b`).
PRODUCER_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,63}(?::[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127})?", re.ASCII)
VERSION_NAME = re.compile(r"v(\d{6,})", re.ASCII)
MAX_REASON = 1000  # characters of a quarantine reason
MAX_PROBLEMS = 50  # problems kept per attempt (then one "... and N more" line)
MAX_PROBLEM = 2000  # characters of one problem line
MAX_ATTEMPTS = 100
META_SOURCE = "version metadata"

_STAGE = re.compile(r"[a-z][a-z_-]{0,31}", re.ASCII)
_INPUT_HASH = re.compile(r"[A-Za-z0-9:_-]{1,200}", re.ASCII)
_SHA256 = re.compile(r"[0-9a-f]{64}", re.ASCII)


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


# -- field readers (strict: a JSON `true` is not a number, `"3"` is not a count) ---------------

def _usage_name(value: object, where: Where) -> str:
    return J.text(value, where, 1, 200)


def _reason(value: object, where: Where) -> str:
    return J.text(value, where, 1, MAX_REASON)


def _problem(value: object, where: Where) -> str:
    return J.text(value, where, 0, MAX_PROBLEM)


def _sha256(value: object, where: Where) -> str:
    return J.text(value, where, pattern=_SHA256)


def _version_number(value: object, where: Where) -> int:
    try:
        return check_version_number(value)
    except InputError as exc:
        raise Invalid(where, str(exc)) from None


_USAGE = J.dict_of(_usage_name, J.seconds)
_TIMINGS = J.dict_of(J.name, J.seconds)
_COUNTS = J.dict_of(J.name, J.count)
_ENTITIES = J.dict_of(J.name, J.list_of(J.fact_id))
_RETRACTIONS = J.dict_of(J.fact_key, J.fact_id)
_RENAMED = J.dict_of(J.any_text, J.dict_of(J.any_text, J.any_text))
_QUARANTINED = J.dict_of(J.fact_key, _reason)
_PROBLEMS = J.list_of(_problem, MAX_PROBLEMS + 1)
_FILE_HASHES = J.dict_of(J.any_text, J.any_text)

A = TypeVar("A")


def _trusted(cls: type[A], values: Mapping[str, Any]) -> A:
    """An instance of a frozen dataclass from values a reader has checked (not checked again)."""
    made = object.__new__(cls)
    for name, value in values.items():
        object.__setattr__(made, name, value)
    return made


def _checked(instance: object, read: Any, what: str) -> None:
    """Check a frozen dataclass made by a caller with its own reader, keeping what it read
    (an int where a float is meant becomes the float); InputError (one line) if bad."""
    data = {f.name: getattr(instance, f.name) for f in dataclasses.fields(instance) if f.init}  # type: ignore[arg-type]
    try:
        values = read(data, ())
    except Invalid as bad:
        raise InputError(f"{what}: {bad.line()}") from None
    for name, value in values.items():
        object.__setattr__(instance, name, value)


@dataclass(frozen=True)
class Attempt:
    """One call of the producer and the validation of what it returned."""

    number: int  # 1-based
    stage: str  # "passed" or the failing stage
    problems: list[str] = field(default_factory=list)
    usage: dict[str, float] = field(default_factory=dict)  # what the producer reported (tokens, seconds, ...)
    seconds: float = 0.0  # producing and validating

    def __post_init__(self) -> None:
        _checked(self, _read_attempt_fields, "attempt")

    @classmethod
    def read(cls, value: object, where: Where) -> Attempt:
        return _trusted(cls, _read_attempt_fields(value, where))

    def to_json(self) -> dict[str, JsonValue]:
        return {"number": self.number, "stage": self.stage, "problems": list(self.problems),
                "usage": dict(self.usage), "seconds": self.seconds}


def _read_attempt_fields(value: object, where: Where) -> dict[str, Any]:
    data = J.fields(value, where, ("number", "stage"), ("problems", "usage", "seconds"))
    return {
        "number": J.fact_id(data["number"], (*where, "number")),
        "stage": J.text(data["stage"], (*where, "stage"), pattern=_STAGE),
        "problems": J.get(data, "problems", _PROBLEMS, where, list),
        "usage": J.get(data, "usage", _USAGE, where, dict),
        "seconds": J.get(data, "seconds", J.seconds, where, float),
    }


def _attempt(value: object, where: Where) -> Attempt:
    if isinstance(value, Attempt):
        return value
    return Attempt.read(value, where)


M = TypeVar("M", bound="PublishMeta")


@dataclass(frozen=True)
class PublishMeta:
    """What the checkpoint knows about a version it asks the store to publish.

    `retractions` maps a retracted fact id to the fact that retracted it. `entities`,
    `record_counts`, `renamed_fields` and `quarantined` are the compiler's bookkeeping of
    format 1 (still read; the version's manifest takes it over). `attempts` lists every
    call of the producer with the stage it reached, `usage` their totals.

    `PublishMeta(log_position, input_hash, producer, ...)` or keywords; InputError if bad.
    """

    FORMAT: ClassVar[int] = 2
    KEYS: ClassVar[tuple[str, ...]] = (
        "log_position", "input_hash", "producer", "timings", "record_counts", "entities", "retractions",
        "renamed_fields", "log_hash", "quarantined", "attempts", "usage")

    log_position: int
    input_hash: str
    producer: str
    timings: dict[str, float] = field(default_factory=dict)  # stage -> seconds
    record_counts: dict[str, int] = field(default_factory=dict)  # attribute -> records
    entities: dict[str, list[int]] = field(default_factory=dict)
    retractions: dict[int, int] = field(default_factory=dict)
    renamed_fields: dict[str, dict[str, str]] = field(default_factory=dict)  # kind -> original -> Python
    # The anchor: the chain hash of the fact at `log_position`, so `verify` can tell that the
    # log still holds the facts this version was built from. None in versions published
    # before anchors existed (unanchored).
    log_hash: str | None = None
    quarantined: dict[int, str] = field(default_factory=dict)  # fact id -> why it was left out
    attempts: list[Attempt] = field(default_factory=list)
    usage: dict[str, float] = field(default_factory=dict)  # totals over the attempts
    format: int = field(default=FORMAT, init=False)  # what `meta.json` is written in

    def __post_init__(self) -> None:
        _checked(self, _read_meta_fields, META_SOURCE)

    @classmethod
    def load(cls: type[M], data: object, *, source: str) -> M:
        """The metadata of a decoded `meta.json` holding these keys only (any format this
        release reads); InputError (one line, naming `source`) if bad."""
        return J.read_document(data, source=source, current=PublishMeta.FORMAT,
                               read=lambda body: _trusted(cls, _read_meta_fields(body, ())))

    def to_json(self) -> dict[str, JsonValue]:
        data: dict[str, JsonValue] = {
            "format": self.format,
            "log_position": self.log_position,
            "input_hash": self.input_hash,
            "producer": self.producer,
            "timings": dict(self.timings),
            "record_counts": dict(self.record_counts),
            "entities": {k: list(v) for k, v in self.entities.items()},
            "retractions": {str(k): v for k, v in self.retractions.items()},
            "renamed_fields": {k: dict(v) for k, v in self.renamed_fields.items()},
            "quarantined": {str(k): v for k, v in self.quarantined.items()},
            "attempts": [a.to_json() for a in self.attempts],
            "usage": dict(self.usage),
        }
        if self.log_hash is not None:  # absent rather than null, as format 1 wrote
            data["log_hash"] = self.log_hash
        return data

    @staticmethod
    def from_json(data: Mapping[str, Any], *, source: str = META_SOURCE) -> PublishMeta:
        """The checkpoint's part of a `meta.json` document (the store's keys left aside)."""
        fields = {k: v for k, v in data.items() if k in PublishMeta.KEYS or k == "format"}
        return PublishMeta.load(fields, source=source)


def _read_meta_fields(value: object, where: Where) -> dict[str, Any]:
    data = J.fields(value, where, ("log_position", "input_hash", "producer"), PublishMeta.KEYS)
    return _meta_values(data, where)


def _meta_values(data: Mapping[str, Any], where: Where) -> dict[str, Any]:
    return {
        "log_position": J.count(data["log_position"], (*where, "log_position")),
        "input_hash": J.text(data["input_hash"], (*where, "input_hash"), pattern=_INPUT_HASH),
        "producer": J.text(data["producer"], (*where, "producer"), pattern=PRODUCER_PATTERN),
        "timings": J.get(data, "timings", _TIMINGS, where, dict),
        "record_counts": J.get(data, "record_counts", _COUNTS, where, dict),
        "entities": J.get(data, "entities", _ENTITIES, where, dict),
        "retractions": J.get(data, "retractions", _RETRACTIONS, where, dict),
        "renamed_fields": J.get(data, "renamed_fields", _RENAMED, where, dict),
        "log_hash": J.get(data, "log_hash", J.optional(_sha256), where, J.none),
        "quarantined": J.get(data, "quarantined", _QUARANTINED, where, dict),
        "attempts": J.get(data, "attempts", J.list_of(_attempt, MAX_ATTEMPTS), where, list),
        "usage": J.get(data, "usage", _USAGE, where, dict),
        "format": PublishMeta.FORMAT,
    }


# The store's keys of `meta.json` (beside the checkpoint's).
_STORE_REQUIRED = ("version", "created_at", "parent", "files_sha256")
_STORE_OPTIONAL = ("file_sha256", "manifest_sha256")
_META_REQUIRED = _STORE_REQUIRED + ("log_position", "input_hash", "producer")
_META_KEYS = _STORE_REQUIRED + _STORE_OPTIONAL + PublishMeta.KEYS


@dataclass(frozen=True)
class VersionInfo:
    """One published, immutable version of a user's package."""

    user: str
    number: int
    path: Path
    created_at: str  # ISO date-time, UTC
    parent: int | None  # the version that was current when this one was published
    files_sha256: str  # over the sorted (name, source) pairs
    meta: PublishMeta
    file_sha256: dict[str, str] = field(default_factory=dict)  # file name -> sha256; empty in older versions
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

    def meta_bytes(self) -> bytes:
        """`meta.json` as the store writes it: one line per top-level key (sorted), each
        value in compact JSON (a version stores it whole, so no indentation beyond that)."""
        data = self.meta_json()
        lines = [f"{json.dumps(key)}:{json.dumps(data[key], sort_keys=True, separators=(',', ':'))}"
                 for key in sorted(data)]
        return ("{\n" + ",\n".join(lines) + "\n}\n").encode("utf-8")

    def to_json(self) -> dict[str, JsonValue]:
        data: dict[str, JsonValue] = {"user": self.user, "name": self.name, "path": str(self.path)}
        data.update(self.meta_json())
        return data

    @staticmethod
    def from_meta_json(user: str, path: Path, data: object) -> VersionInfo:
        """A version from its `meta.json` content (any format this release reads); InputError if bad."""
        def read(body: dict[str, Any]) -> VersionInfo:
            J.fields(body, (), _META_REQUIRED, _META_KEYS)
            return _trusted(VersionInfo, {
                "user": user, "number": _version_number(body["version"], ("version",)), "path": path,
                "created_at": J.any_text(body["created_at"], ("created_at",)),
                "parent": J.optional(_version_number)(body["parent"], ("parent",)),
                "files_sha256": J.any_text(body["files_sha256"], ("files_sha256",)),
                "meta": _trusted(PublishMeta, _meta_values(body, ())),
                "file_sha256": J.get(body, "file_sha256", _FILE_HASHES, (), dict),
                "manifest_sha256": J.get(body, "manifest_sha256", J.optional(_sha256), (), J.none),
            })
        return J.read_document(data, source=str(path / "meta.json"), current=PublishMeta.FORMAT, read=read)
