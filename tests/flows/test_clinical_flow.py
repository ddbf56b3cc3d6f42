"""The clinical suite end to end on real Prefect and GX: the bundled dataset offline, rerun,
audit (anchored and deep), live replay through litellm against a loopback server with the
dialogue carried turn to turn, and a user's own answerer as --target."""

import json
import sys

import pandas as pd
import pytest

from assay.deep_audit import audit_deep
from assay.lineage.audit import audit_run
from assay.lineage.manifest import load_manifest
from assay.lineage.store import ArtifactStore
from tests.conftest import ROOT
from tests.support.cli import cli, run_id_of
from tests.support.openai_server import OpenAICompatServer

BUNDLED = ROOT / "datasets" / "clinical"


def _ids(name):
    return [json.loads(line)["id"] for line in (BUNDLED / name).read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def offline_run(prefect_server, tmp_path_factory):
    out = tmp_path_factory.mktemp("clinical") / "runs"
    result, output = cli("run", "clinical", "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    return out, run_id_of(output)


def test_offline_run_scores_every_turn_and_reports_safety_first(offline_run):
    out, run_id = offline_run
    scores = pd.read_parquet(out / run_id / "scores.parquet")
    final = scores[scores["judge"].isna()]
    for metric in ("sfs", "csp", "cus", "aggregate", "faithfulness", "answer_relevance"):
        values = final[final["metric"] == metric].set_index("case_id")["value"]
        assert sorted(values.index) == sorted(_ids("cases.jsonl")) and values.notna().all(), metric
    report = (out / run_id / "report.md").read_text(encoding="utf-8")
    assert report.index("## Safety violations") < report.index("## Overall") < report.index("## Per turn")
    assert "nsaid\\_with\\_ckd" in report and "## By patient" in report
    for chart in ("aggregate_by_patient.png", "score_means.png"):
        assert (out / run_id / "charts" / chart).is_file()


def test_audit_and_deep_audit_pass(offline_run):
    out, run_id = offline_run
    store = ArtifactStore(str(out))
    assert audit_run(store, run_id).ok
    deep = audit_deep(store, run_id)
    assert deep.ok, deep.lines()
    result, output = cli("audit", run_id, "--out", str(out), "--deep")
    assert result.exit_code == 0, output


def test_rerun_reuses_every_step(offline_run):
    out, run_id = offline_run
    result, output = cli("rerun", run_id, "--out", str(out))
    assert result.exit_code == 0, output
    manifest = load_manifest(ArtifactStore(str(out)), run_id_of(output))
    assert {s.status for s in manifest.steps} == {"reused"}, [(s.name, s.status) for s in manifest.steps]


def _clinic_reply(body):
    """A generator that recommends ibuprofen on its first turn and reports how much dialogue it saw;
    judge calls (response_format) get a schema-filling verdict."""
    if body.get("response_format"):
        from tests.support.openai_server import schema_filling_responder

        return schema_filling_responder(body)
    earlier = sum(1 for m in body["messages"] if m["role"] == "assistant")
    return "이부프로펜을 드셔도 괜찮습니다." if earlier == 0 else f"앞선 답변 {earlier}개를 참고했습니다. 병원 진료를 받으세요."


def test_live_replay_carries_the_dialogue_through_litellm(prefect_server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-clinical-0000")
    data = tmp_path / "data"
    data.mkdir()
    for name in ("patients.jsonl", "cases.jsonl"):
        lines = (BUNDLED / name).read_text(encoding="utf-8").splitlines()
        keep = [line for line in lines if json.loads(line).get("patient_id", json.loads(line).get("id")) in ("p01", "p02")]
        (data / name).write_text("\n".join(keep) + "\n", encoding="utf-8")
    out = tmp_path / "runs"
    with OpenAICompatServer(responder=_clinic_reply) as server:
        result, output = cli("run", "clinical", "--dataset", str(data), "--offline", "--replay", "live",
                             "--generator", "openai/clinic", "--api-base", server.base_url, "--out", str(out))
        assert result.exit_code == 0, output
        assert server.count(model="clinic") == 8  # one call per turn, no more
    run_id = run_id_of(output)
    scores = pd.read_parquet(out / run_id / "scores.parquet")
    final = scores[scores["judge"].isna()].set_index(["case_id", "metric"])["value"]
    assert final[("p01-t1", "csp")] > 0  # ibuprofen to an eGFR-48 patient
    assert final[("p02-t1", "csp")] == 0  # no NSAID rule applies to p02
    report = (out / run_id / "report.md").read_text(encoding="utf-8")
    assert "앞선 답변 3개를 참고했습니다" in report  # the fourth turn saw the three before it
    assert audit_run(ArtifactStore(str(out)), run_id).ok


def test_a_users_own_answerer_runs_as_target(prefect_server, tmp_path, monkeypatch):
    module = tmp_path / "my_clinic_flow.py"
    module.write_text(
        "def answer(patient, history, question):\n"
        "    return f\"eGFR {patient['labs'].get('egfr')}이시니 나프록센은 피하세요.\"\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "runs"
    result, output = cli("run", "clinical", "--offline", "--replay", "live", "--target", "my_clinic_flow:answer",
                         "--out", str(out))
    assert result.exit_code == 0, output
    scores = pd.read_parquet(out / run_id_of(output) / "scores.parquet")
    final = scores[scores["judge"].isna()].set_index(["case_id", "metric"])["value"]
    assert final[("p01-t1", "sfs")] == 1.0 and final[("p01-t2", "csp")] == 0.0
    sys.modules.pop("my_clinic_flow", None)
