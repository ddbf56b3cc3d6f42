"""Datasets are contained and snapshots are trusted only on their hashes: symlinks are refused
at ingest and named by the gate, a snapshot edited, extended or linked on disk is repaired from
the pool before any step reads it, and no store write goes through a planted link."""

import os
import shutil
from pathlib import Path

import pytest

from assay import pipeline
from assay.lineage.snapshots import materialize
from assay.lineage.store import ArtifactStore
from assay.step_inputs import IngestInputs, ValidateInputs
from assay.suites.registry import get_suite
from tests.conftest import ROOT

SECRET = b"TOP-SECRET-BYTES-6f1d"


@pytest.fixture
def rag_copy(tmp_path) -> Path:
    target = tmp_path / "rag"
    shutil.copytree(ROOT / "datasets" / "rag_qa", target)
    return target


@pytest.fixture
def secret_file(tmp_path) -> Path:
    path = tmp_path / "outside" / "passwd"
    path.parent.mkdir()
    path.write_bytes(SECRET)
    return path


def pool_bytes(store_root: Path) -> list[bytes]:
    return [p.read_bytes() for p in store_root.rglob("*") if p.is_file()]


def test_a_symlink_in_the_knowledge_base_is_not_read_and_the_gate_names_it(tmp_path, rag_copy, secret_file):
    (rag_copy / "kb" / "company" / "leak.md").symlink_to(secret_file)
    (rag_copy / "kb" / "linked_dir").symlink_to(secret_file.parent, target_is_directory=True)
    store = ArtifactStore(str(tmp_path / "store"))
    suite = get_suite("rag_qa")
    ingest = pipeline.ingest(store, suite, IngestInputs(rag_copy))
    assert not any(SECRET in data for data in pool_bytes(tmp_path / "store"))
    validation = pipeline.validate(store, suite, ValidateInputs(ingest.snapshot))
    assert not validation.success
    assert "kb/company/leak.md" in validation.text and "is a symlink" in validation.text
    assert "kb/linked_dir" in validation.text and "--allow-symlinks" in validation.text


def test_allow_symlinks_opts_in(tmp_path, rag_copy, secret_file):
    (rag_copy / "kb" / "company" / "linked.md").symlink_to(rag_copy / "kb" / "company" / "overview.md")
    store = ArtifactStore(str(tmp_path / "store"))
    suite = get_suite("rag_qa")
    refused = pipeline.ingest(store, suite, IngestInputs(rag_copy))
    allowed = pipeline.ingest(store, suite, IngestInputs(rag_copy, allow_symlinks=True))
    assert "kb/company/linked.md" not in " ".join(refused.files)
    assert any("linked.md" in name for name in allowed.files)
    assert pipeline.validate(store, suite, ValidateInputs(allowed.snapshot)).success


def test_a_snapshot_edited_extended_or_linked_on_disk_is_repaired_before_it_is_read(tmp_path, rag_copy, secret_file):
    store = ArtifactStore(str(tmp_path / "store"))
    suite = get_suite("rag_qa")
    snapshot = pipeline.ingest(store, suite, IngestInputs(rag_copy)).snapshot
    root = materialize(store, snapshot)
    assert root.is_relative_to(tmp_path / "store")  # in the run store, not a shared temp dir
    original = (root / "generations.jsonl").read_bytes()

    (root / "generations.jsonl").write_bytes(original.replace(b'"answer": "', b'"answer": "EDITED '))
    (root / "kb" / "company" / "planted.md").write_text("# planted\n", encoding="utf-8")
    (root / "cases.jsonl").unlink()
    (root / "cases.jsonl").symlink_to(secret_file)  # a write through this link would clobber it

    data = pipeline.load_snapshot(store, suite, snapshot)
    assert (root / "generations.jsonl").read_bytes() == original
    assert not (root / "kb" / "company" / "planted.md").exists()
    assert not (root / "cases.jsonl").is_symlink() and secret_file.read_bytes() == SECRET
    assert len(data.records) == len((rag_copy / "cases.jsonl").read_text().splitlines())


def test_store_writes_refuse_a_folder_planted_as_a_symlink(tmp_path):
    store = ArtifactStore(str(tmp_path / "store"))
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (tmp_path / "store" / ".assay" / "objects").mkdir(parents=True)
    os.symlink(outside, tmp_path / "store" / ".assay" / "objects" / "zz")
    with pytest.raises(PermissionError, match="outside the store"):
        store.write_bytes(store.path(".assay", "objects", "zz", "file"), b"data")
    assert list(outside.iterdir()) == []
