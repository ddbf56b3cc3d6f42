"""Partitioned runs on real Prefect, GX and files: the same scores as one batch, a rerun after
editing one case recomputes only its partition, and audit, lineage and the Python API read it."""

import json
import shutil
from pathlib import Path

import pytest

import assay
from assay import artifacts as names
from assay import workers
from assay.deep_audit import audit_deep
from assay.lineage.audit import audit_run
from assay.lineage.manifest import Manifest, load_manifest
from assay.lineage.store import ArtifactStore
from assay.lineage.trace import trace_case
from tests.support.cli import cli, run_id_of

ROOT = Path(__file__).resolve().parents[2]
SIZE = 7  # cases per partition: the 48 bundled rag_qa cases make 7 partitions


def run(out: Path, suite: str, dataset: Path, *extra: str) -> Manifest:
    result, output = cli("run", suite, "--offline", "--dataset", str(dataset), "--out", str(out), *extra)
    assert result.exit_code == 0, output
    return load_manifest(ArtifactStore(str(out)), run_id_of(output))


def sha(manifest: Manifest, name: str) -> str:
    return manifest.artifacts[name].sha256


@pytest.fixture(scope="module")
def rag_runs(prefect_server, tmp_path_factory):
    dataset = tmp_path_factory.mktemp("data") / "rag_qa"
    shutil.copytree(ROOT / "datasets" / "rag_qa", dataset)
    out = tmp_path_factory.mktemp("runs")
    pools = workers.pools_started()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ASSAY_WORKERS", "1")  # workers (the default from 2 cores) on any machine: they must score as one batch
        whole = run(out, "rag_qa", dataset)
        assert workers.pools_started() == pools  # one partition: no worker processes started
        parted = run(out, "rag_qa", dataset, "--partition-size", str(SIZE))
        assert workers.pools_started() == pools + 1  # the offline jury's partitions ran in workers
    return out, dataset, whole, parted


def test_a_partitioned_run_scores_exactly_as_one_batch(rag_runs):
    out, _, whole, parted = rag_runs
    assert names.PARTITION_INDEX not in whole.artifacts  # 48 cases < 2000: one batch, as before
    assert any(name.startswith(names.JUDGE_CALLS_DIR) for name in whole.artifacts)
    for name in (names.SCORES, names.SUMMARY, names.REPORT_MD, names.SCORES_PARQUET):
        assert sha(parted, name) == sha(whole, name), name

    index = json.loads((out / parted.run_id / parted.artifacts[names.PARTITION_INDEX].path).read_text())
    assert index["partition_size"] == SIZE
    assert [p["n_cases"] for p in index["partitions"]] == [7, 7, 7, 7, 7, 7, 6]
    metric_steps = [s.name for s in parted.steps if s.name.startswith("metrics:")]
    assert sorted(metric_steps) == sorted(f"metrics:{f}:p{i:04d}" for f in ("answer", "retrieval") for i in range(7))
    # Judge calls: one bundle per partition, not one manifest entry per call.
    assert not any(name.startswith(names.JUDGE_CALLS_DIR) for name in parted.artifacts)
    bundles = [name for name in parted.artifacts if names.is_judge_calls_bundle(name)]
    assert len(bundles) == 7
    calls = sum(len((out / parted.run_id / parted.artifacts[b].path).read_text().splitlines()) for b in bundles)
    assert calls == 48 * 3
    assert len(parted.artifacts) < len(whole.artifacts) / 2

    store = ArtifactStore(str(out))
    assert audit_run(store, parted.run_id).ok
    deep = audit_deep(store, parted.run_id)
    assert deep.ok and not deep.recomputed, deep.lines()
    assert any("recomputed 2 metric families" in n for n in deep.notices)
    loaded = assay.load_run(out / parted.run_id)
    assert loaded.status == "completed" and len(loaded.scores) == len(assay.load_run(out / whole.run_id).scores)
    traced = "\n".join(trace_case(store, parted.run_id, "q001"))
    assert "request + raw response: judges/answer/calls-part-0000.jsonl" in traced
    result, output = cli("lineage", parted.run_id, "--case", "q045", "--out", str(out))
    assert result.exit_code == 0 and "judges/answer/calls-part-0006.jsonl" in output, output
    result, output = cli("show", parted.run_id, "--out", str(out))
    assert result.exit_code == 0 and "status:    completed (20 steps)" in output, output
    result, output = cli("compare", whole.run_id, parted.run_id, "--out", str(out), "--strict")
    assert result.exit_code == 0, output


def test_editing_one_case_recomputes_only_its_partition(rag_runs):
    out, dataset, _, parted = rag_runs
    cases = dataset / "cases.jsonl"
    lines = cases.read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])
    last["question"] += " (다시 묻습니다)"
    lines[-1] = json.dumps(last, ensure_ascii=False)
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")

    edited = run(out, "rag_qa", dataset, "--partition-size", str(SIZE))
    status = {s.name: s.status for s in edited.steps}
    ran = sorted(name for name, state in status.items() if name.startswith("metrics:") and state == "ran")
    assert ran == ["metrics:answer:p0006", "metrics:retrieval:p0006"]  # the last case's partition
    assert sum(1 for name, state in status.items() if name.startswith("metrics:") and state == "reused") == 12
    for i in range(6):
        assert sha(edited, names.partition(i)) == sha(parted, names.partition(i))
    assert sha(edited, names.partition(6)) != sha(parted, names.partition(6))
    assert audit_run(ArtifactStore(str(out)), edited.run_id).ok


def test_a_partition_keeps_a_patients_turns_together(prefect_server, tmp_path):
    dataset = ROOT / "datasets" / "clinical"
    whole = run(tmp_path, "clinical", dataset)
    parted = run(tmp_path, "clinical", dataset, "--partition-size", "5")
    for name in (names.SCORES, names.SUMMARY):
        assert sha(parted, name) == sha(whole, name), name
    index = json.loads((tmp_path / parted.run_id / parted.artifacts[names.PARTITION_INDEX].path).read_text())
    patients_seen: dict[str, int] = {}
    for part in index["partitions"]:
        record = json.loads((tmp_path / parted.run_id / parted.artifacts[names.partition(part["index"])].path).read_text())
        for case in record["cases"]:
            assert patients_seen.setdefault(case["patient_id"], part["index"]) == part["index"], case["id"]
    assert len(index["partitions"]) > 1
    assert audit_run(ArtifactStore(str(tmp_path)), parted.run_id).ok


def test_a_large_runs_report_lists_its_first_cases_and_says_where_the_rest_are(rag_runs, monkeypatch):
    import io

    import pandas as pd

    from assay import pipeline
    from assay.artifacts import PublishInputs
    from assay.rendering.explorer import embedded_explorer
    from assay.spec import RunSpec
    from assay.suites.registry import get_suite

    out, _, _, parted = rag_runs
    monkeypatch.setattr(pipeline, "REPORT_CASES", 5)
    store = ArtifactStore(str(out))
    inputs = PublishInputs(
        snapshot=sha(parted, names.DATASET_SNAPSHOT), validation_report=sha(parted, names.VALIDATION_REPORT),
        generations=sha(parted, names.GENERATIONS), scores=sha(parted, names.SCORES), summary=sha(parted, names.SUMMARY),
        jury_runs={name: e.sha256 for name, e in parted.artifacts.items() if "/jury_runs" in name},
        config_hash=parted.config_hash,
    )
    published = pipeline.publish(store, get_suite("rag_qa"), RunSpec.model_validate(parted.run_spec), inputs)
    markdown = store.get(published.sha(names.REPORT_MD)).decode("utf-8")
    assert "the first 5 of 48" in markdown and "43 more cases are in `scores.parquet`" in markdown
    explorer = embedded_explorer(store.get(published.sha(names.REPORT_HTML)).decode("utf-8"))
    assert explorer is not None and [c.id for c in explorer.cases] == ["q001", "q002", "q003", "q004", "q005"]
    assert all(c.judges for c in explorer.cases)  # the listed cases keep their judges' accounts
    parquet = pd.read_parquet(io.BytesIO(store.get(published.sha(names.SCORES_PARQUET))))
    assert parquet["case_id"].nunique() == 48
    assert "## Jury" in markdown and "offline-lexical" in markdown  # cost account over every partition


@pytest.mark.parametrize("suite", ["memory", "agent", "report"])
def test_every_suite_scores_the_same_in_partitions(prefect_server, tmp_path, suite):
    dataset = ROOT / "datasets" / suite
    whole = run(tmp_path, suite, dataset)
    parted = run(tmp_path, suite, dataset, "--partition-size", "5")
    assert names.PARTITION_INDEX in parted.artifacts
    for name in (names.SCORES, names.SUMMARY):
        assert sha(parted, name) == sha(whole, name), name
    assert audit_run(ArtifactStore(str(tmp_path)), parted.run_id).ok
