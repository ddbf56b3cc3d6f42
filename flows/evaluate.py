"""The evaluation flow: ingest → validate (GX) → replay → metric families in parallel →
ensemble aggregation → publish, with every artifact adopted into the run's lineage.

Each step is a cached, retried Prefect task over content hashes; the flow only wires
them together and records what each produced (and whether it was reused from cache).
"""

from __future__ import annotations

import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from assay import apply_offline_env

apply_offline_env()  # before prefect/litellm import: telemetry and hub fetches off

from prefect import flow, get_run_logger  # noqa: E402
from prefect.context import get_run_context  # noqa: E402
from prefect.states import Completed, Failed  # noqa: E402

from assay.cancellation import RunStopped  # noqa: E402
from assay.lineage.code_version import code_version  # noqa: E402
from assay.lineage.manifest import (  # noqa: E402
    Manifest,
    RunRecorder,
    config_hash,
    environment,
    git_state,
    now_iso,
)
from assay.lineage.store import ArtifactStore  # noqa: E402
from assay.run_config import RunParameters, fingerprint_dataset, resolve_jury_dict  # noqa: E402
from assay.suites.registry import get_suite  # noqa: E402
from flows.recording import StepRunner  # noqa: E402
from tasks.common import result_storage  # noqa: E402
from tasks.steps import (  # noqa: E402
    aggregate_scores,
    compare_with_baseline,
    compute_metric_family,
    ingest_dataset,
    publish_report,
    replay_generations,
    validate_dataset,
)


def new_run_id(suite: str) -> str:
    return f"{suite}-{datetime.now().strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"


@flow(name="assay-evaluate", log_prints=True, validate_parameters=True)
def evaluate(
    suite: str = "rag_qa",
    dataset: str | None = None,
    out: str = "runs",
    store: str | None = None,
    replay: str = "recorded",
    generator: str | None = None,
    api_base: str | None = None,
    judges: list[str] | None = None,
    judge_weights: list[float] | None = None,
    offline: bool = False,
    config: str | None = None,
    k: int = 10,
    quarantine: bool = False,
    max_cost: float | None = None,
    concurrency: int | None = None,
    lang: str = "ko",
    embedding_model: str | None = None,
    parent_run: str | None = None,
    run_id: str | None = None,
    jury_config: dict[str, Any] | None = None,
    compare_with: str | None = None,
    fail_on_regression: bool = False,
) -> Any:
    """Evaluate ``suite`` on a dataset directory and write an audited run directory.

    Ends in a Completed state carrying {"run_id", "run_dir", "status", "steps"}; a failed gate
    or step ends the flow run in a Failed state after the manifest (with what did run) is written.
    """
    logger = get_run_logger()
    suite_obj = get_suite(suite)
    params = RunParameters(
        suite=suite,
        dataset=str(Path(dataset or suite_obj.default_dataset).resolve()),
        replay=replay,
        generator=generator,
        api_base=api_base,
        k=k,
        quarantine=quarantine,
        lang=lang,
        embedding_model=embedding_model,
    )
    # A rerun passes the jury exactly as recorded; a new run resolves it from the options.
    jury = jury_config or resolve_jury_dict(judges, judge_weights, api_base, offline, config, max_cost, concurrency, lang)
    store_url = store or str(Path(out).resolve())
    artifacts = ArtifactStore(store_url)
    call_store_url = artifacts.path(".assay", "judge-calls")
    run_id = run_id or new_run_id(suite)
    recorded_params = {
        **params.model_dump(), "jury": jury, "store": store_url, "out": str(Path(out).resolve()),
        "compare_with": compare_with, "fail_on_regression": fail_on_regression,
    }
    flow_ctx = get_run_context()
    manifest = Manifest(
        run_id=run_id,
        suite=suite,
        created_at=now_iso(),
        parent_run=parent_run,
        parameters=recorded_params,
        config_hash=config_hash({**params.model_dump(exclude={"dataset"}), "jury": jury}),
        code={**git_state(), "code_version": code_version()},
        environment=environment(),
        prefect={"flow_run_id": str(flow_ctx.flow_run.id), "flow_run_name": flow_ctx.flow_run.name},
        models={"generator": generator, "judges": [j["model"] for j in jury.get("panel", [])]},
    )
    recorder = RunRecorder(artifacts, manifest)
    recorder.save()
    storage = result_storage(Path(out))
    steps = StepRunner(recorder, storage, logger)
    version = code_version()
    task_params = {"k": k, "generator": generator, "api_base": api_base, "lang": lang, "disagreement_threshold": 3.0}
    if embedding_model:
        task_params["embedding_model"] = embedding_model
    if concurrency:
        task_params["concurrency"] = concurrency

    try:
        # 1. ingest: snapshot the dataset; cache keyed on the files' content
        ingest = steps.run(
            "ingest", ingest_dataset, store_url, suite, params.dataset, fingerprint_dataset(params.dataset), version
        )
        if ingest is None:
            return steps.fail("ingest failed")
        for name, sha in ingest["files"].items():
            steps.record(f"dataset/{name}", sha, "ingest", media_type=_media_type(name))
        steps.record("dataset/snapshot.json", ingest["snapshot"], "ingest", inputs=[f"dataset/{n}" for n in ingest["files"]])

        # 2. validate: the GX gate
        validation = steps.run("validate", validate_dataset, store_url, suite, ingest["snapshot"], version)
        if validation is None:
            return steps.fail("validation step failed")
        steps.record("validation/report.json", validation["report"], "validate", inputs=["dataset/snapshot.json"])
        steps.record("validation/gx_results.json", validation["gx_results"], "validate", inputs=["dataset/snapshot.json"])
        skip_ids: list[str] = []
        if not validation["success"]:
            if not quarantine:
                logger.error(validation["text"])
                return steps.fail(
                    f"validation gate failed: {validation['n_problems']} problems; nothing downstream ran",
                    status="failed_validation",
                )
            skip_ids = validation["failed_ids"]
            quarantined = artifacts.put_json({"quarantined_ids": skip_ids, "report": validation["text"]})
            steps.record("validation/quarantine.json", quarantined, "validate", inputs=["validation/report.json"])
            logger.warning(f"quarantined {len(skip_ids)} rows: {', '.join(skip_ids)}")

        # 3. replay: recorded or live generations
        replayed = steps.run(
            "replay", replay_generations, store_url, suite, ingest["snapshot"], skip_ids, replay, task_params, version
        )
        if replayed is None:
            return steps.fail("replay failed")
        steps.record("generations/generations.jsonl", replayed["generations"], "replay", inputs=["dataset/snapshot.json"], media_type="application/jsonl")

        # 4. metric families in parallel
        families = suite_obj.metric_families()
        submitted = {
            family.name: steps.submit(
                f"metrics:{family.name}",
                compute_metric_family,
                store_url,
                suite,
                family.name,
                ingest["snapshot"],
                replayed["generations"],
                skip_ids,
                task_params,
                jury if family.uses_jury else None,
                call_store_url if family.uses_jury else None,
                version,
                refresh_if=_jury_had_failures,
            )
            for family in families
        }
        family_scores: dict[str, str] = {}
        jury_runs: list[str] = []
        for name, future in submitted.items():
            result = steps.wait(f"metrics:{name}", future)
            if result is None:
                continue
            inputs = ["dataset/snapshot.json", "generations/generations.jsonl"]
            if "jury_runs" in result:
                key_names = steps.record_judge_calls(call_store_url, result.get("request_keys", []), f"metrics:{name}")
                steps.record(f"judges/{name}/jury_runs.json", result["jury_runs"], f"metrics:{name}", inputs=inputs + key_names)
                steps.record_prompts(result["jury_runs"])
                jury_runs.append(result["jury_runs"])
                inputs = inputs + [f"judges/{name}/jury_runs.json"]
            steps.record(f"scores/{name}.jsonl", result["scores"], f"metrics:{name}", inputs=inputs, media_type="application/jsonl")
            family_scores[name] = result["scores"]
        if len(family_scores) < len(families):
            return steps.fail("a metric step failed; rerun the run to retry only what failed")

        # 5. ensemble aggregation and totals
        aggregated = steps.run(
            "aggregate", aggregate_scores, store_url, suite, ingest["snapshot"], family_scores, skip_ids,
            {**task_params, "jury": jury}, version,
        )
        if aggregated is None:
            return steps.fail("aggregation failed")
        score_inputs = [f"scores/{n}.jsonl" for n in family_scores]
        steps.record("scores/all.jsonl", aggregated["scores"], "aggregate", inputs=score_inputs, media_type="application/jsonl")
        steps.record("summary.json", aggregated["summary"], "aggregate", inputs=score_inputs)

        # 6. publish
        publish_inputs = {
            "snapshot": ingest["snapshot"],
            "generations": replayed["generations"],
            "scores": aggregated["scores"],
            "summary": aggregated["summary"],
            "validation_report": validation["report"],
            "skip_ids": skip_ids,
            "replay": replay,
            "config_hash": manifest.config_hash,
            "jury": jury,
            "jury_runs": jury_runs,
        }
        published = steps.run("publish", publish_report, store_url, suite, publish_inputs, version)
        if published is None:
            return steps.fail("publishing failed")
        sources = ["scores/all.jsonl", "summary.json", "generations/generations.jsonl", "validation/report.json"]
        sources += [f"judges/{n}/jury_runs.json" for n in family_scores if f"judges/{n}/jury_runs.json" in manifest.artifacts]
        steps.record("report.md", published["report_md"], "publish", inputs=sources, media_type="text/markdown", path="report.md")
        steps.record("report.html", published["report_html"], "publish", inputs=sources, media_type="text/html", path="report.html")
        steps.record(
            "scores.parquet", published["scores_parquet"], "publish", inputs=["scores/all.jsonl"],
            media_type="application/vnd.apache.parquet", path="scores.parquet",
        )
        for chart, sha in published["charts"].items():
            steps.record(f"charts/{chart}.png", sha, "publish", inputs=["summary.json"], media_type="image/png", path=f"charts/{chart}.png")

        if compare_with:
            regressions = _compare(steps, artifacts, store_url, suite, run_id, compare_with, aggregated, version, logger)
            if regressions and fail_on_regression:
                recorder.manifest.prompts = steps.prompts
                recorder.finish("completed", f"regression against the baseline: {', '.join(regressions)}")
                return Failed(message=f"regression: {', '.join(regressions)}", data=steps.outcome("completed"))

        steps.prefect_artifacts(run_id, artifacts.get_json(aggregated["summary"]), artifacts.get(published["report_md"]).decode("utf-8"))
        recorder.manifest.prompts = steps.prompts
        recorder.finish("completed", f"{len(manifest.steps)} steps")
        logger.info(f"run {run_id} completed: {artifacts.run_path(run_id)}")
        return Completed(message="completed", data=steps.outcome("completed"))  # type: ignore[return-value]
    except RunStopped as exc:
        logger.warning(str(exc))
        return steps.fail(str(exc), status="stopped")
    except Exception as exc:  # noqa: BLE001 - record any failure in the manifest, then fail the flow run
        logger.error(f"run failed: {type(exc).__name__}: {exc}")
        logger.debug("traceback", exc_info=True)  # -v shows it; users see the message
        return steps.fail(f"{type(exc).__name__}: {exc}")


def _compare(steps: StepRunner, artifacts: ArtifactStore, store_url: str, suite: str, run_id: str,
             compare_with: str, aggregated: dict[str, Any], version: str, logger: Any) -> list[str]:
    """Compare with a baseline run ("latest" = the newest completed run of this suite)."""
    from assay.compare import latest_completed_run

    baseline = latest_completed_run(artifacts, suite, exclude=run_id) if compare_with == "latest" else compare_with
    if baseline is None:
        logger.warning("no completed baseline run to compare with")
        return []
    result = steps.run("compare", compare_with_baseline, store_url, baseline, aggregated["scores"], aggregated["summary"], version)
    if result is None:
        return []
    steps.record("comparison.json", result["comparison"], "compare", inputs=["scores/all.jsonl", "summary.json"])
    steps.comparison_artifact(result["text"])
    logger.info(result["text"])
    return list(result["regressions"])


def _jury_had_failures(result: dict[str, Any]) -> bool:
    """A cached jury step whose judges failed must run again (only failed calls are re-sent)."""
    stats = result.get("jury_stats") or {}
    return bool(stats.get("failed"))


def _media_type(name: str) -> str:
    if name.endswith(".md"):
        return "text/markdown"
    if name.endswith(".json"):
        return "application/json"
    return "application/jsonl"


if __name__ == "__main__":
    started = time.time()
    print(evaluate())
    print(f"{time.time() - started:.1f}s")
