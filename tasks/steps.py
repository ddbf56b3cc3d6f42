"""The evaluation steps as Prefect tasks. Each is one call of real work in ``assay.pipeline``.

Tasks return the plain JSON form of their ``StepOutput`` (``artifacts.dump``): a persisted
result then names no class to import, and the flow validates it back into the typed output.
``concurrency`` and every location (store, dataset directory, call store) are left out of the
cache key (``tasks.common.CONTENT_CACHE``): they change how a step runs, never what it yields;
the code version is in it without being an input (``tasks.common.CodeVersion``).
"""

from __future__ import annotations

from prefect import task

from assay import memory, pipeline, workers
from assay import step_inputs as step
from assay.artifacts import CompareInputs, FamilyOutput, PublishInputs, StepOutput, dump
from assay.compare import RunFacts
from assay.schemas import JsonObject
from assay.spec import RunSpec
from assay.suites.kit.criteria import families_of
from assay.tasks.common import TASK_OPTIONS, open_store, progress_logger, suite_named

Json = JsonObject


def released(output: StepOutput) -> Json:
    """A step that read the whole dataset (or every score row): its memory goes back to the
    system before the next step, so the run's size is its largest step, not the sum of them."""
    result = dump(output)
    del output
    memory.release()
    return result


@task(name="ingest", **TASK_OPTIONS)
def ingest_dataset(
    store_url: str, suite: str, dataset_dir: str, fingerprint: str, allow_symlinks: bool
) -> Json:
    """Snapshot the dataset. ``fingerprint`` (content hash of its files) is the cache key."""
    return released(pipeline.ingest(open_store(store_url), suite_named(suite),
                                    step.IngestInputs(dataset_dir, allow_symlinks)))


@task(name="validate", **TASK_OPTIONS)
def validate_dataset(store_url: str, suite: str, snapshot: str, require_generations: bool) -> Json:
    return released(pipeline.validate(open_store(store_url), suite_named(suite),
                                      step.ValidateInputs(snapshot, require_generations)))


@task(name="replay", **TASK_OPTIONS)
def replay_generations(
    store_url: str, suite: str, snapshot: str, skip_ids: list[str], spec: RunSpec, concurrency: int | None
) -> Json:
    inputs = step.ReplayInputs(snapshot, tuple(skip_ids), spec, concurrency, progress_logger("replay"))
    output = pipeline.replay(open_store(store_url), suite_named(suite), inputs)
    return released(output)


@task(name="metrics", **TASK_OPTIONS)
def compute_metric_family(
    store_url: str, suite: str, family: str, snapshot: str, generations: str, skip_ids: list[str], spec: RunSpec,
    call_store_url: str | None, concurrency: int | None,
) -> Json:
    scoring = step.Scoring(spec, call_store_url, concurrency, progress_logger(f"metrics:{family}"))
    inputs = step.FamilyInputs(family, snapshot, generations, tuple(skip_ids), scoring)
    output = pipeline.compute_family(open_store(store_url), suite_named(suite), inputs)
    return dump(output)


@task(name="partition", **TASK_OPTIONS)
def partition_cases(
    store_url: str, suite: str, snapshot: str, generations: str, skip_ids: list[str], partition_size: int
) -> Json:
    """Split the cases into partitions; each partition's hash keys its metric tasks."""
    inputs = step.PartitionInputs(snapshot, generations, tuple(skip_ids), partition_size)
    return released(pipeline.partition(open_store(store_url), suite_named(suite), inputs))


@task(name="metrics-partition", **TASK_OPTIONS)
def compute_metric_family_partition(
    store_url: str, suite: str, family: str, index: int, partition: str, spec: RunSpec,
    call_store_url: str | None, concurrency: int | None,
) -> Json:
    """One family over one partition. Keyed by the partition's content hash (and its index,
    which names its artifacts), so an unchanged partition is a cache hit in any run."""
    progress = progress_logger(f"metrics:{family}:p{index:04d}")
    uses_jury = next(f.uses_jury for f in families_of(suite_named(suite), spec) if f.name == family)
    if workers.runs_in_worker(uses_jury, bool(spec.jury and spec.jury.offline), store_url):
        # CPU-bound (the offline jury): a worker process, so partitions use every core.
        text = workers.score_partition_in_worker(store_url, suite, family, index, partition, spec.model_dump_json(),
                                                 call_store_url, concurrency)
        output = FamilyOutput.model_validate_json(text)
        progress(f"{output.n_rows} score rows (worker process)")
        return dump(output)
    inputs = step.FamilyPartitionInputs(family, index, partition, step.Scoring(spec, call_store_url, concurrency, progress))
    output = pipeline.compute_family_partition(open_store(store_url), suite_named(suite), inputs)
    return dump(output)


@task(name="aggregate", **TASK_OPTIONS)
def aggregate_scores(
    store_url: str, suite: str, snapshot: str, family_scores: dict[str, list[str]], skip_ids: list[str],
    spec: RunSpec, score_names: dict[str, list[str]] | None,
) -> Json:
    inputs = step.AggregateInputs(snapshot, family_scores, tuple(skip_ids), spec, score_names)
    return released(pipeline.aggregate(open_store(store_url), suite_named(suite), inputs))


@task(name="publish", **TASK_OPTIONS)
def publish_report(store_url: str, suite: str, spec: RunSpec, inputs: PublishInputs) -> Json:
    return released(pipeline.publish(open_store(store_url), suite_named(suite), spec, inputs))


@task(name="compare", **TASK_OPTIONS)
def compare_with_baseline(
    store_url: str, suite: str, baseline_run: str, facts: RunFacts, inputs: CompareInputs
) -> Json:
    """Per-metric deltas and changed cases against a baseline run (``assay compare`` as a step)."""
    return dump(pipeline.compare(open_store(store_url), suite_named(suite), baseline_run, facts, inputs))
