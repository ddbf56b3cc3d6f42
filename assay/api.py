"""The Python API: ``assay.evaluate(...)`` runs the same Prefect flow as ``assay run`` and returns
a ``Run``; ``assay.load_run(path)`` opens a finished run.

Prefect is imported inside ``evaluate`` only, so ``import assay`` stays light. A ``Run`` reads
its files through the manifest and checks each one's sha256 before trusting it, as
``assay audit`` does: a scores table that was edited after the run raises instead of loading.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay import artifacts as names
from assay.hashing import sha256_bytes
from assay.lineage.trace import DamagedRun, RunIntegrityError  # public here: ``assay.api.RunIntegrityError``
from assay.schemas import JsonObject
from assay.spec import SpecError, TargetSpec

if TYPE_CHECKING:
    from assay.suites.kit.summary import Summary


@dataclass
class Run:
    """A run directory, read through its manifest (every file hash-checked on read)."""

    run_dir: Path
    manifest: Any = field(repr=False)

    @property
    def run_id(self) -> str:
        return str(self.manifest.run_id)

    @property
    def status(self) -> str:
        """completed, incomplete, failed_validation, failed or stopped (as ``assay run`` reports)."""
        return str(self.manifest.status)

    @property
    def message(self) -> str:
        return str(self.manifest.message or "")

    @property
    def spec(self) -> Any:
        from assay.spec import RunSpec

        return RunSpec.model_validate(self.manifest.run_spec)

    @property
    def report_path(self) -> Path | None:
        entry = self.manifest.artifacts.get(names.REPORT_HTML)
        return self.run_dir / entry.path if entry else None

    @property
    def scores(self) -> Any:
        """A pandas DataFrame, one row per case and metric (plus one per judge for judged metrics)."""
        import pandas as pd

        return pd.read_parquet(io.BytesIO(self.read(names.SCORES_PARQUET)))

    @property
    def summary(self) -> Summary:
        """The suite's typed summary (``RagSummary``, ``MemorySummary``…): overall means, groups, jury."""
        from assay.suites.registry import get_suite

        return get_suite(self.manifest.suite).load_summary(json.loads(self.read(names.SUMMARY)))

    def calibrate(self, labels: str | os.PathLike[str]) -> Any:
        """Measure this run's jury against human labels (a CSV or JSON lines file of ``case_id``,
        ``metric``, ``score`` [, ``rater``]), as ``assay calibrate`` does, and write the result into
        the run. Returns the ``assay.calibration.CalibrationRecord`` (per metric: the jury's and each
        judge's Spearman and κ with 95 % intervals, caught, flagged, α, confusion). Raises
        ``assay.calibration.CalibrationError`` naming the bad label row, or a run that fails its audit."""
        from assay.calibration import calibrate_run
        from assay.lineage.manifest import load_manifest
        from assay.lineage.store import ArtifactStore

        store = ArtifactStore(str(self.run_dir.parent))
        record = calibrate_run(store, self.run_dir.name, Path(labels))
        self.manifest = load_manifest(store, self.run_dir.name)  # amended: calibration.json and the re-rendered report
        return record

    def read(self, name: str) -> bytes:
        """An artifact's bytes by manifest name, after checking them against the recorded hash."""
        entry = self.manifest.artifacts.get(name)
        if entry is None:
            raise KeyError(f"run {self.run_id} has no {name} (status {self.status}: {self.message})")
        from assay.lineage.store import plain_relative

        path = self.run_dir / entry.path
        if not plain_relative(entry.path) or not path.resolve().is_relative_to(self.run_dir.resolve()):
            raise RunIntegrityError(f"{path}: leads out of the run directory; run `assay audit {self.run_dir}`")
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise DamagedRun(f"run {self.run_id} is damaged: {name} ({entry.path}) is missing; "
                             f"run `assay audit {self.run_dir}`") from None
        if sha256_bytes(data) != entry.sha256:
            raise RunIntegrityError(f"{path}: its sha256 no longer matches the manifest; run `assay audit {self.run_dir}`")
        return data

    def __repr__(self) -> str:
        return f"Run({self.run_id!r}, status={self.status!r}, run_dir={str(self.run_dir)!r})"


def load_run(path: str | os.PathLike[str]) -> Run:
    """Open a run directory (the one ``evaluate`` or ``assay run`` printed). Its manifest's
    anchor is checked as ``assay audit`` checks it; files are hash-checked when read."""
    from assay.lineage.audit import audit_run
    from assay.lineage.manifest import load_manifest
    from assay.lineage.store import ArtifactStore

    run_dir = Path(path).resolve()
    if not (run_dir / "manifest.json").is_file():
        raise FileNotFoundError(f"{run_dir}: no manifest.json; not a run directory")
    store = ArtifactStore(str(run_dir.parent))
    result = audit_run(store, run_dir.name)
    if not result.ok:
        raise RunIntegrityError(f"run {run_dir.name} fails its audit:\n" + "\n".join(result.lines()))
    return Run(run_dir=run_dir, manifest=load_manifest(store, run_dir.name))


def evaluate(
    suite: str,
    dataset: str | os.PathLike[str] | None = None,
    judges: list[str] | None = None,
    target: str | TargetSpec | JsonObject | Callable[..., Any] | None = None,
    offline: bool | None = None,
    *,
    out: str | os.PathLike[str] = "runs",
    config: str | os.PathLike[str] | None = None,
    concurrency: int | None = None,
    **spec_fields: Any,
) -> Run:
    """Run ``suite`` end to end through the Prefect flow and return the finished ``Run``.

    ``target`` is your system under test for a live replay (``replay="live"`` is implied): a
    URL, ``"module:function"``, a ``TargetSpec`` or its fields as a dict, or a Python function
    (registered for this process and recorded by its qualified name; a lambda or closure cannot
    be called again by ``assay rerun``). Any other ``RunSpec`` field or CLI-equivalent knob can
    be given by name (``k=5``, ``lang="en"``, ``api_base=...``, ``judge_weights=[...]``,
    ``max_cost=2.0``, ``quarantine=True``). A setting ``assay run`` would refuse raises
    ``SpecError`` with the same line, before any server starts. Failed runs are returned, not
    raised: check ``run.status``.
    """
    from assay.preflight import refusals
    from assay.spec import build_run_spec
    from assay.suites.registry import UnknownSuiteError, get_suite

    try:
        suite_obj = get_suite(suite)
    except UnknownSuiteError as exc:
        raise SpecError(str(exc)) from None
    if dataset is not None and not Path(dataset).is_dir():  # before the jury and its models are resolved
        raise SpecError(f"dataset {dataset}: no such directory")
    given: JsonObject = {
        "dataset": str(dataset) if dataset is not None else None, "judges": judges or None, "offline": offline,
        "out": str(out), "concurrency": concurrency, **_cli_names(spec_fields),
    }
    if target is not None:
        given.setdefault("replay", "live")
        if isinstance(target, str):
            given["target"] = target
        elif isinstance(target, TargetSpec | dict):
            given["target_spec"] = target.model_dump(exclude_defaults=True) if isinstance(target, TargetSpec) else target
        elif callable(target):
            from assay.replay.targets import register_function

            given["target"] = register_function(target)
        else:
            raise SpecError(f"target must be a URL, module:function, a TargetSpec, a dict or a function, "
                            f"not {type(target).__name__}")
    try:
        spec, options = build_run_spec(suite, default_dataset=suite_obj.default_dataset,
                                       config_file=Path(config) if config else None, cli=given)
    except FileNotFoundError as exc:  # a --config file that is not there, as `assay run` says it
        raise SpecError(str(exc)) from None
    from assay.suites.kit.criteria import criteria_problems

    found = criteria_problems(suite_obj, spec) or refusals(spec, options, suite_obj)
    if found:
        raise SpecError("; ".join(found))
    return _run_flow(spec, options)


_kept_url: str | None = None  # the local server an earlier evaluate() of this process used


def _kept_server() -> Any:
    """assay's local Prefect server that outlives runs, as ``assay run`` uses it (found or
    started, ``flows/local_server.py``); None when the user points Prefect elsewhere
    (``PREFECT_API_URL``) or ``ASSAY_SERVER_IDLE_SECONDS=0`` asks for a temporary server."""
    global _kept_url
    from assay.flows.local_server import acquire, idle_seconds

    configured = os.environ.get("PREFECT_API_URL")
    if configured and configured != _kept_url:
        return None
    try:
        idle = idle_seconds()
    except ValueError as exc:
        raise SpecError(str(exc)) from None
    if idle <= 0:
        return None
    server = acquire(idle)
    _kept_url = server.api_url
    return server


def _cli_names(fields: JsonObject) -> JsonObject:
    """Keyword arguments as ``build_run_spec`` names them (generator knobs get their prefix)."""
    from assay.run_flags import generator_knobs

    knobs = generator_knobs()
    return {(f"generator_{k}" if k in knobs else k): v for k, v in fields.items()}


def _run_flow(spec: Any, options: Any) -> Run:
    from assay import apply_offline_env

    apply_offline_env()
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
    server = _kept_server()  # before Prefect is imported, so the flow talks to it
    from assay.flows.evaluate import evaluate as evaluate_flow
    from assay.flows.evaluate import new_run_id
    from assay.lineage.manifest import load_manifest
    from assay.lineage.store import ArtifactStore

    run_id = new_run_id(spec.suite)
    try:
        if server is None:
            evaluate_flow(spec=spec, options=options, run_id=run_id, return_state=True)
        else:
            from prefect.settings import PREFECT_API_URL, temporary_settings

            from assay.flows.ephemeral_server import no_heartbeats

            server.wait(float(os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"]))
            # also when Prefect was imported before (a notebook): its settings are read at import.
            # No heartbeats, as `assay run` on this server: their thread is joined at the end of
            # the flow run, waiting out its one-second sleep (half a second a call on average)
            with temporary_settings(updates={PREFECT_API_URL: server.api_url}), no_heartbeats():
                evaluate_flow(spec=spec, options=options, run_id=run_id, return_state=True)
    finally:
        if server is not None:
            server.release()  # its idle period starts now (the server stays for the next run)
    store = ArtifactStore(options.store_url())
    manifest = load_manifest(store, run_id)  # raises FileNotFoundError if the flow never started
    return Run(run_dir=Path(store.run_path(run_id)), manifest=manifest)
