"""Honest outcomes: a run that finished its steps but measured nothing ends with exit code 4,
status "incomplete", the reason on the console, in the manifest, in the report and in the
Prefect flow run's state."""

import json

import pytest

from assay.lineage.audit import audit_run
from assay.lineage.store import ArtifactStore
from tests.support.cli import cli, run_id_of
from tests.support.memory_data import write_memory_dataset
from tests.support.openai_server import Fault, OpenAICompatServer

EXIT_VALIDATION = 2
EXIT_INCOMPLETE = 4


def manifest_of(out, run_id) -> dict:
    return json.loads((out / run_id / "manifest.json").read_text(encoding="utf-8"))


def flow_run_state(flow_run_id: str) -> str:
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        return client.read_flow_run(flow_run_id).state.type.value


def test_a_jury_whose_every_judge_is_dropped_is_an_incomplete_run(prefect_server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-outcome-test-key")
    data = write_memory_dataset(tmp_path / "data")
    with OpenAICompatServer() as server:
        server.add_fault(Fault(kind="status", status=401, model="a"))
        result, output = cli("run", "memory", "--dataset", str(data), "--out", str(tmp_path / "runs"),
                             "--api-base", server.base_url, "--judge", "openai/a")
    assert result.exit_code == EXIT_INCOMPLETE, output
    assert "run incomplete" in output and "metric family jury: every judge was dropped" in output
    run_id = run_id_of(output)
    manifest = manifest_of(tmp_path / "runs", run_id)
    assert manifest["status"] == "incomplete" and "metric family jury: every judge was dropped" in manifest["message"]
    report = (tmp_path / "runs" / run_id / "report.md").read_text(encoding="utf-8")
    assert "**Incomplete run.**" in report and "overall is unscored for all 3 cases" in report
    assert "relevance is unscored" not in report  # explained by the dropped jury, not listed again
    assert flow_run_state(manifest["prefect"]["flow_run_id"]) == "FAILED"  # shows as failed in Prefect's UI
    assert audit_run(ArtifactStore(str(tmp_path / "runs")), run_id).ok


def test_recorded_replay_without_generations_fails_the_gate_naming_the_file(prefect_server, tmp_path):
    data = write_memory_dataset(tmp_path / "data")
    (data / "memories.jsonl").unlink()
    result, output = cli("run", "memory", "--dataset", str(data), "--offline", "--out", str(tmp_path / "runs"))
    assert result.exit_code == 2, output  # the validation gate
    assert "memories.jsonl" in output and "recorded generations present" in output


@pytest.mark.parametrize("budget_exhausted, dropped, expected", [
    (True, {}, "metric family jury: the cost budget stopped the jury before it finished"),
    (False, {"a": "x", "b": "y"}, "metric family jury: every judge was dropped (a: x; b: y)"),
])
def test_incomplete_reasons_name_the_budget_and_dropped_juries(tmp_path, budget_exhausted, dropped, expected):
    from assay import pipeline
    from assay.artifacts import FamilyOutput, JuryStats
    from assay.spec import RunSpec

    store = ArtifactStore(str(tmp_path))
    scores = store.put_jsonl([{"case_id": "c1", "metric": "m", "family": "jury", "value": 1.0, "scale": "0-10"}])
    spec = RunSpec.model_validate({"suite": "memory", "jury": {"panel": [
        {"name": "a", "model": "openai/a", "weight": 1}, {"name": "b", "model": "openai/b", "weight": 1}]}})
    family = FamilyOutput(family="jury", scores=scores, n_rows=1,
                          jury_stats=JuryStats(dropped=dropped, budget_exhausted=budget_exhausted))
    assert pipeline.incomplete_reasons(store, spec, [family], scores) == [expected]


@pytest.mark.parametrize("suite", ["memory", "rag_qa"])
def test_an_empty_cases_file_fails_the_gate_naming_it(prefect_server, tmp_path, suite, bundled_rag_qa):
    import shutil

    if suite == "memory":
        data = write_memory_dataset(tmp_path / "data", cases=[], sessions=[], memories=[])
    else:
        data = tmp_path / "data"
        shutil.copytree(bundled_rag_qa, data)
        for name in ("cases.jsonl", "generations.jsonl"):
            (data / name).write_text("", encoding="utf-8")
    result, output = cli("run", suite, "--dataset", str(data), "--offline", "--out", str(tmp_path / "runs"))
    assert result.exit_code == EXIT_VALIDATION, output  # issue 34: not "no case was scored" after every step
    assert "Traceback" not in output and "cases.jsonl is empty: there is nothing to evaluate" in output, output
    manifest = manifest_of(tmp_path / "runs", run_id_of(output))
    assert manifest["status"] == "failed_validation"


class FillingDisk:
    """os.fdopen on a disk that fills up after ``room`` more files: later writes fail with ENOSPC."""

    def __init__(self, room: int) -> None:
        import os

        self.room, self.real = room, os.fdopen

    def __call__(self, fd, mode="r", *args, **kwargs):
        import errno
        import os

        handle = self.real(fd, mode, *args, **kwargs)
        if "w" not in mode:
            return handle
        self.room -= 1
        if self.room >= 0:
            return handle

        class Full:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                handle.close()

            def write(self, data):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        return Full()


def test_a_disk_that_fills_mid_run_fails_the_run_in_one_line_naming_the_path(prefect_server, tmp_path, monkeypatch):
    import os

    out = tmp_path / "runs"
    data = write_memory_dataset(tmp_path / "data")
    monkeypatch.setattr(os, "fdopen", FillingDisk(room=4))  # the manifest and a few objects fit
    result, output = cli("run", "memory", "--dataset", str(data), "--offline", "--out", str(out))
    monkeypatch.undo()
    assert result.exit_code == 1, output
    failed = [line for line in result.output.splitlines() if line.startswith("run failed:")]
    assert len(failed) == 1 and f"cannot write {out}/" in failed[0] and "no space left on the device" in failed[0], output
    assert "Traceback" not in output and "run running" not in output
    assert not [p for p in out.rglob("*") if ".tmp" in p.name]  # no half-written files
    manifest = manifest_of(out, run_id_of(output))  # written before the disk filled
    assert flow_run_state(manifest["prefect"]["flow_run_id"]) == "FAILED"


def test_a_corrupt_pool_object_is_set_aside_named_and_recomputed(prefect_server, tmp_path):
    out = tmp_path / "runs"
    data = write_memory_dataset(tmp_path / "data")
    args = ("run", "memory", "--dataset", str(data), "--offline", "--out", str(out))
    result, output = cli(*args)
    assert result.exit_code == 0, output
    first = manifest_of(out, run_id_of(output))
    def pool_file_of(producer):
        sha = next(a["sha256"] for a in first["artifacts"].values() if a["producer"] == producer)
        return out / ".assay" / "objects" / sha[:2] / sha

    ingested, scored = pool_file_of("ingest"), pool_file_of("metrics:facts")
    for pool_file in (ingested, scored):
        pool_file.write_bytes(b"bit rot")

    result, output = cli(*args)  # later steps are cached; a corrupt object must not block the run
    assert result.exit_code == 0, output
    # a cached step's output is checked before reuse: set aside, named, and the step runs again
    assert f"! metrics:facts: pool object {scored} did not match its hash; set aside as" in output, output
    second = manifest_of(out, run_id_of(output))
    facts_step = next(s for s in second["steps"] if s["name"] == "metrics:facts")
    assert facts_step["status"] == "ran" and f"recomputed: pool object {scored}" in facts_step["detail"]
    # a step that writes an object it finds corrupt sets the old bytes aside and writes them afresh
    assert len(second["set_aside"]) == 2 and {(out / p).read_bytes() for p in second["set_aside"]} == {b"bit rot"}
    assert all(f"corrupt pool object set aside (recomputed): {p}" in output for p in second["set_aside"])
    assert ingested.read_bytes() != b"bit rot" and scored.read_bytes() != b"bit rot"  # recomputed in place
    assert audit_run(ArtifactStore(str(out)), run_id_of(output)).ok
