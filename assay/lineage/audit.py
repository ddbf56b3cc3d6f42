"""``assay audit``: check a run against its own anchor, then every artifact against the manifest.

What the audit proves (docs/security.md): every artifact file hashes to its manifest entry, is
named by its hash (objects) and lies inside the run directory; the lineage graph is closed; the
manifest hashes to its root hash, and the run it chains to still has the root hash recorded
here. With ``ASSAY_SIGNING_KEY`` set the root's HMAC signature is verified too, so an edit of
manifest and artifacts that also recomputes the hashes fails; without a key such a consistent
edit is caught only by ``--deep`` (``assay.lineage.deep``), which recomputes the scores.
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass, field

from assay.hashing import sha256_bytes
from assay.lineage.manifest import (
    ATTESTATION,
    MANIFEST,
    SIGNING_KEY_ENV,
    Manifest,
    key_id,
    load_manifest_record,
    manifest_of,
    root_hash_of,
    signature_of,
    signing_key,
)
from assay.lineage.store import ArtifactStore, plain_relative


@dataclass
class AuditResult:
    run_id: str
    checked: int = 0
    manifest: list[str] = field(default_factory=list)
    tampered: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    misplaced: list[str] = field(default_factory=list)
    orphaned: list[str] = field(default_factory=list)
    dangling_inputs: list[str] = field(default_factory=list)
    unknown_producers: list[str] = field(default_factory=list)
    recomputed: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (
            self.manifest or self.tampered or self.missing or self.misplaced or self.orphaned
            or self.dangling_inputs or self.unknown_producers or self.recomputed
        )

    def lines(self) -> list[str]:
        out = [f"run {self.run_id}: {self.checked} artifacts re-hashed"]
        for label, items in (
            ("MANIFEST (anchor check failed)", self.manifest),
            ("TAMPERED (content differs from recorded sha256)", self.tampered),
            ("MISSING (recorded but not on disk)", self.missing),
            ("MISPLACED (path outside the run, a link, or an object not named by its hash)", self.misplaced),
            ("ORPHANED (on disk but not in the manifest)", self.orphaned),
            ("DANGLING INPUT (an artifact names an input the manifest lacks)", self.dangling_inputs),
            ("UNKNOWN PRODUCER (produced by a step the run did not record)", self.unknown_producers),
            ("RECOMPUTED DIFFERS (--deep: the stored value is not what its inputs give)", self.recomputed),
        ):
            out.extend(f"  {label}: {item}" for item in items)
        out.extend(f"  note: {n}" for n in self.notices)
        out.append("audit PASSED" if self.ok else "audit FAILED")
        return out


def audit_run(store: ArtifactStore, run_id: str, deep: bool = False) -> AuditResult:
    """Audit the run directory ``run_id`` of ``store`` (its name there, which a copy or a moved
    run may have changed: the manifest's own run id never decides where files are read)."""
    result = AuditResult(run_id=run_id)
    record = load_manifest_record(store, run_id)
    manifest = manifest_of(record, run_id)
    _check_anchor(store, record, result)
    _check_artifacts(store, run_id, manifest, result)
    if deep:
        from assay.lineage.deep import recompute

        recompute(store, manifest, result)
    return result


def anchor_check(store: ArtifactStore, run_id: str) -> AuditResult:
    """Only the manifest's anchor (root hash, chain, signature with a key): what must hold before
    anything the manifest records, such as the run spec a rerun executes, is used."""
    result = AuditResult(run_id=run_id)
    _check_anchor(store, load_manifest_record(store, run_id), result)
    return result


def _check_anchor(store: ArtifactStore, record: dict, result: AuditResult) -> None:
    root = record.get("root_hash")
    if not root:
        result.manifest.append("no root hash (written by an older assay, or stripped)")
    elif root_hash_of(record) != root:
        result.manifest.append("its fields do not hash to its root hash (the manifest was edited)")
    key, signature = signing_key(), record.get("signature")
    if key is not None:
        if not signature:
            result.manifest.append(f"unsigned, while {SIGNING_KEY_ENV} is set (signature missing or stripped)")
        elif record.get("signing_key_id") != key_id(key):
            result.manifest.append(f"signed with another key (id {record.get('signing_key_id')})")
        elif not hmac.compare_digest(signature, signature_of(root or "", key)):
            result.manifest.append("signature does not match the root hash")
        else:
            result.notices.append("signature verified")
    elif signature:
        result.notices.append(f"signed (key id {record.get('signing_key_id')}); set {SIGNING_KEY_ENV} to verify")
    else:
        result.notices.append(
            "unsigned run: hashes prove the files match the manifest, not who wrote it; "
            f"set {SIGNING_KEY_ENV} when running, or use --deep to recompute the scores"
        )
    parent, parent_root = record.get("chain_parent"), record.get("chain_parent_root")
    if parent:
        try:
            parent_record = json.loads(store.read_bytes(store.run_path(parent, MANIFEST)))
        except FileNotFoundError:
            result.notices.append(f"chained run {parent} is not in this store")
        else:
            current = parent_record.get("root_hash")
            # A parent amended later (assay calibrate) keeps the roots it had before.
            earlier = {a.get("previous_root") for a in parent_record.get("amendments") or []}
            if current != parent_root and parent_root in earlier:
                result.notices.append(f"chained run {parent} was amended after this run began")
            elif current != parent_root:
                result.manifest.append(f"chain broken: run {parent} no longer has the root hash recorded here")


def _check_artifacts(store: ArtifactStore, run_dir: str, manifest: Manifest, result: AuditResult) -> None:
    """Every artifact as a file under ``run_dir``, the directory given, whatever run id its
    manifest names: a copy or a moved run is judged by its own files, never by a sibling's."""
    if run_dir != manifest.run_id:
        result.notices.append(f"directory {run_dir} holds run {manifest.run_id} (a copy or a moved run); its own files were checked")
    steps = {step.name for step in manifest.steps}
    referenced = {MANIFEST, ATTESTATION}  # the attestation signs the run's files: it cannot be one of them
    for name, entry in sorted(manifest.artifacts.items()):
        result.checked += 1
        label = f"{name} ({entry.path})"
        if not plain_relative(entry.path):
            result.misplaced.append(f"{label}: path leaves the run directory")
            continue
        if entry.path.startswith("objects/") and entry.path != store.object_relpath(entry.sha256):
            result.misplaced.append(f"{label}: object file not named by its sha256")
        referenced.add(entry.path)
        path = store.run_file(run_dir, entry.path)
        if path is None:
            result.misplaced.append(f"{label}: a link to outside the run directory")
            continue
        if not store.exists(path):
            result.missing.append(label)
            continue
        if sha256_bytes(store.read_bytes(path)) != entry.sha256:
            result.tampered.append(label)
        for parent in entry.inputs:
            if parent not in manifest.artifacts:
                result.dangling_inputs.append(f"{name} <- {parent}")
        if entry.producer not in steps:
            result.unknown_producers.append(f"{name} (producer {entry.producer!r})")
    for step in manifest.steps:
        for output in step.outputs:
            if output not in manifest.artifacts:
                result.missing.append(f"{output} (an output of step {step.name}, gone from the manifest)")
    for rel in store.list_run_files(run_dir):
        if rel not in referenced:
            result.orphaned.append(rel)
