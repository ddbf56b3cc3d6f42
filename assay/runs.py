"""``assay runs`` and ``assay show``: the runs under a store, and one run's summary, as text.

Everything is read from each run's manifest and its stored ``summary.json``; nothing is
recomputed. A damaged run (a manifest that cannot be read, a file it lists that is gone) is
listed with status ``damaged`` and what is wrong, never skipped, and never stops the listing.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, ValidationError

from assay import artifacts as names
from assay.compare import Comparison, RunFacts
from assay.lineage.manifest import Manifest
from assay.lineage.store import ArtifactStore
from assay.lineage.trace import DamagedRun, RunIntegrityError, RunReader
from assay.liveness import process_state
from assay.rendering.tables import fmt

HEADLINE_METRICS = 3  # metrics a listing shows per run; `assay show` shows them all


class RunRow(BaseModel):
    run_id: str
    suite: str = "?"
    status: str = "damaged"
    created_at: str = ""
    dataset: str = Field(default="", description="dataset directory name and snapshot sha, shortened")
    jury: str = ""
    means: dict[str, float | None] = Field(default_factory=dict, description="metric -> mean over cases")
    problem: str = ""


def _means(run: RunReader) -> dict[str, float | None]:
    if names.SUMMARY not in run.manifest.artifacts:
        return {}
    summary = run.json(names.SUMMARY)
    overall = summary.get("overall", {})
    return {m: (overall.get(m) or {}).get("mean") for m in summary.get("metrics", [])}


def shown_status(run_id: str, manifest: Manifest) -> tuple[str, str]:
    """The status a reader shows, and why: a run whose manifest still says ``running`` is
    ``interrupted`` once its recorded process is gone (``assay.liveness``), ``running-elsewhere``
    when it ran on another host, ``unknown`` when no process was recorded (an older assay)."""
    if manifest.status != "running":
        return manifest.status, ""
    process, state = manifest.process, process_state(manifest.process)
    if process is None or state == "unknown":
        return "unknown", "running, or interrupted: this run recorded no process to check"
    if state == "gone":
        return "interrupted", f"interrupted: its process {process.pid} is gone; resume: assay rerun {run_id}"
    if state == "elsewhere":
        return "running-elsewhere", f"running on host {process.host} (pid {process.pid}), or interrupted there"
    return "running", ""


def run_row(store: ArtifactStore, run_id: str) -> RunRow:
    try:
        run = RunReader(store, run_id)
    except DamagedRun as exc:
        return RunRow(run_id=run_id, problem=str(exc)[:160])
    except (FileNotFoundError, ValueError, ValidationError) as exc:
        return RunRow(run_id=run_id, problem=f"{type(exc).__name__}: {str(exc)[:120]}")
    manifest: Manifest = run.manifest
    facts = RunFacts.of(manifest)
    dataset = str((manifest.run_spec or {}).get("dataset") or "").rstrip("/").rsplit("/", 1)[-1]
    status, problem = shown_status(run_id, manifest)
    try:
        means = _means(run)
    except DamagedRun as exc:  # listed as damaged, naming the missing file; the listing goes on
        means, problem, status = {}, f"{exc} (it ended {manifest.status})", "damaged"
    except RunIntegrityError as exc:  # listed, with no numbers from an edited summary
        means, problem = {}, f"edited: {exc}"
    return RunRow(
        run_id=run_id, suite=manifest.suite, status=status, created_at=manifest.created_at,
        dataset=f"{dataset} {facts.dataset[:8]}".strip(), jury=facts.jury or "none", means=means, problem=problem,
    )


def list_runs(store: ArtifactStore, suite: str | None = None, status: str | None = None) -> list[RunRow]:
    """Runs under the store, newest first, filtered by suite and status."""
    rows = [run_row(store, run_id) for run_id in store.list_runs()]
    rows = [r for r in rows if (suite is None or r.suite == suite) and (status is None or r.status == status)]
    return sorted(rows, key=lambda r: (r.created_at, r.run_id), reverse=True)


def format_runs(rows: list[RunRow]) -> str:
    if not rows:
        return "no runs"
    lines = [f"{'run':38s} {'suite':8s} {'status':17s} {'created':20s} {'dataset':22s} {'jury':28s} headline metrics"]
    for r in rows:
        head = ", ".join(f"{m} {fmt(v)}" for m, v in list(r.means.items())[:HEADLINE_METRICS]) or r.problem
        jury = r.jury if len(r.jury) <= 28 else r.jury[:27] + "…"
        lines.append(f"{r.run_id:38s} {r.suite:8s} {r.status:17s} {r.created_at[:19]:20s} {r.dataset[:22]:22s} {jury:28s} {head}")
    return "\n".join(lines)


def show_run(store: ArtifactStore, run_id: str) -> str:
    """One run in the terminal: what ran, how it ended, every metric's mean, the comparison."""
    run = RunReader(store, run_id)
    m = run.manifest
    facts = RunFacts.of(m)
    status, why = shown_status(run_id, m)
    lines = [
        f"run:       {run_id}",
        f"suite:     {m.suite}",
        f"status:    {status}" + (f" ({m.message or why})" if m.message or why else ""),
        f"created:   {m.created_at}   finished: {m.finished_at or '—'}",
        f"dataset:   {(m.run_spec or {}).get('dataset', '')} (snapshot {facts.dataset[:16]})",
        f"jury:      {facts.jury or 'none'}",
        f"code:      {facts.code[:16]} (git {str(facts.git_commit or '?')[:12]})",
        f"directory: {store.run_path(run_id)}",
        "",
    ]
    if names.SUMMARY in m.artifacts:
        summary = run.json(names.SUMMARY)
        overall = summary.get("overall", {})
        lines.append(f"{'metric':24s} {'scale':7s} {'mean':>8s} {'scored':>7s} {'unscored':>9s}  reading")
        for metric in summary.get("metrics", []):
            stats = overall.get(metric) or {}
            lines.append(
                f"{metric:24s} {summary.get('scales', {}).get(metric, ''):7s} {fmt(stats.get('mean')):>8s} "
                f"{stats.get('n_scored', 0):7d} {stats.get('n_unscored', 0):9d}  {stats.get('label') or ''}"
            )
    else:
        lines.append("no summary: the run ended before aggregation")
    if names.COMPARISON in m.artifacts:
        stored = run.json(names.COMPARISON)
        if "case_changes" in stored:
            lines += ["", Comparison.model_validate(stored).text()]
    if names.REPORT_HTML in m.artifacts:
        lines += ["", f"report: {store.run_path(run_id, m.artifacts[names.REPORT_HTML].path)}"]
    return "\n".join(lines)


