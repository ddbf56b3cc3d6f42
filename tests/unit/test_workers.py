"""Worker processes for offline-jury partitions (assay.workers): real processes, real crashes."""

import os

import pytest

from assay import workers


@pytest.fixture
def pool():
    yield
    workers.shutdown()


def test_a_worker_runs_a_function_and_returns_its_text(pool):
    assert workers.run_in_worker("cwd", os.getcwd) == os.getcwd()


def test_an_error_in_the_work_arrives_with_its_own_type_and_message(pool):
    with pytest.raises(ValueError, match="invalid literal"):
        workers.run_in_worker("a bad number", int, "not a number")


def test_a_dead_worker_fails_the_step_clearly_and_a_retry_gets_fresh_workers(pool):
    started = workers.pools_started()
    with pytest.raises(RuntimeError, match="worker process scoring answer on partition 3 stopped unexpectedly"):
        workers.run_in_worker("answer on partition 3", os._exit, 9)
    assert workers.run_in_worker("cwd", os.getcwd) == os.getcwd()  # what a task retry does
    assert workers.pools_started() == started + 2


def test_a_worker_crash_is_retried_by_the_task_options_and_a_data_error_is_not():
    from prefect.states import Failed

    from assay.tasks.common import retry_transient

    crash = RuntimeError("the worker process scoring answer on partition 3 stopped unexpectedly")
    assert retry_transient(None, None, Failed(data=crash)) is True
    assert retry_transient(None, None, Failed(data=ValueError("row 3: no question"))) is False


def test_workers_are_on_by_default_from_two_cores_and_the_switch_overrides(monkeypatch):
    monkeypatch.delenv("ASSAY_WORKERS", raising=False)
    monkeypatch.setattr(workers, "usable_cores", lambda: 2)
    assert workers.runs_in_worker(True, True, "/tmp/runs")
    monkeypatch.setenv("ASSAY_WORKERS", "0")
    assert not workers.runs_in_worker(True, True, "/tmp/runs")  # switched off: the flow's threads
    monkeypatch.delenv("ASSAY_WORKERS")
    monkeypatch.setattr(workers, "usable_cores", lambda: 1)
    assert not workers.runs_in_worker(True, True, "/tmp/runs")  # one core: a worker would only add its start
    monkeypatch.setenv("ASSAY_WORKERS", "1")
    assert workers.runs_in_worker(True, True, "/tmp/runs")  # switched on whatever the cores


def test_only_offline_jury_families_on_a_shared_store_go_to_workers(monkeypatch):
    monkeypatch.setenv("ASSAY_WORKERS", "1")
    assert workers.runs_in_worker(family_uses_jury=True, jury_offline=True, store_url="/tmp/runs")
    assert not workers.runs_in_worker(True, False, "/tmp/runs")  # remote judges: network-bound
    assert not workers.runs_in_worker(False, True, "/tmp/runs")
    assert not workers.runs_in_worker(True, True, "memory://runs")  # a worker could not read it


def test_workers_are_bounded_by_the_usable_cores():
    assert 1 <= workers.usable_cores() <= (os.cpu_count() or 1)


def _decision_in_a_daemon(queue):
    queue.put(workers.runs_in_worker(family_uses_jury=True, jury_offline=True, store_url="/tmp/runs"))


def test_a_daemonic_process_such_as_a_dask_worker_scores_in_place(monkeypatch):
    import multiprocessing

    monkeypatch.setenv("ASSAY_WORKERS", "1")

    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    daemon = context.Process(target=_decision_in_a_daemon, args=(queue,), daemon=True)
    daemon.start()
    assert queue.get(timeout=60) is False
    daemon.join(timeout=60)


def test_a_stop_request_stops_waiting_for_a_busy_worker(pool):
    import threading
    import time

    from assay import cancellation

    # The pool up first (its fork server preloads the pipeline: seconds on a loaded machine), so
    # the clock below measures only the wait for the busy worker.
    assert workers.run_in_worker("cwd", os.getcwd) == os.getcwd()
    timer = threading.Timer(1.0, cancellation.request_stop, args=("SIGTERM",))
    timer.start()
    started = time.monotonic()
    try:
        with pytest.raises(cancellation.RunStopped):
            workers.run_in_worker("a long partition", time.sleep, 6)
        assert time.monotonic() - started < 5
    finally:
        timer.cancel()
        cancellation.reset()
