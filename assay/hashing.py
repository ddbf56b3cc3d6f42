"""Content hashing: stable sha256 over bytes and canonical JSON."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical_json(obj: Any) -> bytes:
    """JSON with sorted keys and no insignificant whitespace, so equal content hashes equally."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str).encode(
        "utf-8"
    )


def sha256_json(obj: Any) -> str:
    return sha256_bytes(canonical_json(obj))
