"""Task runners by name, and which one a flow run really has.

``assay run --runner`` picks the evaluation flow's task runner when it starts the flow. A
deployment's flow run gets the runner of its entrypoint instead: ``flows/evaluate.py:evaluate``
runs on threads and ``flows/on_dask.py:evaluate_on_dask`` on Dask. ``runner_in_use`` names the
runner a flow run has, so a run records the runner that did the work, never only the one asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from assay.judges.limits import share_per_process
from assay.spec import RunOptions, check_runner_name

if TYPE_CHECKING:
    from prefect.futures import PrefectFuture
    from prefect.task_runners import TaskRunner

    # What a flow's ``task_runner`` takes (Prefect's own annotation; its runner types are invariant in the future type).
    FlowTaskRunner = TaskRunner[PrefectFuture[Any]]


def task_runner_for(name: str) -> FlowTaskRunner | None:
    """The Prefect task runner ``name`` stands for; None for threads (Prefect's default)."""
    check_runner_name(name)
    if name == "threads":
        return None
    from prefect_dask import DaskTaskRunner

    address = name.partition("=")[2]
    if address:
        dask = DaskTaskRunner(address=address)
    else:
        dask = DaskTaskRunner(
            cluster_kwargs={"n_workers": 2, "threads_per_worker": 2, "processes": True, "dashboard_address": None}
        )
    # A flow's task_runner is typed FlowTaskRunner, which a DaskTaskRunner (a runner of Dask
    # futures) is not to the checker: Prefect's runner types are invariant in their future type.
    return cast("FlowTaskRunner", dask)


def runner_in_use(task_runner: FlowTaskRunner) -> str:
    """The name of the runner a flow run has: threads, dask, dask=ADDRESS, or its class name."""
    kind = type(task_runner).__name__
    if kind == "ThreadPoolTaskRunner":
        return "threads"
    if kind == "DaskTaskRunner":
        address = getattr(task_runner, "address", None)
        return f"dask={address}" if address else "dask"
    return kind


def processes_of(task_runner: FlowTaskRunner) -> int:
    """How many processes a flow run's tasks may run in at once: one on threads, a Dask
    cluster's worker count (each worker a process with its own per-provider gates). Called
    inside a flow run, on the runner it has."""
    if not runner_in_use(task_runner).startswith("dask"):
        return 1
    from prefect_dask import DaskTaskRunner  # a Dask runner is in use: its package is there

    if not isinstance(task_runner, DaskTaskRunner):  # (so the checker knows its client)
        return 1
    # A flow run's Dask runner connects (or starts its local cluster) on first use; its tasks
    # need that client anyway.
    return max(1, len(task_runner.client.nthreads()))


def metric_concurrency(options: RunOptions) -> int | None:
    """Calls in flight per provider for each metric step's process. On threads every step
    shares the process's gate per provider (``assay.judges.limits``): the run's ceiling as it
    is. On a Dask cluster each worker process gets its share, so together they stay within it."""
    from prefect.context import get_run_context

    from assay.suites.kit.suite import DEFAULT_CONCURRENCY

    processes = processes_of(get_run_context().task_runner)
    if processes == 1:
        return options.concurrency
    return share_per_process(options.concurrency or DEFAULT_CONCURRENCY, processes)
