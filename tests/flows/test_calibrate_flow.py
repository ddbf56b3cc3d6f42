"""``assay calibrate`` on a run judged by an LLM jury on the loopback OpenAI-compatible server:
the calibration is written into the run, the report gains its section, and the audit still
passes, for the run itself and for a run chained to it before the calibration."""

from __future__ import annotations

import json

import pytest

from assay.lineage.audit import audit_run
from assay.lineage.manifest import load_manifest
from assay.lineage.store import ArtifactStore
from tests.support.cli import cli, run_id_of
from tests.support.openai_server import OpenAICompatServer, schema_filling_responder


def refusal_aware_responder(body: dict) -> str:
    """A judge that scores refusals 1 and everything else high (model b one point lower)."""
    verdict = json.loads(schema_filling_responder(body))
    text = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
    refused = "찾을 수 없" in text.split("generated_answer")[-1] or "찾을 수 없습니다" in text
    high = 5 if body.get("model", "").endswith("a") else 4
    for key in ("accuracy", "completeness", "relevance"):
        if key in verdict:
            verdict[key] = 1 if refused else high
    return json.dumps(verdict, ensure_ascii=False)


@pytest.fixture
def loopback(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-value")
    with OpenAICompatServer(latency_s=0.0, responder=refusal_aware_responder) as server:
        yield server


def test_calibrate_writes_agreement_into_the_run_and_audit_passes(prefect_server, loopback, bundled_rag_qa, tmp_path):
    out = tmp_path / "runs"
    args = ["run", "rag_qa", "--out", str(out), "--api-base", loopback.base_url, "--judge", "openai/a", "--judge", "openai/b"]
    result, output = cli(*args)
    assert result.exit_code == 0, output
    run_id = run_id_of(output)
    result, output = cli("run", "rag_qa", "--out", str(out), "--offline")  # chains to the first run
    assert result.exit_code == 0, output
    later_id = run_id_of(output)

    labels = tmp_path / "people.csv"
    rows = [json.loads(line) for line in (bundled_rag_qa / "answer_labels.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    labels.write_text(
        "case_id,metric,score,rater\n"
        + "".join(f"{r['case_id']},accuracy,{r['accuracy']},lee\n{r['case_id']},relevance,{r['relevance']},lee\n" for r in rows),
        encoding="utf-8",
    )
    result, output = cli("calibrate", run_id, "--out", str(out), "--labels", str(labels))
    assert result.exit_code == 0, output
    assert "accuracy" in output and "kappa=" in output and "caught=" in output

    store = ArtifactStore(str(out))
    manifest = load_manifest(store, run_id)
    assert "calibration.json" in manifest.artifacts and manifest.artifacts["calibration.json"].producer == "calibrate"
    assert [s.name for s in manifest.steps][-1] == "calibrate" and len(manifest.amendments) == 1
    record = json.loads((out / run_id / "calibration.json").read_text(encoding="utf-8"))
    accuracy = next(m for m in record["metrics"] if m["metric"] == "accuracy")
    assert accuracy["jury"]["n"] == len(rows)
    assert [j["predictor"] for j in accuracy["judges"]] == ["a", "b"]
    assert accuracy["jury"]["spearman"] is not None and accuracy["jury"]["spearman"] > 0
    low, high = accuracy["jury"]["spearman_interval"]
    assert low <= accuracy["jury"]["spearman"] <= high
    # the refusals people scored 1 are the bad quarter, and this jury scores every refusal 1
    bad = sum(r["accuracy"] <= 2 for r in rows)
    assert accuracy["jury"]["n_bad"] == bad and (bad == 0 or accuracy["jury"]["caught"] is not None)
    assert sum(map(sum, accuracy["confusion"])) == len(rows)
    assert accuracy["alpha_all"] is not None
    report = (out / run_id / "report.md").read_text(encoding="utf-8")
    assert report.count("## Calibration against human labels") == 1 and "κ (quadratic)" in report
    assert "Calibration against human labels" in (out / run_id / "report.html").read_text(encoding="utf-8")
    assert audit_run(store, run_id).ok
    later = audit_run(store, later_id)
    assert later.ok, later.lines()
    assert any("amended" in n for n in later.notices)

    # Calibrating again replaces the section and keeps the audit green.
    result, output = cli("calibrate", run_id, "--out", str(out), "--labels", str(labels))
    assert result.exit_code == 0, output
    assert (out / run_id / "report.md").read_text(encoding="utf-8").count("## Calibration against human labels") == 1
    again, again_later = audit_run(store, run_id), audit_run(store, later_id)
    assert again.ok and again_later.ok, again.lines() + again_later.lines()

    bad = tmp_path / "bad.csv"
    bad.write_text("case_id,metric,score\nq001,accuracy,5\nq999,accuracy,3\n", encoding="utf-8")
    result, output = cli("calibrate", run_id, "--out", str(out), "--labels", str(bad))
    assert result.exit_code == 1 and "no case 'q999'" in output
