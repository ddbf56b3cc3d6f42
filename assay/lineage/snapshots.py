"""Dataset snapshots rebuilt as directories for the suites' loaders, inside the run store.

A snapshot is a hash-verified JSON object naming each dataset file by content hash. Steps read
the dataset from a directory rebuilt from it under ``<store>/.assay/snapshots/<sha>/`` (a
private temporary directory when the store is remote), and every read re-checks every file
against its hash: an edited file is rewritten from the pool, a planted one removed. Writes
never follow a symlink: a link planted in place of a file or a folder is removed, not written
through.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import posixpath
import shutil
import tempfile
import threading
from pathlib import Path

from assay.atomic_files import atomic_write
from assay.hashing import sha256_bytes
from assay.lineage.store import ArtifactStore

SNAPSHOTS_DIR = ".assay/snapshots"
_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()
_private_root: Path | None = None


def snapshot_relpath(name: str) -> str:
    """Logical file names map back to the dataset layout ("cases" -> "cases.jsonl")."""
    rel = name if "/" in name or "." in name else f"{name}.jsonl"
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") for p in parts) or posixpath.normpath(rel) != rel:
        raise ValueError(f"snapshot file name {name!r} is not a plain relative path")
    return rel


def materialize(store: ArtifactStore, snapshot_sha: str, leave_out: frozenset[str] = frozenset()) -> Path:
    """The snapshot's dataset directory, its files verified (and repaired) against their hashes.

    ``leave_out``: logical file names (e.g. "generations") left out, in a directory of their own,
    for a step that reads the cases only and need not parse a large file it does not use.
    """
    snapshot = store.get_json(snapshot_sha)  # get() re-hashes the pool object
    wanted = {snapshot_relpath(name): sha for name, sha in snapshot["files"].items() if name not in leave_out}
    root = _root_for(store, snapshot_sha + "".join(f"-without-{name}" for name in sorted(leave_out)))
    with _lock(str(root)):
        _check_dir(root)
        _remove_unlisted(root, set(wanted))
        for rel, sha in sorted(wanted.items()):
            target = root / rel
            for parent in reversed(target.relative_to(root).parents[:-1]):
                _check_dir(root / parent)
            if target.is_symlink() or target.is_dir():
                _remove(target)
            elif target.is_file() and sha256_bytes(target.read_bytes()) == sha:
                continue
            atomic_write(target, store.get(sha), mode=0o600)  # replaces a name; never writes through a link
    return root


def _root_for(store: ArtifactStore, snapshot_sha: str) -> Path:
    if store.is_local:
        base = Path(store.path(SNAPSHOTS_DIR))
    else:  # a remote store: a directory only this process can read, removed at exit
        global _private_root
        if _private_root is None:
            _private_root = Path(tempfile.mkdtemp(prefix="assay-snapshots-"))
            atexit.register(shutil.rmtree, _private_root, True)
        base = _private_root
    _check_dir(base.parent)
    _check_dir(base)
    return base / snapshot_sha


def _check_dir(path: Path) -> None:
    """Make ``path`` a real directory: a symlink in its place is removed first."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        _remove(path)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


def _remove_unlisted(root: Path, wanted: set[str]) -> None:
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        for name in [*filenames, *[d for d in dirnames if (here / d).is_symlink()]]:
            if (here / name).relative_to(root).as_posix() not in wanted:
                _remove(here / name)


def _remove(path: Path) -> None:
    if path.is_symlink() or not path.is_dir():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path)


class _lock:
    """One materialization at a time per snapshot: threads share a lock, processes a flock."""

    def __init__(self, key: str) -> None:
        with _locks_guard:
            self.thread_lock = _locks.setdefault(key, threading.Lock())
        self.path = f"{key}.lock"

    def __enter__(self) -> None:
        self.thread_lock.acquire()
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)
        self.thread_lock.release()
