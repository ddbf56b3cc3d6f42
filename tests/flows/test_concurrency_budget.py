"""`--concurrency N` is one budget per provider for the whole run: however many partitions and
families score at once, on threads or in a Dask cluster's worker processes, the judge server
never has more than N calls in flight."""

import shutil
from pathlib import Path

import pytest

from assay.lineage.manifest import load_manifest
from assay.lineage.store import ArtifactStore
from tests.support.cli import cli, run_id_of
from tests.support.openai_server import OpenAICompatServer

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 4


@pytest.fixture
def slow_judge(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with OpenAICompatServer(latency_s=0.05) as server:
        yield server


@pytest.mark.parametrize("runner", ["threads", "dask"])  # dask: a local cluster of 2 worker processes
def test_partitions_share_one_concurrency_budget_per_provider(prefect_server, slow_judge, tmp_path, runner):
    dataset = tmp_path / "rag_qa"
    shutil.copytree(ROOT / "datasets" / "rag_qa", dataset)
    criteria = tmp_path / "criteria.yaml"  # a second judged family, scored beside the suite's jury
    criteria.write_text("criteria:\n  - name: concise\n    rubric: Is the answer short?\n"
                        "    scale: pass_fail\n    reads: [question, answer]\n")
    n_cases = sum(1 for line in (dataset / "cases.jsonl").read_text().splitlines() if line.strip())
    args = ["run", "rag_qa", "--dataset", str(dataset), "--out", str(tmp_path / "runs"),
            "--api-base", slow_judge.base_url, "--partition-size", "7", "--concurrency", str(LIMIT), "--runner", runner,
            "--criteria", str(criteria)]
    for judge in ("openai/a", "openai/b", "openai/c"):
        args += ["--judge", judge]
    result, output = cli(*args)
    assert result.exit_code == 0, output
    run_id_of(output)
    # 7 partitions x (the answer jury + one criterion), three judges each, all on one provider.
    assert slow_judge.count(status=200) == n_cases * 3 * 2
    assert 1 < slow_judge.max_in_flight <= LIMIT, slow_judge.max_in_flight

    # The budget is no part of any cache key: the same run with another one reuses every step.
    slow_judge.reset_counts()
    at = args.index("--concurrency") + 1
    result, output = cli(*args[:at], "2", *args[at + 1:])
    assert result.exit_code == 0, output
    manifest = load_manifest(ArtifactStore(str(tmp_path / "runs")), run_id_of(output))
    metric_steps = [s for s in manifest.steps if s.name.startswith("metrics:")]
    assert len(metric_steps) == 7 * 3 and all(s.status == "reused" for s in metric_steps)
    assert slow_judge.count() == 0


def test_judge_calls_split_over_two_processes_stay_within_the_budget(prefect_server, slow_judge, tmp_path, monkeypatch):
    """Every partition's jury judges part of its calls in a forked child (``ASSAY_JUDGE_PROCESSES=2``,
    whatever the run's size here): the provider still sees at most N calls in flight, and the scores are
    byte for byte those of the same run in one process, with the same artifacts."""
    dataset = tmp_path / "rag_qa"
    shutil.copytree(ROOT / "datasets" / "rag_qa", dataset)
    args = ["run", "rag_qa", "--dataset", str(dataset), "--api-base", slow_judge.base_url, "--partition-size", "7",
            "--concurrency", str(LIMIT), "--runner", "threads"]
    for judge in ("openai/a", "openai/b", "openai/c"):
        args += ["--judge", judge]
    monkeypatch.setattr("assay.judges.second_process.MIN_CALLS", 1)  # each partition's few calls too
    monkeypatch.setattr("assay.workers.usable_cores", lambda: 2)
    monkeypatch.setattr("assay.cores.usable_cores", lambda: 2)
    outputs = {}
    for processes in ("2", "1"):
        monkeypatch.setenv("ASSAY_JUDGE_PROCESSES", processes)
        slow_judge.reset_counts()
        out = tmp_path / f"runs-{processes}"
        result, output = cli(*args, "--out", str(out))
        assert result.exit_code == 0, output
        store = ArtifactStore(str(out))
        manifest = load_manifest(store, run_id_of(output))
        outputs[processes] = {name: entry.sha256 for name, entry in manifest.artifacts.items()}
        if processes == "2":
            assert 1 < slow_judge.max_in_flight <= LIMIT, slow_judge.max_in_flight
    assert outputs["2"]["scores/all.jsonl"] == outputs["1"]["scores/all.jsonl"]
    assert outputs["2"].keys() == outputs["1"].keys()
