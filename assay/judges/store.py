"""Content-addressed store of judge requests and their raw responses.

A record is keyed by the sha256 of what determines the answer (model, api_base, messages,
temperature, max_tokens, response_format schema), so an identical request is answered from
the store and nothing is sent. Only successful (parsed and validated) responses are stored:
a rerun therefore re-sends exactly the calls that failed.

Records never hold API keys or headers: the request part is ``{messages, params}`` only and
``api_base`` is stored without user-info or query string; the response part is redacted
(``assay.redact``) on the way in, so a reply that echoes a key or header is stored masked.

Nothing read back is trusted on its name alone: a record must hash to its key (its request
part) and carry the sha256 of its response part; with ``ASSAY_SIGNING_KEY`` set it must also
carry an HMAC ``digest`` made with that key, which a writer of the store without the key cannot
recompute. One that fails (edited, truncated, planted, unauthenticated) raises
``UntrustedRecord``; the caller sets it aside (``quarantine``, the bytes are kept for
inspection, named ``<key>.json.untrusted-<time>``) and sends the call again.

Layout: ``<root>/<key[:2]>/<key>.json``. ``root`` is a local path or any fsspec URL
(``s3://bucket/assay/calls``). Records are write-once. Local writes are atomic (temp file,
then hard link or rename); object stores replace whole objects on put, atomic already.
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from assay.atomic_files import atomic_write
from assay.hashing import canonical_json, canonical_members, sha256_json
from assay.redact import redact_obj
from assay.schemas import JsonObject
from assay.signing import SIGNING_KEY_ENV, digest_matches, record_digest, signing_key


def request_key(
    model: str, api_base: str | None, messages: list[JsonObject], params: JsonObject
) -> str:
    """sha256 (hex) of the canonical JSON of the request content; never of keys or headers."""
    return sha256_json({"model": model, "api_base": api_base, "messages": messages, "params": params})


_KEY = re.compile(r"[0-9a-f]{8,}")  # a request key: sha256 hex (at least 8 digits)


class UntrustedRecord(Exception):
    """A stored record that does not match its key or its own response hash."""

    def __init__(self, key: str, why: str) -> None:
        super().__init__(f"call record {key[:12]}…: {why}")
        self.key, self.why = key, why


def record_problem(key: str, record: Any) -> str | None:
    """Why ``record`` cannot be trusted as the answer to request ``key``; None if it can."""
    if not isinstance(record, dict) or record.get("key") != key:
        return "the record names another key"
    request = record.get("request")
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        return "the record has no request"
    if request_key(record.get("model"), record.get("api_base"), request["messages"], request.get("params") or {}) != key:
        return "its request does not hash to its key"
    if record.get("response_sha256") != sha256_json(record.get("response")):
        return "its response does not match the response hash"
    if signing_key() is not None and not digest_matches(_digested(record), record.get("digest")):
        # The hashes above anyone can recompute; under a key only a record this key wrote is reused.
        return f"it is not authenticated with {SIGNING_KEY_ENV} (no digest, or one made without this key)"
    return None


def _digested(record: JsonObject) -> bytes:
    """The bytes a record's ``digest`` covers: the whole record but the digest itself."""
    return canonical_json({k: v for k, v in record.items() if k != "digest"})


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def stamped(key: str, record: JsonObject) -> JsonObject:
    """``record`` as the store keeps it: with its key, the sha256 of its response part and the
    ``digest`` of the whole (an HMAC with ``ASSAY_SIGNING_KEY`` when set; ``assay.signing``)."""
    return stamped_and_encoded(key, record)[0]


def stamped_and_encoded(key: str, record: JsonObject, request_json: bytes | None = None) -> tuple[JsonObject, bytes]:
    """``stamped(key, record)`` and its ``canonical_json``, each member encoded once: the digest
    covers the members but the digest, the stored bytes all of them. ``request_json``: the
    canonical JSON of ``record["request"]`` when the caller has it (``JudgeRequest.record_json``)."""
    out = {k: v for k, v in record.items() if k != "digest"}
    out.update(key=key, response_sha256=sha256_json(record.get("response")))
    out.setdefault("created_at", now_iso())
    if not all(isinstance(name, str) for name in out):  # not a record's shape: encode it whole
        stamped_record = {**out, "digest": record_digest(_digested(out))}
        return stamped_record, canonical_json(stamped_record)
    members = {name: request_json if name == "request" and request_json is not None else canonical_json(value)
               for name, value in out.items()}
    digest = record_digest(canonical_members(members))  # = _digested(out)
    members["digest"] = canonical_json(digest)
    return {**out, "digest": digest}, canonical_members(members)


class Written(NamedTuple):
    """One ``CallStore.write_once``: where, the record as stored (None: another writer's record
    was there first and is kept) and the bytes this write made of it."""

    path: str
    record: JsonObject | None
    data: bytes


class CallStore:
    """Judge call records under ``root`` (local directory or fsspec URL)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = str(root)
        self._local: Path | None = None
        self._made_dirs: set[Path] = set()
        if "://" not in self.root or self.root.startswith("file://"):
            self._local = Path(self.root.removeprefix("file://"))
            self._local.mkdir(parents=True, exist_ok=True)
            self._local_root = str(self._local)
            self._fs = None
        else:
            import fsspec

            self._fs, self._fs_root = fsspec.core.url_to_fs(self.root)

    request_key = staticmethod(request_key)

    def __repr__(self) -> str:
        return f"CallStore({self.root!r})"

    @property
    def local(self) -> bool:
        """A local directory: a lookup is one ``open``, cheaper than handing it to a thread."""
        return self._local is not None

    def _relpath(self, key: str) -> str:
        if not _KEY.fullmatch(key):
            raise ValueError(f"not a request key: {key!r}")
        return f"{key[:2]}/{key}.json"

    def path(self, key: str) -> str:
        """Where the record for ``key`` lives (path or URL)."""
        if self._local is not None:
            return str(self._local / self._relpath(key))
        return f"{self.root.rstrip('/')}/{self._relpath(key)}"

    def get(self, key: str) -> JsonObject | None:
        """The stored record, or None if there is none.

        Raises ``UntrustedRecord`` if a record is there but fails ``record_problem``.
        """
        try:
            if self._local is not None:
                # os.path and open, not pathlib: a miss (every call of a fresh run) costs one failed open
                with open(os.path.join(self._local_root, self._relpath(key)), "rb") as handle:
                    data = handle.read()
            else:
                data = self._fs.cat_file(f"{self._fs_root.rstrip('/')}/{self._relpath(key)}")
        except FileNotFoundError:
            return None
        try:
            record = json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise UntrustedRecord(key, "not valid JSON") from None
        problem = record_problem(key, record)
        if problem:
            raise UntrustedRecord(key, problem)
        return record

    def quarantine(self, key: str) -> str:
        """Move an untrusted record aside (kept, never deleted) so a fresh answer can be stored."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
        if self._local is not None:
            source = self._local / self._relpath(key)
            target = source.with_name(f"{source.name}.untrusted-{stamp}")
            os.replace(source, target)
            return str(target)
        source = f"{self._fs_root.rstrip('/')}/{self._relpath(key)}"
        self._fs.mv(source, f"{source}.untrusted-{stamp}")
        return f"{self.path(key)}.untrusted-{stamp}"

    def put(self, key: str, record: JsonObject) -> str:
        """Write ``record`` under ``key`` (sets ``record['key']``); returns its path or URL.

        Write-once: if a record for ``key`` exists it is kept (first writer wins), so a record's
        bytes never change after a manifest has hashed them.
        """
        return self.write(key, record)[0]

    def write(self, key: str, record: JsonObject) -> tuple[str, JsonObject | None]:
        """``put``, also returning the record as stored (what ``get`` would read back), so a
        writer need not read it again; None when another writer's record was already there."""
        written = self.write_once(key, record)
        return written.path, written.record

    def write_once(self, key: str, record: JsonObject, request_json: bytes | None = None) -> Written:
        """``write``, also returning the stored bytes (``canonical_json`` of the stored record).
        ``request_json``: the canonical JSON of ``record["request"]``, when the caller has it."""
        # The response redacted (a reply may echo a key or header value); the request is kept as
        # it is, since it must still hash to ``key``.
        record, data = stamped_and_encoded(key, {**record, "response": redact_obj(record.get("response"))}, request_json)
        if self._local is None:
            target = f"{self._fs_root.rstrip('/')}/{self._relpath(key)}"
            if self._fs.exists(target):
                return Written(self.path(key), None, data)
            self._fs.pipe_file(target, data)  # object stores replace whole objects: atomic
            return Written(self.path(key), record, data)
        target_path = self._local / self._relpath(key)
        if target_path.parent not in self._made_dirs:
            target_path.parent.mkdir(parents=True, exist_ok=True)
            self._made_dirs.add(target_path.parent)
        # Write-once: a record already there (another writer's) is kept.
        if not atomic_write(target_path, data, mode=0o644, write_once=True):
            return Written(str(target_path), None, data)
        return Written(str(target_path), record, data)

    def keys(self) -> list[str]:
        """All stored keys (sorted); for audits and tests."""
        if self._local is not None:
            names = [p.stem for p in self._local.glob("??/*.json")]
        else:
            names = [
                p.rsplit("/", 1)[-1].removesuffix(".json") for p in self._fs.glob(f"{self._fs_root}/*/*.json")
            ]
        return sorted(names)

    def __contains__(self, key: str) -> bool:
        try:
            return self.get(key) is not None
        except UntrustedRecord:
            return False
