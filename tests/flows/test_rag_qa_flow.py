"""The whole rag_qa flow on real Prefect, GX and files: offline run, audit, cache reuse, bad input."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from assay.artifacts import JUDGE_CALLS_DIR
from assay.lineage.audit import audit_run
from assay.lineage.manifest import load_manifest
from assay.lineage.store import ArtifactStore
from tests.support.cli import cli, run_id_of
from tests.support.feedback_script import foreign_in_korean, plain


@pytest.fixture(scope="module")
def first_run(prefect_server, tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    result, output = cli("run", "rag_qa", "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    return out, run_id_of(output), output


def test_offline_run_writes_an_audited_run_directory(first_run, bundled_rag_qa):
    out, run_id, output = first_run
    run_dir = out / run_id
    assert f"run dir: {run_dir}" in output
    for name in ("manifest.json", "report.md", "report.html", "scores.parquet", "charts/mrr_by_category.png"):
        assert (run_dir / name).is_file(), name
    manifest = load_manifest(ArtifactStore(str(out)), run_id)
    assert manifest.status == "completed"
    assert [s.name for s in manifest.steps][:3] == ["ingest", "validate", "replay"]
    assert manifest.code.code_version
    # the commit that ran when the code is a git checkout, and none claimed when it is not (a tarball)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parents[2], capture_output=True,
                          text=True)
    assert manifest.code.git_commit == (head.stdout.strip() if head.returncode == 0 else None)
    assert (manifest.environment.packages["prefect"] or "").startswith("3.8")
    assert manifest.prefect.flow_run_id
    assert all(entry.task_run_id for entry in manifest.artifacts.values())
    assert audit_run(ArtifactStore(str(out)), run_id).ok

    n_cases = sum(1 for line in (bundled_rag_qa / "cases.jsonl").read_text().splitlines() if line.strip())
    scores = pd.read_parquet(run_dir / "scores.parquet")
    final = scores[scores["judge"].isna()]
    assert set(final["metric"]) >= {"reciprocal_rank", "ndcg@10", "precision@10", "recall@10", "keyword_coverage"}
    assert final.groupby("metric").size().eq(n_cases).all()
    assert final["value"].dropna().between(0, 5).all()

    report = (run_dir / "report.md").read_text()
    assert "## By category" in report and "## Per case" in report
    assert "Offline jury" in report and "assay calibrate RUN --labels FILE" in report
    html = (run_dir / "report.html").read_text()
    head = html.split("<body>")[0]
    assert "data:image/png;base64," in html and "http://" not in head and "https://" not in head
    assert "Content-Security-Policy" in head  # the page can load nothing and run only its own script
    assert re.search(r"script-src 'sha256-[A-Za-z0-9+/=]+'", head)


def test_metrics_discriminate_on_the_bundled_data(first_run):
    out, run_id, _ = first_run
    scores = pd.read_parquet(out / run_id / "scores.parquet")
    final = scores[scores["judge"].isna()]
    for metric in ("reciprocal_rank", "ndcg@10", "keyword_coverage", "accuracy"):
        values = final.loc[final["metric"] == metric, "value"].dropna()
        assert values.nunique() >= 3, f"{metric} does not discriminate: {sorted(values.unique())}"


def test_identical_second_run_is_all_cache_hits(first_run):
    out, first_id, _ = first_run
    result, output = cli("run", "rag_qa", "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    second_id = run_id_of(output)
    manifest = load_manifest(ArtifactStore(str(out)), second_id)
    assert {s.status for s in manifest.steps} == {"reused"}, [(s.name, s.status) for s in manifest.steps]
    assert f"{len(manifest.steps)} of {len(manifest.steps)} steps reused" in output
    a = pd.read_parquet(out / first_id / "scores.parquet")
    b = pd.read_parquet(out / second_id / "scores.parquet")
    pd.testing.assert_frame_equal(a, b)
    assert audit_run(ArtifactStore(str(out)), second_id).ok


def test_a_changed_code_version_reruns_every_step(first_run, monkeypatch):
    """The code version keys every step (a cache policy, ``tasks.common.CodeVersion``): the same
    inputs under other code are no cache hit; the identical rerun above is one."""
    from assay.tasks import common

    out, _, _ = first_run
    monkeypatch.setattr(common, "code_version", lambda: "another version of the code")
    result, output = cli("run", "rag_qa", "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    manifest = load_manifest(ArtifactStore(str(out)), run_id_of(output))
    assert {s.status for s in manifest.steps} == {"ran"}, [(s.name, s.status) for s in manifest.steps]


def test_audit_names_a_changed_byte_and_a_deleted_artifact(first_run, tmp_path):
    out, run_id, _ = first_run
    copy_root = tmp_path / "copy"
    shutil.copytree(out / run_id, copy_root / run_id)
    manifest = json.loads((copy_root / run_id / "manifest.json").read_text())
    generations = manifest["artifacts"]["generations/generations.jsonl"]["path"]
    target = copy_root / run_id / generations
    data = bytearray(target.read_bytes())
    data[10] ^= 0x01
    target.write_bytes(bytes(data))
    (copy_root / run_id / "report.md").unlink()
    result, output = cli("audit", str(copy_root / run_id))
    assert result.exit_code == 1
    assert "TAMPERED" in output and "generations/generations.jsonl" in output
    assert "MISSING" in output and "report.md" in output


def corrupted_copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    lines = (dst / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    rows[1]["id"] = rows[0]["id"]  # duplicate id
    rows[2]["source_docs"] = ["politics/missing.md"]  # no such document under kb/
    del rows[3]["question"]  # missing question
    text = [json.dumps(r, ensure_ascii=False) for r in rows]
    text.insert(5, '{"id": "broken", "question": ')  # malformed line 6
    (dst / "cases.jsonl").write_text("\n".join(text) + "\n", encoding="utf-8")
    return dst


def test_corrupted_dataset_stops_at_the_gate_with_all_four_named(prefect_server, bundled_rag_qa, tmp_path):
    bad = corrupted_copy(bundled_rag_qa, tmp_path / "bad")
    rows = [json.loads(line) for line in (bundled_rag_qa / "cases.jsonl").read_text().splitlines() if line.strip()]
    out = tmp_path / "runs"
    result, output = cli("run", "rag_qa", "--offline", "--dataset", str(bad), "--out", str(out))
    assert result.exit_code == 2, output
    assert "Traceback" not in output
    assert "line 6" in output  # malformed JSON
    assert rows[0]["id"] in output and "unique" in output  # duplicate id
    assert "politics/missing.md" in output  # unknown source doc
    assert "question" in output  # missing question
    run_id = run_id_of(output)
    manifest = load_manifest(ArtifactStore(str(out)), run_id)
    assert manifest.status == "failed_validation"
    assert [s.name for s in manifest.steps] == ["ingest", "validate"]
    assert "validation/report.json" in manifest.artifacts
    assert audit_run(ArtifactStore(str(out)), run_id).ok


def test_quarantine_sets_bad_rows_aside_and_lists_them(prefect_server, bundled_rag_qa, tmp_path):
    bad = corrupted_copy(bundled_rag_qa, tmp_path / "bad")
    out = tmp_path / "runs"
    result, output = cli("run", "rag_qa", "--offline", "--quarantine", "--dataset", str(bad), "--out", str(out))
    assert result.exit_code == 0, output
    run_id = run_id_of(output)
    manifest = load_manifest(ArtifactStore(str(out)), run_id)
    quarantine = manifest.artifacts["validation/quarantine.json"]
    listed = json.loads((out / run_id / quarantine.path).read_text())["quarantined_ids"]
    assert len(listed) >= 3
    scores = pd.read_parquet(out / run_id / "scores.parquet")
    assert not set(listed) & set(scores["case_id"])
    report = (out / run_id / "report.md").read_text()
    assert all(case_id in report.split("Quarantined rows")[1].splitlines()[0] for case_id in listed)


def judge_records(run_dir: Path) -> list[dict]:
    """The run's stored judge call records, by artifact name."""
    artifacts = json.loads((run_dir / "manifest.json").read_text())["artifacts"]
    return [
        json.loads((run_dir / entry["path"]).read_text(encoding="utf-8"))
        for name, entry in sorted(artifacts.items()) if name.startswith(JUDGE_CALLS_DIR)
    ]


def test_a_korean_offline_run_explains_every_verdict_in_korean(first_run):
    """The default `--lang ko` reaches every offline verdict whole: no Latin-script words in a
    stored verdict's feedback but what the judged answer, reference and question hold (or a
    judge's name): the fitted stage's signals and the claim checks' names are Korean too."""
    out, run_id, _ = first_run
    records = judge_records(out / run_id)
    assert records
    for record in records:
        assert record["request"]["params"]["lang"] == "ko"
        source = plain(" ".join(str(m.get("content", "")) for m in record["request"]["messages"]))
        feedback = json.loads(record["response"]["raw_text"])["feedback"]
        assert not foreign_in_korean(feedback, source), feedback


def test_an_english_offline_run_explains_every_verdict_in_english(prefect_server, tmp_path):
    """`--lang en` reaches the offline jury: each stored verdict's feedback is English but for the
    text it quotes from the Korean answers and references, and its call key carries the language."""
    result, output = cli("run", "rag_qa", "--offline", "--lang", "en", "--out", str(tmp_path))
    assert result.exit_code == 0, output
    records = judge_records(tmp_path / run_id_of(output))
    assert records and all(r["offline"] for r in records)
    quoted = re.compile(r"“[^”]*”|\"(?:[^\"\\]|\\.)*\"")
    for record in records:
        assert record["request"]["params"]["lang"] == "en"
        verdict = json.loads(record["response"]["raw_text"])
        text = next(verdict[k] for k in ("feedback", "reasoning") if k in verdict)
        assert not re.search(r"[\uac00-\ud7a3]", quoted.sub(" ", text)), text
    assert any(re.search(r"[\uac00-\ud7a3]", json.dumps(r["request"]["messages"], ensure_ascii=False)) for r in records)
