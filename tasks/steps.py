"""The evaluation steps as Prefect tasks. Each is one line of real work in ``assay.pipeline``."""

from __future__ import annotations

from typing import Any

from prefect import task

from assay import pipeline
from tasks.common import TASK_OPTIONS, open_store, progress_logger, suite_named


@task(name="ingest", **TASK_OPTIONS)
def ingest_dataset(store_url: str, suite: str, dataset_dir: str, fingerprint: str, code_version: str) -> dict[str, Any]:
    """Snapshot the dataset. ``fingerprint`` (content hash of its files) is the cache key."""
    return pipeline.ingest(open_store(store_url), suite_named(suite), dataset_dir)


@task(name="validate", **TASK_OPTIONS)
def validate_dataset(store_url: str, suite: str, snapshot: str, code_version: str) -> dict[str, Any]:
    return pipeline.validate(open_store(store_url), suite_named(suite), snapshot)


@task(name="replay", **TASK_OPTIONS)
def replay_generations(
    store_url: str, suite: str, snapshot: str, skip_ids: list[str], mode: str, params: dict[str, Any], code_version: str
) -> dict[str, Any]:
    return pipeline.replay(
        open_store(store_url), suite_named(suite), snapshot, skip_ids, mode, params, progress_logger("replay")
    )


@task(name="metrics", **TASK_OPTIONS)
def compute_metric_family(
    store_url: str,
    suite: str,
    family: str,
    snapshot: str,
    generations: str,
    skip_ids: list[str],
    params: dict[str, Any],
    jury: dict[str, Any] | None,
    call_store_url: str | None,
    code_version: str,
) -> dict[str, Any]:
    return pipeline.compute_family(
        open_store(store_url),
        suite_named(suite),
        family,
        snapshot,
        generations,
        skip_ids,
        params,
        jury,
        call_store_url,
        progress_logger(f"metrics:{family}"),
    )


@task(name="aggregate", **TASK_OPTIONS)
def aggregate_scores(
    store_url: str,
    suite: str,
    snapshot: str,
    family_scores: dict[str, str],
    skip_ids: list[str],
    params: dict[str, Any],
    code_version: str,
) -> dict[str, Any]:
    return pipeline.aggregate(open_store(store_url), suite_named(suite), snapshot, family_scores, skip_ids, params)


@task(name="publish", **TASK_OPTIONS)
def publish_report(store_url: str, suite: str, inputs: dict[str, Any], code_version: str) -> dict[str, Any]:
    from assay.publish import publish

    return publish(open_store(store_url), suite_named(suite), inputs)


@task(name="compare", **TASK_OPTIONS)
def compare_with_baseline(store_url: str, baseline_run: str, scores: str, summary: str, code_version: str) -> dict[str, Any]:
    """Per-metric deltas against a baseline run, with bootstrap CIs (``assay compare`` as a step)."""
    from assay.compare import compare_to_baseline

    return compare_to_baseline(open_store(store_url), baseline_run, scores, summary)
