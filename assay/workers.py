"""Worker processes for CPU-bound metric partitions: the offline jury's rules on every core.

On Prefect's thread task runner the partition tasks of a large run share one GIL, and the
offline judges are pure Python (a few ms per call, three calls per case), so about one core is
busy however many there are. A partition scored by the offline jury is therefore scored in a worker
process instead, one worker per usable core, whenever this process may use 2 cores or more
(``ASSAY_WORKERS=0`` keeps them on the threads, ``ASSAY_WORKERS=1`` uses workers even on one
core). Measured in ``docs/performance.md``: on 2 cores a 10,000-case run took a quarter less
time when the second core was free (as long as the threads when another process held it), and a
100,000-case run stayed within its 3 GB.

What crosses the process boundary is our own JSON text: the run spec goes in as its JSON
(``RunSpec.model_dump_json``) with the store's location and the partition's hash, and the
``FamilyOutput`` comes back as its JSON; the worker reads the partition from the artifact store
and writes its scores there itself, exactly as the in-process path does, so a partition's
artifacts and their hashes do not depend on where it ran. Nothing read back from storage is
unpickled: the pool's transport pickles only these strings between our own processes.

The pool is started only for a partitioned run's metric steps (a dataset of one partition, every
bundled demo, never pays for it) and shut down when they end. Workers are forked from a
``forkserver`` (the flow's process has threads, so plain ``fork`` is unsafe) that has imported
the pipeline once; each worker then loads the Korean analyser once.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from assay import cancellation
from assay.cores import usable_cores

_POOL: ProcessPoolExecutor | None = None
_LOCK = threading.Lock()
_STARTED = 0  # pools this process has started (a run's log and tests read it)


def _warm_worker() -> None:
    """Load what every offline partition needs before the first one arrives."""
    from assay.judges.offline.text import kiwi

    # Not its first analysis too (about 2 CPU s and 225 MB more per worker, which would then
    # coincide with the partition step's peak: above 3 GB in all at 100,000 cases).
    kiwi()


def _pool() -> ProcessPoolExecutor:
    global _POOL, _STARTED
    with _LOCK:
        if _POOL is None:
            _STARTED += 1
            context = multiprocessing.get_context("forkserver")
            # Import the pipeline once in the fork server, not the parent's __main__ (the CLI).
            context.set_forkserver_preload(["assay.workers", "assay.pipeline", "assay.judges.offline"])
            _POOL = ProcessPoolExecutor(max_workers=usable_cores(), mp_context=context, initializer=_warm_worker)
        return _POOL


def prestart() -> None:
    """Start the workers now (they load the analyser while the flow cuts the partitions), so the
    first partitions do not wait for them."""
    pool = _pool()
    for _ in range(usable_cores()):
        pool.submit(os.getpid)


def pools_started() -> int:
    """How many worker pools this process has started so far."""
    return _STARTED


def shutdown() -> None:
    """Stop the workers (the end of a partitioned run's metric steps); the next use starts anew."""
    global _POOL
    with _LOCK:
        pool, _POOL = _POOL, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)
        _stop_fork_server()


def _stop_fork_server() -> None:
    """Stop the fork server too and wait for it: it frees its memory, and the CPU time of the
    workers it reaped is then counted in this process's children (what ``bench/scale.py``
    reads). Python has no public call for it; its own tests use ``ForkServer._stop``."""
    from multiprocessing import forkserver

    stop = getattr(getattr(forkserver, "_forkserver", None), "_stop", None)
    if stop is not None:
        stop()


def _discard(pool: ProcessPoolExecutor) -> None:
    """Forget a broken pool so that a retry starts fresh workers."""
    global _POOL
    with _LOCK:
        if _POOL is pool:
            _POOL = None
    pool.shutdown(wait=False, cancel_futures=True)


def score_partition_in_worker(
    store_url: str, suite: str, family: str, index: int, partition_sha: str, spec_json: str,
    call_store_url: str | None, concurrency: int | None,
) -> str:
    """One family over one partition in a worker process; the ``FamilyOutput`` as JSON."""
    return run_in_worker(f"{family} on partition {index}", _score_partition, store_url, suite, family, index,
                         partition_sha, spec_json, call_store_url, concurrency)


def run_in_worker(what: str, fn: Callable[..., str], *args: object) -> str:
    """``fn(*args)`` in a worker process (``fn`` importable by name, arguments plain values).

    A worker that dies (killed, out of memory) raises ``RuntimeError`` naming ``what``, so the
    step fails with a clear message and the task's retry starts a fresh pool; an error raised by
    ``fn`` itself arrives unchanged (same type and message as in-process).
    """
    pool = _pool()
    future: Future[str] = pool.submit(fn, *args)
    try:
        while True:
            try:
                return future.result(timeout=0.5)
            except TimeoutError:
                # A stop request (SIGTERM) does not reach the worker: the step stops waiting, and
                # the worker finishes its partition before the pool's shutdown lets it exit.
                cancellation.raise_if_stopped()
    except BrokenProcessPool as exc:
        _discard(pool)
        raise RuntimeError(
            f"the worker process scoring {what} stopped unexpectedly (killed or out of memory?): {exc}"
        ) from exc


def _score_partition(
    store_url: str, suite: str, family: str, index: int, partition_sha: str, spec_json: str,
    call_store_url: str | None, concurrency: int | None,
) -> str:
    """The worker's side: the same pure step the in-process path runs."""
    from assay import pipeline
    from assay.lineage.store import ArtifactStore
    from assay.spec import RunSpec
    from assay.step_inputs import FamilyPartitionInputs, Scoring
    from assay.suites.registry import get_suite

    scoring = Scoring(RunSpec.model_validate_json(spec_json), call_store_url, concurrency)
    inputs = FamilyPartitionInputs(family, index, partition_sha, scoring)
    output = pipeline.compute_family_partition(ArtifactStore(store_url), get_suite(suite), inputs)
    return output.model_dump_json()


def runs_in_worker(family_uses_jury: bool, jury_offline: bool, store_url: str) -> bool:
    """A family's partition goes to a worker when an offline jury scores it: that is where the
    CPU goes. Remote judges wait on the network and share per-provider limits and a call store
    within one process; automatic families (retrieval ranks, schema checks) take a small share
    of a partition's time. Both stay on the flow's threads. Inside a daemonic process (a Dask
    worker) no pool can start, and none is needed; an in-memory store (``memory://``) is this
    process's alone, so a worker could not read the partition from it."""
    return family_uses_jury and jury_offline and available(store_url)


SWITCH = "ASSAY_WORKERS"


def enabled() -> bool:
    """On when this process may use 2 cores or more (one worker alone only adds its start-up);
    ``ASSAY_WORKERS=0`` switches them off, ``ASSAY_WORKERS=1`` on whatever the cores."""
    switch = os.environ.get(SWITCH, "").strip()
    if switch in {"0", "1"}:
        return switch == "1"
    return usable_cores() >= 2


def available(store_url: str) -> bool:
    """Worker processes are switched on and can score here: this process may start children,
    and they can read the store."""
    return (enabled() and not store_url.startswith("memory:")
            and not multiprocessing.current_process().daemon)
