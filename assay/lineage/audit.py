"""``assay audit``: re-hash every artifact of a run and check that its lineage graph is closed."""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.hashing import sha256_bytes
from assay.lineage.manifest import MANIFEST, Manifest, load_manifest
from assay.lineage.store import ArtifactStore


@dataclass
class AuditResult:
    run_id: str
    checked: int = 0
    tampered: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    orphaned: list[str] = field(default_factory=list)
    dangling_inputs: list[str] = field(default_factory=list)
    unknown_producers: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.tampered or self.missing or self.orphaned or self.dangling_inputs or self.unknown_producers)

    def lines(self) -> list[str]:
        out = [f"run {self.run_id}: {self.checked} artifacts re-hashed"]
        for label, items in (
            ("TAMPERED (content differs from recorded sha256)", self.tampered),
            ("MISSING (recorded but not on disk)", self.missing),
            ("ORPHANED (on disk but not in the manifest)", self.orphaned),
            ("DANGLING INPUT (an artifact names an input the manifest lacks)", self.dangling_inputs),
            ("UNKNOWN PRODUCER (produced by a step the run did not record)", self.unknown_producers),
        ):
            out.extend(f"  {label}: {item}" for item in items)
        out.append("audit PASSED" if self.ok else "audit FAILED")
        return out


def audit_run(store: ArtifactStore, run_id: str) -> AuditResult:
    manifest: Manifest = load_manifest(store, run_id)
    result = AuditResult(run_id=run_id)
    steps = {step.name for step in manifest.steps}
    referenced = {MANIFEST}
    for name, entry in sorted(manifest.artifacts.items()):
        referenced.add(entry.path)
        path = store.run_path(run_id, entry.path)
        result.checked += 1
        if not store.exists(path):
            result.missing.append(f"{name} ({entry.path})")
            continue
        if sha256_bytes(store.read_bytes(path)) != entry.sha256:
            result.tampered.append(f"{name} ({entry.path})")
        for parent in entry.inputs:
            if parent not in manifest.artifacts:
                result.dangling_inputs.append(f"{name} <- {parent}")
        if entry.producer not in steps:
            result.unknown_producers.append(f"{name} (producer {entry.producer!r})")
    for rel in store.list_run_files(run_id):
        if rel not in referenced:
            result.orphaned.append(rel)
    return result
