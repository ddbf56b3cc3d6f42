"""The answers suite on real Prefect: the bundled table offline (honest about what the offline
jury cannot judge), and an imported reference-free table judged by an LLM jury on a loopback
OpenAI-compatible server."""

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from assay.lineage.audit import audit_run
from assay.lineage.store import ArtifactStore
from assay.lineage.trace import trace_case
from tests.support.cli import cli, run_id_of
from tests.support.grounding_judge import GroundingResponder
from tests.support.openai_server import OpenAICompatServer

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "datasets" / "answers"


def test_offline_run_on_the_bundled_table_is_honest_about_what_it_cannot_judge(prefect_server, tmp_path):
    result, output = cli("run", "answers", "--offline", "--out", str(tmp_path))
    assert result.exit_code == 0, output
    run_id = run_id_of(output)
    assert audit_run(ArtifactStore(str(tmp_path)), run_id).ok
    n_cases = sum(1 for line in (BUNDLED / "cases.jsonl").read_text().splitlines() if line.strip())
    scores = pd.read_parquet(tmp_path / run_id / "scores.parquet")
    final = scores[scores["judge"].isna()].set_index(["case_id", "metric"])
    # the LLM-only metrics: unscored for every case, with the reason, never a number
    for metric in ("faithfulness", "answer_relevancy", "context_relevance"):
        rows = final.xs(metric, level="metric")
        assert len(rows) == n_cases and rows["value"].isna().all()
        assert rows["unscored_reason"].str.startswith("needs an LLM judge").all()
    # the offline figure check: a05's wrong price and a12's extra city are found missing
    figures = final.xs("figure_support", level="metric")["value"]
    assert figures["a05"] == 0.0 and figures["a12"] < 1.0 and figures["a11"] == 1.0
    assert pd.isna(figures["a09"])  # no figure or name in the answer: nothing to check offline
    # correctness only where a reference is given
    correctness = final.xs("correctness", level="metric")
    with_reference = {json.loads(line)["id"] for line in (BUNDLED / "cases.jsonl").read_text().splitlines()
                      if "reference" in json.loads(line)}
    assert set(correctness["value"].dropna().index) == with_reference
    assert correctness.loc["a03", "unscored_reason"] == "no reference answer for this case"
    report = (tmp_path / run_id / "report.md").read_text()
    assert "offline figure check" in report and "## By group" in report  # table cells are escaped markdown
    assert "a05** (offline figure check)" in report and "needs an LLM judge" in report
    # said at the top, in one line, before any figure: what was not measured offline, and why
    top = report.split("\n## ")[0]
    said = [line for line in top.splitlines() if line.startswith("> **Not measured:**")]
    assert len(said) == 1 and "needs an LLM judge" in said[0], top
    assert all(m in said[0] for m in ("faithfulness", "answer\\_relevancy", "context\\_relevance")), said
    assert "figure" not in said[0] and "correctness" not in said[0]  # measured for some cases: not listed

    # a gate on a metric the offline run could not measure fails, naming why, never passing on nothing
    result, output = cli("run", "answers", "--offline", "--out", str(tmp_path), "--assert", "faithfulness>=0.8")
    assert result.exit_code == 5, output
    assert "faithfulness>=0.8: faithfulness is unscored for every case (needs an LLM judge" in output


NAMES = {  # how DeepEval and Ragas write the same reference-free table
    "deepeval": ("input", "actual_output", "retrieval_context"),
    "ragas": ("user_input", "response", "retrieved_contexts"),
}


@pytest.mark.parametrize("names", list(NAMES))
def test_an_imported_reference_free_table_is_judged_claim_by_claim(prefect_server, tmp_path, monkeypatch, names):
    question, answer, contexts = NAMES[names]
    table = tmp_path / f"{names}.csv"
    pd.DataFrame({
        question: ["How long is the return window?", "What does Fiber 1000 cost?"],
        answer: ["Returns are accepted within 30 days. Shipping is free. You get a gift card.",
                 "It costs $65 a month."],
        contexts: [json.dumps(["Returns: 30 days from delivery.", "Return shipping is free."]),
                   json.dumps(["Fiber 1000 is $65 per month.", "Fiber 500 is $45 per month."])],
    }).to_csv(table, index=False)
    result, output = cli("import", "answers", str(table), "--out", str(tmp_path / "data"))
    assert result.exit_code == 0, output
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    judge = GroundingResponder(unsupported=("gift card",), irrelevant=("Fiber 500",))
    with OpenAICompatServer(responder=judge) as server:
        result, output = cli("run", "answers", "--dataset", str(tmp_path / "data"), "--out", str(tmp_path / "runs"),
                             "--api-base", server.base_url, "--judge", "openai/judge", "--lang", "en")
    assert result.exit_code == 0, output
    run_id = run_id_of(output)
    scores = pd.read_parquet(tmp_path / "runs" / run_id / "scores.parquet")
    final = scores[scores["judge"].isna()].set_index(["case_id", "metric"])["value"]
    assert final[("a0001", "faithfulness")] == pytest.approx(2 / 3)  # the gift card is not in the contexts
    assert final[("a0002", "faithfulness")] == 1.0
    assert final[("a0001", "context_relevance")] == 1.0 and final[("a0002", "context_relevance")] == 0.5
    for metric in ("faithfulness", "answer_relevancy", "context_relevance"):  # every case scored
        assert final.xs(metric, level="metric").notna().sum() == 2, metric
    assert final.xs("correctness", level="metric").isna().all()  # no reference column: not applicable
    lineage = "\n".join(trace_case(ArtifactStore(str(tmp_path / "runs")), run_id, "a0001", "faithfulness"))
    assert "claim 3 'You get a gift card.': not supported" in lineage
    assert "claim 1 'Returns are accepted within 30 days.': supported" in lineage
    html = (tmp_path / "runs" / run_id / "report.html").read_text()
    assert "faithfulness_verdict #claim3" in html
    assert "faithfulness: each claim" in html and "not supported: You get a gift card. — scripted" in html


def test_live_replay_asks_your_system_for_every_imported_input(prefect_server, tmp_path):
    from tests.support.endpoint import LoopbackEndpoint

    table = tmp_path / "inputs.jsonl"
    table.write_text("".join(json.dumps({"user_input": q, "reference": r}) + "\n" for q, r in [
        ("How long is the return window?", "30 days."), ("What does Fiber 1000 cost?", "$65 a month.")]))
    result, output = cli("import", "answers", str(table), "--out", str(tmp_path / "data"))
    assert result.exit_code == 0, output
    assert not (tmp_path / "data" / "generations.jsonl").exists()  # inputs only: for live replay

    def system(body, n):
        answer = {"How long is the return window?": "Within 30 days.", "What does Fiber 1000 cost?": "It costs $70."}
        return 200, {"answer": answer[body["question"]], "contexts": ["Returns: 30 days.", "Fiber 1000 is $65."]}, 0

    with LoopbackEndpoint(system, key=lambda body: body["question"]) as server:
        result, output = cli("run", "answers", "--dataset", str(tmp_path / "data"), "--offline", "--replay", "live",
                             "--target", server.url, "--out", str(tmp_path / "runs"))
        assert result.exit_code == 0, output
        assert sum(server.calls.values()) == 2
    run_id = run_id_of(output)
    scores = pd.read_parquet(tmp_path / "runs" / run_id / "scores.parquet")
    figures = scores[scores["judge"].isna() & (scores["metric"] == "figure_support")].set_index("case_id")["value"]
    assert figures.to_dict() == {"a0001": 1.0, "a0002": 0.0}  # $70 is not in the contexts the system returned


ANSWERS_CRITERIA = """criteria:
  - name: names_source
    rubric: Does the answer name the policy document it relies on?
    steps: [Find the answer's factual claims, Check whether a policy document is named for them]
    scale: [1, 5]
    reads: [input, output, contexts]
  - name: no_refusal
    rubric: Does the answer attempt the question instead of refusing?
    scale: pass_fail
    reads: [output]
"""
RETURNS = "Returns: 30 days from delivery (returns.md). Return shipping is free."
PRICES = "Fiber 1000 is $65 per month (prices.md). Fiber 500 is $45 per month."
ANSWER_ROWS = [  # id, input, output, contexts: claims with "gift card" or "lifetime" are not in the contexts
    ("c1", "How long is the return window?", "Returns are accepted within 30 days, per returns.md. Shipping is free.", [RETURNS]),
    ("c2", "Who pays for return shipping?", "Return shipping is free. You get a gift card.", [RETURNS, PRICES]),
    ("c3", "What does Fiber 1000 cost?", "It costs $65 a month, per prices.md.", [PRICES]),
    ("c4", "Is there a warranty?", "There is a lifetime warranty. It covers a gift card.", [RETURNS]),
    ("c5", "What does Fiber 500 cost?", "I cannot answer that.", [PRICES]),
    ("c6", "Can I return an opened router?", "Yes within 30 days. You get a gift card. A lifetime warranty applies.",
     [RETURNS]),
]


def answers_judge(body: dict) -> str:
    """The criteria by rule (names_source: 5 when a .md document is named, else 2; no_refusal
    fails 'cannot'); the grounding prompts by GroundingResponder (claims with 'gift card' or
    'lifetime' unsupported)."""
    from tests.support.grounding_judge import framed

    system = body["messages"][0]["content"]
    data = framed(body)
    if "Criterion (names_source)" in system:
        return json.dumps({"reason": "scripted", "score": 5 if ".md" in data["output"] else 2})
    if "Criterion (no_refusal)" in system:
        return json.dumps({"reason": "scripted", "verdict": "fail" if "cannot" in data["output"] else "pass"})
    return GroundingResponder(unsupported=("gift card", "lifetime"), irrelevant=("Fiber 500",))(body)


def test_an_answers_run_with_criteria_is_judged_reported_and_calibrated(prefect_server, tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    (data / "cases.jsonl").write_text("".join(json.dumps({"id": i, "input": q}) + "\n" for i, q, _, _ in ANSWER_ROWS))
    (data / "generations.jsonl").write_text("".join(
        json.dumps({"case_id": i, "output": a, "contexts": [{"text": t} for t in c]}) + "\n" for i, _, a, c in ANSWER_ROWS))
    criteria = tmp_path / "criteria.yaml"
    criteria.write_text(ANSWERS_CRITERIA, encoding="utf-8")
    out = tmp_path / "runs"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with OpenAICompatServer(responder=answers_judge) as server:
        result, output = cli("run", "answers", "--dataset", str(data), "--out", str(out), "--criteria", str(criteria),
                             "--api-base", server.base_url, "--judge", "openai/a", "--judge", "openai/b", "--lang", "en")
    assert result.exit_code == 0, output
    run_id = run_id_of(output)
    # a criterion reading contexts is shown their texts, numbered, as data
    sent = [r.body["messages"][1]["content"] for r in server.requests
            if "Criterion (names_source)" in r.body["messages"][0]["content"]]
    assert any(f"[1] {RETURNS}" in user and '"text"' not in user for user in sent)
    scores = pd.read_parquet(out / run_id / "scores.parquet")
    final = scores[scores["judge"].isna()].set_index(["case_id", "metric"])["value"]
    for metric in ("faithfulness", "answer_relevancy", "context_relevance", "names_source", "no_refusal"):
        assert final.xs(metric, level="metric").notna().sum() == len(ANSWER_ROWS), metric  # every case scored
    assert [final[(i, "faithfulness")] for i, *_ in ANSWER_ROWS] == pytest.approx([1, 0.5, 1, 0, 1, 1 / 3])
    assert final[("c1", "names_source")] == 5 and final[("c2", "names_source")] == 2
    assert final[("c5", "no_refusal")] == 0 and final[("c1", "no_refusal")] == 1
    # the report's jury section lists each criterion with its rubric and prompt version
    report = (out / run_id / "report.md").read_text(encoding="utf-8")
    section = report.split("## Jury: your criteria")[1].split("\n## ")[0]
    assert "Does the answer name the policy document it relies on?" in section and "1. Find the answer" in section
    assert re.search(r"prompt `criterion:names\\_source` version `1\+[0-9a-f]{12}`", section)
    assert "criterion:no\\_refusal" in section

    # people's labels on two reference-free metrics (0-1 and 1-5) and a criterion
    human_faith = [1.0, 0.5, 0.9, 0.0, 1.0, 0.3]
    labels = tmp_path / "people.csv"
    labels.write_text("case_id,metric,score\n" + "".join(
        f"{i},faithfulness,{f}\n{i},answer_relevancy,{4 + n % 2}\n{i},names_source,{5 if '.md' in a else 1 if i == 'c6' else 2}\n"
        for n, ((i, _, a, _), f) in enumerate(zip(ANSWER_ROWS, human_faith, strict=True))), encoding="utf-8")
    result, output = cli("calibrate", run_id, "--out", str(out), "--labels", str(labels))
    assert result.exit_code == 0, output
    record = json.loads((out / run_id / "calibration.json").read_text(encoding="utf-8"))
    by_metric = {m["metric"]: m for m in record["metrics"]}
    assert set(by_metric) == {"faithfulness", "answer_relevancy", "names_source"}
    for metric in by_metric.values():
        assert metric["jury"]["n"] == len(ANSWER_ROWS) and not metric["unmatched"]
        assert {j["predictor"] for j in metric["judges"]} == {"a", "b"}  # each judge against the people too
    faith = by_metric["faithfulness"]
    assert faith["scale"] == "0-1" and faith["categories"] == [round(t / 10, 1) for t in range(11)]
    assert faith["jury"]["exact"] == pytest.approx(5 / 6)  # in tenths only c3 differs (people 0.9, jury 1)
    assert by_metric["answer_relevancy"]["categories"] == [1, 2, 3, 4, 5]
    assert by_metric["names_source"]["jury"]["exact"] == pytest.approx(5 / 6)  # c6: people 1, jury 2
    calibrated = (out / run_id / "report.md").read_text(encoding="utf-8")
    assert "## Calibration against human labels" in calibrated and "| faithfulness | jury | 6 |" in calibrated
    result, output = cli("audit", run_id, "--out", str(out), "--deep")  # every score recomputed from its evidence
    assert result.exit_code == 0, output
