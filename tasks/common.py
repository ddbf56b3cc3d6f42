"""Shared task settings: content-keyed caching, retries with backoff and jitter, progress."""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from prefect.cache_policies import INPUTS, TASK_SOURCE, CachePolicy
from prefect.tasks import exponential_backoff

from assay.cancellation import RunStopped
from assay.lineage.code_version import code_version
from assay.lineage.store import ArtifactStore, StoreWriteError
from assay.lineage.trace import RunIntegrityError
from assay.suites.registry import get_suite
from assay.tasks.results import GuardedResultStorage, PlainJSONSerializer

if TYPE_CHECKING:
    from prefect.context import TaskRunContext
    from prefect.results import ResultSerializer
    from prefect.states import State
    from prefect.tasks import RetryConditionCallable

    from assay.suites.kit import Suite


@dataclass
class CodeVersion(CachePolicy):
    """The hash of assay's code and rule data (``assay.lineage.code_version``) as part of a
    step's cache key: TASK_SOURCE covers only a thin task's own body, not the pipeline it calls."""

    def compute_key(
        self, task_ctx: TaskRunContext, inputs: dict[str, object], flow_parameters: dict[str, object], **kwargs: object
    ) -> str:
        return code_version()


# Locations and execution settings are excluded from cache keys: a step's result depends on
# content hashes, the run spec and the code, not on where the store or dataset lives or how many
# calls are in flight. (Prefect's default policy would also key on the flow run's id, so no
# rerun could reuse a step.)
NOT_KEYED = ("store_url", "dataset_dir", "call_store_url", "concurrency")
CONTENT_CACHE: CachePolicy = INPUTS
for _name in NOT_KEYED:
    CONTENT_CACHE = CONTENT_CACHE - _name
CONTENT_CACHE = CONTENT_CACHE + TASK_SOURCE + CodeVersion()

PERMANENT_ERRORS = (
    ValueError, TypeError, KeyError, LookupError, NotImplementedError, FileNotFoundError, RunStopped,
    StoreWriteError,  # a full or read-only store does not mend itself between retries
    RunIntegrityError,  # an edited baseline run stays edited
)


def retry_transient(task: object, task_run: object, state: State) -> bool:
    """Retry I/O hiccups and timeouts; never retry errors in the data or the code (Prefect's
    ``retry_condition_fn``: only the failed state is read)."""
    try:
        state.result()
    except PERMANENT_ERRORS:
        return False
    except Exception:
        return True
    return False


def results_dir(out_dir: Path | str) -> Path:
    return (Path(out_dir) / ".assay" / "prefect-results").resolve()


def result_storage(out_dir: Path) -> GuardedResultStorage:
    """Persisted task results live beside the runs, so a rerun finds them; each is checked
    against the digest recorded when it was written before Prefect reads it (tasks.results)."""
    path = results_dir(out_dir)
    path.mkdir(parents=True, exist_ok=True)
    storage = GuardedResultStorage(basepath=str(path))
    # Prefect takes a storage block for task results only once it is saved server-side.
    storage.save(name=f"assay-results-{hashlib.sha256(str(path).encode()).hexdigest()[:16]}", overwrite=True)
    return storage


class TaskOptions(TypedDict):
    """The options every step's ``@task`` takes, with the types of Prefect's ``task()`` parameters."""

    retries: int
    retry_delay_seconds: Callable[[int], list[float]]
    retry_jitter_factor: float
    retry_condition_fn: RetryConditionCallable
    cache_policy: CachePolicy
    persist_result: bool
    result_serializer: ResultSerializer


TASK_OPTIONS: TaskOptions = {
    "retries": 3,
    "retry_delay_seconds": exponential_backoff(backoff_factor=2),
    "retry_jitter_factor": 0.5,
    "retry_condition_fn": retry_transient,
    "cache_policy": CONTENT_CACHE,
    "persist_result": True,
    "result_serializer": PlainJSONSerializer(),
}


def open_store(store_url: str) -> ArtifactStore:
    return ArtifactStore(store_url)


def suite_named(name: str) -> Suite:
    return get_suite(name)


def progress_logger(step: str) -> Callable[[str], None]:
    """Progress goes to the Prefect run log (UI) and, for the CLI, to stderr."""
    from prefect import get_run_logger

    from assay.console import console_safe

    logger = get_run_logger()

    def report(message: str) -> None:
        logger.info(message)
        if os.environ.get("ASSAY_PROGRESS") == "1":
            sys.stderr.write(f"  [{step}] {console_safe(message)}\n")  # not print(): log_prints would swallow it
            sys.stderr.flush()

    return report
