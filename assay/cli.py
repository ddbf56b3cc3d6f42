"""The ``assay`` command line: run, rerun, audit, calibrate and list suites.

Prefect (and the flow) is imported only by the commands that run a flow, so ``assay
suites`` and ``assay audit`` start fast and never start a server.
"""

from __future__ import annotations

# First: `python -m assay.cli run` hands over to the resident worker before the imports below.
import assay.cli_as_main  # noqa: F401

# isort: split
import os
import signal
import sys
import threading
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from assay import apply_offline_env, cancellation, run_command, run_flags
from assay import artifacts as names
from assay.cancellation import RunStopped
from assay.console import echo, secho  # every line printed passes console_safe

if TYPE_CHECKING:
    from assay.flows.ephemeral_server import RunServer
    from assay.flows.runners import FlowTaskRunner
    from assay.rendering.case_view import CaseView

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Auditable, rerunnable evaluation runs on Prefect.")

EXIT_FAILED = 1
EXIT_VALIDATION = 2
EXIT_REGRESSION = 3
EXIT_INCOMPLETE = 4  # every step ran, but a metric, a jury or the budget left the run unmeasured
EXIT_THRESHOLD = 5  # --assert METRIC>=VALUE missed
EXIT_STOPPED = 143  # 128 + SIGTERM, as shells report it
# In a resident worker's child (flows/warm_worker.py): the kept server's lease it took for this run,
# which the run uses as a server it found up (its modules warmed, no heartbeats, released at the end).
worker_lease: RunServer | None = None


def _err(message: str) -> None:
    secho(message, fg=typer.colors.RED, err=True)


def _resolve_run(run: str, out: str, store: str | None) -> tuple[Any, str]:
    """RUN may be a run id under --out/--store or a path to a run directory."""
    from assay.lineage.store import ArtifactStore

    path = Path(run)
    if store is None and path.is_dir() and (path / "manifest.json").exists():
        return ArtifactStore(str(path.resolve().parent)), path.resolve().name
    return _read_store(out, store), run


def _read_store(out: str | Path, store: str | None) -> Any:
    """The store a reading command looks in; a local --out that is not a folder is said in one
    line (reading never creates one)."""
    from assay.lineage.store import ArtifactStore

    if store is None and not Path(out).is_dir():
        _err(f"--out {out}: {'not a directory' if Path(out).exists() else 'no such directory'} (no runs there)")
        raise typer.Exit(EXIT_FAILED)
    return ArtifactStore(store or str(Path(out).resolve()))


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
        echo(f"{name:10s} seed {suite.seed}  {suite.title}")
        echo(f"{'':10s} {suite.description}")
        echo(f"{'':10s} bundled dataset: {suite.default_dataset}")


@app.command(cls=run_command.RunCommand)
@run_command.with_flags  # SUITE and every flag of assay/run_flags.py
def run(**flags: Any) -> None:
    """Run SUITE end to end and print the run id and directory."""
    from assay import timeline

    timeline.mark("cli parsed")
    suite, dataset = flags["suite"], flags["dataset"]
    # Every check comes first: a refused run starts no server (and has the CPU to itself). The
    # server then boots while the flow and its libraries are imported.
    _prepare_prefect(flags["verbose"])
    from assay.redact import register_secret_env

    register_secret_env(flags["api_key_env"])  # before the server starts: its environment leaves out every key variable
    server = None
    try:
        from assay.spec import SpecError, build_run_spec
        from assay.suites.registry import UnknownSuiteError, get_suite

        try:
            suite_obj = get_suite(suite)
        except UnknownSuiteError as exc:
            _err(str(exc))
            raise typer.Exit(EXIT_FAILED) from None
        if dataset is not None and not dataset.is_dir():
            _err(f"--dataset {dataset}: no such directory")
            raise typer.Exit(EXIT_FAILED)
        gates = _parse_gates(flags["assert_"] or [], flags["junit"])
        try:
            spec, options = build_run_spec(suite, default_dataset=suite_obj.default_dataset,
                                           config_file=flags["config"], cli=run_flags.given(flags))
        except (SpecError, FileNotFoundError) as exc:
            _err(str(exc))
            raise typer.Exit(EXIT_FAILED) from None
        from assay.rerun_trust import key_variables

        # key and header values come from these variables (a config file's too): never logged,
        # never in the server's environment (it starts below, after every check)
        register_secret_env(*key_variables(spec))
        _preflight(spec, options, suite_obj, gates)
        if spec.target is not None and flags["replay"] is None:  # a target is never ignored (assay.spec.replay_with_target)
            echo(f"replay: live (the target {spec.target.identity} answers every case; --target implies --replay live)",
                       err=True)
        server = _start_server_early()
    except BaseException:
        if server is not None:
            server.discard()
        raise
    _execute(spec, options, flags["verbose"], gates=gates, server=server)


def _preflight(spec: Any, options: Any, suite: Any = None, gates: Gates | None = None) -> None:
    """Fail before the run starts on anything that can be checked without running it
    (``assay.preflight.refusals``): the dataset, criteria, the target, keys, the gates' metrics,
    the store, the baseline."""
    from assay.preflight import refusals
    from assay.suites.kit.criteria import criteria_problems

    found = (criteria_problems(suite, spec) if suite else []) or refusals(
        spec, options, suite, gates.thresholds if gates else ())
    for line in found:
        _err(line)
    if found:
        raise typer.Exit(EXIT_FAILED)


@app.command()
def rerun(
    run_id: str = typer.Argument(..., help="run id or run directory to re-execute"),
    out: Path = typer.Option(Path("runs"), help="directory holding the run"),
    store: str | None = typer.Option(None, help="artifact store URL, default: --out"),
    concurrency: int | None = typer.Option(None, help="concurrent LLM calls per provider (never changes results)"),
    runner: str | None = typer.Option(None, help="task runner: threads, dask or dask=ADDRESS"),
    api_base: str | None = typer.Option(
        None, help="the recorded endpoint with its credentials (user:pass@…), which runs never record"
    ),
    trust_spec: bool = typer.Option(
        False, "--trust-spec", help="rerun an unsigned spec that calls a Python function or a URL (you trust who wrote it)"
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v"),
) -> None:
    """Re-execute a run with its recorded spec; reuse every step and judge call that succeeded.

    A spec that calls a Python function or a URL is rerun only from a manifest signed with
    ASSAY_SIGNING_KEY, or with --trust-spec.
    """
    from pydantic import ValidationError

    from assay.lineage.audit import anchor_check
    from assay.lineage.manifest import RunIntegrityError, load_manifest
    from assay.spec import RunOptions, RunSpec

    artifact_store, rid = _resolve_run(run_id, str(out), store)
    try:
        anchor = anchor_check(artifact_store, rid)
        if not anchor.ok:  # the spec names endpoints, key variables and code to call: never an edited one
            _err(f"run {rid}'s manifest fails its anchor check, so its recorded spec is not rerun:\n"
                 + "\n".join(anchor.lines()[1:-1]) + f"\n`assay audit {rid}` shows the whole audit")
            raise typer.Exit(EXIT_FAILED)
        manifest = load_manifest(artifact_store, rid)
        spec = RunSpec.model_validate(manifest.run_spec)
    except (FileNotFoundError, RunIntegrityError) as exc:
        _err(str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    except ValidationError as exc:
        _err(f"run {rid} has no usable run spec (made by an older assay?): {exc.errors()[0]['msg']}")
        raise typer.Exit(EXIT_FAILED) from None
    from assay.redact import register_secret_env
    from assay.rerun_trust import key_variables, refusal

    refused = refusal(rid, spec, "signature verified" in anchor.notices, trust_spec)
    if refused:  # the spec may name code or endpoints that a writer of the store chose
        _err(refused)
        raise typer.Exit(EXIT_FAILED)
    register_secret_env(*key_variables(spec))  # kept out of logs and of the Prefect server's environment
    if api_base:
        from assay.redact import strip_url_credentials

        endpoints = {spec.generator.api_base, *(j.api_base for j in (spec.jury.judges if spec.jury else []))}
        if strip_url_credentials(api_base) not in endpoints:
            _err(f"--api-base does not match an endpoint of run {rid}: {sorted(e for e in endpoints if e)}")
            raise typer.Exit(EXIT_FAILED)
    recorded = RunOptions.model_validate(manifest.options) if manifest.options else RunOptions()
    options = recorded.model_copy(update={
        "out": str(Path(artifact_store.root)) if artifact_store.is_local else recorded.out,
        "store": None if artifact_store.is_local else artifact_store.url,
        "concurrency": concurrency or recorded.concurrency,
        "runner": runner or recorded.runner,
    })
    echo(f"rerunning {rid} with its recorded spec", err=True)
    contacts = _contacts(spec)
    for line in contacts:
        echo(line, err=True)
    if contacts and "signature verified" not in anchor.notices:
        # without a key a writer of the store can recompute the root hash, so say what is used
        echo("  (unsigned run: these come from its manifest; set ASSAY_SIGNING_KEY where others can "
                   "write the store, and a rerun then checks the signature)", err=True)
    _preflight(spec, options)
    _execute(spec, options, verbose, parent_run=rid)


def task_runner_for(spec: str) -> FlowTaskRunner | None:
    """The task runner ``--runner`` names (``flows/runners.py``); a bad name is a usage error."""
    from assay.flows.runners import task_runner_for as runner_named

    try:
        return runner_named(spec)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--runner") from None


def _start_server_early() -> RunServer | None:
    """The server this run uses: assay's local server that outlives runs (found or started,
    ``flows/local_server.py``), or with ``ASSAY_SERVER_IDLE_SECONDS=0`` a temporary one that
    stops when this process exits; ``None`` when Prefect's API is configured elsewhere."""
    from assay import timeline
    from assay.flows.ephemeral_server import start_early
    from assay.flows.local_server import acquire, idle_seconds

    if worker_lease is not None:
        timeline.mark("server launched")
        return worker_lease
    try:
        idle = idle_seconds()
    except ValueError as exc:
        _err(str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    server = start_early(launch=(lambda: acquire(idle)) if idle > 0 else None)
    timeline.mark("server launched")
    return server


def _execute(spec: Any, options: Any, verbose: bool, parent_run: str | None = None, gates: Gates | None = None,
             server: RunServer | None = None) -> None:
    from assay import timeline

    _prepare_prefect(verbose)
    from assay.flows.console import prefect_console
    from assay.flows.ephemeral_server import no_heartbeats, warm_modules

    timeline.mark("spec built")
    if server is None:
        server = _start_server_early()  # boots while the flow and its libraries are imported
    from assay.flows.evaluate import evaluate, new_run_id
    from assay.lineage.manifest import load_manifest
    from assay.lineage.store import ArtifactStore
    from assay.lineage.trace import RunReader
    from assay.tasks.common import results_dir

    timeline.mark("flow imported")
    if server is not None:
        # Nothing cached in this output folder yet: every step runs, so the validation gate's
        # library (and a judged run's HTTP client) is imported while the server boots rather than after it.
        first_run = not results_dir(options.out).is_dir()
        server.wait(float(os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"]), warm_modules(spec, first_run))
        timeline.mark("server healthy")

    run_id = new_run_id(spec.suite)
    store = ArtifactStore(options.store_url())
    echo(f"run id:  {run_id}", err=True)
    flow = evaluate
    task_runner = task_runner_for(options.runner)
    if task_runner is not None:
        flow = evaluate.with_options(task_runner=task_runner)
    ended: list[Any] = []

    def run_flow() -> None:
        # Our servers run Prefect's reduced services for temporary servers: nothing acts on a heartbeat.
        with no_heartbeats() if server is not None else nullcontext():
            ended.append(flow(spec=spec, options=options, run_id=run_id, parent_run=parent_run, return_state=True))

    from assay.memory import freeze_long_lived

    freeze_long_lived()  # this process runs one flow: its libraries stay out of every collection
    with prefect_console(verbose):  # each failure is said once, by assay; Prefect's own lines with -v
        error = _run_stoppable(run_flow)
    if server is not None:
        server.release()  # the local server's idle period starts now, not at this process's exit
    timeline.mark("flow returned")
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
    if manifest.status == "running":  # the flow ended without recording its end: the store failed
        reason = ended[0].message if ended and ended[0].message else "the flow ended without recording an outcome"
        _err(f"\nrun failed: {reason}\nfix the cause, then `assay rerun {run_id}`")
        echo(f"run id:  {run_id}\nrun dir: {run_dir}")
        raise typer.Exit(EXIT_FAILED)
    if manifest.status == "failed_validation":
        _print_validation(store, run_id, manifest)
        _err(f"\nvalidation gate failed; nothing downstream ran. Validation result kept in {run_dir}/")
        echo(f"run id:  {run_id}\nrun dir: {run_dir}")
        raise typer.Exit(EXIT_VALIDATION)
    if manifest.status == "stopped":
        _err(f"\nrun stopped; completed steps and judge calls are kept. Resume: assay rerun {run_id}")
        echo(f"run id:  {run_id}\nrun dir: {run_dir}")
        raise typer.Exit(EXIT_STOPPED)
    missed = _apply_gates(gates, store, run_id) if gates is not None else []
    if manifest.status == "incomplete":
        _err("\nrun incomplete (report written, the scores are not a measurement):")
        for reason in manifest.message.removeprefix("incomplete: ").split(" | "):
            _err(f"  - {reason}")
        echo(f"run id:  {run_id}\nrun dir: {run_dir}\nreport:  {run_dir}/report.html")
        raise typer.Exit(EXIT_INCOMPLETE)
    if manifest.status != "completed":
        _err(f"\nrun {manifest.status}: {manifest.message}\nfix the cause, then `assay rerun {run_id}`")
        echo(f"run id:  {run_id}\nrun dir: {run_dir}")
        raise typer.Exit(EXIT_FAILED)
    failed = _failed_calls(RunReader(store, run_id))
    if failed is not None and failed.n_failed:  # allowed by --max-failed-calls, still said
        _err(f"\n{failed.banner()} (allowed by --max-failed-calls {spec.max_failed_calls})")
    echo(f"run id:  {run_id}\nrun dir: {run_dir}\nreport:  {run_dir}/report.html")
    comparison = None
    if names.COMPARISON in manifest.artifacts:
        from assay.compare import Comparison

        comparison = Comparison.model_validate(RunReader(store, run_id).json(names.COMPARISON))
        echo("\n" + comparison.text(), err=True)
    if spec.fail_on_regression and any(s.name == "compare" and s.status == "failed" for s in manifest.steps):
        _err(f"\n{manifest.message}")
        raise typer.Exit(EXIT_FAILED)
    if missed:
        _err("\n--assert missed:\n" + "\n".join(f"  - {line}" for line in missed))
        raise typer.Exit(EXIT_THRESHOLD)
    if comparison is not None and comparison.regressions and spec.fail_on_regression:
        _err(f"regression against {comparison.baseline}: {', '.join(comparison.regressions)}")
        raise typer.Exit(EXIT_REGRESSION)


def _contacts(spec: Any) -> list[str]:
    """What a rerun of ``spec`` will call or send keys to, as the manifest recorded it."""
    lines = []
    target = spec.target
    if target is not None and target.function:
        lines.append(f"  calls the function {target.function}")
    if target is not None and target.url:
        sent = ", ".join(f"{h} from ${v.split()[-1]}" for h, v in sorted(target.headers.items()))
        lines.append(f"  posts each case to {target.url}" + (f" (headers {sent})" if sent else ""))
    if spec.generator.api_base or spec.generator.api_key_env:
        lines.append(f"  generator {spec.generator.model} at {spec.generator.api_base or 'its provider'}"
                     + (f" with ${spec.generator.api_key_env}" if spec.generator.api_key_env else ""))
    for judge in spec.jury.judges if spec.jury else []:
        if judge.api_base or judge.api_key_env:
            lines.append(f"  judge {judge.model} at {judge.api_base or 'its provider'}"
                         + (f" with ${judge.api_key_env}" if judge.api_key_env else ""))
    return lines


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
    """The step table; each step's detail was printed with its progress line (once is enough)."""
    echo("\nstep               status   seconds  judge calls (sent / reused)", err=True)
    for step in manifest.steps:
        calls = f"{step.judge_calls_sent} / {step.judge_calls_reused}" if (step.judge_calls_sent or step.judge_calls_reused) else ""
        echo(f"{step.name:18s} {step.status:8s} {step.duration_s:7.2f}  {calls}", err=True)
    for path in manifest.set_aside:
        echo(f"corrupt pool object set aside (recomputed): {path}", err=True)
    reused = sum(1 for s in manifest.steps if s.status == "reused")
    echo(f"{reused} of {len(manifest.steps)} steps reused from cache", err=True)


def _print_validation(store: Any, run_id: str, manifest: Any) -> None:
    from assay.validation.report import ValidationReport

    entry = manifest.artifacts.get(names.VALIDATION_REPORT)
    if entry is None:
        return
    report = ValidationReport.model_validate_json(store.read_bytes(store.run_path(run_id, entry.path)))
    echo(report.to_text(), err=True)


@app.command()
def audit(
    run_id: str = typer.Argument(..., help="run id or run directory"),
    out: Path = typer.Option(Path("runs"), help="directory holding the run"),
    store: str | None = typer.Option(None, help="artifact store URL, default: --out"),
    deep: bool = typer.Option(False, "--deep", help="also recompute every score from the run's stored evidence"),
) -> None:
    """Check a run's anchor, artifacts and lineage; --deep recomputes the scores.

    Checks the manifest anchor (root hash, chain, signature with ASSAY_SIGNING_KEY), re-hashes
    every artifact and checks that the lineage graph is closed.
    """
    from assay.lineage.audit import audit_run
    from assay.lineage.trace import RunIntegrityError

    artifact_store, rid = _resolve_run(run_id, str(out), store)
    try:
        if deep:
            from assay.deep_audit import audit_deep

            result = audit_deep(artifact_store, rid)
        else:
            result = audit_run(artifact_store, rid)
    except (FileNotFoundError, RunIntegrityError) as exc:  # no run there, or a manifest that cannot be read
        _err(str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    for line in result.lines():
        echo(line)
    if not result.ok:
        raise typer.Exit(EXIT_FAILED)


@app.command()
def lineage(
    run_id: str = typer.Argument(..., help="run id or run directory"),
    case: str | None = typer.Option(None, "--case", help="case id to trace"),
    metric: str | None = typer.Option(None, "--metric", help="only this metric"),
    openlineage: bool = typer.Option(False, "--openlineage", help="send the run's OpenLineage events (docs/lineage.md)"),
    out: Path = typer.Option(Path("runs"), help="directory holding the run"),
    store: str | None = typer.Option(None, help="artifact store URL, default: --out"),
) -> None:
    """Trace a case's scores back to its input row, generation, prompts and raw judge responses;
    --openlineage sends the run's OpenLineage events to the configured backend instead."""
    from assay.lineage.trace import RunIntegrityError, trace_case

    artifact_store, rid = _resolve_run(run_id, str(out), store)
    if openlineage:
        _send_openlineage(artifact_store, rid)
        return
    if case is None:
        _err("give --case CASE_ID to trace a case, or --openlineage to send the run's OpenLineage events")
        raise typer.Exit(EXIT_FAILED)
    try:
        lines = trace_case(artifact_store, rid, case, metric)
    except (FileNotFoundError, KeyError, RunIntegrityError) as exc:
        _err(str(exc).strip('"'))
        raise typer.Exit(EXIT_FAILED) from None
    echo("\n".join(lines))


def _send_openlineage(artifact_store: Any, rid: str) -> None:
    from assay.lineage.openlineage_emit import backfill

    try:
        sent = backfill(artifact_store, rid)
    except FileNotFoundError as exc:
        _err(str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    except Exception as exc:  # noqa: BLE001 - a backend or configuration fault: one line, no traceback
        from assay.redact import redact

        _err(f"OpenLineage events of run {rid} not sent: {redact(str(exc)).splitlines()[0] if str(exc) else type(exc).__name__}")
        raise typer.Exit(EXIT_FAILED) from None
    echo(f"sent {sent} OpenLineage events of run {rid}")


@app.command()
def attest(
    run_id: str | None = typer.Argument(None, help="run id or run directory"),
    key: Path | None = typer.Option(None, "--key", help="ed25519 private key (PEM) to sign with"),
    verify: bool = typer.Option(False, "--verify", help="verify the run's attestation instead"),
    pub: Path | None = typer.Option(None, "--pub", help="ed25519 public key (PEM) to verify with"),
    new_key: Path | None = typer.Option(None, "--new-key", help="write a new key pair into this directory"),
    out: Path = typer.Option(Path("runs"), help="directory holding the run"),
    store: str | None = typer.Option(None, help="artifact store URL, default: --out"),
) -> None:
    """Sign an in-toto attestation of a run (--key), verify one (--verify --pub), or make a key pair."""
    from assay.lineage import attestation

    try:
        if new_key is not None:
            private, public = attestation.new_key(new_key)
            echo(f"private key: {private} (keep it secret)\npublic key:  {public}")
            return
        if run_id is None or (key is None and not verify) or (verify and pub is None):
            _err("usage: assay attest RUN --key KEY | assay attest --verify RUN --pub PUBKEY | assay attest --new-key DIR")
            raise typer.Exit(EXIT_FAILED)
        artifact_store, rid = _resolve_run(run_id, str(out), store)
        if verify:
            result = attestation.verify(artifact_store, rid, pub)  # type: ignore[arg-type]
            echo("\n".join(result.lines()))
            if not result.ok:
                raise typer.Exit(EXIT_FAILED)
            return
        echo(f"attestation: {attestation.attest(artifact_store, rid, key)}")  # type: ignore[arg-type]
    except (attestation.AttestationError, FileNotFoundError) as exc:
        _err(str(exc))
        raise typer.Exit(EXIT_FAILED) from None


@app.command()
def compare(
    run_a: str = typer.Argument(..., help="baseline run id or directory"),
    run_b: str = typer.Argument(..., help="candidate run id or directory"),
    out: Path = typer.Option(Path("runs"), help="directory holding the runs"),
    store: str | None = typer.Option(None, help="artifact store URL, default: --out"),
    resamples: int = typer.Option(2000, min=1, help="bootstrap resamples"),
    confidence: float = typer.Option(0.95, help="confidence level of the intervals"),
    fail_on_regression: bool = typer.Option(False, help="exit 3 when a metric got significantly worse"),
    strict: bool = typer.Option(False, "--strict", help="refuse when datasets, juries, prompts or code differ"),
    limit: int = typer.Option(50, help="changed cases to list"),
) -> None:
    """Compare run B with baseline A: per-metric deltas, regressions, changed cases.

    Deltas B − A with paired bootstrap confidence intervals, a regression verdict and the cases
    that got worse or better; refuses runs of different suites.
    """
    import io

    import pandas as pd

    from assay.compare import (
        CompareRefused,
        RunFacts,
        compare_frames,
        format_case_changes,
        format_deltas,
        require_shared_cases,
    )
    from assay.lineage.trace import RunIntegrityError, RunReader

    if not 0 < confidence < 1:  # also NaN
        _err(f"--confidence {confidence}: give a level between 0 and 1, e.g. 0.95")
        raise typer.Exit(EXIT_FAILED)
    try:  # every way two runs cannot be compared ends in one line, exit 1
        readers = []
        for run in (run_a, run_b):
            artifact_store, rid = _resolve_run(run, str(out), store)
            readers.append(RunReader.anchored(artifact_store, rid))
        for reader in readers:
            if names.SCORES_PARQUET not in reader.manifest.artifacts:
                raise CompareRefused(f"run {reader.run_id} has no scores ({reader.manifest.status}); nothing to compare")
        frames = [pd.read_parquet(io.BytesIO(r.bytes(names.SCORES_PARQUET))) for r in readers]
        lower = set(readers[0].json(names.SUMMARY).get("lower_is_better", []))
        facts = [RunFacts.read(r, _recorded_outputs(r.manifest.suite)) for r in readers]
        require_shared_cases(facts[0], facts[1], frames[0], frames[1])
        comparison = compare_frames(facts[0], facts[1], frames[0], frames[1], lower, _inputs_of(readers[1]),
                                    strict=strict, resamples=resamples, confidence=confidence)
    except (FileNotFoundError, RunIntegrityError, CompareRefused) as exc:
        _err(str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    for line in comparison.differences:
        _err(f"note: {line}")
    deltas = comparison.metric_deltas()
    echo(format_deltas(deltas, readers[0].run_id, readers[1].run_id, confidence))
    echo("\n" + format_case_changes(comparison.case_changes, comparison.inputs, limit))
    if fail_on_regression and comparison.regressions:
        raise typer.Exit(EXIT_REGRESSION)


def _recorded_outputs(suite: str) -> tuple[str, ...]:
    from assay.suites.registry import UnknownSuiteError, get_suite

    try:
        return get_suite(suite).recorded_outputs
    except UnknownSuiteError:
        return ("generations",)


def _inputs_of(reader: Any) -> dict[str, str]:
    """case id -> its input on one line, from the run's own dataset snapshot ({} if unreadable)."""
    views = _case_views(reader)
    return {case_id: view.headline() for case_id, view in views.items()}


def _case_views(reader: Any) -> dict[str, CaseView]:
    from assay.pipeline import case_views
    from assay.suites.registry import UnknownSuiteError, get_suite

    try:
        suite = get_suite(reader.manifest.suite)
        return case_views(reader.store, suite, reader.manifest.artifacts[names.DATASET_SNAPSHOT].sha256)
    except (UnknownSuiteError, KeyError, FileNotFoundError, ValueError):
        return {}


# -- browsing runs and CI gates (runs, show, --assert, --junit) ------------------------------
class Gates:
    """What `assay run --assert/--junit` asked for."""

    def __init__(self, thresholds: list[Any], junit: Path | None) -> None:
        self.thresholds = thresholds
        self.junit = junit


def _parse_gates(asserts: list[str], junit: Path | None) -> Gates | None:
    from assay.gates import parse_threshold

    try:
        thresholds = [parse_threshold(text) for text in asserts]
    except ValueError as exc:
        _err(str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    return Gates(thresholds, junit) if thresholds or junit else None


def _apply_gates(gates: Gates, store: Any, run_id: str) -> list[str]:
    """Write the JUnit file (when asked) and return the thresholds the run's means miss."""
    from assay.gates import first_unscored_reasons, junit_from_rows, missed_thresholds, unmeasured_by_metric
    from assay.lineage.trace import RunIntegrityError, RunReader

    reader = RunReader(store, run_id)
    if names.SUMMARY not in reader.manifest.artifacts:
        return [f"{t}: the run has no scores" for t in gates.thresholds]
    try:
        summary = reader.json(names.SUMMARY)
        metrics = list(summary.get("metrics", []))
        failed = _failed_calls(reader)
        unmeasured = failed.unmeasured() if failed else set()
        means = {m: (summary.get("overall", {}).get(m) or {}).get("mean") for m in metrics}
        unscored = {t.metric for t in gates.thresholds if t.metric in means and means[t.metric] is None}
        scores = reader.jsonl(names.SCORES) if gates.junit is not None or unmeasured or unscored else []
    except RunIntegrityError as exc:  # a gate never passes on numbers that are not the run's
        return [f"{t}: {exc}" for t in gates.thresholds]
    if gates.junit is not None:
        groups = {case_id: view.group for case_id, view in _case_views(reader).items()}
        xml = junit_from_rows(reader.manifest.suite, run_id, metrics, groups, scores, gates.thresholds,
                              failed.cases if failed else None)
        gates.junit.parent.mkdir(parents=True, exist_ok=True)
        gates.junit.write_text(xml, encoding="utf-8")
        echo(f"junit:   {gates.junit}", err=True)
    return missed_thresholds(gates.thresholds, means, unmeasured_by_metric(scores, unmeasured),
                             first_unscored_reasons(scores, unscored))


def _failed_calls(reader: Any) -> Any:
    """The run's failed-calls record (``assay.failed_calls``), None for a recorded replay."""
    from assay.failed_calls import FailedCalls

    if names.FAILED_CALLS not in reader.manifest.artifacts:
        return None
    return FailedCalls.model_validate(reader.json(names.FAILED_CALLS))


@app.command()
def runs(
    out: Path = typer.Option(Path("runs"), help="directory holding the runs"),
    store: str | None = typer.Option(None, help="artifact store URL, default: --out"),
    suite: str | None = typer.Option(None, "--suite", help="only runs of this suite"),
    status: str | None = typer.Option(None, "--status", help="only runs that ended so: completed, incomplete, failed, ..."),
) -> None:
    """List runs, newest first: suite, status, date, dataset, jury and headline metrics."""
    from assay.runs import format_runs, list_runs

    echo(format_runs(list_runs(_read_store(out, store), suite=suite, status=status)))


@app.command()
def show(
    run_id: str = typer.Argument(..., help="run id or run directory"),
    out: Path = typer.Option(Path("runs"), help="directory holding the run"),
    store: str | None = typer.Option(None, help="artifact store URL, default: --out"),
) -> None:
    """A run's summary in the terminal: how it ended, every metric's mean, its comparison."""
    from assay.lineage.trace import RunIntegrityError
    from assay.runs import show_run

    artifact_store, rid = _resolve_run(run_id, str(out), store)
    try:
        echo(show_run(artifact_store, rid))
    except (FileNotFoundError, RunIntegrityError) as exc:
        _err(str(exc))
        raise typer.Exit(EXIT_FAILED) from None


# -- assay import (bring your own data: assay/importing.py) -----------------------------------------
@app.command("import")
def import_(
    suite: str = typer.Argument(..., help="suite id, e.g. rag_qa"),
    file: Path = typer.Argument(..., help="a .csv, .jsonl, .json (an array of records) or .parquet table"),
    out: Path = typer.Option(..., "--out", help="dataset directory to write (new or empty)"),
    map_: list[str] | None = typer.Option(None, "--map", help="field=column (repeatable) when names differ"),
) -> None:
    """Turn a table (Ragas/DeepEval column names understood) into SUITE's dataset directory."""
    from assay.importing import import_dataset
    from assay.suites.registry import UnknownSuiteError
    from assay.validation.tables import ImportError_, parse_map

    try:
        result = import_dataset(suite, file, out, parse_map(map_ or []))
    except (ImportError_, UnknownSuiteError) as exc:
        _err(str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    for line in result.lines():
        echo(line)
    if result.problems:
        _err(f"{len(result.problems)} problems in {file}; nothing written:")
        for problem in result.problems:
            _err(f"  {problem.describe()}")
        raise typer.Exit(EXIT_FAILED)
    echo(f"dataset: {out}\nnext:    assay run {suite} --dataset {out}")
# -- end of assay import ---------------------------------------------------------------------------


# -- assay calibrate: a finished run's jury against human labels -----------------------------
@app.command()
def calibrate(
    run_id: str = typer.Argument(..., help="run id or run directory"),
    labels: Path = typer.Option(..., "--labels", help="CSV or JSONL of case_id, metric, score [, rater]"),
    out: Path = typer.Option(Path("runs"), help="directory holding the run"),
    store: str | None = typer.Option(None, help="artifact store URL, default: --out"),
) -> None:
    """Measure the run's jury (LLM or offline) against human labels.

    Spearman and Cohen's kappa with 95% bootstrap intervals, exact and within-one agreement, the
    share of bad answers caught and of good ones flagged, Krippendorff's alpha and a confusion
    table, written into the run (calibration.json, report.md, report.html) with the manifest
    re-anchored.
    """
    from assay.calibration import CalibrationError, calibrate_run, summary_lines
    from assay.lineage.trace import RunIntegrityError

    if not labels.is_file():
        _err(f"labels file {labels} not found")
        raise typer.Exit(EXIT_FAILED)
    artifact_store, rid = _resolve_run(run_id, str(out), store)
    try:
        record = calibrate_run(artifact_store, rid, labels)
    except (CalibrationError, FileNotFoundError, RunIntegrityError) as exc:
        _err(str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    echo("\n".join(summary_lines(record)))


server_app = typer.Typer(no_args_is_help=True, help="assay's local Prefect server, kept up between runs.")
app.add_typer(server_app, name="server")


@server_app.command("status")
def server_status() -> None:
    """Show the local server for this PREFECT_HOME (exit 1 when none runs)."""
    from assay.flows.ephemeral_server import healthy
    from assay.flows.local_server import owned_state, server_dir

    directory = server_dir()
    state = owned_state(directory)
    if state is None:
        echo(f"no local server for {directory.parent}")
        raise typer.Exit(EXIT_FAILED)
    import datetime

    started = datetime.datetime.fromtimestamp(state.started, datetime.UTC).isoformat(timespec="seconds")
    echo(f"url:      {state.api_url}\npid:      {state.pid}\nstarted:  {started}\n"
               f"idle:     stops after {state.idle_seconds:g} s without a run\n"
               f"healthy:  {'yes' if healthy(state.api_url) else 'no (starting?)'}\nlog:      {directory / 'server.log'}")
    from assay.flows.worker_control import describe

    echo(describe())


@server_app.command("stop")
def server_stop() -> None:
    """Stop the local server for this PREFECT_HOME, if one runs."""
    from assay.flows.local_server import server_dir, stop
    from assay.flows.worker_control import stop as stop_worker

    worker = stop_worker()
    state = stop()
    echo(f"stopped the server on port {state.port} (pid {state.pid})" if state
               else f"no local server for {server_dir().parent}")
    if worker:
        echo(f"stopped the resident worker (pid {worker['pid']})")


@server_app.command("start")
def server_start() -> None:
    """Start the local server (or find it) and the resident worker that runs `assay run` warm."""
    from assay.flows.worker_control import start_beside_server

    try:
        echo(start_beside_server())
    except (RuntimeError, ValueError) as exc:
        _err(str(exc))
        raise typer.Exit(EXIT_FAILED) from None


def main() -> None:
    """The ``assay`` console command. A defect of assay itself that no command catches is said in
    one line, never as a traceback (``ASSAY_DEBUG=1`` shows where it happened)."""
    from assay.worker_client import hand_over

    status = hand_over(sys.argv[1:])  # the resident worker runs it warm (assay server start), or None
    if status is not None:
        sys.exit(status)
    try:
        app()
    except Exception as exc:  # noqa: BLE001 - the last line of defence; commands say their own errors
        if os.environ.get("ASSAY_DEBUG") == "1":
            raise
        _err(f"assay: internal error: {type(exc).__name__}: {exc} (set ASSAY_DEBUG=1 to see where; please report it)")
        sys.exit(EXIT_FAILED)


if __name__ == "__main__":  # pragma: no cover
    main()
