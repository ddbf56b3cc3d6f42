"""in-toto attestations of a run: a signed statement of exactly which files the run produced.

``attest`` writes ``attestation.intoto.jsonl`` into the run directory: one DSSE envelope
(payload type ``application/vnd.in-toto+json``) signed with an ed25519 key, holding an in-toto
Statement v1 whose subjects are the manifest and every artifact (name, sha256, and the file's
path in the run as an annotation) and whose predicate records the RunSpec, the code version,
the environment, the Prefect flow run and the manifest's root hash. ``verify`` checks the
signature with the public key, then re-hashes every subject on disk and names each that differs,
is missing, or is a file the statement does not cover.

Keys are PEM files (PKCS#8 private key, SubjectPublicKeyInfo public key), as ``assay attest
--new-key DIR`` or ``openssl genpkey -algorithm ed25519`` write them. The DSSE signature's
``keyid`` is computed as securesystemslib computes it, so ``securesystemslib``'s
``Envelope.verify`` (and tools built on it) accept the envelope as it is.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from assay.hashing import sha256_bytes
from assay.lineage.manifest import ATTESTATION, MANIFEST, load_manifest_record
from assay.lineage.store import ArtifactStore
from assay.redact import redact_obj

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "urn:assay:attestation:evaluation-run:v1"
KEY_ENV = "ASSAY_ATTEST_KEY"  # a deployment attests each run it finishes with this key
PRIVATE_KEY_FILE, PUBLIC_KEY_FILE = "assay-attest.key", "assay-attest.pub"


class AttestationError(ValueError):
    """A run that cannot be attested, a key that cannot be read, an envelope that is not one."""


# -- keys ----------------------------------------------------------------------------------------
def new_key(directory: Path) -> tuple[Path, Path]:
    """Write a fresh ed25519 key pair into ``directory`` (the private key readable by its owner only)."""
    if directory.exists() and not directory.is_dir():
        raise AttestationError(f"--new-key {directory}: not a directory (the key pair is written into one)")
    directory.mkdir(parents=True, exist_ok=True)
    private, public = directory / PRIVATE_KEY_FILE, directory / PUBLIC_KEY_FILE
    for path in (private, public):
        if path.exists():
            raise AttestationError(f"{path} exists; not overwriting a key")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    fd = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    return private, public


def load_private_key(path: Path) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise AttestationError(f"cannot read the signing key {path}: {_reason(exc)}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise AttestationError(f"{path} is not an ed25519 private key")
    return key


def load_public_key(path: Path) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(Path(path).read_bytes())
    except (OSError, ValueError, TypeError) as exc:
        raise AttestationError(f"cannot read the public key {path}: {_reason(exc)}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise AttestationError(f"{path} is not an ed25519 public key")
    return key


def key_id(public: Ed25519PublicKey) -> str:
    """securesystemslib's default keyid: sha256 of the key's canonical JSON form."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    record = {"keytype": "ed25519", "keyval": {"public": raw.hex()}, "scheme": "ed25519"}
    return hashlib.sha256(json.dumps(record, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _reason(exc: BaseException) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc).split("\n")[0]


# -- the statement -------------------------------------------------------------------------------
def statement_of(store: ArtifactStore, run_id: str) -> dict[str, Any]:
    """The in-toto Statement v1 for a run, from its manifest as stored."""
    record = load_manifest_record(store, run_id)
    manifest_bytes = store.read_bytes(store.run_path(run_id, MANIFEST))
    subjects = [{"name": MANIFEST, "digest": {"sha256": sha256_bytes(manifest_bytes)},
                 "annotations": {"path": MANIFEST}}]
    for name, entry in sorted(record.get("artifacts", {}).items()):
        subjects.append({"name": name, "digest": {"sha256": entry["sha256"]}, "mediaType": entry.get("media_type", ""),
                         "annotations": {"path": entry["path"], "producer": entry.get("producer", "")}})
    code = record.get("code") or {}
    predicate = {
        "runId": run_id,
        "suite": record.get("suite"),
        "status": record.get("status"),
        "createdAt": record.get("created_at"),
        "finishedAt": record.get("finished_at"),
        "runSpec": record.get("run_spec") or {},
        "options": record.get("options") or {},
        "configHash": record.get("config_hash"),
        "code": {"gitCommit": code.get("git_commit"), "gitDirty": code.get("git_dirty"),
                 "codeVersion": code.get("code_version")},
        "environment": record.get("environment") or {},
        "prefect": {"flowRunId": (record.get("prefect") or {}).get("flow_run_id"),
                    "flowRunName": (record.get("prefect") or {}).get("flow_run_name")},
        "models": record.get("models") or {},
        "manifest": {"path": MANIFEST, "rootHash": record.get("root_hash"), "signed": bool(record.get("signature")),
                     "chainParent": record.get("chain_parent"), "chainParentRoot": record.get("chain_parent_root")},
        "attestedAt": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    return {"_type": STATEMENT_TYPE, "subject": subjects, "predicateType": PREDICATE_TYPE,
            "predicate": redact_obj(predicate)}


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE's pre-authentication encoding: what the signature covers."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


def sign(statement: dict[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    payload = json.dumps(statement, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")
    signature = key.sign(pae(PAYLOAD_TYPE, payload))
    return {"payloadType": PAYLOAD_TYPE, "payload": base64.b64encode(payload).decode("ascii"),
            "signatures": [{"keyid": key_id(key.public_key()), "sig": base64.b64encode(signature).decode("ascii")}]}


def attest(store: ArtifactStore, run_id: str, key_path: Path) -> str:
    """Sign a run's statement and write it into the run directory; the path written.

    Only a finished run that passes its audit is attested: a signature over edited files would
    vouch for the edit."""
    from assay.lineage.audit import audit_run

    key = load_private_key(key_path)
    record = load_manifest_record(store, run_id)
    if record.get("status") == "running":
        raise AttestationError(f"run {run_id} has not finished; attest it when it has")
    audit = audit_run(store, run_id)
    if not audit.ok:
        problems = [line.strip() for line in audit.lines()[1:-1] if not line.strip().startswith("note:")]
        raise AttestationError(f"run {run_id} fails its audit, so it is not attested: {'; '.join(problems)}")
    envelope = sign(statement_of(store, run_id), key)
    path = store.run_path(run_id, ATTESTATION)
    store.write_bytes(path, (json.dumps(envelope, sort_keys=True) + "\n").encode("utf-8"))
    return path


def attest_if_configured(store: ArtifactStore, run_id: str, say: Any) -> str | None:
    """A finished run attested with the key ``ASSAY_ATTEST_KEY`` names (a scheduled deployment's
    setting); a failure is said, never raised: the run's results stand without it."""
    key = os.environ.get(KEY_ENV)
    if not key:
        return None
    try:
        return attest(store, run_id, Path(key))
    except (AttestationError, OSError) as exc:
        say(f"attestation not written: {exc}")
        return None


# -- verifying -----------------------------------------------------------------------------------
@dataclass
class Verification:
    run_id: str
    checked: int = 0
    problems: list[str] = field(default_factory=list)
    differ: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unattested: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.problems or self.differ or self.missing or self.unattested)

    def lines(self) -> list[str]:
        out = [f"run {self.run_id}: {self.checked} attested files re-hashed"]
        for label, items in (("SIGNATURE/STATEMENT", self.problems),
                             ("DIFFERS (sha256 is not the attested one)", self.differ),
                             ("MISSING (attested but not on disk)", self.missing),
                             ("UNATTESTED (on disk but not in the statement)", self.unattested)):
            out.extend(f"  {label}: {item}" for item in items)
        out.append("attestation VERIFIED" if self.ok else "attestation FAILED")
        return out


def read_envelope(store: ArtifactStore, run_id: str) -> dict[str, Any]:
    path = store.run_path(run_id, ATTESTATION)
    if not store.exists(path):
        raise AttestationError(f"run {run_id} has no attestation ({ATTESTATION}); write one with `assay attest {run_id} --key KEY`")
    try:
        envelope = json.loads(store.read_bytes(path).decode("utf-8").splitlines()[0])
    except (ValueError, IndexError, UnicodeDecodeError):
        raise AttestationError(f"{path} is not a DSSE envelope (one JSON object on its first line)") from None
    if not isinstance(envelope, dict):
        raise AttestationError(f"{path} is not a DSSE envelope")
    return envelope


def verified_statement(envelope: dict[str, Any], public: Ed25519PublicKey) -> dict[str, Any]:
    """The statement inside an envelope whose signature the key verifies; AttestationError else."""
    try:
        payload = base64.b64decode(envelope["payload"], validate=True)
        signatures = [base64.b64decode(s["sig"], validate=True) for s in envelope["signatures"]]
        payload_type = envelope["payloadType"]
    except (KeyError, TypeError, ValueError):
        raise AttestationError("the envelope lacks a payload, payloadType or signatures") from None
    if payload_type != PAYLOAD_TYPE:
        raise AttestationError(f"payload type is {payload_type!r}, not {PAYLOAD_TYPE}")
    for signature in signatures:
        try:
            public.verify(signature, pae(payload_type, payload))
            break
        except InvalidSignature:
            continue
    else:
        raise AttestationError("no signature in the envelope verifies with this public key")
    statement = json.loads(payload)
    if statement.get("_type") != STATEMENT_TYPE or statement.get("predicateType") != PREDICATE_TYPE:
        raise AttestationError("the payload is not an assay run statement (in-toto Statement v1)")
    return statement


def verify(store: ArtifactStore, run_id: str, public_key_path: Path) -> Verification:
    result = Verification(run_id=run_id)
    public = load_public_key(public_key_path)
    try:
        statement = verified_statement(read_envelope(store, run_id), public)
    except AttestationError as exc:
        result.problems.append(str(exc))
        return result
    attested_run = (statement.get("predicate") or {}).get("runId")
    if attested_run != run_id:
        result.problems.append(f"the statement attests run {attested_run!r}, not {run_id!r}")
    covered = {ATTESTATION}
    for subject in statement.get("subject", []):
        name, rel = subject.get("name"), (subject.get("annotations") or {}).get("path", "")
        result.checked += 1
        if not _inside_run(store, run_id, rel):
            result.problems.append(f"{name}: attested path {rel!r} leaves the run directory")
            continue
        covered.add(rel)
        path = store.run_path(run_id, rel)
        if not store.exists(path):
            result.missing.append(f"{name} ({rel})")
        elif sha256_bytes(store.read_bytes(path)) != (subject.get("digest") or {}).get("sha256"):
            result.differ.append(f"{name} ({rel})")
    result.unattested = [rel for rel in store.list_run_files(run_id) if rel not in covered]
    return result


def _inside_run(store: ArtifactStore, run_id: str, rel: str) -> bool:
    parts = rel.split("/")
    if not rel or rel.startswith("/") or ".." in parts or os.path.normpath(rel) != rel:
        return False
    if store.is_local:
        root = os.path.realpath(store.run_path(run_id))
        return os.path.realpath(store.run_path(run_id, rel)).startswith(root + os.sep)
    return True
