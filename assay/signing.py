"""The signing key (``ASSAY_SIGNING_KEY``) and the one keyed digest every reused record carries.

A run's manifest is signed with the key (``assay.lineage.manifest.anchor``). Everything a later
run reuses instead of recomputing — cached step results (``tasks/results.py``), judge and
target call records (``assay.judges.store``) — carries ``record_digest`` of its bytes: an
HMAC-SHA256 with the key when one is set, else a plain SHA-256. Under a key only a matching
HMAC is accepted, so a writer of the store without the key cannot make a signed run reuse a
record it forged (docs/security.md).
"""

from __future__ import annotations

import hashlib
import hmac
import os

SIGNING_KEY_ENV = "ASSAY_SIGNING_KEY"
KEYED_PREFIX = "hmac-sha256:"
PLAIN_PREFIX = "sha256:"


def signing_key() -> bytes | None:
    key = os.environ.get(SIGNING_KEY_ENV, "")
    return key.encode("utf-8") if key else None


def key_id(key: bytes) -> str:
    return hashlib.sha256(key).hexdigest()[:16]


def signature_of(root: str, key: bytes) -> str:
    return hmac.new(key, root.encode("ascii"), hashlib.sha256).hexdigest()


def record_digest(content: bytes) -> str:
    """``hmac-sha256:<hex>`` of ``content`` with the signing key, or ``sha256:<hex>`` without one."""
    key = signing_key()
    if key:
        return KEYED_PREFIX + hmac.new(key, content, hashlib.sha256).hexdigest()
    return PLAIN_PREFIX + hashlib.sha256(content).hexdigest()


def digest_matches(content: bytes, recorded: object) -> bool:
    """Whether ``recorded`` is this process's ``record_digest`` of ``content``: under a key only
    its HMAC passes (a plain or another key's digest does not); without one, the SHA-256."""
    return isinstance(recorded, str) and hmac.compare_digest(recorded, record_digest(content))
