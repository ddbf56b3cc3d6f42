"""Running a step and recording it: cache hit or fresh run, task run ids, artifacts, failures.

This is the flow's bookkeeping, kept out of the flow body so the pipeline reads top-down.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prefect.states import Failed

from assay.cancellation import raise_if_stopped
from assay.lineage.manifest import RunRecorder, StepRecord

_SHA = re.compile(r"^[0-9a-f]{64}$")


# Hashes in a step result that live in the judge call store, not in the artifact pool.
_NOT_POOL_KEYS = {"request_keys"}


def _shas(value: Any) -> list[str]:
    """Every artifact hash mentioned in a step result (to check the store still has them)."""
    if isinstance(value, str):
        return [value] if _SHA.match(value) else []
    if isinstance(value, dict):
        return [s for k, v in value.items() if k not in _NOT_POOL_KEYS for s in _shas(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _shas(v)]
    return []


class StepRunner:
    def __init__(self, recorder: RunRecorder, result_storage: Path, logger: Any) -> None:
        self.recorder = recorder
        self.store = recorder.store
        self.storage = result_storage
        self.logger = logger
        self.records: dict[str, StepRecord] = {}
        self.prompts: dict[str, str] = {}

    # -- running ---------------------------------------------------------------------------
    def _configured(self, name: str, task: Any, refresh: bool = False) -> Any:
        return task.with_options(
            name=name.replace(":", "-"), result_storage=self.storage, refresh_cache=refresh or None
        )

    def run(self, name: str, task: Any, *args: Any, refresh_if: Callable[[dict], bool] | None = None) -> Any:
        raise_if_stopped()
        started = time.time()
        state = self._configured(name, task)(*args, return_state=True)
        return self._settle(name, task, args, state, started, refresh_if)

    def submit(self, name: str, task: Any, *args: Any, refresh_if: Callable[[dict], bool] | None = None) -> Any:
        raise_if_stopped()
        future = self._configured(name, task).submit(*args)
        return (future, task, args, time.time(), refresh_if)

    def wait(self, name: str, submitted: Any) -> Any:
        future, task, args, started, refresh_if = submitted
        future.wait()
        return self._settle(name, task, args, future.state, started, refresh_if)

    def _settle(self, name: str, task: Any, args: tuple, state: Any, started: float, refresh_if: Any) -> Any:
        if state.is_failed() or state.is_crashed():
            error = state.result(raise_on_failure=False)
            detail = f"{type(error).__name__}: {error}" if isinstance(error, BaseException) else str(state.message)
            self._step(name, "failed", state, started, detail=detail)
            self.logger.error(f"step {name} failed: {detail}")
            raise_if_stopped()  # a step failed because the run is stopping: end as "stopped"
            return None
        result = state.result()
        reused = state.name == "Cached"
        if reused and (self._missing(result) or (refresh_if and refresh_if(result))):
            # The cache points at content this store lacks, or at a jury step with failed
            # calls: run it again. Judge calls that succeeded before are still reused.
            self.logger.info(f"step {name}: cached result not reusable, running again")
            state = self._configured(name, task, refresh=True)(*args, return_state=True)
            return self._settle(name, task, args, state, started, None)
        stats = result.get("jury_stats") or {} if isinstance(result, dict) else {}
        keys = result.get("request_keys", []) if isinstance(result, dict) else []
        self._step(
            name,
            "reused" if reused else "ran",
            state,
            started,
            sent=0 if reused else int(stats.get("sent", 0)),
            reused_calls=len(keys) if reused else int(stats.get("reused", 0)),
            detail=f"{len(keys)} judge calls reused with the step" if reused and keys else _jury_detail(stats),
        )
        return result

    def _missing(self, result: Any) -> bool:
        return any(not self.store.has(sha) for sha in _shas(result))

    def _step(self, name: str, status: str, state: Any, started: float, detail: str = "", sent: int = 0, reused_calls: int = 0) -> None:
        record = StepRecord(
            name=name,
            status=status,  # type: ignore[arg-type]
            task_run_id=str(state.state_details.task_run_id) if state.state_details.task_run_id else None,
            duration_s=round(time.time() - started, 3),
            detail=detail,
            judge_calls_sent=sent,
            judge_calls_reused=reused_calls,
        )
        self.records[name] = record
        self.recorder.step(record)
        self.recorder.save()
        if os.environ.get("ASSAY_PROGRESS") == "1":
            mark = {"ran": "✓", "reused": "↺", "failed": "✗"}.get(status, "·")
            # sys.stderr directly: the flow's log_prints would turn print() into a log record
            sys.stderr.write(f"{mark} {name}: {status} in {record.duration_s:.2f}s {detail}".rstrip() + "\n")
            sys.stderr.flush()

    # -- recording artifacts ---------------------------------------------------------------
    def record(self, name: str, sha: str, producer: str, inputs: list[str] | None = None, media_type: str = "application/json", path: str | None = None) -> None:
        step = self.records[producer]
        self.recorder.record(
            name, sha, producer, inputs=inputs, media_type=media_type, task_run_id=step.task_run_id,
            reused=step.status == "reused", path=path,
        )
        step.outputs.append(name)

    def record_judge_calls(self, call_store_url: str, keys: list[str], producer: str) -> list[str]:
        """Adopt each judge request + raw response used by this run from the shared call store."""
        from assay.judges.store import CallStore

        calls = CallStore(call_store_url)
        names = []
        for key in keys:
            record = calls.get(key)
            if record is None:
                continue  # failed calls are not stored; their raw text is in jury_runs.json
            name = f"judge_calls/{key}.json"
            self.record(name, self.store.put_json(record), producer)
            names.append(name)
        return names

    def record_prompts(self, jury_runs_sha: str) -> None:
        for run in self.store.get_json(jury_runs_sha):
            self.prompts[run["prompt_id"]] = run["prompt_sha256"]

    # -- ending ----------------------------------------------------------------------------
    def outcome(self, status: str) -> dict[str, Any]:
        return {
            "run_id": self.recorder.run_id,
            "run_dir": self.store.run_path(self.recorder.run_id),
            "status": status,
            "steps": [s.model_dump() for s in self.recorder.manifest.steps],
        }

    def fail(self, message: str, status: str = "failed") -> Any:
        self.recorder.finish(status, message)
        return Failed(message=message, data=self.outcome(status))

    def comparison_artifact(self, text: str) -> None:
        from prefect.artifacts import create_markdown_artifact

        key = re.sub(r"[^a-z0-9-]", "-", f"assay-{self.recorder.manifest.suite}-comparison".lower())
        create_markdown_artifact(markdown=f"```\n{text}\n```", key=key, description="comparison with the baseline run")

    def prefect_artifacts(self, run_id: str, summary: dict[str, Any], report_md: str) -> None:
        """A markdown report and a table of metric means in the Prefect UI."""
        from prefect.artifacts import create_markdown_artifact, create_table_artifact

        key = re.sub(r"[^a-z0-9-]", "-", f"assay-{self.recorder.manifest.suite}".lower())
        create_markdown_artifact(markdown=report_md, key=f"{key}-report", description=f"assay run {run_id}")
        rows = [
            {"metric": m, "mean": info.get("mean"), "scored": info.get("n_scored"), "unscored": info.get("n_unscored")}
            for m, info in summary.get("overall", {}).items()
        ]
        if rows:
            create_table_artifact(table=rows, key=f"{key}-scores", description=f"metric means, run {run_id}")


def _jury_detail(stats: dict[str, Any]) -> str:
    if not stats:
        return ""
    parts = [f"judge calls sent {stats.get('sent', 0)}, reused {stats.get('reused', 0)}, failed {stats.get('failed', 0)}"]
    if stats.get("dropped"):
        parts.append("dropped: " + ", ".join(f"{j} ({why})" for j, why in stats["dropped"].items()))
    if stats.get("budget_exhausted"):
        parts.append("budget exhausted")
    return "; ".join(parts)
