"""Content hashing: stable sha256 over bytes and canonical JSON."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
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


def canonical_members(members: Mapping[str, bytes]) -> bytes:
    """``canonical_json`` of a dict whose values are given encoded (each its ``canonical_json``).

    The same bytes, because a canonical dict is its members in key order, each ``"key":value``,
    joined by commas: a large value (a judge request's 9 KB of messages) is encoded once and
    spliced into every document that holds it (its key, the request body, the stored record).
    """
    return b"{" + b",".join(canonical_json(name) + b":" + members[name] for name in sorted(members)) + b"}"
