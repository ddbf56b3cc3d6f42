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
