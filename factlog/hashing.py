"""Content hashes over canonical JSON, chained per user (as in simonw/llm's logs)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

GENESIS = "0" * 64


def canonical_json(value: Any) -> str:
    """One spelling per value: sorted keys, no spaces, UTF-8 kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def content_hash(body: dict[str, Any]) -> str:
    """sha256 of the canonical body; the body includes `prev_hash`, which makes a chain."""
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()
