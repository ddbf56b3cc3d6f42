"""`assay.memory.release` gives memory back after a step that grew the process, and costs
nothing after a small step (a full collection in a process with Prefect and GX loaded is
0.15-0.45 s, six times a run)."""

from __future__ import annotations

import gc

import pytest

from assay import memory


@pytest.fixture
def collections(monkeypatch):
    calls = []
    real = gc.collect
    monkeypatch.setattr(memory, "_baseline", None)  # no baseline yet: the first release acts
    monkeypatch.setattr(memory.gc, "collect", lambda *a: calls.append(1) or real(*a))
    return calls


def test_a_small_step_is_not_followed_by_a_collection(collections):
    assert memory.release() is True  # the baseline is now
    small = [str(i) * 10 for i in range(10_000)]  # a 10-case run's worth, well under the bound
    del small
    assert memory.release() is False
    assert collections == [1]  # only the first call collected


@pytest.mark.skipif(memory.resident_bytes() is None, reason="needs /proc/self/statm")
def test_a_step_that_grew_the_process_is_followed_by_a_collection(collections):
    assert memory.release() is True
    held = [f"row {i} " * 8 for i in range(1_500_000)]  # ~150 MB of small objects, as parsed records are
    assert memory.resident_bytes() - memory._baseline >= memory.RELEASE_GROWTH_BYTES
    assert memory.release() is True
    assert len(collections) == 2
    assert memory.release() is False  # the held rows are the new baseline: nothing grew since
    del held


def test_without_procfs_it_always_releases(collections, monkeypatch):
    monkeypatch.setattr(memory, "resident_bytes", lambda: None)
    assert memory.release() is True and memory.release() is True
    assert len(collections) == 2
