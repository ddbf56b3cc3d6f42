"""Tampering with a finished run, each way an attacker with write access to the store could,
and the audit naming what changed: consistent score-and-hash edits (caught by --deep, and by
the signature when the run was signed), manifest edits, deleted artifacts, objects not named by
their hash, paths leaving the run, and an edit of an earlier run in the chain."""

import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from assay.deep_audit import audit_deep
from assay.lineage.audit import audit_run
from assay.lineage.manifest import UNHASHED, anchor
from assay.lineage.store import ArtifactStore
from tests.support.cli import cli, run_id_of
from tests.support.memory_data import write_memory_dataset


@pytest.fixture(scope="module")
def finished_run(prefect_server, tmp_path_factory):
    root = tmp_path_factory.mktemp("tamper")
    data = write_memory_dataset(root / "data")
    out = root / "runs"
    result, output = cli("run", "memory", "--dataset", str(data), "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    return data, out, run_id_of(output)


@pytest.fixture
def run(finished_run, tmp_path):
    """A private copy of the finished run's store to tamper with."""
    _, out, run_id = finished_run
    copy = tmp_path / "runs"
    shutil.copytree(out, copy, symlinks=True)
    return copy, run_id


def manifest_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))


def write_manifest(run_dir: Path, record: dict, rehash: bool = True) -> None:
    """Save an edited manifest; ``rehash`` recomputes its root as an attacker without the key can."""
    if rehash:
        record = anchor({k: v for k, v in record.items() if k not in UNHASHED})
    (run_dir / "manifest.json").write_text(json.dumps(record, ensure_ascii=False, indent=2), encoding="utf-8")


def replace_object(run_dir: Path, record: dict, name: str, data: bytes) -> None:
    """Swap an artifact's content and make its entry agree: new object name, hash and size."""
    entry = record["artifacts"][name]
    sha = hashlib.sha256(data).hexdigest()
    new = f"objects/{sha[:2]}/{sha}" if entry["path"].startswith("objects/") else entry["path"]
    if new != entry["path"]:
        (run_dir / entry["path"]).unlink()
    (run_dir / new).parent.mkdir(parents=True, exist_ok=True)
    (run_dir / new).write_bytes(data)
    entry.update(sha256=sha, path=new, size=len(data))


def edit_overall_consistently(run_dir: Path, case_id: str, value: float) -> None:
    """Change one overall score in scores/all.jsonl and scores.parquet and every hash after them."""
    record = manifest_of(run_dir)
    path = run_dir / record["artifacts"]["scores/all.jsonl"]["path"]
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        if row["case_id"] == case_id and row["metric"] == "overall" and row.get("judge") is None:
            row["value"] = value
    data = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows).encode()
    replace_object(run_dir, record, "scores/all.jsonl", data)
    frame = pd.read_parquet(run_dir / "scores.parquet")
    frame.loc[(frame["case_id"] == case_id) & (frame["metric"] == "overall") & frame["judge"].isna(), "value"] = value
    frame.to_parquet(run_dir / "scores.parquet")
    replace_object(run_dir, record, "scores.parquet", (run_dir / "scores.parquet").read_bytes())
    write_manifest(run_dir, record)


def test_a_clean_run_passes_both_audits_and_says_it_is_unsigned(run):
    out, run_id = run
    plain = audit_run(ArtifactStore(str(out)), run_id)
    assert plain.ok, plain.lines()
    assert any("unsigned run" in n for n in plain.notices)
    deep = audit_deep(ArtifactStore(str(out)), run_id)
    assert deep.ok, deep.lines()


def test_a_consistent_score_and_hash_edit_is_caught_by_the_deep_audit(run):
    out, run_id = run
    edit_overall_consistently(out / run_id, "t2-q1", 99.0)
    assert audit_run(ArtifactStore(str(out)), run_id).ok  # every hash agrees: only recomputing tells
    deep = audit_deep(ArtifactStore(str(out)), run_id)
    assert not deep.ok
    text = "\n".join(deep.lines())
    assert "scores/all.jsonl: case t2-q1 overall: stored 99, recomputed" in text
    result, output = cli("audit", run_id, "--out", str(out), "--deep")
    assert result.exit_code != 0 and "RECOMPUTED DIFFERS" in output and "t2-q1" in output


def test_a_signed_run_fails_the_plain_audit_after_a_consistent_edit(finished_run, tmp_path, monkeypatch):
    data, _, _ = finished_run
    monkeypatch.setenv("ASSAY_SIGNING_KEY", "a-long-signing-key-for-tests")
    out = tmp_path / "signed"
    result, output = cli("run", "memory", "--dataset", str(data), "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    run_id = run_id_of(output)
    record = manifest_of(out / run_id)
    assert record["signature"] and record["signing_key_id"]
    assert b"a-long-signing-key-for-tests" not in (out / run_id / "manifest.json").read_bytes()
    clean = audit_run(ArtifactStore(str(out)), run_id)
    assert clean.ok and "signature verified" in clean.notices

    monkeypatch.delenv("ASSAY_SIGNING_KEY")  # the attacker has no key
    edit_overall_consistently(out / run_id, "t2-q1", 99.0)
    monkeypatch.setenv("ASSAY_SIGNING_KEY", "a-long-signing-key-for-tests")
    tampered = audit_run(ArtifactStore(str(out)), run_id)
    assert not tampered.ok and any("unsigned" in m for m in tampered.manifest), tampered.lines()


def test_an_edited_manifest_field_fails(run):
    out, run_id = run
    record = manifest_of(out / run_id)
    record["run_spec"]["replay"] = "live"
    write_manifest(out / run_id, record, rehash=False)
    result = audit_run(ArtifactStore(str(out)), run_id)
    assert not result.ok and "the manifest was edited" in result.manifest[0]


def test_deleting_an_artifact_with_its_entry_fails(run):
    out, run_id = run
    record = manifest_of(out / run_id)
    entry = record["artifacts"].pop("summary.json")
    (out / run_id / entry["path"]).unlink()
    write_manifest(out / run_id, record)
    result = audit_run(ArtifactStore(str(out)), run_id)
    assert not result.ok and any("summary.json (an output of step aggregate" in m for m in result.missing)


def test_an_object_not_named_by_its_hash_and_a_path_leaving_the_run_fail(run):
    out, run_id = run
    record = manifest_of(out / run_id)
    entry = record["artifacts"]["summary.json"]
    renamed = f"objects/{entry['sha256'][:2]}/not-its-hash"
    (out / run_id / entry["path"]).rename(out / run_id / renamed)
    entry["path"] = renamed
    record["artifacts"]["generations/generations.jsonl"]["path"] = "../elsewhere.jsonl"
    write_manifest(out / run_id, record)
    result = audit_run(ArtifactStore(str(out)), run_id)
    text = "\n".join(result.misplaced)
    assert "summary.json" in text and "not named by its sha256" in text
    assert "generations/generations.jsonl" in text and "leaves the run directory" in text


def test_editing_an_earlier_run_breaks_the_chain_of_the_next(finished_run, run):
    data, _, _ = finished_run
    out, first = run
    result, output = cli("run", "memory", "--dataset", str(data), "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    second = run_id_of(output)
    assert manifest_of(out / second)["chain_parent"] == first
    assert audit_run(ArtifactStore(str(out)), second).ok

    record = manifest_of(out / first)
    record["message"] = "rewritten history"
    write_manifest(out / first, record)  # consistent on its own
    assert audit_run(ArtifactStore(str(out)), first).ok
    broken = audit_run(ArtifactStore(str(out)), second)
    assert not broken.ok and any(f"chain broken: run {first}" in m for m in broken.manifest)


class _Marker:
    """Unpickling this creates a file: proof that code ran."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (Path.touch, (Path(self.path),))


def test_planted_pickle_results_are_never_loaded_and_the_steps_run_again(finished_run, run, tmp_path):
    """The worst case without a signing key: every cached task result replaced by a pickle
    record, with digests recomputed to match. Nothing is unpickled; every step runs again."""
    import base64
    import pickle

    from assay.signing import record_digest as digest

    data, _, _ = finished_run
    out, _ = run
    marker = tmp_path / "code-ran"
    results = out / ".assay" / "prefect-results"
    planted = 0
    for path in results.iterdir():
        if not path.is_file():
            continue
        record = json.loads(path.read_bytes())
        record["metadata"]["serializer"] = {"type": "pickle", "picklelib": "pickle", "picklelib_version": None}
        record["result"] = base64.encodebytes(pickle.dumps(_Marker(str(marker)))).decode()
        content = json.dumps(record).encode()
        path.write_bytes(content)
        index = results / ".digests" / hashlib.sha256(str(path.name).encode()).hexdigest()
        index.write_text(digest(content), encoding="ascii")
        planted += 1
    assert planted >= 5

    result, output = cli("run", "memory", "--dataset", str(data), "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    assert not marker.exists()
    record = manifest_of(out / run_id_of(output))
    assert {s["status"] for s in record["steps"]} == {"ran"}, record["steps"]
    assert audit_run(ArtifactStore(str(out)), run_id_of(output)).ok
