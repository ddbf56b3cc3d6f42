"""Preflight: every bad option value or missing key ends `assay run` with exit code 1 and ONE
clear line before any server starts (no traceback, no run directory); store faults name the path
and leave no temporary file."""

from __future__ import annotations

import errno
import os

import pytest

from assay.lineage.store import ArtifactStore, CorruptArtifact, StoreWriteError
from assay.spec import RunOptions
from tests.support.cli import cli
from tests.support.full_disk import FullDiskHandle

EXIT_FAILED = 1


@pytest.fixture
def no_provider_keys(monkeypatch):
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(key, raising=False)


@pytest.mark.parametrize("args, reason", [
    (["--offline", "--judge-weight", "0.5"], "jury: expected 3 weights, got 1"),
    (["--offline", "--lang", "xx"], "--lang 'xx': Input should be 'ko' or 'en'"),
    (["--offline", "-k", "0"], "-k 0: Input should be greater than or equal to 1"),
    (["--offline", "--max-cost", "nan"], "--max-cost must be a finite number of USD >= 0, got nan"),
    (["--offline", "--max-cost", "inf"], "--max-cost must be a finite number of USD >= 0, got inf"),
    (["--offline", "--max-cost", "-1"], "--max-cost must be a finite number of USD >= 0, got -1.0"),
    (["--offline", "--concurrency", "0"], "--concurrency 0: Input should be greater than or equal to 1"),
    (["--judge", "nosuch/model"], "judge model: litellm does not know the provider of 'nosuch/model'"),
    (["--judge", "nosuch/model", "--api-base", "http://127.0.0.1:9/v1"],
     "judge model: litellm does not know the provider of 'nosuch/model'"),
    (["--judge", "openai/gpt-4o-mini"], "judge gpt-4o-mini (openai/gpt-4o-mini) needs OPENAI_API_KEY, which is not set"),
    (["--offline", "--replay", "live", "--generator", "openai/gpt-4o-mini"],
     "generator (openai/gpt-4o-mini) needs OPENAI_API_KEY, which is not set"),
])
def test_a_bad_option_fails_in_one_line_before_any_server_starts(tmp_path, no_provider_keys, args, reason):
    out = tmp_path / "runs"
    result, output = cli("run", "rag_qa", "--out", str(out), *args)
    assert result.exit_code == EXIT_FAILED, output
    assert reason in output, output
    assert "Traceback" not in output and "run id:" not in output  # stopped before the flow
    assert not out.exists() or not any(p.name != ".assay" for p in out.iterdir())
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, output  # one clear line


def readonly_folder(path):
    """A folder that refuses writes even to root: a read-only tmpfs, else (non-root) mode 0555."""
    path.mkdir()
    if os.geteuid() != 0:
        path.chmod(0o555)
        return lambda: path.chmod(0o755)
    if os.system(f"mount -t tmpfs -o ro,size=64k tmpfs {path} 2>/dev/null") != 0:
        pytest.skip("running as root without mount rights: no way to make a folder read-only for root")
    return lambda: os.system(f"umount {path}")


def test_a_read_only_out_fails_in_one_line_naming_the_path(tmp_path):
    out = tmp_path / "ro"
    release = readonly_folder(out)
    try:
        result, output = cli("run", "rag_qa", "--offline", "--out", str(out))
    finally:
        release()
    assert result.exit_code == EXIT_FAILED, output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"store {out}: cannot write {out}/.assay"), output
    assert "Traceback" not in output


def test_store_preflight_passes_a_writable_store_and_leaves_nothing(tmp_path):
    from assay.preflight import store_problems

    assert store_problems(RunOptions(out=str(tmp_path / "runs"))) == []
    assert not (tmp_path / "runs").exists()  # the probe and the folders it made are gone
    (tmp_path / "kept" / ".assay").mkdir(parents=True)
    assert store_problems(RunOptions(out=str(tmp_path / "kept"))) == []
    assert (tmp_path / "kept" / ".assay").is_dir() and not any((tmp_path / "kept" / ".assay").iterdir())


def test_a_full_disk_names_the_path_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    store = ArtifactStore(str(tmp_path / "store"))
    monkeypatch.setattr(os, "fdopen", lambda fd, mode="r": FullDiskHandle(fd))
    with pytest.raises(StoreWriteError) as caught:
        store.put(b"some content")
    assert str(caught.value) == f"cannot write {store.pool_path(caught.value.path.rsplit('/', 1)[1])}: no space left on the device"
    assert caught.value.errno == errno.ENOSPC
    assert not [p for p in (tmp_path / "store").rglob("*") if ".tmp" in p.name]


def test_prefect_task_records_leave_no_temporary_file_on_a_full_disk(tmp_path, monkeypatch):
    from assay.tasks.results import GuardedResultStorage

    monkeypatch.setattr(os, "fdopen", lambda fd, mode="r": FullDiskHandle(fd))
    with pytest.raises(OSError):
        GuardedResultStorage(basepath=str(tmp_path)).write_path("record", b"{}")
    assert list(tmp_path.iterdir()) == []


def test_a_store_fault_is_never_retried():
    from assay.tasks.common import PERMANENT_ERRORS

    assert issubclass(StoreWriteError, PERMANENT_ERRORS)


def test_a_corrupt_pool_object_is_set_aside_named_and_rewritten(tmp_path):
    store = ArtifactStore(str(tmp_path))
    sha = store.put(b"the real bytes")
    pool_file = tmp_path / ".assay" / "objects" / sha[:2] / sha
    pool_file.write_bytes(b"bit rot")
    with pytest.raises(CorruptArtifact) as caught:
        store.get(sha)
    assert str(pool_file) in str(caught.value) and caught.value.moved_to in str(caught.value)
    assert (tmp_path / caught.value.moved_to).read_bytes() == b"bit rot"  # kept as evidence
    assert not store.has(sha)
    assert store.put(b"the real bytes") == sha and store.get(sha) == b"the real bytes"
    assert store.set_aside_since("2000-01-01T00:00:00+00:00") == [caught.value.moved_to]


def test_put_heals_a_corrupt_object_it_finds_in_place(tmp_path):
    store = ArtifactStore(str(tmp_path))
    sha = store.put(b"payload")
    (tmp_path / ".assay" / "objects" / sha[:2] / sha).write_bytes(b"payl0ad")
    store.put(b"payload")
    assert store.get(sha) == b"payload" and len(store.set_aside_since("2000-01-01T00:00:00+00:00")) == 1


def test_a_baseline_of_another_suite_or_a_missing_one_fails_before_the_run(tmp_path):
    out = tmp_path / "runs"
    (out / "memory-1").mkdir(parents=True)
    (out / "memory-1" / "manifest.json").write_text('{"suite": "memory", "run_id": "memory-1"}')
    result, output = cli("run", "rag_qa", "--offline", "--out", str(out), "--compare-with", "memory-1")
    assert result.exit_code == EXIT_FAILED, output
    assert "--compare-with memory-1: a memory run cannot be the baseline of a rag_qa run" in output
    assert "run id:" not in output and len([line for line in result.output.splitlines() if line.strip()]) == 1
    result, output = cli("run", "rag_qa", "--offline", "--out", str(out), "--compare-with", "nosuch")
    assert result.exit_code == EXIT_FAILED and "--compare-with nosuch: no run 'nosuch'" in output, output


# -- issue 34: every option that can be checked without running is refused in one line ------------
def refused(tmp_path, *args: str) -> tuple[str, float]:
    """Run `assay run ARGS --out …` expecting a one-line refusal (exit 1, no run directory);
    the refusal's line and its seconds, which the test prints (not asserted as a limit)."""
    import time

    out = tmp_path / "runs"
    started = time.perf_counter()
    result, output = cli("run", *args, "--out", str(out))
    seconds = time.perf_counter() - started
    assert result.exit_code == EXIT_FAILED, output
    assert "Traceback" not in output and "run id:" not in output, output
    assert not out.exists() or not any(p.name != ".assay" and not p.name.startswith("base") for p in out.iterdir())
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    print(f"\nrefused in {seconds:.2f}s: {lines[0]}")
    return lines[0], seconds


@pytest.mark.parametrize("args, reason", [
    (["rag_qa", "--offline", "--target", "htp://127.0.0.1/x"],
     "--target 'htp://127.0.0.1/x': a target url must start with http:// or https:// (not htp://)"),
    (["rag_qa", "--offline", "--target", "http://:8080/x"], "a target url needs a host name or address"),
    (["rag_qa", "--offline", "--target", "nosuchmod:fn"],
     "--target 'nosuchmod:fn': cannot import 'nosuchmod' (No module named 'nosuchmod')"),
    (["rag_qa", "--offline", "--target", "json:no_such_function"], "--target 'json:no_such_function': json has no function"),
    (["rag_qa", "--offline", "--assert", "acuracy>=4"],
     "--assert 'acuracy>=4': the rag_qa suite has no metric 'acuracy' (did you mean 'accuracy'?"),
    (["agent", "--offline", "--assert", "stabilty>=3"], "the agent suite has no metric 'stabilty' (did you mean 'stability'?"),
    (["rag_qa", "--offline", "-k", "5", "--assert", "ndcg@10>=0.5"], "no metric 'ndcg@10' (did you mean 'ndcg@5'?"),
    (["agent", "--offline", "--target", "http://127.0.0.1:9/agent", "--replay", "recorded"],
     "--target calls your system, which --replay recorded would not do"),
    (["rag_qa", "--offline", "--max-failed-calls", "3.5"], "--max-failed-calls '3.5': give a number of calls (3) or a share"),
])
def test_options_that_cannot_work_are_refused_in_one_line_before_the_run(tmp_path, no_provider_keys, monkeypatch,
                                                                         args, reason):
    started = []
    monkeypatch.setattr("assay.cli._start_server_early", lambda: started.append(1))
    line, _ = refused(tmp_path, *args)
    assert not started  # no server was started for a run that never starts
    assert reason in line


def write_baseline(out, run_id: str, scored: bool = True, case_ids=("x1", "x2")) -> None:
    """A finished rag_qa run's manifest as the store holds it, with its dataset's cases file."""
    import json

    run = out / run_id
    (run / "dataset").mkdir(parents=True)
    from assay.hashing import sha256_bytes

    cases = "".join(json.dumps({"id": i}) + "\n" for i in case_ids).encode()
    (run / "dataset" / "cases.jsonl").write_bytes(cases)
    artifacts = {"dataset/cases": {"sha256": sha256_bytes(cases), "path": "dataset/cases.jsonl"}}
    if scored:
        artifacts["scores.parquet"] = {"sha256": "0" * 64, "path": "scores.parquet"}
    manifest = {"suite": "rag_qa", "run_id": run_id, "status": "completed" if scored else "failed", "artifacts": artifacts}
    (run / "manifest.json").write_text(json.dumps(manifest))


def test_a_baseline_without_scores_or_sharing_no_case_is_refused_before_the_run(tmp_path):
    import json

    from tests.conftest import ROOT

    out = tmp_path / "runs"
    write_baseline(out, "base-unrelated")
    write_baseline(out, "base-failed", scored=False)
    bundled = [json.loads(line)["id"] for line in (ROOT / "datasets/rag_qa/cases.jsonl").read_text().splitlines()]
    write_baseline(out, "base-same", case_ids=bundled[:3])
    line, _ = refused(tmp_path, "rag_qa", "--offline", "--compare-with", "base-unrelated")
    assert line.startswith("--compare-with base-unrelated: it shares no case id with ") and "compared by id" in line
    line, _ = refused(tmp_path, "rag_qa", "--offline", "--compare-with", "base-failed")
    assert line == "--compare-with base-failed: that run has no scores (failed); compare with a run that finished"
    from assay.preflight import baseline_problems
    from assay.spec import build_run_spec
    from assay.suites.registry import get_suite

    spec, options = build_run_spec("rag_qa", default_dataset=ROOT / "datasets/rag_qa",
                                   cli={"offline": True, "compare_with": "base-same", "out": str(out)})
    assert baseline_problems(spec, options, get_suite("rag_qa")) == []  # shares cases: compared


@pytest.mark.parametrize("args", [
    ["--target", "htp://127.0.0.1/x"], ["--target", "nosuchmod:fn"], ["--assert", "acuracy>=4"],
])
def test_a_refusal_from_a_fresh_process_prints_its_seconds(tmp_path, no_provider_keys, args):
    """The user's view: `assay run …` from a cold start to its one-line refusal (printed, not a limit:
    the machine is shared)."""
    import subprocess
    import sys
    import time

    from tests.conftest import ROOT

    out = tmp_path / "runs"
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "assay.cli", "run", "rag_qa", "--offline", "--out", str(out), *args],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    seconds = time.perf_counter() - started
    print(f"\n{' '.join(args)}: exit {done.returncode} after {seconds:.2f}s from a fresh process: {done.stderr.strip()}")
    assert done.returncode == EXIT_FAILED and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr and not done.stdout.strip() and not out.exists()


def test_the_provider_key_table_says_what_litellm_says(monkeypatch):
    """``PROVIDER_KEYS`` lets the preflight check a key without importing litellm: for each
    provider it lists, litellm knows the provider and asks for exactly that variable."""
    import litellm

    from assay.preflight import PROVIDER_KEYS, missing_keys, unknown_provider

    litellm.suppress_debug_info = True
    for provider, key in PROVIDER_KEYS.items():
        for model in (f"{provider}/some-model", f"{provider}/org/some-model:7b"):
            if key:
                monkeypatch.delenv(key, raising=False)
            litellm.get_llm_provider(model=model)  # raises for a provider litellm does not know
            asked = litellm.validate_environment(model=model).get("missing_keys") or []
            assert [k for k in asked if k.endswith(("_KEY", "_TOKEN", "_CREDENTIALS"))] == ([key] if key else []), model
            assert missing_keys(model) == ([key] if key else []) and unknown_provider(model) is None
            if key:
                monkeypatch.setenv(key, "sk-test")
                assert litellm.validate_environment(model=model).get("missing_keys") == [] == missing_keys(model)


def test_every_metric_the_rag_qa_summary_can_report_is_a_metric_assert_accepts():
    """A rag_qa case without a reference is scored on the reference-free grounding metrics; a CI
    gate on them (``--assert faithfulness>=0.8``) must not be refused as a typo before the run."""
    from assay.gates import parse_threshold
    from assay.preflight import assert_problems
    from assay.spec import RunSpec
    from assay.suites.kit.grounding import GROUNDING_METRICS
    from assay.suites.rag_qa.metrics import ANSWER_METRICS, retrieval_metric_names
    from assay.suites.registry import get_suite

    suite, spec = get_suite("rag_qa"), RunSpec(suite="rag_qa", k=5)
    reported = [*retrieval_metric_names(5), *ANSWER_METRICS, *GROUNDING_METRICS]
    assert assert_problems(suite, spec, [parse_threshold(f"{m}>=0") for m in reported]) == []
    assert "no metric 'faithfulnes'" in assert_problems(suite, spec, [parse_threshold("faithfulnes>=0.8")])[0]
