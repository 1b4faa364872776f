"""What the store records about a version (`meta.json`) and about its history (`events.jsonl`).

`PublishMeta` is what a producer hands to `VersionStore.publish`; it is checked on
construction (`InputError`). The store adds the number, time, parent and a hash of the
files, giving `VersionInfo`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from factlog.errors import InputError
from factlog.model import JsonValue

PRODUCER_PATTERN = re.compile(r"compiler|llm:[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}", re.ASCII)
VERSION_NAME = re.compile(r"v(\d{6,})", re.ASCII)
MAX_REASON = 1000  # characters of a quarantine reason


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


def _nonnegative_int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InputError(f"{what} must be a non-negative integer, not {value!r}")
    return value


def _fact_id(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InputError(f"{what} must be a fact id (a positive integer), not {value!r}")
    return value


@dataclass(frozen=True)
class PublishMeta:
    """What the producer knows about a version it asks the store to publish.

    `entities` maps a stable entity id (e.g. "trip:BK-77") to the fact ids of its record,
    and `retractions` maps a retracted fact id to the fact that retracted it; both are
    optional and let the semantic diff match and explain records precisely.
    """

    log_position: int
    input_hash: str
    producer: str
    timings: dict[str, float] = field(default_factory=dict)  # validation stage -> seconds
    record_counts: dict[str, int] = field(default_factory=dict)  # attribute -> records
    entities: dict[str, list[int]] = field(default_factory=dict)
    retractions: dict[int, int] = field(default_factory=dict)
    renamed_fields: dict[str, dict[str, str]] = field(default_factory=dict)  # kind -> original -> Python
    # The anchor: the chain hash of the fact at `log_position`, so `verify` can tell that the
    # log still holds the facts this version was built from. None in versions published
    # before anchors existed (unanchored).
    log_hash: str | None = None
    quarantined: dict[int, str] = field(default_factory=dict)  # fact id -> why it could not be compiled

    def __post_init__(self) -> None:
        _nonnegative_int(self.log_position, "log_position")
        if self.log_hash is not None and (not isinstance(self.log_hash, str)
                                          or not re.fullmatch(r"[0-9a-f]{64}", self.log_hash, re.ASCII)):
            raise InputError("log_hash must be 64 lowercase hex digits (a fact's chain hash)")
        if not isinstance(self.input_hash, str) or not re.fullmatch(r"[A-Za-z0-9:_-]{1,200}", self.input_hash):
            raise InputError("input_hash must be 1-200 characters of letters, digits, ':', '_' or '-'")
        if not isinstance(self.producer, str) or not PRODUCER_PATTERN.fullmatch(self.producer):
            raise InputError(f"producer {self.producer!r} must be 'compiler' or 'llm:<model>'")
        for stage, seconds in self.timings.items():
            if not isinstance(stage, str) or not stage:
                raise InputError("timing stage names must be non-empty strings")
            if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) \
                    or not math.isfinite(seconds) or seconds < 0:
                raise InputError(f"timing for {stage!r} must be a finite, non-negative number of seconds")
        for attribute, count in self.record_counts.items():
            if not isinstance(attribute, str) or not attribute:
                raise InputError("record_counts keys must be non-empty strings")
            _nonnegative_int(count, f"record count of {attribute!r}")
        for entity, ids in self.entities.items():
            if not isinstance(entity, str) or not entity:
                raise InputError("entity ids must be non-empty strings")
            if not isinstance(ids, list):
                raise InputError(f"fact ids of entity {entity!r} must be a list")
            for fact in ids:
                _fact_id(fact, f"fact id of entity {entity!r}")
        for retracted, by in self.retractions.items():
            _fact_id(retracted, "retracted fact id")
            _fact_id(by, "retracting fact id")
        for kind, names in self.renamed_fields.items():
            if not isinstance(kind, str) or not isinstance(names, dict) \
                    or not all(isinstance(k, str) and isinstance(v, str) for k, v in names.items()):
                raise InputError("renamed_fields must map kinds to {original name: Python name}")
        for fact, reason in self.quarantined.items():
            _fact_id(fact, "quarantined fact id")
            if not isinstance(reason, str) or not reason or len(reason) > MAX_REASON:
                raise InputError(f"the reason fact {fact} is quarantined must be 1-{MAX_REASON} characters")

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "log_position": self.log_position,
            "input_hash": self.input_hash,
            "producer": self.producer,
            "timings": dict(self.timings),
            "record_counts": dict(self.record_counts),
            "entities": {key: list(ids) for key, ids in self.entities.items()},
            "retractions": {str(key): value for key, value in self.retractions.items()},
            "renamed_fields": {kind: dict(names) for kind, names in self.renamed_fields.items()},
            **({"log_hash": self.log_hash} if self.log_hash is not None else {}),
            "quarantined": {str(key): reason for key, reason in self.quarantined.items()},
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> PublishMeta:
        try:
            retractions = {int(key): value for key, value in dict(data.get("retractions") or {}).items()}
            return PublishMeta(
                log_position=data["log_position"],
                input_hash=data["input_hash"],
                producer=data["producer"],
                timings=dict(data.get("timings") or {}),
                record_counts=dict(data.get("record_counts") or {}),
                entities={key: list(ids) for key, ids in dict(data.get("entities") or {}).items()},
                retractions=retractions,
                renamed_fields={k: dict(v) for k, v in dict(data.get("renamed_fields") or {}).items()},
                log_hash=data.get("log_hash"),
                quarantined={int(key): value for key, value in dict(data.get("quarantined") or {}).items()},
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"version metadata is malformed: {type(exc).__name__}: {exc}") from None


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

    def to_json(self) -> dict[str, JsonValue]:
        data: dict[str, JsonValue] = {"user": self.user, "name": self.name, "path": str(self.path)}
        data.update(self.meta_json())
        return data

    @staticmethod
    def from_meta_json(user: str, path: Path, data: Mapping[str, Any]) -> VersionInfo:
        try:
            parent = data["parent"]
            per_file = data.get("file_sha256") or {}
            manifest_sha256 = data.get("manifest_sha256")
            if manifest_sha256 is not None and (not isinstance(manifest_sha256, str)
                                                or not re.fullmatch(r"[0-9a-f]{64}", manifest_sha256, re.ASCII)):
                raise InputError(f"{path / 'meta.json'}: manifest_sha256 must be 64 lowercase hex digits")
            if not isinstance(per_file, dict) or not all(
                    isinstance(k, str) and isinstance(v, str) for k, v in per_file.items()):
                raise InputError(f"{path / 'meta.json'}: file_sha256 must map file names to hashes")
            return VersionInfo(
                user=user,
                number=check_version_number(data["version"]),
                path=path,
                created_at=str(data["created_at"]),
                parent=None if parent is None else check_version_number(parent),
                files_sha256=str(data["files_sha256"]),
                meta=PublishMeta.from_json(data),
                file_sha256=dict(per_file),
                manifest_sha256=manifest_sha256,
            )
        except KeyError as exc:
            raise InputError(f"{path / 'meta.json'} lacks {exc}") from None


@dataclass(frozen=True)
class VersionEvent:
    """A line of `events.jsonl`: a version was published or made current again."""

    action: str  # "publish" or "rollback"
    version: int
    previous: int | None  # the version that was current before
    at: str  # ISO date-time, UTC

    def to_json(self) -> dict[str, JsonValue]:
        return {"action": self.action, "version": self.version, "previous": self.previous, "at": self.at}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> VersionEvent:
        return VersionEvent(str(data["action"]), int(data["version"]),
                            None if data.get("previous") is None else int(data["previous"]), str(data["at"]))
