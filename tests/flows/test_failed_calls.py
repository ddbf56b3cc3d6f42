"""Failed calls are failures, a target is never ignored, an unreachable target stops early
(issue 34, items 1-3), on real Prefect runs against a loopback RAG endpoint.

The reproduction: a target that answers HTTP 500 on 3 of 16 questions (no retries) used to exit 0
with "MRR … (excellent)" over the cases that answered, and ``--junit`` listed the 3 as skipped.
"""

from __future__ import annotations

import json
import shutil
import time
from xml.etree import ElementTree as ET

import pytest

from assay.deep_audit import audit_deep
from assay.lineage.audit import audit_run
from assay.lineage.store import ArtifactStore
from tests.conftest import ROOT
from tests.support.cli import cli, run_id_of
from tests.support.endpoint import LoopbackEndpoint

N_CASES, N_FAILING = 16, 3
EXIT_FAILED, EXIT_INCOMPLETE, EXIT_THRESHOLD = 1, 4, 5


@pytest.fixture
def sixteen_cases(tmp_path):
    """The first 16 bundled rag_qa cases with their kb/, no recorded generations."""
    root = tmp_path / "rag"
    shutil.copytree(ROOT / "datasets" / "rag_qa" / "kb", root / "kb")
    lines = (ROOT / "datasets" / "rag_qa" / "cases.jsonl").read_text(encoding="utf-8").splitlines()[:N_CASES]
    (root / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root, [json.loads(line) for line in lines]


def failing_share(cases: list[dict], failing: set[str]):
    """Answers with the reference and its source document; HTTP 500 for the cases in ``failing``."""
    by_question = {c["question"]: c for c in cases}

    def behaviour(body, n):
        case = by_question[body["question"]]
        if case["id"] in failing:
            return 500, "internal error", 0.0
        return 200, {"answer": case["reference_answer"],
                     "contexts": [{"text": case["reference_answer"], "source": case["source_docs"][0]}]}, 0.0

    return behaviour


def last_lines(output: str, n: int = 8) -> str:
    return "\n".join(output.strip().splitlines()[-n:])


def test_a_target_failing_on_3_of_16_questions_is_incomplete_and_every_surface_says_so(prefect_server, sixteen_cases, tmp_path):
    data, cases = sixteen_cases
    failing = {cases[i]["id"] for i in (2, 7, 11)}
    out, junit = tmp_path / "runs", tmp_path / "results.xml"
    with LoopbackEndpoint(failing_share(cases, failing), key=lambda body: body["question"]) as server:
        # no --replay: the target implies it, and says so
        base = ["run", "rag_qa", "--dataset", str(data), "--target", server.url, "--gen-retries", "0", "--offline",
                "--out", str(out)]
        result, output = cli(*base, "--junit", str(junit), "--assert", "reciprocal_rank>=0.5")
        banner = (f"{N_FAILING} of {N_CASES} cases not measured: {N_FAILING} target calls failed "
                  f"(first: {server.url}, HTTP 500: internal error (after 1 attempt(s)))")
        print("\n" + last_lines(output, 12))
        assert result.exit_code == EXIT_INCOMPLETE, output
        assert f"replay: live (the target {server.url} answers every case; --target implies --replay live)" in output
        assert banner in last_lines(output), output
        run_id = run_id_of(output)
        manifest = json.loads((out / run_id / "manifest.json").read_text(encoding="utf-8"))
        assert manifest["status"] == "incomplete" and manifest["run_spec"]["replay"] == "live"
        report = (out / run_id / "report.md").read_text(encoding="utf-8")
        assert banner in report.split("## ")[0]  # at the top, before any section
        assert banner in (out / run_id / "report.html").read_text(encoding="utf-8").split("<h2")[0]
        suite = ET.parse(junit).getroot().find("testsuite")
        assert (suite.get("tests"), suite.get("errors"), suite.get("skipped")) == (str(N_CASES), str(N_FAILING), "0")
        errored = {c.get("name") for c in suite.findall("testcase") if c.find("error") is not None}
        assert errored == failing
        store = ArtifactStore(str(out))
        assert audit_run(store, run_id).ok and audit_deep(store, run_id).ok  # failed_calls.json is evidence too

        # allowed explicitly: the run completes and still says it; an --assert on a metric those cases lack fails
        result, output = cli(*base, "--max-failed-calls", "3", "--assert", "reciprocal_rank>=0.5")
        assert result.exit_code == EXIT_THRESHOLD, output
        assert f"{banner} (allowed by --max-failed-calls 3)" in output
        assert "reciprocal_rank>=0.5: 3 cases it covers were not measured (target calls failed)" in last_lines(output)
        report = (out / run_id_of(output) / "report.md").read_text(encoding="utf-8")
        assert f"**Failed calls** (allowed by `--max-failed-calls`): {banner}" in report.split("## ")[0]

        result, output = cli(*base, "--max-failed-calls", "10%")  # 10 % of 16 calls is 1: not enough
        assert result.exit_code == EXIT_INCOMPLETE, output
        config = tmp_path / "run.yaml"
        config.write_text("max_failed_calls: 20%\n", encoding="utf-8")  # 3 of 16 calls is 18.75 %
        result, output = cli(*base, "--config", str(config))
        assert result.exit_code == 0, output
        assert banner in output
        # the answered calls were kept: only the failing questions were asked again, each run
        assert {q: n for q, n in server.calls.items() if n > 1} == {c["question"]: 4 for c in cases if c["id"] in failing}


def test_an_unreachable_target_ends_the_replay_early_with_one_line_naming_it(prefect_server, sixteen_cases, tmp_path):
    import socket

    data, _ = sixteen_cases
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/rag/answer"  # closed again: nothing listens
    started = time.perf_counter()
    result, output = cli("run", "rag_qa", "--dataset", str(data), "--target", url, "--offline", "--out", str(tmp_path / "runs"))
    print(f"\nunreachable target: exit {result.exit_code} after {time.perf_counter() - started:.1f}s (whole run)\n"
          + last_lines(output))
    assert result.exit_code == EXIT_FAILED, output
    assert f"run failed: replay failed: TargetUnreachable: target {url} is unreachable" in output, output
    assert "Traceback" not in output
