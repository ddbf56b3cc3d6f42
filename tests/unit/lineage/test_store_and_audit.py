"""The content-addressed store, the manifest and the audit, on real files."""

import json
import os
from pathlib import Path

import pytest

from assay.lineage.audit import audit_run
from assay.lineage.manifest import Manifest, RunRecorder, StepRecord, load_manifest, now_iso
from assay.lineage.store import ArtifactStore


def make_run(root, run_id="r1"):
    store = ArtifactStore(str(root))
    recorder = RunRecorder(store, Manifest(run_id=run_id, suite="rag_qa", created_at=now_iso()))
    recorder.step(StepRecord(name="ingest", status="ran"))
    recorder.step(StepRecord(name="publish", status="ran"))
    a = store.put(b"case rows\n")
    b = store.put_json({"score": 1})
    recorder.record("dataset/cases", a, "ingest")
    recorder.record("summary.json", b, "publish", inputs=["dataset/cases"])
    recorder.record("report.md", store.put(b"# report\n"), "publish", inputs=["summary.json"], path="report.md")
    recorder.finish("completed")
    return store, run_id


def test_put_is_content_addressed_and_idempotent(tmp_path):
    store = ArtifactStore(str(tmp_path))
    first = store.put(b"hello")
    assert store.put(b"hello") == first
    assert store.get(first) == b"hello"
    assert store.get_json(store.put_json({"b": 1, "a": 2})) == {"a": 2, "b": 1}
    assert store.put_json({"b": 1, "a": 2}) == store.put_json({"a": 2, "b": 1})


def test_clean_run_passes_audit(tmp_path):
    store, run_id = make_run(tmp_path)
    result = audit_run(store, run_id)
    assert result.ok, result.lines()
    assert result.checked == 3
    assert load_manifest(store, run_id).status == "completed"


def test_one_changed_byte_fails_and_is_named(tmp_path):
    store, run_id = make_run(tmp_path)
    manifest = load_manifest(store, run_id)
    path = tmp_path / run_id / manifest.artifacts["summary.json"].path
    data = bytearray(path.read_bytes())
    data[0] ^= 1
    path.write_bytes(bytes(data))
    result = audit_run(store, run_id)
    assert not result.ok
    assert any("summary.json" in t for t in result.tampered)


def test_run_objects_are_hard_links_to_the_pool_written_once(tmp_path):
    store, run_id = make_run(tmp_path)
    entry = load_manifest(store, run_id).artifacts["summary.json"]
    run_object, pool_object = tmp_path / run_id / entry.path, Path(store.pool_path(entry.sha256))
    assert run_object.stat().st_ino == pool_object.stat().st_ino and run_object.stat().st_nlink == 2
    assert (tmp_path / run_id / "report.md").stat().st_nlink == 2  # published files too


def test_editing_a_linked_run_object_in_place_is_caught_in_the_run_and_in_the_pool(tmp_path):
    store, run_id = make_run(tmp_path)
    entry = load_manifest(store, run_id).artifacts["summary.json"]
    with open(tmp_path / run_id / entry.path, "r+b") as handle:  # in place: the shared inode changes
        handle.write(b"[")
    assert Path(store.pool_path(entry.sha256)).read_bytes().startswith(b"[")
    result = audit_run(store, run_id)
    assert not result.ok and any("summary.json" in t for t in result.tampered)
    with pytest.raises(ValueError, match="did not match its hash"):
        store.get(entry.sha256)  # a later run reusing the object refuses it instead of trusting it


def test_without_hard_links_the_run_gets_a_copy(tmp_path, monkeypatch):
    def no_links(*args, **kwargs):
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", no_links)
    store, run_id = make_run(tmp_path)
    entry = load_manifest(store, run_id).artifacts["summary.json"]
    run_object = tmp_path / run_id / entry.path
    assert run_object.stat().st_nlink == 1 and run_object.read_bytes() == store.get(entry.sha256)
    assert audit_run(store, run_id).ok
    assert not [p for p in (tmp_path / run_id).rglob("*") if ".tmp" in p.name]


def test_deleted_artifact_fails_and_is_named(tmp_path):
    store, run_id = make_run(tmp_path)
    (tmp_path / run_id / "report.md").unlink()
    result = audit_run(store, run_id)
    assert result.missing == ["report.md (report.md)"]
    assert "audit FAILED" in result.lines()[-1]


def test_orphan_and_dangling_input_fail(tmp_path):
    store, run_id = make_run(tmp_path)
    (tmp_path / run_id / "stray.txt").write_text("not in the manifest")
    manifest_path = tmp_path / run_id / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["artifacts"]["summary.json"]["inputs"].append("dataset/ghost")
    manifest_path.write_text(json.dumps(manifest))
    result = audit_run(store, run_id)
    assert result.orphaned == ["stray.txt"]
    assert result.dangling_inputs == ["summary.json <- dataset/ghost"]


def test_recording_an_unknown_input_is_refused(tmp_path):
    store = ArtifactStore(str(tmp_path))
    recorder = RunRecorder(store, Manifest(run_id="r", suite="rag_qa", created_at=now_iso()))
    with pytest.raises(ValueError, match="not recorded"):
        recorder.record("x", store.put(b"x"), "ingest", inputs=["nope"])


def test_unknown_run_names_known_runs(tmp_path):
    store, _ = make_run(tmp_path, "rag_qa-1")
    with pytest.raises(FileNotFoundError, match="rag_qa-1"):
        load_manifest(store, "missing")


def test_store_on_a_non_local_fsspec_filesystem():
    store, run_id = make_run("memory://assay-test-store")
    assert audit_run(store, run_id).ok


def test_jsonl_is_written_and_read_line_by_line_with_the_same_hash_as_whole(tmp_path):
    store = ArtifactStore(str(tmp_path))
    records = [{"case_id": f"c{i}", "text": "줄\u2028안", "value": i / 3} for i in range(50)]
    sha = store.put_jsonl(iter(records))  # a generator: written as it comes
    whole = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records).encode("utf-8")
    assert sha == store.put(whole)
    assert list(store.iter_jsonl(sha)) == records == store.get_jsonl(sha)  # U+2028 inside a value is not a line break
    assert store.put_jsonl([]) == store.put(b"")
    assert not list((tmp_path / ".assay" / "objects").glob("incoming-*"))  # no temporary file left


def test_a_corrupt_jsonl_object_raises_once_read_and_is_set_aside(tmp_path):
    from assay.lineage.store import CorruptArtifact

    store = ArtifactStore(str(tmp_path))
    sha = store.put_jsonl([{"a": 1}, {"a": 2}])
    path = Path(store.pool_path(sha))
    path.write_bytes(path.read_bytes().replace(b"2", b"3"))
    with pytest.raises(CorruptArtifact):
        list(store.iter_jsonl(sha))
    assert not path.exists() and list((tmp_path / ".assay" / "set-aside").iterdir())


def test_a_jsonl_object_edited_into_invalid_json_is_named_corrupt_not_a_parse_error(tmp_path):
    from assay.lineage.store import CorruptArtifact

    store = ArtifactStore(str(tmp_path))
    sha = store.put_jsonl([{"a": 1}, {"a": 2}, {"a": 3}])
    path = Path(store.pool_path(sha))
    path.write_bytes(path.read_bytes().replace(b'{"a": 2}', b'{"a": 2'))
    with pytest.raises(CorruptArtifact):
        list(store.iter_jsonl(sha))
    assert not path.exists()


def test_jsonl_on_a_non_local_store_is_checked_before_it_is_read():
    store = ArtifactStore("memory://assay-jsonl-store")
    sha = store.put_jsonl([{"a": 1}, {"b": [2]}])
    assert list(store.iter_jsonl(sha)) == [{"a": 1}, {"b": [2]}]
