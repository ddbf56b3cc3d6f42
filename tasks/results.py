"""Prefect task results that can be reused without being trusted on their own say-so.

A Prefect result file names its own serializer and Prefect loads it with that one, so a
``pickle`` record planted in ``<out>/.assay/prefect-results`` would run code on the next
``assay run``; even Prefect's ``json`` serializer imports and calls classes named in the data.
Two guards close that:

- ``PlainJSONSerializer`` (type ``assay-json``) writes and reads plain JSON, no object hooks.
  Every step returns plain JSON (``assay.artifacts.dump``), so nothing else is needed.
- ``GuardedResultStorage`` records a digest of each result file when it writes it (an HMAC with
  ``ASSAY_SIGNING_KEY`` when set, else sha256) and, before Prefect sees a file, checks the digest
  and that the file names the ``assay-json`` serializer. A file that fails either check raises,
  which Prefect's cache lookup treats as "no cached result": the step runs again and writes a
  fresh record. Nothing is ever unpickled.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from pathlib import Path

from prefect.filesystems import LocalFileSystem
from prefect.serializers import (  # D: Prefect's own type variable, so Serializer[D] is its registered class
    D,
    Serializer,
)
from pydantic import Field

from assay import timeline
from assay.atomic_files import atomic_write
from assay.signing import digest_matches, record_digest

SERIALIZER_TYPE = "assay-json"
INDEX_DIR = ".digests"


# Prefect also persists a failed task's exception through the task's serializer. assay-json
# refuses it on purpose (reading one back would mean importing its class), and Prefect then warns
# with advice (result_serializer="json") that would undo the guard. The failure itself is in the
# step table and the manifest, so the warning is dropped, for exceptions only: a step result that
# does not serialize is a bug and keeps its warning.
_UNSERIALIZED_RE = re.compile(rf"Failed to serialize object of type '([\w.]+)' with serializer '{SERIALIZER_TYPE}'")


class FailedStepWarningFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            found = _UNSERIALIZED_RE.search(record.getMessage())
        except Exception:  # noqa: BLE001 - a malformed record is passed on untouched
            return True
        return not (found and found.group(1).rsplit(".", 1)[-1] in _exception_names())


def _exception_names() -> set[str]:
    names, todo = set(), [BaseException]
    while todo:
        cls = todo.pop()
        names.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    return names


def quiet_failed_step_warnings() -> None:
    """Attach ``FailedStepWarningFilter`` to Prefect's task-run logger (where the warning is logged)."""
    logger = logging.getLogger("prefect.task_runs")
    if not any(isinstance(f, FailedStepWarningFilter) for f in logger.filters):
        logger.addFilter(FailedStepWarningFilter())


class UntrustedResult(ValueError):
    """A stored task result that was not written by assay as it is now."""


class PlainJSONSerializer(Serializer[D]):
    """JSON with no object hooks: reading a record can never import or call anything."""

    type: str = Field(default=SERIALIZER_TYPE, frozen=True)

    def dumps(self, obj: D) -> bytes:
        return json.dumps(obj, ensure_ascii=False, sort_keys=True).encode("utf-8")

    def loads(self, blob: bytes) -> D:
        return json.loads(blob)


class GuardedResultStorage(LocalFileSystem):
    """A local result folder whose records are checked against digests assay wrote itself."""

    _block_type_name = "Assay Guarded Result Storage"

    def _index_path(self, path: str) -> Path:
        name = hashlib.sha256(str(path).encode("utf-8")).hexdigest()
        return Path(self.basepath) / INDEX_DIR / name

    def _guarded_read(self, path: str) -> bytes:
        with timeline.timed("steps: result read + digest check"):
            return self._checked_read(path)

    def _checked_read(self, path: str) -> bytes:
        target = self._resolve_path(path)  # resolves links; refuses paths outside the folder
        if not target.is_file():
            raise ValueError(f"Path {target} does not exist.")
        content = target.read_bytes()
        index = self._index_path(path)
        recorded = index.read_text(encoding="ascii").strip() if index.is_file() else ""
        if not recorded or not digest_matches(content, recorded):
            raise UntrustedResult(f"task result {path} does not match the digest assay recorded; not loaded")
        try:
            serializer = json.loads(content)["metadata"]["serializer"]["type"]
        except (ValueError, KeyError, TypeError):
            raise UntrustedResult(f"task result {path} is not a result record; not loaded") from None
        if serializer != SERIALIZER_TYPE:
            raise UntrustedResult(f"task result {path} names serializer {serializer!r}; only {SERIALIZER_TYPE} is loaded")
        return content

    def _indexed_write(self, path: str, content: bytes) -> str:
        target = self._resolve_path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, content, mode=0o600)
        index = self._index_path(path)
        index.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(index, record_digest(content).encode("ascii"), mode=0o600)
        return str(target)

    # Prefect calls the sync form with ``_sync=True`` and the async form as ``a<name>``.
    def read_path(self, path: str, _sync: bool | None = None) -> bytes:  # type: ignore[override]
        return self._guarded_read(path)

    async def aread_path(self, path: str) -> bytes:  # type: ignore[override]
        return self._guarded_read(path)

    def write_path(self, path: str, content: bytes, _sync: bool | None = None) -> str:  # type: ignore[override]
        return self._indexed_write(path, content)

    async def awrite_path(self, path: str, content: bytes) -> str:  # type: ignore[override]
        return self._indexed_write(path, content)
