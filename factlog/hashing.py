"""Content hashes over canonical JSON, chained per user (as in simonw/llm's logs).

Unkeyed, a fact's hash is the sha256 of its canonical body. Keyed (a chain key kept
outside the database, see `factlog.chainkey`), it is the HMAC-SHA256 of the same body
under that key, so someone who can write the database but cannot read the key cannot
re-hash a changed chain into one that verifies. Both spell 64 hex digits.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

GENESIS = "0" * 64
_FINGERPRINT_LABEL = b"uac chain key fingerprint v1"


def canonical_json(value: Any) -> str:
    """One spelling per value: sorted keys, no spaces, UTF-8 kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def content_hash(body: dict[str, Any], key: bytes | None = None) -> str:
    """sha256 (or, with `key`, HMAC-SHA256) of the canonical body; the body includes
    `prev_hash`, which makes a chain."""
    data = canonical_json(body).encode("utf-8")
    if key is None:
        return hashlib.sha256(data).hexdigest()
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def key_fingerprint(key: bytes) -> str:
    """What the database records about its chain key: tells a wrong key from tampering,
    and reveals nothing that would let anyone compute a keyed hash."""
    return hmac.new(key, _FINGERPRINT_LABEL, hashlib.sha256).hexdigest()[:32]
