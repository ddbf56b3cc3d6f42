"""OpenLineage events of real runs, received by a loopback lineage backend (docs/lineage.md).

Every received event is checked against the official client's models (and assay's own facets
against their shipped JSON Schema); each step has a START and an end event under the run's
flow-level job run; datasets are the stored artifacts with their hashes. A failed step sends a
FAIL; a backend that refuses or never answers costs the run a bounded wait and one console line.
"""

import hashlib
import json
import time
from collections import defaultdict

import pytest

from assay.lineage.openlineage_emit import WAIT_ENV
from tests.support.cli import cli, run_id_of
from tests.support.lineage_receiver import LineageReceiver, check_event, closed_port_url

SECRET = "sk-lineage-test-0123456789abcdef"


def manifest_of(out, run_id) -> dict:
    return json.loads((out / run_id / "manifest.json").read_text(encoding="utf-8"))


def by_job(events) -> dict[str, list[dict]]:
    jobs = defaultdict(list)
    for event in events:
        jobs[event["job"]["name"]].append(event)
    return jobs


@pytest.fixture(scope="module")
def lineage_run(prefect_server, bundled_rag_qa, tmp_path_factory):
    """One offline rag_qa run with OPENLINEAGE_URL pointing at a loopback receiver."""
    out = tmp_path_factory.mktemp("lineage") / "runs"
    with pytest.MonkeyPatch.context() as env, LineageReceiver() as receiver:
        env.setenv("OPENLINEAGE_URL", receiver.url)
        env.setenv("OPENAI_API_KEY", SECRET)  # present in the environment: never in an event
        result, output = cli("run", "rag_qa", "--dataset", str(bundled_rag_qa), "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    run_id = run_id_of(output)
    return out, run_id, receiver.events, receiver.paths, output


def test_every_step_sends_start_and_complete_under_the_run(lineage_run):
    out, run_id, events, paths, output = lineage_run
    manifest = manifest_of(out, run_id)
    assert events and set(paths) == {"/api/v1/lineage"}
    for event in events:
        check_event(event)
        assert event["job"]["namespace"] == "assay" and SECRET not in json.dumps(event)
    assert "OpenLineage:" not in output  # a healthy backend is not mentioned

    flow_run_id = manifest["prefect"]["flow_run_id"]
    jobs = by_job(events)
    flow = jobs.pop(manifest["suite"])
    assert [e["eventType"] for e in flow] == ["START", "COMPLETE"]
    assert {e["run"]["runId"] for e in flow} == {flow_run_id}
    end = flow[-1]["run"]["facets"]["assay_run"]
    assert end["manifestRootHash"] == manifest["root_hash"] and end["status"] == "completed"

    assert flow[-1]["eventTime"] >= max(e["eventTime"] for e in events)  # the run ends after its last step
    assert set(jobs) == {f"rag_qa.{step['name']}" for step in manifest["steps"]}
    for step in manifest["steps"]:
        start, done = jobs[f"rag_qa.{step['name']}"]
        assert (start["eventType"], done["eventType"]) == ("START", "COMPLETE")
        assert start["run"]["runId"] == done["run"]["runId"] != flow_run_id
        for event in (start, done):
            parent = event["run"]["facets"]["parent"]
            assert parent["run"]["runId"] == flow_run_id
            assert (parent["job"]["namespace"], parent["job"]["name"]) == ("assay", "rag_qa")
        facet = done["run"]["facets"]["assay_run"]
        assert facet["prefectFlowRunId"] == flow_run_id and facet["prefectTaskRunId"] == step["task_run_id"]
        # the commit that ran, or the code version where the code is not a git checkout
        assert done["job"]["facets"]["sourceCodeLocation"]["version"] == (manifest["code"]["git_commit"]
                                                                            or manifest["code"]["code_version"])


def test_datasets_are_the_stored_artifacts_with_their_hashes(lineage_run):
    out, run_id, events, _, _ = lineage_run
    manifest = manifest_of(out, run_id)
    run_dir = out / run_id
    outputs = {}
    for event in events:
        if event["eventType"] != "COMPLETE" or "parent" not in event["run"]["facets"]:
            continue
        step = event["run"]["facets"]["assay_run"]["step"]
        recorded = next(s for s in manifest["steps"] if s["name"] == step)
        names = {d["name"] for d in event["outputs"]}
        assert names == {str(run_dir / manifest["artifacts"][a]["path"]) for a in recorded["outputs"]}
        for dataset in event["inputs"] + event["outputs"]:
            facet = dataset["facets"].get("assay_artifact")
            if facet is None:  # the ingest step's source: the dataset directory itself
                assert step == "ingest" and dataset["namespace"] == "file"
                continue
            entry = manifest["artifacts"][facet["artifact"]]
            assert dataset["namespace"] == "file" and dataset["name"] == str(run_dir / entry["path"])
            assert facet["sha256"] == entry["sha256"] == hashlib.sha256((run_dir / entry["path"]).read_bytes()).hexdigest()
        outputs.update({d["facets"]["assay_artifact"]["artifact"]: d for d in event["outputs"]})
    assert set(outputs) == set(manifest["artifacts"])  # every stored artifact is some step's output

    def columns(name):
        return {f["name"] for f in outputs[name]["facets"]["schema"]["fields"]}

    assert {"id", "question"} <= columns("dataset/cases")
    assert {"case_id", "answer"} <= columns("generations/generations.jsonl")
    assert {"case_id", "metric", "value", "judge"} <= columns("scores/all.jsonl")
    assert {"case_id", "metric", "value"} <= columns("scores.parquet")
    scores = outputs["scores/all.jsonl"]
    assert any(d["name"] == scores["name"] for e in events for d in e["inputs"])  # the next step reads it


def test_backfill_sends_the_same_runs_with_the_root_hash(lineage_run):
    out, run_id, live, _, _ = lineage_run
    manifest = manifest_of(out, run_id)
    with pytest.MonkeyPatch.context() as env, LineageReceiver() as receiver:
        env.setenv("OPENLINEAGE_URL", receiver.url)
        result, output = cli("lineage", run_id, "--openlineage", "--out", str(out))
    assert result.exit_code == 0, output
    assert f"sent {len(receiver.events)} OpenLineage events" in output
    for event in receiver.events:
        check_event(event)
    live_ids = {(e["job"]["name"], e["eventType"]): e["run"]["runId"] for e in live}
    assert {(e["job"]["name"], e["eventType"]): e["run"]["runId"] for e in receiver.events} == live_ids
    datasets = [d for e in receiver.events for d in e["inputs"] + e["outputs"] if "assay_artifact" in d["facets"]]
    assert datasets and {d["facets"]["assay_artifact"]["manifestRootHash"] for d in datasets} == {manifest["root_hash"]}


def test_backfill_without_a_configuration_says_how_to_configure(lineage_run, monkeypatch):
    out, run_id, *_ = lineage_run
    for name in ("OPENLINEAGE_URL", "OPENLINEAGE_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(out)  # no openlineage.yml here
    result, output = cli("lineage", run_id, "--openlineage", "--out", str(out))
    assert result.exit_code == 1 and "OpenLineage is not configured: set OPENLINEAGE_URL" in output
    assert "Traceback" not in output


@pytest.mark.parametrize("backend", ["closed port", "never answers"])
def test_a_dead_backend_costs_a_bounded_wait_and_one_line(lineage_run, backend, monkeypatch):
    out, *_ = lineage_run
    wait = 2.0
    monkeypatch.setenv(WAIT_ENV, str(wait))
    started = time.monotonic()
    result, output = cli("run", "rag_qa", "--offline", "--out", str(out))  # every step a cache hit
    baseline = time.monotonic() - started
    with LineageReceiver(hang=True) as hanging:
        monkeypatch.setenv("OPENLINEAGE_URL", closed_port_url() if backend == "closed port" else hanging.url)
        started = time.monotonic()
        result, output = cli("run", "rag_qa", "--offline", "--out", str(out))
        with_dead_backend = time.monotonic() - started
    assert result.exit_code == 0, output
    print(f"\n{backend}: run took {with_dead_backend:.1f} s, {baseline:.1f} s without lineage "
          f"(cost {with_dead_backend - baseline:+.1f} s; bound {wait:g} s)")
    lines = [line for line in result.output.splitlines() if "OpenLineage:" in line]  # stdout and stderr
    assert len(lines) == 1, output  # said once
    assert "the run goes on without it" in lines[0]
    assert with_dead_backend - baseline < wait + 15  # loose: a busy machine's noise, never the client's retries (30 s and more)


def test_a_failed_step_sends_fail_and_the_run_completes(lineage_run, monkeypatch):
    out, run_id, *_ = lineage_run
    parquet = out / run_id / "scores.parquet"
    parquet.write_bytes(parquet.read_bytes() + b"\0")  # the baseline no longer matches its manifest
    with LineageReceiver() as receiver:
        monkeypatch.setenv("OPENLINEAGE_URL", receiver.url)
        result, output = cli("run", "rag_qa", "--offline", "--out", str(out), "--compare-with", run_id)
    assert result.exit_code == 0, output  # no gate asked: the run stands, its compare step failed
    for event in receiver.events:
        check_event(event)
    compare = by_job(receiver.events)["rag_qa.compare"]
    assert [e["eventType"] for e in compare] == ["START", "FAIL"]
    assert "RunIntegrityError" in compare[-1]["run"]["facets"]["errorMessage"]["message"]
    assert [e["eventType"] for e in by_job(receiver.events)["rag_qa"]] == ["START", "COMPLETE"]
