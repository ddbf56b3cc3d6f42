"""The run manifest: what was produced, from what, by which step, code and environment."""

from __future__ import annotations

import json
import platform
import subprocess
from datetime import UTC, datetime
from importlib import metadata
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from assay import timeline
from assay.hashing import sha256_json
from assay.lineage.store import ArtifactStore
from assay.liveness import RunProcess
from assay.paths import project_root
from assay.redact import redact_obj
from assay.schemas import JsonObject
from assay.signing import SIGNING_KEY_ENV, key_id, signature_of, signing_key  # noqa: F401  (re-exported)

MANIFEST = "manifest.json"
ATTESTATION = "attestation.intoto.jsonl"  # written by `assay attest` (assay.lineage.attestation)
SCHEMA_VERSION = 2  # 2: run_spec + options replace parameters
StepStatus = Literal["ran", "reused", "failed", "skipped"]
RunStatus = Literal["running", "completed", "incomplete", "failed", "failed_validation", "stopped"]

class RunIntegrityError(RuntimeError):
    """A run file whose bytes no longer match the hash its manifest recorded, or a run that
    fails its audit where trusting it would spread the change (``assay calibrate``)."""


class DamagedRun(RunIntegrityError, ValueError):
    """A run whose manifest cannot be read, or a file its manifest lists that is gone: readers
    name it in one line (``assay runs`` lists it as damaged) instead of failing."""


# Packages whose versions a score depends on; recorded in every manifest.
TRACKED_PACKAGES = (
    "assay",
    "prefect",
    "pydantic",
    "pandas",
    "litellm",
    "great-expectations",
    "sentence-transformers",
    "torch",
    "kiwipiepy",
    "numpy",
)


class ArtifactEntry(BaseModel):
    sha256: str
    path: str = Field(description="file path relative to the run directory")
    producer: str = Field(description="the step that produced it")
    inputs: list[str] = Field(default_factory=list, description="names of the artifacts it was made from")
    media_type: str = "application/octet-stream"
    size: int = 0
    task_run_id: str | None = None
    reused: bool = Field(default=False, description="taken from a cached step of an earlier run")


class StepRecord(BaseModel):
    name: str
    status: StepStatus
    task_run_id: str | None = None
    started_at: str | None = Field(default=None, description="when the step began (ISO 8601, UTC)")
    duration_s: float = 0.0
    outputs: list[str] = Field(default_factory=list)
    detail: str = ""
    judge_calls_sent: int = 0
    judge_calls_reused: int = 0


class CodeState(BaseModel):
    git_commit: str | None = None
    git_dirty: bool | None = Field(default=None, description="uncommitted changes in the work tree; None outside git")
    code_version: str = Field(default="", description="hash of the assay package's code and rule data")


class Environment(BaseModel):
    python: str = ""
    platform: str = ""
    packages: dict[str, str | None] = Field(default_factory=dict, description="name -> installed version")


class PrefectRun(BaseModel):
    flow_run_id: str | None = None
    flow_run_name: str | None = None


class ModelsUsed(BaseModel):
    generator: str | None = Field(default=None, description="the live generator's model (None: recorded replay)")
    target: str | None = Field(default=None, description="the user's own system under test, when live replay called it")
    judges: list[str] = Field(default_factory=list)


class Amendment(BaseModel):
    """A step added to a finished run, and the root hash the run had before it, so a run
    chained to the earlier anchor still audits (see ``assay.lineage.audit``)."""

    step: str
    at: str
    previous_root: str
    detail: str = ""


class Manifest(BaseModel):
    schema_version: int = SCHEMA_VERSION
    run_id: str
    suite: str
    status: RunStatus = "running"
    message: str = ""
    created_at: str
    finished_at: str | None = None
    parent_run: str | None = None
    process: RunProcess | None = Field(
        default=None, description="the process running the run, so a reader can tell an interrupted run (assay.liveness)"
    )
    # As recorded; validated into assay.spec.RunSpec / RunOptions when a rerun or deep audit uses
    # them, so a run recorded by an older version can still be listed and audited.
    run_spec: JsonObject = Field(default_factory=dict, description="assay.spec.RunSpec: what changes results")
    options: JsonObject = Field(default_factory=dict, description="assay.spec.RunOptions: how it ran")
    config_hash: str = ""
    code: CodeState = Field(default_factory=CodeState)
    environment: Environment = Field(default_factory=Environment)
    prefect: PrefectRun = Field(default_factory=PrefectRun)
    models: ModelsUsed = Field(default_factory=ModelsUsed)
    prompts: dict[str, str] = Field(default_factory=dict, description="prompt id -> sha256")
    steps: list[StepRecord] = Field(default_factory=list)
    artifacts: dict[str, ArtifactEntry] = Field(default_factory=dict)
    set_aside: list[str] = Field(default_factory=list, description="corrupt pool objects this run moved aside")
    # The anchor (see ``anchor``): a chain to the previous finished run and a root hash over
    # every other field, HMAC-signed when ASSAY_SIGNING_KEY is set.
    chain_parent: str | None = Field(default=None, description="the run this one chains to")
    chain_parent_root: str | None = Field(default=None, description="that run's root hash when this run began")
    signing_key_id: str | None = Field(default=None, description="sha256 of the signing key, first 16 hex")
    amendments: list[Amendment] = Field(
        default_factory=list, description="steps added after the run finished (assay calibrate), oldest first"
    )
    root_hash: str = ""
    signature: str | None = None


UNHASHED = ("root_hash", "signature")


def root_hash_of(record: JsonObject) -> str:
    """sha256 over a manifest record's canonical JSON, the anchor fields left out."""
    return sha256_json({k: v for k, v in record.items() if k not in UNHASHED})


def anchor(record: JsonObject) -> JsonObject:
    """``record`` with its root hash and, when a signing key is set, its HMAC signature."""
    key = signing_key()
    record = {**record, "signing_key_id": key_id(key) if key else None}
    root = root_hash_of(record)
    return {**record, "root_hash": root, "signature": signature_of(root, key) if key else None}


def chain_parent(store: ArtifactStore, parent_run: str | None) -> tuple[str | None, str | None]:
    """The run a new run chains to (the rerun's source, else the latest finished run in the
    store) and that run's root hash now, so a later edit of it breaks the chain."""
    candidates = [parent_run] if parent_run else list(reversed(store.list_runs()))
    for run_id in candidates:
        try:
            record = json.loads(store.read_bytes(store.run_path(run_id, MANIFEST)))
        except (FileNotFoundError, ValueError):
            continue
        if record.get("status") != "running" and record.get("root_hash"):
            return run_id, record["root_hash"]
    return None, None


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def code_state(version: str) -> CodeState:
    """The commit of the code that ran, and whether the work tree had uncommitted changes."""
    root = project_root()

    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return out.stdout.strip() if out.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return CodeState(git_commit=commit, git_dirty=bool(status) if status is not None else None, code_version=version)


def environment() -> Environment:
    packages = {}
    for name in TRACKED_PACKAGES:
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            packages[name] = None
    return Environment(python=platform.python_version(), platform=platform.platform(), packages=packages)


def config_hash(parameters: JsonObject) -> str:
    return sha256_json(parameters)


def load_manifest_record(store: ArtifactStore, run_id: str) -> JsonObject:
    """The manifest as stored (the audit hashes exactly these fields)."""
    path = store.run_path(run_id, MANIFEST)
    if not store.exists(path):
        runs = store.list_runs()
        hint = f" Known runs: {', '.join(runs[-5:])}" if runs else ""
        raise FileNotFoundError(f"no run {run_id!r} under {store.url} (no {MANIFEST}).{hint}")
    try:
        record = json.loads(store.read_bytes(path))
    except (ValueError, UnicodeDecodeError) as exc:  # empty, truncated or not text
        raise DamagedRun(f"run {run_id} is damaged: its {MANIFEST} is not JSON ({exc})") from None
    if not isinstance(record, dict):
        raise DamagedRun(f"run {run_id} is damaged: its {MANIFEST} holds a {type(record).__name__}, not an object")
    return record


def load_manifest(store: ArtifactStore, run_id: str) -> Manifest:
    return manifest_of(load_manifest_record(store, run_id), run_id)


def manifest_of(record: JsonObject, run_id: str) -> Manifest:
    """The typed manifest of a stored record; fields of the wrong type make the run damaged."""
    try:
        return Manifest.model_validate(record)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top)"
        raise DamagedRun(f"run {run_id} is damaged: its {MANIFEST} field {where}: {first['msg']}") from None


class RunRecorder:
    """Builds a run directory: adopts artifacts, records steps, writes the manifest."""

    def __init__(self, store: ArtifactStore, manifest: Manifest, chain: bool = True, run_dir: str | None = None) -> None:
        """``chain=False`` amends a finished run: its chain stays as it was. ``run_dir``: the
        run directory's name in the store when it is not the run id (an amended copy or moved run)."""
        self.store = store
        self.manifest = manifest
        self.root_hash: str | None = None
        self.run_dir = run_dir or manifest.run_id
        if chain and manifest.chain_parent is None:
            manifest.chain_parent, manifest.chain_parent_root = chain_parent(store, manifest.parent_run)

    @property
    def run_id(self) -> str:
        return self.manifest.run_id

    def record(
        self,
        name: str,
        sha: str,
        producer: str,
        inputs: list[str] | None = None,
        media_type: str = "application/json",
        task_run_id: str | None = None,
        reused: bool = False,
        path: str | None = None,
        verified_size: int | None = None,
    ) -> ArtifactEntry:
        """Add an artifact from the pool to the run: at ``path`` if given, else content-addressed.

        ``verified_size``: the caller has just read the pool object and found it hashes to
        ``sha`` (a cache hit's check), so it is not read and hashed a second time here.
        """
        # One read of the pool object (get() re-hashes it) serves the check and the size; the
        # run gets a hard link to it where the disk allows (written once), else a copy.
        data = self.store.get(sha) if verified_size is None else None
        rel = path or self.store.object_relpath(sha)
        target = self.store.run_path(self.run_dir, rel)
        if path is not None or not self.store.exists(target):
            self.store.adopt(sha, target, data)
        size = len(data) if data is not None else verified_size
        missing = [i for i in inputs or [] if i not in self.manifest.artifacts]
        if missing:
            raise ValueError(f"artifact {name!r} names inputs not recorded yet: {missing}")
        entry = ArtifactEntry(
            sha256=sha,
            path=rel,
            producer=producer,
            inputs=list(inputs or []),
            media_type=media_type,
            size=size,
            task_run_id=task_run_id,
            reused=reused,
        )
        self.manifest.artifacts[name] = entry
        return entry

    def step(self, record: StepRecord) -> None:
        self.manifest.steps.append(record)

    def save(self) -> None:
        with timeline.timed("manifest saves"):
            # Redacted as a whole: a failure message or a parameter must never carry a credential.
            record = anchor(redact_obj(self.manifest.model_dump(mode="json")))
            data = json.dumps(record, ensure_ascii=False, indent=2).encode("utf-8")
            self.store.write_bytes(self.store.run_path(self.run_dir, MANIFEST), data)
            self.root_hash = record["root_hash"]  # of the manifest as last saved

    def finish(self, status: RunStatus, message: str = "") -> None:
        self.manifest.status = status
        self.manifest.message = message
        self.manifest.finished_at = now_iso()
        self.save()
