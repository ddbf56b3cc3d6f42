"""Great Expectations' context, data sources, assets and built suites kept per process
(``assay.validation.gx_session``): the same reports as built afresh, rebuilt when an
expectation file changes, never holding a validation's data. Real GX validations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.validation import gx_session
from assay.validation.report import ValidationReport
from tests.unit.validation.test_ingest_and_gate import (
    BAD_CASES,
    BAD_GENERATIONS,
    CLEAN_CASES,
    CLEAN_GENERATIONS,
    GateOnlySuite,
    write_dataset,
)


def payload(report: ValidationReport) -> str:
    """The stored validation report (validation/report.json); GX's own results carry run ids."""
    return json.dumps(report.model_dump(mode="json", exclude={"gx_results"}), sort_keys=True)


def gx_results(report: ValidationReport) -> list:
    """GX's results without what differs between two validations of the same data (ids, times)."""
    def clockless(value):
        if isinstance(value, dict):
            return {k: clockless(v) for k, v in value.items() if k not in ("meta", "id")}
        if isinstance(value, list):
            return [clockless(v) for v in value]
        return value

    return clockless(report.gx_results)


@pytest.fixture
def own_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of rag_qa's expectation files the test may edit."""
    bundled = GateOnlySuite().expectations_dir
    exp_dir = tmp_path / "rules" / "expectations"
    exp_dir.mkdir(parents=True)
    for f in bundled.glob("*.json"):
        (exp_dir / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(GateOnlySuite, "rules_dir", tmp_path / "rules")
    return exp_dir


def test_a_kept_session_gives_the_reports_a_fresh_one_gives(tmp_path: Path) -> None:
    from assay.validation.gate import run_gate

    suite = GateOnlySuite()
    clean = suite.load_dataset(write_dataset(tmp_path / "clean", CLEAN_CASES, CLEAN_GENERATIONS))
    bad = suite.load_dataset(write_dataset(tmp_path / "bad", BAD_CASES, BAD_GENERATIONS))

    gx_session.forget()
    fresh = {"clean": run_gate(suite, clean)}
    gx_session.forget()
    fresh["bad"] = run_gate(suite, bad)
    built = gx_session.kept()
    # Both datasets through the objects kept from the first validation, in either order:
    # nothing of one validation's data or outcome leaks into the next.
    kept = [run_gate(suite, bad), run_gate(suite, clean), run_gate(suite, bad)]
    assert gx_session.kept() == built == {"contexts": 1, "sources": 1, "batch_definitions": 3, "suites": 3}
    assert [payload(r) for r in kept] == [payload(fresh["bad"]), payload(fresh["clean"]), payload(fresh["bad"])]
    assert [gx_results(r) for r in kept] == [gx_results(fresh["bad"]), gx_results(fresh["clean"]), gx_results(fresh["bad"])]
    assert fresh["clean"].success and not fresh["bad"].success


def test_an_edited_expectation_file_is_built_afresh(tmp_path: Path, own_rules: Path) -> None:
    from assay.validation.gate import run_gate

    suite = GateOnlySuite()
    data = suite.load_dataset(write_dataset(tmp_path / "d", CLEAN_CASES, CLEAN_GENERATIONS))
    assert run_gate(suite, data).success
    suites_before = gx_session.kept()["suites"]

    # The same file, now allowing only 3-character categories: the kept suite must not be used.
    spec = json.loads((own_rules / "cases.json").read_text(encoding="utf-8"))
    for entry in spec["expectations"]:
        if entry["type"] == "expect_column_value_lengths_to_be_between" and entry["kwargs"]["column"] == "category":
            entry["kwargs"]["max_value"] = 3
    (own_rules / "cases.json").write_text(json.dumps(spec), encoding="utf-8")
    edited = run_gate(suite, data)
    assert not edited.success
    assert {p.expectation for p in edited.problems} == {"expect_column_value_lengths_to_be_between"}
    assert gx_session.kept()["suites"] == suites_before + 1

    # And an invalid edit is refused every time, never a kept suite that checks less.
    spec["expectations"].append({"type": "expect_column_values_to_be_unqiue", "kwargs": {"column": "id"}})
    (own_rules / "cases.json").write_text(json.dumps(spec), encoding="utf-8")
    for _ in range(2):
        with pytest.raises(ValueError, match="expect_column_values_to_be_unqiue"):
            run_gate(suite, data)


def test_forget_drops_every_kept_object(tmp_path: Path) -> None:
    from assay.validation.gate import run_gate

    suite = GateOnlySuite()
    run_gate(suite, suite.load_dataset(write_dataset(tmp_path / "d", CLEAN_CASES, CLEAN_GENERATIONS)))
    assert gx_session.kept()["suites"] >= 3
    gx_session.forget()
    assert gx_session.kept() == {"contexts": 0, "sources": 0, "batch_definitions": 0, "suites": 0}


def test_the_resident_worker_keeps_every_suites_validation_and_no_thread() -> None:
    """The worker validates each registered suite's bundled dataset before it forks: every
    suite's GX objects kept for the children, and no thread left (GX's progress bars would start
    tqdm's monitor; a worker with a thread refuses to serve)."""
    import subprocess
    import sys

    code = (
        "import threading\n"
        "from assay.flows.warm_worker import _validate_demos\n"
        "from assay.suites.registry import suite_names\n"
        "from assay.validation import gx_session\n"
        "_validate_demos()\n"
        "print(threading.active_count(), gx_session.kept()['sources'], len(suite_names()))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    threads, sources, suites = map(int, done.stdout.split())
    assert threads == 1
    assert sources == suites > 1
