"""The report suite (seed 000) through the whole flow: an offline run whose report lists every
query's six scores, overall, grade and S/W/R and passes the audit, and the same run with an
LLM jury of three judges on a loopback OpenAI-compatible server."""

import json
import re

import pandas as pd
import pytest

from assay.lineage.audit import audit_run
from assay.lineage.manifest import load_manifest
from assay.lineage.store import ArtifactStore
from assay.paths import datasets_dir
from assay.suites.report.formulas import WEIGHTS, grade
from tests.support.cli import cli, run_id_of
from tests.support.openai_server import OpenAICompatServer

SIX = list(WEIGHTS)
CASE_IDS = [
    json.loads(line)["id"]
    for line in (datasets_dir() / "report" / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    if line.strip()
]




def case_block(report: str, case_id: str) -> str:
    match = re.search(rf"^### {re.escape(case_id)}: .*?(?=^### |^## )", report, re.MULTILINE | re.DOTALL)
    assert match, f"no section for {case_id}"
    return match.group(0)


@pytest.fixture(scope="module")
def offline_run(prefect_server, tmp_path_factory):
    out = tmp_path_factory.mktemp("report-runs")
    result, output = cli("run", "report", "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    return out, run_id_of(output)


def test_offline_run_reports_every_query_and_passes_the_audit(offline_run):
    out, run_id = offline_run
    run_dir = out / run_id
    for name in ("manifest.json", "report.md", "report.html", "scores.parquet",
                 "charts/metric_means.png", "charts/overall_distribution.png"):
        assert (run_dir / name).is_file(), name
    manifest = load_manifest(ArtifactStore(str(out)), run_id)
    assert manifest.status == "completed"
    assert {s.name for s in manifest.steps} >= {"metrics:automatic", "metrics:jury", "aggregate", "publish"}

    result, output = cli("audit", str(run_dir))
    assert result.exit_code == 0, output
    assert "audit PASSED" in output

    scores = pd.read_parquet(run_dir / "scores.parquet")
    final = scores[scores["judge"].isna()]
    wide = final.pivot_table(index="case_id", columns="metric", values="value", aggfunc="first")
    assert sorted(wide.index) == sorted(CASE_IDS)
    assert wide[[*SIX, "overall"]].notna().all().all()
    assert wide[[*SIX, "overall"]].stack().between(0, 10).all()
    assert set(scores["judge"].dropna()) == {"offline-lexical", "offline-ngram", "offline-numeric"}
    # the bundled data's planted problems separate the queries
    assert wide["overall"].nunique() >= 8
    assert wide.loc["pur-01", "overall"] > wide.loc["rnd-03", "overall"]
    assert wide.loc["fs-02", "efficiency"] == pytest.approx(2.0)
    assert wide.loc["gen-03", "invalid_citations"] == 2

    report = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "Offline jury" in report and "## By team type" in report and "## How to read these numbers" in report
    for case_id in CASE_IDS:
        block = case_block(report, case_id)
        letter = grade(wide.loc[case_id, "overall"])
        assert f"**overall {wide.loc[case_id, 'overall']:.2f} ({letter})**" in block, block
        for metric in SIX:
            assert f"{metric} {wide.loc[case_id, metric]:.2f}" in block, (case_id, metric)
        for label in ("**Strengths**", "**Weaknesses**", "**Recommendations**", "Task success:", "Efficiency:"):
            assert label in block, (case_id, label)
    summary_path = run_dir / manifest.artifacts["summary.json"].path
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    assert summary["lower_is_better"] == ["hallucination_count", "invalid_citations"]
    assert summary["jury"]["offline"] is True
    assert sum(summary["grade_distribution"].values()) == len(CASE_IDS)


@pytest.fixture
def loopback(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    with OpenAICompatServer(latency_s=0.0) as server:
        yield server


def test_loopback_llm_jury_run_completes(prefect_server, loopback, tmp_path):
    args = ["run", "report", "--out", str(tmp_path), "--api-base", loopback.base_url]
    for judge in ("openai/a", "openai/b", "openai/c"):
        args += ["--judge", judge]
    result, output = cli(*args)
    assert result.exit_code == 0, output
    run_id = run_id_of(output)
    for model in ("a", "b", "c"):  # four prompts per query and judge
        assert loopback.count(model=model) == 4 * len(CASE_IDS)

    scores = pd.read_parquet(tmp_path / run_id / "scores.parquet")
    per_judge = scores[scores["judge"].notna()]
    assert set(per_judge["judge"]) == {"a", "b", "c"} and per_judge["value"].notna().all()
    final = scores[scores["judge"].isna()].set_index(["case_id", "metric"])["value"]
    # the loopback fills the verdict schema with mid-range values: 5/10, citation accuracy 0.5
    assert final[(CASE_IDS[0], "output_quality")] == pytest.approx(5.0)
    assert all(pd.notna(final[(c, "overall")]) for c in CASE_IDS)
    report = (tmp_path / run_id / "report.md").read_text(encoding="utf-8")
    assert "LLM jury" in report and "Offline jury" not in report
    assert audit_run(ArtifactStore(str(tmp_path)), run_id).ok
