"""The ``assay`` command line: run, rerun, audit and list suites.

Prefect (and the flow) is imported only by the commands that run a flow, so ``assay
suites`` and ``assay audit`` start fast and never start a server.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import typer

from assay import apply_offline_env, cancellation
from assay.cancellation import RunStopped

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Auditable, rerunnable evaluation runs on Prefect.")

EXIT_FAILED = 1
EXIT_VALIDATION = 2
EXIT_REGRESSION = 3
EXIT_STOPPED = 143  # 128 + SIGTERM, as shells report it


def _err(message: str) -> None:
    typer.secho(message, fg=typer.colors.RED, err=True)


def _resolve_run(run: str, out: str, store: str | None) -> tuple[Any, str]:
    """RUN may be a run id under --out/--store or a path to a run directory."""
    from assay.lineage.store import ArtifactStore

    path = Path(run)
    if store is None and path.is_dir() and (path / "manifest.json").exists():
        return ArtifactStore(str(path.resolve().parent)), path.resolve().name
    return ArtifactStore(store or str(Path(out).resolve())), run


def _prepare_prefect(verbose: bool) -> None:
    apply_offline_env()
    os.environ["ASSAY_PROGRESS"] = "1"
    # The ephemeral server's first start (SQLite migrations) can take longer than
    # Prefect's 20 s default on a busy 2-core machine.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
    if not verbose:
        os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")


@app.command()
def suites() -> None:
    """List the built-in suites."""
    from assay.suites.registry import get_suite, suite_names

    for name in suite_names():
        suite = get_suite(name)
        typer.echo(f"{name:10s} seed {suite.seed}  {suite.title}")
        typer.echo(f"{'':10s} {suite.description}")
        typer.echo(f"{'':10s} bundled dataset: {suite.default_dataset}")


@app.command()
def run(
    suite: str = typer.Argument(..., help="suite id, see `assay suites`"),
    dataset: Path | None = typer.Option(None, help="dataset directory (default: the bundled one)"),
    out: Path = typer.Option(Path("runs"), help="directory for run directories and caches"),
    store: str | None = typer.Option(None, help="artifact store URL (fsspec), default: --out"),
    replay: str = typer.Option("recorded", help="recorded (read generations.jsonl) or live (regenerate)"),
    generator: str | None = typer.Option(None, help="litellm model for --replay live"),
    api_base: str | None = typer.Option(None, help="OpenAI-compatible base URL for judges and generator"),
    judge: list[str] | None = typer.Option(None, help="judge model (repeatable)"),
    judge_weight: list[float] | None = typer.Option(None, help="judge weight (repeatable, same order)"),
    offline: bool = typer.Option(False, help="use the offline jury even if keys are present"),
    config: Path | None = typer.Option(None, help="YAML jury configuration"),
    k: int = typer.Option(10, "-k", "--k", help="top-k for retrieval metrics"),
    quarantine: bool = typer.Option(False, help="set rows that fail validation aside instead of stopping"),
    max_cost: float | None = typer.Option(None, help="stop sending judge calls past this many USD"),
    concurrency: int | None = typer.Option(None, help="concurrent LLM calls per provider"),
    lang: str = typer.Option("ko", help="judge prompt language: ko or en"),
    embedding_model: str | None = typer.Option(None, help="local sentence-transformers model for live retrieval"),
    runner: str = typer.Option("threads", help="task runner: threads, dask (local cluster) or dask=ADDRESS"),
    compare_with: str | None = typer.Option(None, help="baseline run id, or 'latest', to compare with after publishing"),
    fail_on_regression: bool = typer.Option(False, help="with --compare-with: exit 3 on a significant regression"),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="show Prefect's own logs"),
) -> None:
    """Run SUITE end to end and print the run id and directory."""
    from assay.suites.registry import UnknownSuiteError, get_suite

    try:
        get_suite(suite)
    except UnknownSuiteError as exc:
        _err(str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    problem = _preflight(dataset, replay, generator, judge, judge_weight, api_base, offline, config, max_cost)
    if problem:
        _err(problem)
        raise typer.Exit(EXIT_FAILED)
    params = {
        "suite": suite,
        "dataset": str(dataset) if dataset else None,
        "out": str(out),
        "store": store,
        "replay": replay,
        "generator": generator,
        "api_base": api_base,
        "judges": judge or None,
        "judge_weights": judge_weight or None,
        "offline": offline,
        "config": str(config) if config else None,
        "k": k,
        "quarantine": quarantine,
        "max_cost": max_cost,
        "concurrency": concurrency,
        "lang": lang,
        "embedding_model": embedding_model,
        "compare_with": compare_with,
        "fail_on_regression": fail_on_regression,
    }
    _execute(params, verbose, runner)


@app.command()
def rerun(
    run_id: str = typer.Argument(..., help="run id or run directory to re-execute"),
    out: Path = typer.Option(Path("runs"), help="directory holding the run"),
    store: str | None = typer.Option(None, help="artifact store URL, default: --out"),
    runner: str = typer.Option("threads", help="task runner: threads, dask or dask=ADDRESS"),
    verbose: bool = typer.Option(False, "--verbose", "-v"),
) -> None:
    """Re-execute a run with its recorded parameters; reuse every step and judge call that succeeded."""
    from assay.lineage.manifest import load_manifest

    artifact_store, rid = _resolve_run(run_id, str(out), store)
    try:
        manifest = load_manifest(artifact_store, rid)
    except FileNotFoundError as exc:
        _err(str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    recorded = manifest.parameters
    params = {
        "suite": manifest.suite,
        "dataset": recorded["dataset"],
        "out": recorded.get("out", str(out)),
        "store": recorded.get("store"),
        "replay": recorded.get("replay", "recorded"),
        "generator": recorded.get("generator"),
        "api_base": recorded.get("api_base"),
        "k": recorded.get("k", 10),
        "quarantine": recorded.get("quarantine", False),
        "lang": recorded.get("lang", "ko"),
        "embedding_model": recorded.get("embedding_model"),
        "jury_config": recorded.get("jury"),
        "compare_with": recorded.get("compare_with"),
        "fail_on_regression": recorded.get("fail_on_regression", False),
        "parent_run": rid,
    }
    typer.echo(f"rerunning {rid} with its recorded parameters", err=True)
    _execute(params, verbose, runner)


def _preflight(
    dataset: Path | None, replay: str, generator: str | None, judges: list[str] | None,
    weights: list[float] | None, api_base: str | None, offline: bool, config: Path | None, max_cost: float | None,
) -> str | None:
    """Mistakes in the options, caught before a Prefect server starts."""
    if dataset is not None and not dataset.is_dir():
        return f"--dataset {dataset}: no such directory"
    if replay not in ("recorded", "live"):
        return f"--replay {replay!r}: use 'recorded' or 'live'"
    if replay == "live" and not generator:
        return "--replay live needs --generator MODEL (a litellm model, e.g. openai/gpt-4o-mini)"
    if max_cost is not None and max_cost < 0:
        return "--max-cost must be >= 0"
    from assay.judges.config import JuryConfigError, resolve_jury

    try:
        resolve_jury(judges or None, weights or None, api_base, offline, config)
    except (JuryConfigError, FileNotFoundError, ValueError) as exc:
        return f"jury: {exc}"
    return None


def task_runner_for(spec: str) -> Any:
    """threads (Prefect's default), dask (a local 2-worker cluster) or dask=tcp://host:port."""
    if spec == "threads":
        return None
    if spec == "dask" or spec.startswith("dask="):
        from prefect_dask import DaskTaskRunner

        address = spec.partition("=")[2]
        if address:
            return DaskTaskRunner(address=address)
        return DaskTaskRunner(
            cluster_kwargs={"n_workers": 2, "threads_per_worker": 2, "processes": True, "dashboard_address": None}
        )
    raise typer.BadParameter(f"unknown runner {spec!r}; use threads, dask or dask=ADDRESS", param_hint="--runner")


def _execute(params: dict[str, Any], verbose: bool, runner: str = "threads") -> None:
    _prepare_prefect(verbose)
    from assay.lineage.manifest import load_manifest
    from assay.lineage.store import ArtifactStore
    from flows.evaluate import evaluate, new_run_id

    run_id = new_run_id(params["suite"])
    store = ArtifactStore(params.get("store") or str(Path(params["out"]).resolve()))
    typer.echo(f"run id:  {run_id}", err=True)
    flow = evaluate
    task_runner = task_runner_for(runner)
    if task_runner is not None:
        flow = evaluate.with_options(task_runner=task_runner)
    error = _run_stoppable(lambda: flow(**params, run_id=run_id, return_state=True))
    if error is not None and not isinstance(error, RunStopped):  # before a manifest exists
        _err(f"run failed before it started: {type(error).__name__}: {error}")
        raise typer.Exit(EXIT_FAILED)
    try:
        manifest = load_manifest(store, run_id)
    except FileNotFoundError:
        _err("the flow ended before writing a manifest; rerun with --verbose to see Prefect's logs")
        raise typer.Exit(EXIT_FAILED) from None
    _print_steps(manifest)
    run_dir = store.run_path(run_id)
    if manifest.status == "failed_validation":
        _print_validation(store, run_id, manifest)
        _err(f"\nvalidation gate failed; nothing downstream ran. Validation result kept in {run_dir}/")
        typer.echo(f"run id:  {run_id}\nrun dir: {run_dir}")
        raise typer.Exit(EXIT_VALIDATION)
    if manifest.status == "stopped":
        _err(f"\nrun stopped; completed steps and judge calls are kept. Resume: assay rerun {run_id}")
        typer.echo(f"run id:  {run_id}\nrun dir: {run_dir}")
        raise typer.Exit(EXIT_STOPPED)
    if manifest.status != "completed":
        _err(f"\nrun {manifest.status}: {manifest.message}\nfix the cause, then `assay rerun {run_id}`")
        typer.echo(f"run id:  {run_id}\nrun dir: {run_dir}")
        raise typer.Exit(EXIT_FAILED)
    typer.echo(f"run id:  {run_id}\nrun dir: {run_dir}\nreport:  {run_dir}/report.html")
    if "comparison.json" in manifest.artifacts:
        from assay.compare import format_deltas_record

        record = json.loads(store.read_bytes(store.run_path(run_id, manifest.artifacts["comparison.json"].path)))
        typer.echo("\n" + format_deltas_record(record), err=True)
        if record["regressions"] and params.get("fail_on_regression"):
            _err(f"regression against {record['baseline']}: {', '.join(record['regressions'])}")
            raise typer.Exit(EXIT_REGRESSION)


def _run_stoppable(run_flow: Any) -> BaseException | None:
    """Run the flow on a worker thread so SIGTERM/Ctrl-C can ask it to stop cleanly.

    The first signal stops new judge calls and ends the run at the next step boundary
    (answered calls are in the call store, so `assay rerun` resumes); a second one exits now.
    """
    cancellation.reset()
    outcome: list[BaseException] = []

    def target() -> None:
        try:
            run_flow()
        except BaseException as exc:  # noqa: BLE001 - reported by the caller
            outcome.append(exc)

    def on_signal(signum: int, frame: Any) -> None:
        if cancellation.stop_requested():
            os._exit(EXIT_STOPPED)
        cancellation.request_stop(signal.Signals(signum).name)
        _err(f"\n{signal.Signals(signum).name}: stopping after in-flight calls (send again to exit now)")

    thread = threading.Thread(target=target, name="assay-flow", daemon=True)
    on_main = threading.current_thread() is threading.main_thread()  # signals can only be set there
    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)} if on_main else {}
    try:
        thread.start()
        while thread.is_alive():
            thread.join(0.2)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return outcome[0] if outcome else None


def _print_steps(manifest: Any) -> None:
    typer.echo("\nstep               status   seconds  judge calls (sent / reused)", err=True)
    for step in manifest.steps:
        calls = f"{step.judge_calls_sent} / {step.judge_calls_reused}" if (step.judge_calls_sent or step.judge_calls_reused) else ""
        typer.echo(f"{step.name:18s} {step.status:8s} {step.duration_s:7.2f}  {calls}", err=True)
        if step.detail:
            typer.echo(f"{'':18s} {step.detail}", err=True)
    reused = sum(1 for s in manifest.steps if s.status == "reused")
    typer.echo(f"{reused} of {len(manifest.steps)} steps reused from cache", err=True)


def _print_validation(store: Any, run_id: str, manifest: Any) -> None:
    from assay.validation.report import ValidationReport

    entry = manifest.artifacts.get("validation/report.json")
    if entry is None:
        return
    report = ValidationReport.model_validate_json(store.read_bytes(store.run_path(run_id, entry.path)))
    typer.echo(report.to_text(), err=True)


@app.command()
def audit(
    run_id: str = typer.Argument(..., help="run id or run directory"),
    out: Path = typer.Option(Path("runs"), help="directory holding the run"),
    store: str | None = typer.Option(None, help="artifact store URL, default: --out"),
) -> None:
    """Re-hash every artifact of a run and check that its lineage graph is closed."""
    from assay.lineage.audit import audit_run

    artifact_store, rid = _resolve_run(run_id, str(out), store)
    try:
        result = audit_run(artifact_store, rid)
    except FileNotFoundError as exc:
        _err(str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    for line in result.lines():
        typer.echo(line)
    if not result.ok:
        raise typer.Exit(EXIT_FAILED)


@app.command()
def lineage(
    run_id: str = typer.Argument(..., help="run id or run directory"),
    case: str = typer.Option(..., "--case", help="case id to trace"),
    metric: str | None = typer.Option(None, "--metric", help="only this metric"),
    out: Path = typer.Option(Path("runs"), help="directory holding the run"),
    store: str | None = typer.Option(None, help="artifact store URL, default: --out"),
) -> None:
    """Trace a case's scores back to its input row, generation, prompts and raw judge responses."""
    from assay.lineage.trace import trace_case

    artifact_store, rid = _resolve_run(run_id, str(out), store)
    try:
        lines = trace_case(artifact_store, rid, case, metric)
    except (FileNotFoundError, KeyError) as exc:
        _err(str(exc).strip('"'))
        raise typer.Exit(EXIT_FAILED) from None
    typer.echo("\n".join(lines))


@app.command()
def compare(
    run_a: str = typer.Argument(..., help="baseline run id or directory"),
    run_b: str = typer.Argument(..., help="candidate run id or directory"),
    out: Path = typer.Option(Path("runs"), help="directory holding the runs"),
    store: str | None = typer.Option(None, help="artifact store URL, default: --out"),
    resamples: int = typer.Option(2000, help="bootstrap resamples"),
    confidence: float = typer.Option(0.95, help="confidence level of the intervals"),
    fail_on_regression: bool = typer.Option(False, help="exit 3 when a metric got significantly worse"),
) -> None:
    """Per-metric deltas B − A with paired bootstrap confidence intervals and a regression verdict."""
    from assay.compare import compare_scores, format_deltas
    from assay.lineage.trace import RunReader

    readers = []
    for run in (run_a, run_b):
        artifact_store, rid = _resolve_run(run, str(out), store)
        try:
            readers.append(RunReader(artifact_store, rid))
        except FileNotFoundError as exc:
            _err(str(exc))
            raise typer.Exit(EXIT_FAILED) from None
    import io

    import pandas as pd

    frames = [pd.read_parquet(io.BytesIO(r.bytes("scores.parquet"))) for r in readers]
    lower = set(readers[0].json("summary.json").get("lower_is_better", []))
    deltas = compare_scores(frames[0], frames[1], lower, resamples=resamples, confidence=confidence)
    typer.echo(format_deltas(deltas, readers[0].run_id, readers[1].run_id, confidence))
    if fail_on_regression and any(d.verdict == "REGRESSION" for d in deltas):
        raise typer.Exit(EXIT_REGRESSION)


def main() -> None:  # pragma: no cover - console entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
