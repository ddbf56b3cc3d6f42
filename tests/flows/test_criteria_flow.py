"""Your criteria end to end: judged by an LLM jury through litellm on the loopback
OpenAI-compatible server (a 1-5 criterion and a pass/fail one), in scores.parquet, the report,
the explorer, the lineage, the gates and calibrate; and offline, unscored with the reason, the
run incomplete."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from tests.support.cli import cli, run_id_of
from tests.support.openai_server import OpenAICompatServer

N_CASES = 6
CRITERIA = """criteria:
  - name: cites_sources
    rubric: Does the answer name the document it relies on?
    steps: [Find each factual claim, Check whether a source document is named for it]
    scale: [1, 5]
    reads: [question, answer, contexts]
  - name: no_refusal
    rubric: Does the answer attempt the question instead of refusing?
    scale: pass_fail
    reads: [answer]
"""
REFUSAL = "찾을 수 없"


def framed(name: str, user: str) -> str:
    match = re.search(rf"<<<DATA {name}>>>\n(.*?)\n<<<END DATA {name}>>>", user, re.DOTALL)
    assert match, f"no framed {name} in {user[:200]}"
    return match.group(1)


def criteria_judge(body: dict) -> str:
    """Judge a scores cites_sources 4, judge b 3; no_refusal fails exactly the refusals. The
    reason names the case's question so the lineage test can find this exact reply."""
    system, user = (m["content"] for m in body["messages"])
    question = framed("question", user) if "<<<DATA question>>>" in user else ""
    if "Criterion (cites_sources)" in system:
        score = 4 if body["model"].endswith("a") else 3
        return json.dumps({"reason": f"sources judged for: {question}", "score": score}, ensure_ascii=False)
    if "Criterion (no_refusal)" in system:
        verdict = "fail" if REFUSAL in framed("answer", user) else "pass"
        return json.dumps({"reason": f"verdict {verdict}", "verdict": verdict})
    verdict = {"feedback": "ok", "accuracy": 4, "completeness": 4, "relevance": 4}  # the suite's own answer judge
    return json.dumps(verdict)


@pytest.fixture
def small_rag_qa(bundled_rag_qa, tmp_path) -> Path:
    """The bundled rag_qa dataset cut to its first cases (and their recorded answers)."""
    root = tmp_path / "data"
    shutil.copytree(bundled_rag_qa / "kb", root / "kb")
    lines = [line for line in (bundled_rag_qa / "cases.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    cases = [json.loads(line) for line in lines[:N_CASES]]
    ids = {c["id"] for c in cases}
    (root / "cases.jsonl").write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
    gens = [json.loads(line) for line in (bundled_rag_qa / "generations.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    (root / "generations.jsonl").write_text(
        "".join(json.dumps(g, ensure_ascii=False) + "\n" for g in gens if g["case_id"] in ids), encoding="utf-8")
    return root


def test_criteria_are_judged_by_the_llm_jury_and_traced_gated_and_calibrated(
    prefect_server, small_rag_qa, tmp_path, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-value")
    criteria = tmp_path / "criteria.yaml"
    criteria.write_text(CRITERIA, encoding="utf-8")
    out = tmp_path / "runs"
    with OpenAICompatServer(responder=criteria_judge) as server:
        args = ["run", "rag_qa", "--dataset", str(small_rag_qa), "--out", str(out), "--lang", "en",
                "--api-base", server.base_url, "--judge", "openai/a", "--judge", "openai/b", "--criteria", str(criteria)]
        result, output = cli(*args, "--assert", "cites_sources>=3.5", "--assert", "no_refusal>=0")
        assert result.exit_code == 0, output
        run_id = run_id_of(output)
        sent = [r.body for r in server.requests if "Criterion (cites_sources)" in r.body["messages"][0]["content"]]
        assert len(sent) == 2 * N_CASES  # every case, every judge, through litellm
        # a gate on a criterion is checked like any metric: all cached now, nothing is sent again
        server.reset_counts()
        result, output = cli(*args, "--assert", "cites_sources>=3.6")
        assert result.exit_code == 5 and "cites_sources" in output, output
        assert server.count() == 0

    # The prompt holds the rubric, the steps and each field it reads, framed as data.
    cases = {json.loads(line)["id"]: json.loads(line) for line in (small_rag_qa / "cases.jsonl").read_text().splitlines()}
    gens = {json.loads(line)["case_id"]: json.loads(line) for line in (small_rag_qa / "generations.jsonl").read_text().splitlines()}
    system, user = (m["content"] for m in sent[0]["messages"])
    assert "Does the answer name the document it relies on?" in system
    assert "1. Find each factual claim\n2. Check whether a source document is named for it" in system
    assert "<<<DATA" not in system.split("Text between")[0]  # the rubric is the instruction, not data
    question = framed("question", user)
    case_id = next(i for i, c in cases.items() if c["question"] == question)
    assert framed("answer", user) == gens[case_id]["answer"]
    assert framed("contexts", user).startswith("[1] " + gens[case_id]["retrieved"][0]["text"][:40])

    # Scores: the ensemble of a (4) and b (3) is 3.5; no_refusal is 0 on refusals, 1 elsewhere.
    run_dir = out / run_id
    scores = pd.read_parquet(run_dir / "scores.parquet")
    final = scores[scores["judge"].isna()].set_index(["case_id", "metric"])["value"]
    for cid in cases:
        assert final[(cid, "cites_sources")] == 3.5
        assert final[(cid, "no_refusal")] == (0.0 if REFUSAL in gens[cid]["answer"] else 1.0)
    assert set(scores[scores["metric"] == "no_refusal"]["scale"]) == {"pass_fail"}
    assert len(scores[(scores["metric"] == "cites_sources") & scores["judge"].notna()]) == 2 * N_CASES

    # The report's jury section lists each criterion, its rubric and its prompt version; the
    # explorer carries the criterion's scores.
    report = (run_dir / "report.md").read_text(encoding="utf-8")
    section = report.split("## Jury: your criteria")[1].split("\n## ")[0]
    assert "Does the answer name the document it relies on?" in section and "1. Find each factual claim" in section
    assert re.search(r"prompt `criterion:cites\\_sources` version `1\+[0-9a-f]{12}`", section)
    assert report.index("## Jury\n") < report.index("## Jury: your criteria")
    assert "cites_sources" in (run_dir / "report.html").read_text(encoding="utf-8").split("<script")[-1]
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    summary = json.loads((run_dir / manifest["artifacts"]["summary.json"]["path"]).read_text(encoding="utf-8"))
    assert summary["overall"]["cites_sources"]["mean"] == 3.5 and "no_refusal" in summary["metrics"]
    assert [c["name"] for c in manifest["run_spec"]["criteria"]] == ["cites_sources", "no_refusal"]

    # Lineage traces a criterion score to each judge's raw response; the deep audit recomputes it.
    result, output = cli("lineage", run_id, "--out", str(out), "--case", case_id, "--metric", "cites_sources")
    assert result.exit_code == 0, output
    assert f"sources judged for: {cases[case_id]['question']}" in output and "criterion:cites_sources" in output
    result, output = cli("audit", run_id, "--out", str(out), "--deep")
    assert result.exit_code == 0, output

    # Calibrate on the criteria: pass/fail labels as 0/1 categories (written pass/fail), 1-5 as points.
    labels = tmp_path / "people.csv"
    labels.write_text("case_id,metric,score\n" + "".join(
        f"{cid},no_refusal,{'fail' if REFUSAL in gens[cid]['answer'] else 'pass'}\n{cid},cites_sources,{3 + i % 2}\n"
        for i, cid in enumerate(cases)), encoding="utf-8")
    result, output = cli("calibrate", run_id, "--out", str(out), "--labels", str(labels))
    assert result.exit_code == 0, output
    record = json.loads((run_dir / "calibration.json").read_text(encoding="utf-8"))
    by_metric = {m["metric"]: m for m in record["metrics"]}
    assert by_metric["no_refusal"]["categories"] == [0.0, 1.0] and by_metric["no_refusal"]["jury"]["exact"] == 1.0
    assert len(by_metric["no_refusal"]["confusion"]) == 2
    assert by_metric["cites_sources"]["jury"]["n"] == N_CASES and by_metric["cites_sources"]["categories"] == [1, 2, 3, 4, 5]


def test_offline_criteria_are_unscored_with_the_reason_and_the_run_is_incomplete(prefect_server, small_rag_qa, tmp_path):
    criteria = tmp_path / "criteria.yaml"
    criteria.write_text(CRITERIA, encoding="utf-8")
    out = tmp_path / "runs"
    result, output = cli("run", "rag_qa", "--dataset", str(small_rag_qa), "--out", str(out), "--offline",
                         "--criteria", str(criteria))
    assert result.exit_code == 4, output
    assert f"cites_sources is unscored for all {N_CASES} cases (e.g. needs an LLM judge" in output
    run_dir = out / run_id_of(output)
    scores = pd.read_parquet(run_dir / "scores.parquet")
    ours = scores[scores["metric"].isin(["cites_sources", "no_refusal"])]
    assert len(ours) == 2 * N_CASES and ours["value"].isna().all() and ours["judge"].isna().all()
    assert ours["unscored_reason"].str.startswith("needs an LLM judge").all()
    # the suite's own metrics still ran offline
    assert scores[scores["metric"] == "accuracy"]["value"].notna().any()
    report = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "**Incomplete run.**" in report and "needs an LLM judge" in report


def test_criteria_scored_partition_by_partition_give_the_same_scores_and_pass_the_deep_audit(
    prefect_server, small_rag_qa, tmp_path, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-value")
    criteria = tmp_path / "criteria.yaml"
    criteria.write_text(CRITERIA, encoding="utf-8")
    out = tmp_path / "runs"
    with OpenAICompatServer(responder=criteria_judge) as server:
        result, output = cli("run", "rag_qa", "--dataset", str(small_rag_qa), "--out", str(out), "--lang", "en",
                             "--api-base", server.base_url, "--judge", "openai/a", "--judge", "openai/b",
                             "--criteria", str(criteria), "--partition-size", "2")
        assert result.exit_code == 0, output
    run_id = run_id_of(output)
    manifest = json.loads((out / run_id / "manifest.json").read_text(encoding="utf-8"))
    assert "scores/criterion.cites_sources/part-0002.jsonl" in manifest["artifacts"]  # three partitions of two
    scores = pd.read_parquet(out / run_id / "scores.parquet")
    final = scores[scores["judge"].isna() & (scores["metric"] == "cites_sources")]
    assert len(final) == N_CASES and set(final["value"]) == {3.5}
    result, output = cli("audit", run_id, "--out", str(out), "--deep")
    assert result.exit_code == 0, output
