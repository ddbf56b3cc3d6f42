"""Exploring results on real runs: each suite's report.html in headless Chromium (a case opens
to its answer and judge feedback, no request leaves the page, no script error), `assay runs`
and `assay show`, `assay compare` naming exactly the injected regressions, the comparison in
the report, and the CI gates (--assert, --junit)."""

import json
import re
import shutil
from xml.etree import ElementTree as ET

import pandas as pd
import pytest

from assay.lineage.manifest import load_manifest
from assay.lineage.store import ArtifactStore
from tests.support.browser import Browser, chromium_path, require_browser
from tests.support.cli import cli, run_id_of

SUITES = ["rag_qa", "report", "memory", "agent"]
DATA = re.compile(r'<script type="application/json" id="assay-cases">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def suite_runs(prefect_server, tmp_path_factory):
    out = tmp_path_factory.mktemp("explorer-runs")
    runs = {}
    for suite in SUITES:
        result, output = cli("run", suite, "--offline", "--out", str(out))
        assert result.exit_code == 0, output
        runs[suite] = run_id_of(output)
    return out, runs


def embedded_cases(page: str) -> list[dict]:
    return json.loads(DATA.search(page).group(1))["cases"]


def case_to_open(cases: list[dict]) -> tuple[dict, str, str]:
    """A case with an output and a judge's written feedback: its id, an output snippet, a feedback snippet."""
    for case in cases:
        outputs = [f["text"] for f in case["view"]["outputs"] if f["text"].strip()]
        notes = [text for j in case["judges"] for text in j["notes"].values() if text.strip()]
        if outputs and notes:
            return case, outputs[0].strip().splitlines()[0][:40], notes[0].strip().splitlines()[0][:40]
    raise AssertionError("no case with both an output and judge feedback")


@pytest.mark.parametrize("suite", SUITES)
def test_report_opens_in_a_browser_and_a_case_shows_its_answer_and_judge_feedback(suite_runs, suite, tmp_path):
    if chromium_path() is None:
        if require_browser():
            pytest.fail("no /usr/bin/chromium: run .ci/ensure-browser (make test does)")
        pytest.skip("no chromium here (CI installs it)")
    out, runs = suite_runs
    report = out / runs[suite] / "report.html"
    case, answer, feedback = case_to_open(embedded_cases(report.read_text(encoding="utf-8")))
    with Browser(width=1280, height=1000) as browser:
        browser.open(report)
        top = browser.screenshot(tmp_path / f"{suite}-top.png")
        assert top.startswith(b"\x89PNG") and len(top) > 20_000  # a drawn page, not a blank one
        assert browser.evaluate("document.querySelectorAll('tr.case-row').length") == min(50, len(embedded_cases(report.read_text(encoding='utf-8'))))
        browser.open_case(case["id"])
        detail = browser.evaluate(
            "(() => { const d = document.querySelector('tr.detail'); d.scrollIntoView();"
            " const r = d.getBoundingClientRect(); return {text: d.innerText, height: r.height}; })()"
        )
        assert detail["height"] > 100
        assert answer in detail["text"], (answer, detail["text"][:2000])
        assert feedback in detail["text"], (feedback, detail["text"][:2000])
        assert "Judges" in detail["text"] and "Lineage" in detail["text"]
        opened = browser.screenshot(tmp_path / f"{suite}-case.png")
        assert opened != top
        # sorting and a filter redraw without error
        browser.evaluate("document.querySelectorAll('table.cases th')[3].click()")
        browser.evaluate(
            "(() => { const s = document.getElementById('explorer-search'); s.value = '';"
            " s.dispatchEvent(new Event('input')); })()"
        )
        browser.drain(0.3)
        assert browser.requests == [], browser.requests
        assert browser.errors == [], browser.errors


def test_runs_lists_and_filters_and_show_prints_the_summary(suite_runs):
    out, runs = suite_runs
    result, output = cli("runs", "--out", str(out))
    assert result.exit_code == 0, output
    for run_id in runs.values():
        assert run_id in output
    result, output = cli("runs", "--out", str(out), "--suite", "memory", "--status", "completed")
    listed = [line.split()[0] for line in output.splitlines()[1:]]
    assert listed == [runs["memory"]], output
    result, output = cli("runs", "--out", str(out), "--status", "failed")
    assert output.strip() == "no runs"
    result, output = cli("show", runs["report"], "--out", str(out))
    assert result.exit_code == 0, output
    assert "status:    completed" in output and "overall" in output and "report.html" in output


@pytest.fixture(scope="module")
def regressed(suite_runs, bundled_rag_qa, tmp_path_factory):
    """A rag_qa run whose answers to three well-answered questions were replaced, compared with
    `latest` after a newer run with another jury: the baseline must be the same-jury run."""
    out, runs = suite_runs
    baseline = runs["rag_qa"]
    result, output = cli("run", "rag_qa", "--offline", "--out", str(out),
                         "--judge-weight", "0.6", "--judge-weight", "0.2", "--judge-weight", "0.2")
    assert result.exit_code == 0, output
    other_jury = run_id_of(output)
    scores = pd.read_parquet(out / baseline / "scores.parquet")
    # well-answered questions (the fitted stage scores in fractions: 4.8 is "the rules' 5")
    good = scores[(scores["metric"] == "accuracy") & scores["judge"].isna() & (scores["value"] >= 4.5)]["case_id"]
    injected = sorted(good)[:3]
    data = tmp_path_factory.mktemp("regressed") / "rag_qa"
    shutil.copytree(bundled_rag_qa, data)
    rows = [json.loads(line) for line in (data / "generations.jsonl").read_text().splitlines() if line.strip()]
    for row in rows:
        if row["case_id"] in injected:
            row["answer"] = "잘 모르겠습니다."
    (data / "generations.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    junit = out.parent / "junit.xml"
    result, output = cli("run", "rag_qa", "--offline", "--dataset", str(data), "--out", str(out),
                         "--compare-with", "latest", "--junit", str(junit), "--assert", "accuracy>=4.5",
                         "--assert", "reciprocal_rank>0")
    return out, baseline, other_jury, run_id_of(output), injected, result, output, junit


def test_compare_with_latest_picks_the_same_jury_and_names_exactly_the_injected_cases(regressed):
    out, baseline, other_jury, run_id, injected, result, output, junit = regressed
    manifest = load_manifest(ArtifactStore(str(out)), run_id)
    stored = json.loads((out / run_id / manifest.artifacts["comparison.json"].path).read_text())
    assert stored["baseline"] == baseline  # not the newer run with another jury
    assert sorted({c["case_id"] for c in stored["case_changes"]}) == injected
    assert {c["change"] for c in stored["case_changes"]} == {"worse"}
    report_md = (out / run_id / "report.md").read_text(encoding="utf-8")
    section = report_md.split("## Comparison with the baseline", 1)[1].split("\n## ", 1)[0]
    assert all(f"| {case} |" in section for case in injected) and "잘 모르겠" not in section
    page = (out / run_id / "report.html").read_text(encoding="utf-8")
    assert "Comparison with the baseline" in page

    result, output = cli("compare", baseline, run_id, "--out", str(out))
    assert result.exit_code == 0, output
    listed = {line.split()[1] for line in output.splitlines() if line.startswith("  worse")}
    assert sorted(listed) == injected
    assert "juries differ" not in output


def test_the_gates_fail_the_run_with_their_own_code_and_junit_names_the_cases(regressed):
    out, baseline, other_jury, run_id, injected, result, output, junit = regressed
    assert result.exit_code == 5, output
    assert "accuracy>=4.5: accuracy mean is" in output and "reciprocal_rank>0" not in output.split("--assert missed")[1]
    root = ET.parse(junit).getroot()
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert len(cases) == 48
    assert all(cases[case].find("failure") is not None for case in injected)
    scores = pd.read_parquet(out / run_id / "scores.parquet")
    final = scores[scores["judge"].isna()]
    low = set(final[(final["metric"] == "accuracy") & (final["value"] < 4.5)]["case_id"])
    low |= set(final[(final["metric"] == "reciprocal_rank") & (final["value"] <= 0)]["case_id"])
    assert root.find("testsuite").get("failures") == str(len(low))  # a case fails on its own scores


def test_comparing_across_juries_is_flagged_and_across_suites_refused(regressed, suite_runs):
    out, baseline, other_jury, *_ = regressed
    result, output = cli("compare", baseline, other_jury, "--out", str(out))
    assert result.exit_code == 0 and "note: juries differ" in output, output
    result, output = cli("compare", baseline, other_jury, "--out", str(out), "--strict")
    assert result.exit_code == 1 and "refusing to compare (--strict): juries differ" in output, output
    result, output = cli("compare", baseline, suite_runs[1]["memory"], "--out", str(out))
    assert result.exit_code == 1 and "different suites" in output, output
