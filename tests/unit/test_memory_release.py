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


def test_freezing_the_long_lived_objects_happens_once_and_a_jury_run_keeps_it(monkeypatch):
    """`assay run` freezes its imported libraries before the flow: later collections skip them,
    a second call freezes nothing new, and a jury run (which freezes around its calls in other
    processes) leaves the process's frozen set as it found it instead of unfreezing it."""
    from assay.judges.base import JudgeResult, LocalJudge
    from assay.judges.runner import JuryRunner
    from tests.unit.judges.test_runner import PROMPT, items

    class Echo(LocalJudge):
        name, model, weight = "echo", "offline/echo", 1.0

        async def ajudge(self, prompt, item, case_id, lang="ko", request=None):
            return JudgeResult(judge=self.name, model=self.model, prompt_id=prompt.id, case_id=case_id,
                               verdict={"score": 1.0, "reason": "r"}, raw_text="{}", attempts=1)

    gc.unfreeze()
    try:
        memory.freeze_long_lived()
        frozen = gc.get_freeze_count()
        assert frozen > 0
        kept = [[i] for i in range(100)]  # noqa: F841  (alive and tracked: a second freeze would take them)
        memory.freeze_long_lived()
        # frozen objects may still die (the count falls a little in a long test session); a second
        # freeze would add the 100 lists above, an unfreeze would empty the set
        assert 0.9 * frozen < gc.get_freeze_count() < frozen + 100
        JuryRunner([Echo()]).run(PROMPT, items(3))
        assert 0.9 * frozen < gc.get_freeze_count() < frozen + 100
    finally:
        gc.unfreeze()
