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


class FullDiskHandle:
    """A file handle on a disk that has just filled up: every write fails with ENOSPC."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        os.close(self.fd)

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_names_the_path_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    store = ArtifactStore(str(tmp_path / "store"))
    monkeypatch.setattr(os, "fdopen", lambda fd, mode="r": FullDiskHandle(fd))
    with pytest.raises(StoreWriteError) as caught:
        store.put(b"some content")
    assert str(caught.value) == f"cannot write {store.pool_path(caught.value.path.rsplit('/', 1)[1])}: no space left on the device"
    assert caught.value.errno == errno.ENOSPC
    assert not [p for p in (tmp_path / "store").rglob("*") if ".tmp" in p.name]


def test_prefect_task_records_leave_no_temporary_file_on_a_full_disk(tmp_path, monkeypatch):
    from tasks.results import _replace_file

    monkeypatch.setattr(os, "fdopen", lambda fd, mode="r": FullDiskHandle(fd))
    with pytest.raises(OSError):
        _replace_file(tmp_path / "record", b"{}")
    assert list(tmp_path.iterdir()) == []


def test_a_store_fault_is_never_retried():
    from tasks.common import PERMANENT_ERRORS

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
