"""Running a step and recording it: cache hit or fresh run, task run ids, artifacts, failures.

This is the flow's bookkeeping, kept out of the flow body so the pipeline reads top-down.
Every step returns a typed ``StepOutput``; its artifacts are adopted into the run's lineage
in one loop (``adopt``), so no artifact is recorded by hand.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from prefect.states import Failed
from prefect.utilities.annotations import NotSet

from assay import timeline
from assay.artifacts import Artifact, FamilyOutput, ReplayOutput, StepOutput
from assay.cancellation import raise_if_stopped
from assay.console import console_safe
from assay.lineage.manifest import RunRecorder, RunStatus, StepRecord, StepStatus
from assay.lineage.openlineage_emit import LiveLineage
from assay.lineage.store import ArtifactNotFound, CorruptArtifact, StoreWriteError
from assay.schemas import JsonObject

if TYPE_CHECKING:
    from prefect import Task
    from prefect.futures import PrefectFuture
    from prefect.states import State

OutputT = TypeVar("OutputT", bound=StepOutput)


@dataclass(frozen=True)
class Submitted(Generic[OutputT]):
    """A step handed to the task runner (``StepRunner.submit``), for ``StepRunner.wait``."""

    future: PrefectFuture[JsonObject]
    output_type: type[OutputT]
    task: Task[..., JsonObject]
    args: tuple[object, ...]
    started: float


class StepRunner:
    def __init__(self, recorder: RunRecorder, result_storage: Any, logger: Any) -> None:
        self.recorder = recorder
        self.store = recorder.store
        self.storage = result_storage
        self.logger = logger
        self.records: dict[str, StepRecord] = {}
        self.prompts: dict[str, str] = {}
        timeline.mark("flow set up (manifest, result storage)")
        self._batching = False
        # OpenLineage events as the run goes (a no-op unless configured; see docs/lineage.md)
        self.lineage = LiveLineage(self.store, recorder.manifest, self._say)

    @contextmanager
    def batched(self) -> Iterator[None]:
        """Steps recorded inside are saved to the manifest once, at the end (partition steps:
        hundreds of them must not rewrite the manifest hundreds of times)."""
        self._batching = True
        try:
            yield
        finally:
            self._batching = False
            self.recorder.save()

    # -- running ---------------------------------------------------------------------------
    def _configured(self, name: str, task: Task[..., JsonObject], refresh: bool = False) -> Any:
        # Any: through Task[..., R], Prefect's call overloads cannot tell return_state=True (a State) from R.
        # NotSet keeps the task's own setting (none: Prefect's default), as None did.
        return task.with_options(
            name=name.replace(":", "-"), result_storage=self.storage, refresh_cache=True if refresh else NotSet
        )

    def run(self, name: str, output_type: type[OutputT], task: Task[..., JsonObject], *args: object) -> OutputT | None:
        """Run a task, adopt its artifacts; None (recorded as failed) if it failed."""
        raise_if_stopped()
        started = time.time()
        self.lineage.step_started(name)
        with timeline.timed("steps: prefect task run (cache lookup, result read)"):
            state = self._configured(name, task)(*args, return_state=True)
        return self._settle(name, output_type, task, args, state, started)

    def submit(
        self, name: str, output_type: type[OutputT], task: Task[..., JsonObject], *args: object
    ) -> Submitted[OutputT]:
        raise_if_stopped()
        self.lineage.step_started(name)
        future = self._configured(name, task).submit(*args)
        return Submitted(future, output_type, task, args, time.time())

    def wait(self, name: str, submitted: Submitted[OutputT]) -> OutputT | None:
        submitted.future.wait()
        return self._settle(name, submitted.output_type, submitted.task, submitted.args, submitted.future.state,
                            submitted.started)

    def _settle(self, name: str, output_type: type[OutputT], task: Task[..., JsonObject], args: tuple[object, ...],
                state: State[JsonObject], started: float,
                note: str = "") -> OutputT | None:
        if state.is_failed() or state.is_crashed():
            error = state.result(raise_on_failure=False)
            detail = describe_error(error) if isinstance(error, BaseException) else str(state.message)
            self._step(name, "failed", state, started, detail=detail)
            self.logger.error(f"step {name} failed: {detail}")
            self.lineage.step_ended(self.records[name])
            raise_if_stopped()  # a step failed because the run is stopping: end as "stopped"
            return None
        output = output_type.model_validate(state.result())
        reused = state.name == "Cached"
        with timeline.timed("steps: cache-hit artifact check"):
            verified, corrupt = self._verify_pool(output) if reused else ({}, [])
            not_reusable = reused and (corrupt or self._not_reusable(output))
        if not_reusable:
            # The cache points at content this store lacks (or held corrupt: now set aside), or
            # at a jury step with failed calls: run it again. Judge calls that succeeded are reused.
            for line in corrupt:
                self.logger.warning(f"step {name}: {line}; running the step again")
                progress(f"! {name}: {line}; running the step again")
            self.logger.info(f"step {name}: cached result not reusable, running again")
            state = self._configured(name, task, refresh=True)(*args, return_state=True)
            note = "; ".join(f"recomputed: {line}" for line in corrupt)
            return self._settle(name, output_type, task, args, state, started, note)
        self._record_step(name, output, state, started, reused, note)
        with timeline.timed("steps: adopt artifacts"):
            self.adopt(name, output.artifacts, verified)
        if isinstance(output, FamilyOutput):
            self.prompts.update(output.prompts)
        self.lineage.step_ended(self.records[name])
        return output

    def _verify_pool(self, output: StepOutput) -> tuple[dict[str, int], list[str]]:
        """Check each artifact's bytes against its hash; a corrupt one is moved out of the pool.

        Returns the size of each object that checked out (adopting it then needs no second
        read) and a line for each corrupt one."""
        verified: dict[str, int] = {}
        corrupt = []
        for artifact in output.artifacts:
            try:
                verified[artifact.sha] = len(self.store.get(artifact.sha))
            except CorruptArtifact as exc:
                corrupt.append(str(exc))
            except ArtifactNotFound:
                pass
        return verified, corrupt

    def _not_reusable(self, output: StepOutput) -> bool:
        missing = any(not self.store.has(a.sha) for a in output.artifacts)
        failed_calls = isinstance(output, FamilyOutput) and output.jury_stats is not None and output.jury_stats.failed > 0
        failed_live = isinstance(output, ReplayOutput) and output.failed > 0
        return missing or failed_calls or failed_live

    def _record_step(self, name: str, output: StepOutput, state: Any, started: float, reused: bool, note: str = "") -> None:
        stats = output.jury_stats if isinstance(output, FamilyOutput) else None
        keys = output.request_keys if isinstance(output, FamilyOutput) else []
        if reused:
            detail = f"{len(keys)} judge calls reused with the step" if keys else ""
            sent, reused_calls = 0, len(keys)
        else:
            detail = stats.describe(self._panel()) if stats else ""
            sent, reused_calls = (stats.sent, stats.reused) if stats else (0, 0)
        detail = "; ".join(part for part in (note, detail) if part)
        self._step(name, "reused" if reused else "ran", state, started, detail=detail, sent=sent, reused_calls=reused_calls)

    def _panel(self) -> int:
        """How many judges the run's jury has (0 when the spec names none)."""
        jury = (self.recorder.manifest.run_spec or {}).get("jury") or {}
        return len(jury.get("panel") or [])

    def _step(self, name: str, status: StepStatus, state: Any, started: float, detail: str = "", sent: int = 0, reused_calls: int = 0) -> None:
        record = StepRecord(
            name=name,
            status=status,
            task_run_id=str(state.state_details.task_run_id) if state.state_details.task_run_id else None,
            started_at=datetime.fromtimestamp(started, UTC).isoformat(timespec="milliseconds"),
            duration_s=round(time.time() - started, 3),
            detail=detail,
            judge_calls_sent=sent,
            judge_calls_reused=reused_calls,
        )
        self.records[name] = record
        timeline.mark(f"step {name} {status}")
        self.recorder.step(record)
        if status != "reused" and not self._batching:
            # Saved after each step that did work, so a crash leaves a record of it; a reused
            # step is reused again after a crash, and the run's end saves the whole record.
            # Partition steps (batched) save once when the batch ends.
            self.recorder.save()
        mark = {"ran": "✓", "reused": "↺", "failed": "✗"}.get(status, "·")
        progress(f"{mark} {name}: {status} in {record.duration_s:.2f}s {detail}".rstrip())

    # -- recording artifacts ---------------------------------------------------------------
    def adopt(self, producer: str, produced: list[Artifact], verified: dict[str, int] | None = None) -> None:
        """Link (or copy) each artifact from the pool into the run directory and record its
        lineage. ``verified``: sizes of pool objects this step's cache-hit check just re-hashed."""
        step = self.records[producer]
        verified = verified or {}
        for artifact in produced:
            self.recorder.record(
                artifact.name, artifact.sha, producer, inputs=artifact.inputs, media_type=artifact.media_type,
                task_run_id=step.task_run_id, reused=step.status == "reused", path=artifact.path,
                verified_size=verified.get(artifact.sha),
            )
            step.outputs.append(artifact.name)

    # -- ending ----------------------------------------------------------------------------
    def _say(self, line: str) -> None:
        """A warning about the run's publishing (lineage, attestation), said once: on the console
        of `assay run`, in the flow run's log elsewhere (a deployment)."""
        if os.environ.get("ASSAY_PROGRESS") == "1":
            progress(f"! {line}")
        else:
            self.logger.warning(line)

    def outcome(self, status: str) -> JsonObject:
        return {
            "run_id": self.recorder.run_id,
            "run_dir": self.store.run_path(self.recorder.run_id),
            "status": status,
            "steps": [s.model_dump() for s in self.recorder.manifest.steps],
        }

    def finish(self, status: RunStatus, message: str) -> None:
        manifest = self.recorder.manifest
        manifest.prompts = dict(sorted(self.prompts.items()))
        # Corrupt pool objects this run moved aside (here or inside a step) are named in its record.
        manifest.set_aside = self.store.set_aside_since(manifest.created_at)
        saved = False
        try:
            self.recorder.finish(status, message)
            saved = True
        finally:  # the lineage backend hears of the run's end even when the store failed to record it
            self.lineage.run_ended(self.recorder.root_hash if saved else None)
        timeline.mark("manifest finished")
        # A deployment attests each run it finishes when ASSAY_ATTEST_KEY names a key (docs/lineage.md).
        from assay.lineage.attestation import attest_if_configured

        attest_if_configured(self.store, self.recorder.run_id, self._say)

    def failure_of(self, name: str) -> str:
        """The recorded reason a step failed ("" if it did not)."""
        record = self.records.get(name)
        return record.detail if record is not None and record.status == "failed" else ""

    def fail(self, message: str, status: RunStatus = "failed") -> State[JsonObject]:
        try:
            self.finish(status, message)
        except OSError as exc:  # the store itself is failing (disk full, read-only): say so, once
            self.logger.error(f"the run's manifest could not be updated: {describe_error(exc)}")
            if message != describe_error(exc):
                message = f"{message}; the manifest could not be updated: {describe_error(exc)}"
        return Failed(message=message, data=self.outcome(status))

    def comparison_artifact(self, text: str) -> None:
        from prefect.artifacts import create_markdown_artifact

        key = re.sub(r"[^a-z0-9-]", "-", f"assay-{self.recorder.manifest.suite}-comparison".lower())
        create_markdown_artifact(markdown=f"```\n{text}\n```", key=key, description="comparison with the baseline run")

    def prefect_artifacts(self, run_id: str, summary: JsonObject, report_md: str) -> None:
        """A markdown report and a table of metric means in the Prefect UI."""
        timeline.mark("steps done")
        from prefect.artifacts import create_markdown_artifact, create_table_artifact

        key = re.sub(r"[^a-z0-9-]", "-", f"assay-{self.recorder.manifest.suite}".lower())
        create_markdown_artifact(markdown=report_md, key=f"{key}-report", description=f"assay run {run_id}")
        rows = [
            {"metric": m, "mean": info.get("mean"), "scored": info.get("n_scored"), "unscored": info.get("n_unscored")}
            for m, info in summary.get("overall", {}).items()
        ]
        if rows:
            create_table_artifact(table=rows, key=f"{key}-scores", description=f"metric means, run {run_id}")


def describe_error(error: BaseException) -> str:
    """One line for a failure: a store fault is its own sentence naming the path, anything else
    keeps its type (an OSError names its path too)."""
    if isinstance(error, StoreWriteError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def progress(line: str) -> None:
    """A line for the console of `assay run` (Prefect's own log lines show only with -v)."""
    if os.environ.get("ASSAY_PROGRESS") == "1":
        # sys.stderr directly: the flow's log_prints would turn print() into a log record
        sys.stderr.write(console_safe(line) + "\n")
        sys.stderr.flush()
