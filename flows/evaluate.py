"""The evaluation flow: ingest → validate (GX) → replay → metric families in parallel →
ensemble aggregation → publish (→ compare), with every artifact adopted into the run's lineage.

Each step is a cached, retried Prefect task over content hashes returning a typed
``StepOutput``; ``StepRunner`` records whether it ran or was reused and adopts its artifacts,
so this module is only the wiring.
"""

from __future__ import annotations

import os
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from assay import apply_offline_env

apply_offline_env()  # before prefect/litellm import: telemetry and hub fetches off

from prefect import flow, get_run_logger  # noqa: E402
from prefect.context import get_run_context  # noqa: E402
from prefect.states import Completed, Failed, State  # noqa: E402

from assay import artifacts as names  # noqa: E402
from assay import timeline, workers  # noqa: E402
from assay.artifacts import (  # noqa: E402
    AggregateOutput,
    CompareInputs,
    CompareOutput,
    FamilyOutput,
    FamilyResult,
    IngestOutput,
    PartitionOutput,
    PublishInputs,
    PublishOutput,
    ReplayOutput,
    ValidationOutput,
)
from assay.cancellation import RunStopped  # noqa: E402
from assay.compare import RunFacts, dataset_fingerprint, latest_completed_run  # noqa: E402
from assay.console import install_console_safe_logging  # noqa: E402
from assay.flows.recording import StepRunner, describe_error, progress  # noqa: E402
from assay.flows.runners import metric_concurrency, runner_in_use  # noqa: E402
from assay.lineage.code_version import code_version  # noqa: E402
from assay.lineage.manifest import (  # noqa: E402
    Manifest,
    ModelsUsed,
    PrefectRun,
    RunRecorder,
    code_state,
    config_hash,
    environment,
    now_iso,
)
from assay.lineage.store import ArtifactStore  # noqa: E402
from assay.liveness import this_process  # noqa: E402
from assay.partitions import is_partitioned  # noqa: E402
from assay.pipeline import quarantine_record, score_gaps  # noqa: E402
from assay.redact import install_log_redaction, register_secret_env  # noqa: E402
from assay.run_config import fingerprint_dataset  # noqa: E402
from assay.schemas import JsonObject  # noqa: E402
from assay.spec import RunOptions, RunSpec  # noqa: E402
from assay.suites.kit.criteria import families_of  # noqa: E402
from assay.suites.registry import get_suite  # noqa: E402
from assay.tasks.common import result_storage  # noqa: E402
from assay.tasks.results import quiet_failed_step_warnings  # noqa: E402
from assay.tasks.steps import (  # noqa: E402
    aggregate_scores,
    compare_with_baseline,
    compute_metric_family,
    compute_metric_family_partition,
    ingest_dataset,
    partition_cases,
    publish_report,
    replay_generations,
    validate_dataset,
)

# Partition tasks submitted at once: enough to keep the task runner's workers busy, few enough
# that memory stays bounded however many partitions a dataset has.
PARTITIONS_IN_FLIGHT = max(2, 2 * (os.cpu_count() or 1))


def with_runner_in_use(options: RunOptions) -> RunOptions:
    """The options with the task runner this flow run really has, so the manifest records the
    runner that did the work. A deployment gets its entrypoint's runner (``flows/runners.py``):
    a runner its parameters ask for that is not that one fails the run before any step."""
    in_use = runner_in_use(get_run_context().task_runner)
    if "runner" in options.model_fields_set and options.runner != in_use:
        raise ValueError(
            f"options.runner is {options.runner!r} but this flow run's task runner is {in_use!r}: a "
            "deployment runs on its entrypoint's runner (flows/evaluate.py:evaluate on threads, "
            "flows/on_dask.py:evaluate_on_dask on Dask, cluster from ASSAY_DASK_RUNNER); "
            "`assay run --runner` chooses it for a run started by hand"
        )
    return options.model_copy(update={"runner": in_use})


def new_run_id(suite: str) -> str:
    return f"{suite}-{datetime.now().strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"


@flow(name="assay-evaluate", log_prints=True, validate_parameters=True)
def evaluate(
    spec: RunSpec,
    options: RunOptions | None = None,
    run_id: str | None = None,
    parent_run: str | None = None,
) -> State[JsonObject]:
    """Evaluate ``spec.suite`` on ``spec.dataset`` and write an audited run directory.

    Ends in a Completed state carrying {"run_id", "run_dir", "status", "steps"}; a failed gate
    or step ends the flow run in a Failed state after the manifest (with what did run) is written.
    """
    timeline.mark("flow run started")
    install_log_redaction("prefect", "prefect.flow_runs", "prefect.task_runs")
    install_console_safe_logging("prefect", "prefect.flow_runs", "prefect.task_runs")
    quiet_failed_step_warnings()
    logger = get_run_logger()
    options = with_runner_in_use(options or RunOptions())
    suite = get_suite(spec.suite)
    spec = spec.completed(suite.default_dataset)
    register_secret_env(*spec.secret_env_names())  # also when started by a deployment, not the CLI
    store_url = options.store_url()
    artifacts = ArtifactStore(store_url)
    call_store_url = artifacts.path(".assay", "judge-calls")
    run_id = run_id or new_run_id(spec.suite)
    manifest = Manifest(
        run_id=run_id,
        suite=spec.suite,
        created_at=now_iso(),
        parent_run=parent_run,
        process=this_process(),  # a reader can tell a killed run from a running one
        run_spec=spec.model_dump(mode="json"),
        options=options.model_dump(mode="json"),
        config_hash=config_hash(spec.step_view().model_dump(mode="json")),
        code=code_state(code_version()),
        environment=environment(),
        prefect=PrefectRun(flow_run_id=str(get_run_context().flow_run.id), flow_run_name=get_run_context().flow_run.name),
        models=ModelsUsed(
            generator=spec.generator.model if spec.replay == "live" and spec.target is None else None,
            target=spec.target.identity if spec.replay == "live" and spec.target else None,
            judges=[j.model for j in spec.jury.panel] if spec.jury else [],
        ),
    )
    recorder = RunRecorder(artifacts, manifest)
    recorder.save()
    steps = StepRunner(recorder, result_storage(Path(options.out)), logger)
    keyed = spec.step_view()  # what step caches key on: no locations, no comparison settings

    try:
        ingest = steps.run(
            "ingest", IngestOutput, ingest_dataset, store_url, spec.suite, spec.dataset,
            fingerprint_dataset(spec.dataset), spec.allow_symlinks,
        )
        if ingest is None:
            return steps.fail("ingest failed")

        validation = steps.run(
            "validate", ValidationOutput, validate_dataset, store_url, spec.suite, ingest.snapshot,
            spec.replay == "recorded",
        )
        if validation is None:
            return steps.fail("validation step failed")
        skip_ids: list[str] = []
        if not validation.success:
            if not spec.quarantine:
                logger.error(validation.text)
                return steps.fail(
                    f"validation gate failed: {validation.n_problems} problems; nothing downstream ran",
                    status="failed_validation",
                )
            skip_ids = validation.failed_ids
            steps.adopt("validate", [quarantine_record(artifacts, validation)])
            logger.warning(f"quarantined {len(skip_ids)} rows: {', '.join(skip_ids)}")
            progress(f"! quarantined {len(skip_ids)} rows: {', '.join(skip_ids)}")

        replayed = steps.run(
            "replay", ReplayOutput, replay_generations, store_url, spec.suite, ingest.snapshot, skip_ids, keyed,
            options.concurrency,
        )
        if replayed is None:
            reason = steps.failure_of("replay")  # e.g. the target is unreachable: say which, on the last line
            return steps.fail(f"replay failed: {reason}" if reason else "replay failed")

        family_names = [family.name for family in families_of(suite, spec)]
        n_cases = ingest.n_records - len(skip_ids)
        if is_partitioned(n_cases, options.partition_size) and not _budgeted(spec):
            scored = _score_partitions(steps, store_url, spec, ingest.snapshot, replayed.generations, skip_ids,
                                       family_names, call_store_url, options)
        else:
            scored = _score_whole(steps, store_url, spec, ingest.snapshot, replayed.generations, skip_ids,
                                  family_names, call_store_url, options)
        if scored is None:
            return steps.fail("a metric step failed; rerun the run to retry only what failed")
        families, family_scores, score_names = scored

        aggregated = steps.run(
            "aggregate", AggregateOutput, aggregate_scores, store_url, spec.suite, ingest.snapshot, family_scores,
            skip_ids, keyed, score_names,
        )
        if aggregated is None:
            return steps.fail("aggregation failed")

        gaps = score_gaps(artifacts, spec, families, aggregated.scores)
        incomplete = gaps.incomplete
        failed_calls = replayed.failed_calls
        not_measured = failed_calls.banner() if failed_calls and failed_calls.n_failed else None
        if failed_calls is not None and not_measured and not failed_calls.allowed(spec.max_failed_calls):
            incomplete.insert(0, not_measured)  # failed calls are failures, unless --max-failed-calls allows them
        # Compared before publishing, so the comparison is a section of this run's report.
        compared, compare_failed = None, False
        if spec.compare_with and not incomplete:
            fingerprint = dataset_fingerprint(artifacts.get_json(ingest.snapshot), suite.recorded_outputs)
            facts = RunFacts.of(manifest, fingerprint).model_copy(update={"prompts": dict(sorted(steps.prompts.items()))})
            inputs = CompareInputs(snapshot=ingest.snapshot, scores=aggregated.scores, summary=aggregated.summary, skip_ids=skip_ids)
            compared, compare_failed = _compare(steps, artifacts, store_url, spec, run_id, facts, inputs, logger)
        publish_inputs = PublishInputs(
            incomplete=incomplete,
            not_measured=not_measured,
            not_applicable=gaps.not_applicable,
            snapshot=ingest.snapshot,
            validation_report=validation.sha(names.VALIDATION_REPORT),
            generations=replayed.generations,
            scores=aggregated.scores,
            summary=aggregated.summary,
            jury_runs={name: sha for f in families for name, sha in f.jury_runs.items()},
            skip_ids=skip_ids,
            config_hash=manifest.config_hash,
            comparison=compared.comparison if compared else None,
        )
        published = steps.run("publish", PublishOutput, publish_report, store_url, spec.suite, keyed, publish_inputs)
        if published is None:
            return steps.fail("publishing failed")

        if incomplete:  # every step ran, but the run did not measure what it set out to
            steps.prefect_artifacts(run_id, artifacts.get_json(aggregated.summary), artifacts.get(published.sha(names.REPORT_MD)).decode("utf-8"))
            for reason in incomplete:
                logger.error(f"incomplete: {reason}")
            return steps.fail("incomplete: " + " | ".join(incomplete), status="incomplete")

        if compare_failed and spec.fail_on_regression:  # a regression gate never passes unchecked
            message = "the comparison with the baseline failed (see its step); --fail-on-regression cannot pass without it"
            steps.finish("completed", message)
            return Failed(message=message, data=steps.outcome("completed"))
        if compared is not None:
            regressions = compared.regressions
            if regressions and spec.fail_on_regression:
                steps.finish("completed", f"regression against the baseline: {', '.join(regressions)}")
                return Failed(message=f"regression: {', '.join(regressions)}", data=steps.outcome("completed"))

        steps.prefect_artifacts(run_id, artifacts.get_json(aggregated.summary), artifacts.get(published.sha(names.REPORT_MD)).decode("utf-8"))
        steps.finish("completed", f"{len(manifest.steps)} steps")
        logger.info(f"run {run_id} completed: {artifacts.run_path(run_id)}")
        return Completed(message="completed", data=steps.outcome("completed"))
    except RunStopped as exc:
        logger.warning(str(exc))
        return steps.fail(str(exc), status="stopped")
    except Exception as exc:  # noqa: BLE001 - record any failure in the manifest, then fail the flow run
        logger.error(f"run failed: {describe_error(exc)}")
        logger.debug("traceback", exc_info=True)  # -v shows it; users see the message
        return steps.fail(describe_error(exc))


Scored = tuple[list[FamilyResult], dict[str, list[str]], dict[str, list[str]] | None]


def _budgeted(spec: RunSpec) -> bool:
    """A jury with a cost budget scores every case in one batch: the budget is one runner's."""
    return bool(spec.jury and spec.jury.max_cost_usd is not None)


def _score_whole(steps: StepRunner, store_url: str, spec: RunSpec, snapshot: str, generations: str,
                 skip_ids: list[str], family_names: list[str], call_store_url: str, options: RunOptions) -> Scored | None:
    """Every metric family over every case, the families in parallel (a dataset of one partition)."""
    keyed = spec.step_view()
    concurrency = metric_concurrency(options)
    submitted = {
        name: steps.submit(
            f"metrics:{name}", FamilyOutput, compute_metric_family, store_url, spec.suite, name, snapshot,
            generations, skip_ids, keyed, call_store_url, concurrency,
        )
        for name in family_names
    }
    families = [out for name, future in submitted.items() if (out := steps.wait(f"metrics:{name}", future))]
    if len(families) < len(family_names):
        return None
    return [FamilyResult.of([f]) for f in families], {f.family: [f.scores] for f in families}, None


def _score_partitions(steps: StepRunner, store_url: str, spec: RunSpec, snapshot: str, generations: str,
                      skip_ids: list[str], family_names: list[str], call_store_url: str, options: RunOptions) -> Scored | None:
    """Each family over each partition: one task per partition and family, a bounded number in
    flight, each keyed by its partition's content, so a rerun recomputes only changed partitions."""
    keyed = spec.step_view()
    if spec.jury and spec.jury.offline and options.runner == "threads" and workers.available(store_url):
        workers.prestart()  # the offline jury's partitions run in worker processes (assay.workers)
    split = steps.run("partition", PartitionOutput, partition_cases, store_url, spec.suite, snapshot, generations,
                      skip_ids, options.partition_size)
    if split is None:
        workers.shutdown()
        return None
    jobs = [(name, part) for part in split.partitions for name in family_names]
    outputs: dict[tuple[str, int], FamilyOutput] = {}
    # One manifest save for all partition steps, not one per step; the worker processes that
    # offline-jury partitions run in (assay.workers) stop when the metric steps end.
    with steps.batched():
        try:
            failed = _run_partition_steps(steps, jobs, outputs, spec, store_url, keyed, call_store_url, options)
        finally:
            workers.shutdown()
    if failed:
        return None
    families = [FamilyResult.of([outputs[(name, p.index)] for p in split.partitions]) for name in family_names]
    family_scores = {name: [outputs[(name, p.index)].scores for p in split.partitions] for name in family_names}
    score_names = {name: [names.partition_scores(name, p.index) for p in split.partitions] for name in family_names}
    return families, family_scores, score_names


def _run_partition_steps(steps: StepRunner, jobs: list[tuple[str, Any]], outputs: dict[tuple[str, int], FamilyOutput],
                         spec: RunSpec, store_url: str, keyed: Any, call_store_url: str, options: RunOptions) -> bool:
    """Submit every (family, partition) step, a bounded number in flight; True if any failed."""
    failed = False
    concurrency = metric_concurrency(options)
    in_flight: list[tuple[str, Any]] = []
    for name, part in jobs:
        step = f"metrics:{name}:{names.partition_label(part.index)}"
        in_flight.append((step, steps.submit(
            step, FamilyOutput, compute_metric_family_partition, store_url, spec.suite, name, part.index,
            part.sha, keyed, call_store_url, concurrency,
        )))
        while len(in_flight) >= PARTITIONS_IN_FLIGHT:
            failed |= not _settle_partition(steps, in_flight.pop(0), outputs)
    while in_flight:
        failed |= not _settle_partition(steps, in_flight.pop(0), outputs)
    return failed


def _settle_partition(steps: StepRunner, submitted: tuple[str, Any], outputs: dict[tuple[str, int], FamilyOutput]) -> bool:
    step, future = submitted
    out = steps.wait(step, future)
    if out is None:
        return False
    outputs[(out.family, out.partition if out.partition is not None else -1)] = out
    return True


def _compare(steps: StepRunner, artifacts: ArtifactStore, store_url: str, spec: RunSpec, run_id: str,
             facts: RunFacts, inputs: CompareInputs, logger: Any) -> tuple[CompareOutput | None, bool]:
    """Compare with a baseline run ("latest" = the newest completed run of this suite, dataset and jury);
    the comparison (None with no baseline or when the step failed) and whether the step failed."""
    baseline = (
        latest_completed_run(artifacts, facts, get_suite(spec.suite).recorded_outputs, exclude=run_id)
        if spec.compare_with == "latest" else spec.compare_with
    )
    if baseline is None:
        logger.warning("no completed run of this suite, dataset and jury to compare with")
        progress("! no completed run of this suite, dataset and jury to compare with")
        return None, False
    result = steps.run("compare", CompareOutput, compare_with_baseline, store_url, spec.suite, baseline, facts, inputs)
    if result is None:
        return None, True
    steps.comparison_artifact(result.text)
    logger.info(result.text)
    return result, False


if __name__ == "__main__":
    from assay.spec import build_run_spec

    started = time.time()
    demo_spec, demo_options = build_run_spec("rag_qa", default_dataset=get_suite("rag_qa").default_dataset,
                                             cli={"offline": True})
    print(evaluate(demo_spec, demo_options))
    print(f"{time.time() - started:.1f}s")
