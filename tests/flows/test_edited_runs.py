"""A run whose files were edited after it finished: no command prints, compares or gates on the
edited numbers, and ``assay calibrate`` (which re-renders the report and re-anchors the
manifest) refuses it rather than bless the edit."""

from __future__ import annotations

import json
import os
from pathlib import Path

from assay.lineage.audit import audit_run
from assay.lineage.manifest import anchor, load_manifest
from assay.lineage.store import ArtifactStore
from tests.support.cli import cli, run_id_of


def _file(out: Path, run_id: str, name: str) -> Path:
    path = out / run_id / load_manifest(ArtifactStore(str(out)), run_id).artifacts[name].path
    os.chmod(path, 0o644)
    return path


def test_an_edited_run_is_refused_not_trusted(prefect_server, tmp_path):
    out = tmp_path / "runs"
    result, output = cli("run", "memory", "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    run_id = run_id_of(output)
    store = ArtifactStore(str(out))
    labels = tmp_path / "people.csv"
    labels.write_text("case_id,metric,score\nc01-q1,relevance,10\nc01-q2,relevance,9\n", encoding="utf-8")

    # an edited report: calibrating would re-render it and re-anchor the manifest over the edit
    report = _file(out, run_id, "report.md")
    report.write_text(report.read_text(encoding="utf-8").replace("Offline jury", "Trusted jury"), encoding="utf-8")
    result, output = cli("calibrate", run_id, "--out", str(out), "--labels", str(labels))
    assert result.exit_code == 1 and "fails its audit" in output and "TAMPERED" in output and "report.md" in output
    after = audit_run(store, run_id)
    assert not after.ok and "report.md (report.md)" in after.tampered
    assert "calibration.json" not in load_manifest(store, run_id).artifacts

    # an edited summary: show, runs and compare name the file instead of printing its numbers
    summary_path = _file(out, run_id, "summary.json")
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    summary["overall"]["overall"]["mean"] = 99.5
    summary_path.write_text(json.dumps(summary), encoding="utf-8")
    for args in (("show", run_id), ("compare", run_id, run_id)):
        result, output = cli(*args, "--out", str(out))
        assert result.exit_code == 1, output
        assert f"summary.json of run {run_id} no longer matches the sha256 its manifest recorded" in output
    result, output = cli("runs", "--out", str(out))
    assert result.exit_code == 0 and "edited: summary.json" in output and "99.5" not in output

    # an edited baseline: the compare step fails, and a regression gate does not pass unchecked
    scores = _file(out, run_id, "scores.parquet")
    scores.write_bytes(scores.read_bytes() + b"\0")
    result, output = cli("run", "memory", "--offline", "--out", str(out), "--compare-with", run_id, "--fail-on-regression")
    assert result.exit_code == 1, output
    assert f"scores.parquet of run {run_id} no longer matches" in output
    assert "--fail-on-regression cannot pass without it" in output
    result, output = cli("run", "memory", "--offline", "--out", str(out), "--compare-with", run_id)
    assert result.exit_code == 0, output  # no gate asked: the run stands, its compare step shows the failure
    compare = next(s for s in load_manifest(store, run_id_of(output)).steps if s.name == "compare")
    assert compare.status == "failed" and "RunIntegrityError" in compare.detail
    later = run_id_of(output)

    # an edited manifest: neither a comparison nor --compare-with latest takes it as the baseline
    manifest_path = out / later / "manifest.json"
    record = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest_path.write_text(json.dumps({**record, "message": "all good"}), encoding="utf-8")
    result, output = cli("compare", later, later, "--out", str(out))
    assert result.exit_code == 1 and f"run {later}'s manifest fails its anchor check" in output
    result, output = cli("run", "memory", "--offline", "--out", str(out), "--compare-with", "latest")
    assert result.exit_code == 0, output
    newest = load_manifest(store, run_id_of(output))
    comparison = json.loads((out / newest.run_id / newest.artifacts["comparison.json"].path).read_text(encoding="utf-8"))
    assert comparison["baseline"] not in (later, run_id_of(output))  # the newest intact run before it


def _edit_spec(out: Path, run_id: str, reanchor: bool) -> None:
    """Point the recorded spec at a function to call on rerun; optionally recompute the anchor
    (root hash, and the signature when a key is set) as a writer without the key would."""
    path = out / run_id / "manifest.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    record["run_spec"]["replay"] = "live"
    record["run_spec"]["target"] = {"function": "os:system"}
    if reanchor:
        record = anchor({k: v for k, v in record.items() if k not in ("root_hash", "signature", "signing_key_id")})
    path.write_text(json.dumps(record), encoding="utf-8")


def test_a_rerun_never_executes_an_edited_spec(prefect_server, tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_SIGNING_KEY", "k" * 32)
    out = tmp_path / "runs"
    result, output = cli("run", "memory", "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    run_id = run_id_of(output)

    _edit_spec(out, run_id, reanchor=False)  # a plain edit: the root hash no longer holds
    result, output = cli("rerun", run_id, "--out", str(out))
    assert result.exit_code == 1 and "fails its anchor check" in output and "os:system" not in output

    monkeypatch.setenv("ASSAY_SIGNING_KEY", "x" * 32)  # the writer's own key: a new root, a foreign signature
    _edit_spec(out, run_id, reanchor=True)
    monkeypatch.setenv("ASSAY_SIGNING_KEY", "k" * 32)
    result, output = cli("rerun", run_id, "--out", str(out))
    assert result.exit_code == 1 and "signed with another key" in output
