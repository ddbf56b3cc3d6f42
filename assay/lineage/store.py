"""Content-addressed artifact store on any fsspec filesystem (a local directory by default).

Layout under the store root::

    .assay/objects/ab/abcdef…     shared pool, written by pipeline steps (every run, all content)
    <run_id>/manifest.json         one run's lineage
    <run_id>/objects/ab/abcdef…    copies of exactly the artifacts that run used
    <run_id>/report.md …           published files, also listed in the manifest

Steps write into the shared pool and hand back hashes; the flow then adopts each artifact
into the run directory. A step reused from cache in a later run therefore still yields a
self-contained run directory that ``assay audit`` can check on its own.

Adopting is a hard link on a local disk (``adopt``): the bytes exist once, however many runs
use them; across filesystems, without link support, or on other fsspec stores it is a copy. A
link shares the file: editing a run's object in place edits the pool's too. Both are still
caught: the run's audit re-hashes the object against its manifest, and every later read of
the pool (``get``) re-hashes it and refuses it, so a tampered object is never reused silently.
Replacing a run's object with a new file (what most editors do) breaks the link and leaves
the pool intact.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import posixpath
import stat
import uuid
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

import fsspec
from fsspec.implementations.local import LocalFileSystem

from assay.atomic_files import atomic_write
from assay.hashing import sha256_bytes
from assay.redact import redacted_canonical_json, redacted_json, secret_values
from assay.schemas import JsonObject

POOL_DIR = ".assay/objects"
SET_ASIDE_DIR = ".assay/set-aside"

# Store faults a retry cannot mend; they end the run with one line naming the path.
_STORE_FAULTS = {errno.ENOSPC: "no space left on the device", errno.EDQUOT: "disk quota exceeded",
                 errno.EROFS: "the file system is read-only", errno.EACCES: "permission denied",
                 errno.EPERM: "permission denied"}


def _lines(data: bytes) -> Iterator[bytes]:
    """The lines of ``data`` one at a time (``split`` would hold a copy of every line at once)."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        yield data[start:end]
        start = end + 1


class ArtifactNotFound(FileNotFoundError):
    pass


class StoreWriteError(OSError):
    """The store cannot take a write (disk full, read-only, no permission); never retried."""

    def __init__(self, path: str, cause: OSError) -> None:
        reason = _STORE_FAULTS.get(cause.errno or 0, cause.strerror or str(cause))
        super().__init__(cause.errno, f"cannot write {path}: {reason}")
        self.path = path

    def __str__(self) -> str:
        return str(self.strerror)

    def __reduce__(self) -> tuple:  # survives a trip between processes (dask workers)
        return (_rebuild_write_error, (self.path, self.errno, self.strerror))


def _rebuild_write_error(path: str, code: int | None, message: str) -> StoreWriteError:
    error = StoreWriteError(path, OSError(code, message))
    error.strerror = message
    return error


class CorruptArtifact(ValueError):
    """A pool object whose bytes do not hash to its name; it has been set aside."""

    def __init__(self, path: str, moved_to: str) -> None:
        super().__init__(f"pool object {path} did not match its hash; set aside as {moved_to}")
        self.path, self.moved_to = path, moved_to

    def __reduce__(self) -> tuple:
        return (CorruptArtifact, (self.path, self.moved_to))


def is_store_fault(exc: BaseException) -> bool:
    return isinstance(exc, StoreWriteError) or (isinstance(exc, OSError) and exc.errno in _STORE_FAULTS)


class ArtifactStore:
    def __init__(self, root: str) -> None:
        self.url = str(root)
        self.fs, self.root = fsspec.core.url_to_fs(self.url)
        self.is_local = isinstance(self.fs, LocalFileSystem)
        if self.is_local:
            self.root = os.path.abspath(self.root)
        self.fs.makedirs(self.root, exist_ok=True)

    # -- paths -----------------------------------------------------------------------------
    def path(self, *parts: str) -> str:
        return posixpath.join(self.root, *parts)

    @staticmethod
    def object_relpath(sha: str) -> str:
        return f"objects/{sha[:2]}/{sha}"

    def pool_path(self, sha: str) -> str:
        return self.path(".assay", self.object_relpath(sha))

    # -- raw bytes -------------------------------------------------------------------------
    def write_bytes(self, path: str, data: bytes) -> None:
        """Write a file; on local disks atomically, so a killed run never leaves half a file.

        A full disk, a read-only store or a refused permission raises ``StoreWriteError``
        naming the path, and no temporary file is left behind.
        """
        try:
            self._write_bytes(path, data)
        except StoreWriteError:
            raise
        except OSError as exc:
            if exc.errno in _STORE_FAULTS:
                raise StoreWriteError(path, exc) from None
            raise

    def _write_bytes(self, path: str, data: bytes) -> None:
        parent = posixpath.dirname(path)
        self.fs.makedirs(parent, exist_ok=True)
        if self.is_local:
            # Never write through a link: a folder planted as a symlink would send the file
            # elsewhere, so the real parent must be inside the real store root; the temp file is
            # created fresh and renamed over the name (``atomic_write``).
            if not os.path.realpath(parent).startswith(os.path.realpath(self.root) + os.sep):
                raise PermissionError(f"refusing to write {path}: its folder resolves outside the store {self.root}")
            atomic_write(path, data, mode=0o644)
        else:
            self.fs.pipe_file(path, data)

    def read_bytes(self, path: str) -> bytes:
        try:
            return self.fs.cat_file(path)
        except FileNotFoundError as exc:
            raise ArtifactNotFound(path) from exc

    def exists(self, path: str) -> bool:
        return self.fs.exists(path)

    # -- the shared pool -------------------------------------------------------------------
    def put(self, data: bytes) -> str:
        sha = sha256_bytes(data)
        target = self.pool_path(sha)
        # An object already there is trusted only if it still hashes to its name; a corrupt one
        # is set aside and written afresh, so a damaged pool heals on the next write.
        if not self.intact(sha):
            self.write_bytes(target, data)
        return sha

    def get(self, sha: str) -> bytes:
        data = self.read_bytes(self.pool_path(sha))
        if sha256_bytes(data) != sha:
            raise CorruptArtifact(self.pool_path(sha), self.set_aside(sha))
        return data

    def adopt(self, sha: str, target: str, data: bytes | None = None) -> None:
        """Place pool object ``sha`` (``data``: its bytes, already verified) at ``target``.

        Local stores hard-link it (atomically, replacing an existing ``target``); a copy where
        linking is impossible (another filesystem, no hard links) and on other filesystems,
        from ``data`` or, when not given, from a fresh verified read (``get``).
        """
        if self.is_local:
            parent = posixpath.dirname(target)
            self.fs.makedirs(parent, exist_ok=True)
            if os.path.realpath(parent).startswith(os.path.realpath(self.root) + os.sep):
                tmp = f"{target}.tmp-{uuid.uuid4().hex[:8]}"
                try:
                    if _same_inode(target, self.pool_path(sha)):
                        return  # already this object's link (rename between two links of one file is a no-op)
                    os.link(self.pool_path(sha), tmp, follow_symlinks=False)
                    os.replace(tmp, target)
                    return
                except OSError:  # EXDEV, EPERM, EMLINK ...: fall back to a copy below
                    if os.path.lexists(tmp):
                        os.unlink(tmp)
        self.write_bytes(target, data if data is not None else self.get(sha))  # also refuses a folder that leads out of the store

    def has(self, sha: str) -> bool:
        return self.fs.exists(self.pool_path(sha))

    def intact(self, sha: str) -> bool:
        """True if the pool holds ``sha`` with bytes that hash to it; a corrupt copy is set aside."""
        if not self.is_local:
            try:
                self.get(sha)
            except (ArtifactNotFound, CorruptArtifact):
                return False
            return True
        # Hashed as it is read: a large object (a 100,000-case run's scores) is not held whole.
        try:
            with open(self.pool_path(sha), "rb") as handle:
                digest = hashlib.file_digest(handle, "sha256").hexdigest()
        except FileNotFoundError:
            return False
        if digest != sha:
            self.set_aside(sha)
            return False
        return True

    def set_aside(self, sha: str) -> str:
        """Move a corrupt pool object out of the pool (kept as evidence); returns where it went."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        target = self.path(SET_ASIDE_DIR, f"{sha}.{stamp}")
        self.fs.makedirs(posixpath.dirname(target), exist_ok=True)
        self.fs.mv(self.pool_path(sha), target)
        return target

    def set_aside_since(self, iso_time: str) -> list[str]:
        """Objects set aside at or after ``iso_time`` (a run's start), oldest first."""
        folder = self.path(SET_ASIDE_DIR)
        if not self.fs.exists(folder):
            return []
        start = datetime.fromisoformat(iso_time).astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        found = [p for p in self.fs.ls(folder, detail=False) if posixpath.basename(p).rpartition(".")[2] >= start]
        return sorted(found, key=lambda p: posixpath.basename(p).rpartition(".")[2])

    # Structured records are redacted on the way in: whatever a step builds, no credential is
    # ever persisted (raw put() keeps bytes as given: dataset files, rendered reports).
    def put_json(self, obj: Any, encoded: bytes | None = None) -> str:
        """``encoded``: ``canonical_json(obj)`` when the caller has made it already (the same
        bytes are stored either way)."""
        return self.put(redacted_canonical_json(obj, encoded=encoded))

    def get_json(self, sha: str) -> Any:
        return json.loads(self.get(sha))

    def put_jsonl(self, records: Iterable[JsonObject]) -> str:
        values = secret_values()
        return self.put_chunks(redacted_json(record, values).encode("utf-8") + b"\n" for record in records)

    def put_chunks(self, chunks: Iterable[bytes]) -> str:
        """``put`` of the concatenated ``chunks``, written as they come: on a local store they go
        to a temporary file in the pool while being hashed, so a large artifact (a 100,000-case
        run's scores) is never held whole in memory; elsewhere they are joined and put."""
        if not self.is_local:
            return self.put(b"".join(chunks))
        folder = self.path(".assay", "objects")
        try:
            self.fs.makedirs(folder, exist_ok=True)
            tmp = posixpath.join(folder, f"incoming-{uuid.uuid4().hex}")
            digest = hashlib.sha256()
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            try:
                with os.fdopen(fd, "wb") as handle:
                    for chunk in chunks:
                        digest.update(chunk)
                        handle.write(chunk)
                sha = digest.hexdigest()
                if not self.intact(sha):
                    self._place(tmp, self.pool_path(sha))
            finally:
                if os.path.lexists(tmp):
                    os.unlink(tmp)
        except OSError as exc:
            if exc.errno in _STORE_FAULTS:
                raise StoreWriteError(folder, exc) from None
            raise
        return sha

    def _place(self, tmp: str, target: str) -> None:
        """Rename a finished temporary file onto its pool path (never through a link)."""
        parent = posixpath.dirname(target)
        self.fs.makedirs(parent, exist_ok=True)
        if not os.path.realpath(parent).startswith(os.path.realpath(self.root) + os.sep):
            raise PermissionError(f"refusing to write {target}: its folder resolves outside the store {self.root}")
        os.replace(tmp, target)

    def get_jsonl(self, sha: str) -> list[JsonObject]:
        return list(self.iter_jsonl(sha))

    def iter_jsonl(self, sha: str, parse: Callable[[bytes], Any] = json.loads) -> Iterator[Any]:
        """The records of a JSONL artifact one at a time, so a large one (a 100,000-case run's
        scores, ~650 MB) is never held whole: only the line being read. ``parse`` turns a
        line's bytes into its record (a reader that wants typed rows, or the line itself, skips
        a ``json.loads``); a ``ValueError`` it raises is a line that cannot be read.

        The bytes are hashed as they are read and checked after the last line: a corrupt object
        raises ``CorruptArtifact`` (and is set aside) when the iteration ends, so a reader must
        read to the end before it uses what it read, as every step does (a step that raises
        returns nothing). Other than local stores read the object whole and check it first.
        """
        if not self.is_local:
            yield from (parse(line) for line in _lines(self.get(sha)) if line.strip())
            return
        path = self.pool_path(sha)
        digest = hashlib.sha256()
        try:
            handle = open(path, "rb")  # noqa: SIM115 - closed below, after the last yield
        except FileNotFoundError as exc:
            raise ArtifactNotFound(path) from exc
        with handle:
            for line in handle:
                digest.update(line)
                if not line.strip():
                    continue
                try:
                    record = parse(line)
                except ValueError:
                    # Unreadable bytes are most likely an edit: name it as corruption if the
                    # whole object does not match its hash, not as a parse error.
                    for rest in handle:
                        digest.update(rest)
                    if digest.hexdigest() != sha:
                        raise CorruptArtifact(path, self.set_aside(sha)) from None
                    raise
                yield record
        if digest.hexdigest() != sha:
            raise CorruptArtifact(path, self.set_aside(sha))

    # -- run directories -------------------------------------------------------------------
    def run_path(self, run_id: str, *parts: str) -> str:
        return self.path(run_id, *parts)

    def list_runs(self) -> list[str]:
        if not self.fs.exists(self.root):
            return []
        runs = []
        for entry in self.fs.ls(self.root, detail=False):
            name = posixpath.basename(entry.rstrip("/"))
            if not name.startswith(".") and self.fs.exists(posixpath.join(entry, "manifest.json")):
                runs.append(name)
        return sorted(runs)

    def run_file(self, run_dir: str, rel: str) -> str | None:
        """The file ``rel`` of the run directory ``run_dir`` (a directory name under this store),
        or None when ``rel`` would lead out of it: absolute, ``..``, or on a local disk a link
        that resolves elsewhere. Every reader of a finished run goes through here, so a run's
        evidence is always the files under the directory it was given, never another run's or
        the pool's (docs/security.md, "A run directory is self-contained")."""
        if not plain_relative(rel):
            return None
        path = self.run_path(run_dir, rel)
        if self.is_local:
            root = os.path.realpath(self.run_path(run_dir))
            if not os.path.realpath(path).startswith(root + os.sep):
                return None
        return path

    def list_run_files(self, run_id: str) -> list[str]:
        """Every file under the run directory, relative to it."""
        base = self.run_path(run_id).rstrip("/") + "/"
        return sorted(p[len(base) :] for p in self.fs.find(base) if p.startswith(base))


def plain_relative(path: str) -> bool:
    """A relative path that stays where it starts: not absolute, no ``..``, already normal."""
    parts = path.split("/")
    return bool(path) and not path.startswith("/") and posixpath.normpath(path) == path and ".." not in parts


def _same_inode(path: str, other: str) -> bool:
    """``path`` is a hard link (never a symlink) to the file ``other``."""
    try:
        here, there = os.lstat(path), os.lstat(other)
    except FileNotFoundError:
        return False
    return not stat.S_ISLNK(here.st_mode) and (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)
