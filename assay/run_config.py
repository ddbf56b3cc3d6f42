"""Dataset fingerprints: the ingest step's cache key."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def fingerprint_dataset(root: str | Path) -> str:
    """sha256 over every file's relative path and bytes: the ingest step's cache key."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"dataset directory not found: {root}")
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() or p.is_symlink()):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(b"\0")
        # A link is keyed by where it points, never read: ingest refuses it unless allowed.
        digest.update(b"link:" + os.readlink(path).encode() if path.is_symlink() else path.read_bytes())
    return digest.hexdigest()
