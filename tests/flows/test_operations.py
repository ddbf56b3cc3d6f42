"""Operations on real runs: Dask runner parity, a non-local fsspec store, compare, lineage."""

import json
import shutil

import pandas as pd
import pytest

from assay import workers
from assay.lineage.manifest import load_manifest
from assay.lineage.store import ArtifactStore
from tests.support.cli import cli, run_id_of


@pytest.fixture(scope="module")
def thread_run(prefect_server, tmp_path_factory):
    out = tmp_path_factory.mktemp("threads")
    result, output = cli("run", "rag_qa", "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    return out, run_id_of(output)


@pytest.fixture(scope="module")
def dask_cluster(prefect_server):
    """The local cluster `--runner dask` starts (2 worker processes of 2 threads), started once for
    both Dask runs here and joined by address (`--runner dask=ADDRESS`): starting a cluster is
    most of a Dask run's CPU. `--runner dask` starting its own is run by test_concurrency_budget
    and the Dask deployment in test_prefect_server. Its workers have ASSAY_WORKERS=1 (worker
    pools switched on whatever the machine), as the partition test needs."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None,
                      env={"ASSAY_WORKERS": "1"}) as cluster:
        yield f"dask={cluster.scheduler_address}"


def test_dask_local_cluster_gives_identical_scores(thread_run, dask_cluster, tmp_path):
    out, run_id = thread_run
    result, output = cli("run", "rag_qa", "--offline", "--out", str(tmp_path), "--runner", dask_cluster)
    assert result.exit_code == 0, output
    dask_id = run_id_of(output)
    manifest = load_manifest(ArtifactStore(str(tmp_path)), dask_id)
    assert {s.status for s in manifest.steps} == {"ran"}  # a fresh cache: nothing reused
    a = pd.read_parquet(out / run_id / "scores.parquet")
    b = pd.read_parquet(tmp_path / dask_id / "scores.parquet")
    pd.testing.assert_frame_equal(a, b)


def test_partitions_on_dask_or_in_a_memory_store_are_scored_in_place(thread_run, dask_cluster, tmp_path, monkeypatch):
    """Dask's workers are daemonic (no worker pool inside them) and a memory store is one
    process's: both score the offline jury's partitions in place, with the same scores."""
    monkeypatch.setenv("ASSAY_WORKERS", "1")  # switched on (the default from 2 cores) whatever the machine
    out, run_id = thread_run
    pools = workers.pools_started()
    result, output = cli("run", "rag_qa", "--offline", "--out", str(tmp_path), "--runner", dask_cluster,
                         "--partition-size", "7")
    assert result.exit_code == 0, output
    dask_parted = pd.read_parquet(tmp_path / run_id_of(output) / "scores.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(out / run_id / "scores.parquet"), dask_parted)
    store = "memory://assay-ops-parted"
    result, output = cli("run", "rag_qa", "--offline", "--out", str(tmp_path), "--store", store,
                         "--partition-size", "7")
    assert result.exit_code == 0, output
    result, output = cli("audit", run_id_of(output), "--store", store)
    assert result.exit_code == 0, output
    assert workers.pools_started() == pools
    # ASSAY_WORKERS=0: a partitioned run on the threads and a local store scores in place too.
    monkeypatch.setenv("ASSAY_WORKERS", "0")
    result, output = cli("run", "rag_qa", "--offline", "--out", str(tmp_path / "off"), "--partition-size", "7")
    assert result.exit_code == 0, output
    assert workers.pools_started() == pools
    switched_off = pd.read_parquet(tmp_path / "off" / run_id_of(output) / "scores.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(out / run_id / "scores.parquet"), switched_off)


def test_run_in_a_non_default_fsspec_store_passes_audit(prefect_server, tmp_path):
    store = "memory://assay-ops-store"
    result, output = cli("run", "rag_qa", "--offline", "--out", str(tmp_path), "--store", store)
    assert result.exit_code == 0, output
    run_id = run_id_of(output)
    assert f"run dir: /assay-ops-store/{run_id}" in output
    assert not (tmp_path / run_id).exists()  # artifacts went to the store, not --out
    result, output = cli("audit", run_id, "--store", store)
    assert result.exit_code == 0, output
    assert "audit PASSED" in output


def test_compare_passes_same_data_and_flags_an_injected_regression(thread_run, bundled_rag_qa, tmp_path):
    out, baseline = thread_run
    result, output = cli("run", "rag_qa", "--offline", "--out", str(out))
    same = run_id_of(output)
    result, output = cli("compare", baseline, same, "--out", str(out), "--fail-on-regression")
    assert result.exit_code == 0, output
    assert "no significant regression" in output

    worse = tmp_path / "worse"
    shutil.copytree(bundled_rag_qa, worse)
    rows = [json.loads(line) for line in (worse / "generations.jsonl").read_text().splitlines() if line.strip()]
    for row in rows:  # push every relevant chunk to the bottom of the ranking
        row["retrieved"] = list(reversed(row["retrieved"]))
    (worse / "generations.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    result, output = cli("run", "rag_qa", "--offline", "--dataset", str(worse), "--out", str(out))
    assert result.exit_code == 0, output
    regressed = run_id_of(output)
    result, output = cli("compare", baseline, regressed, "--out", str(out), "--fail-on-regression")
    assert result.exit_code == 3, output
    assert "REGRESSION" in output and "reciprocal_rank" in output.split("regressions:")[1]

    # the same check as a step of the flow, as a scheduled run would do it
    result, output = cli("run", "rag_qa", "--offline", "--dataset", str(worse), "--out", str(out),
                         "--compare-with", baseline, "--fail-on-regression")
    assert result.exit_code == 3, output
    manifest = load_manifest(ArtifactStore(str(out)), run_id_of(output))
    assert "comparison.json" in manifest.artifacts and "regression" in manifest.message


def test_lineage_traces_a_judged_score_to_raw_responses(thread_run):
    out, run_id = thread_run
    result, output = cli("lineage", run_id, "--case", "q013", "--metric", "accuracy", "--out", str(out))
    assert result.exit_code == 0, output
    assert "input row: line" in output and "dataset/cases" in output
    assert "generation: generations/generations.jsonl sha256:" in output
    assert "judge_calls/" in output and "raw: {" in output
    assert "prompt rag_answer sha256:" in output
    result, output = cli("lineage", run_id, "--case", "nope", "--out", str(out))
    assert result.exit_code == 1 and "has no scores" in output
