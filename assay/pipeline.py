"""The evaluation steps as plain functions over the artifact store.

Each step reads its inputs by content hash from the store, writes its outputs to the
store's shared pool and returns their hashes plus a small summary. Prefect tasks in
``tasks/`` wrap these one-to-one (retries, caching, logging); the functions themselves
know nothing about Prefect, so they are tested directly.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import Any

from assay.lineage.store import ArtifactStore
from assay.schemas import ScoreRow
from assay.suites.base import LoadedDataset, MetricContext, ProgressFn, Suite


def _quiet(message: str) -> None:
    pass


# -- ingest -------------------------------------------------------------------------------
def ingest(store: ArtifactStore, suite: Suite, dataset_dir: str | Path) -> dict[str, Any]:
    """Snapshot every file of the dataset into the store; the snapshot hash keys all later steps."""
    data = suite.load_dataset(Path(dataset_dir))
    files = {name: store.put(Path(path).read_bytes()) for name, path in sorted(data.files.items())}
    snapshot = {"suite": suite.name, "files": files}
    return {
        "snapshot": store.put_json(snapshot),
        "files": files,
        "n_records": len(data.records),
        "n_parse_problems": len(data.parse_problems),
    }


def load_snapshot(store: ArtifactStore, suite: Suite, snapshot_sha: str) -> LoadedDataset:
    """Rebuild the dataset directory from a snapshot (once per snapshot) and load it.

    Steps read the snapshot rather than the user's directory, so a step's result depends
    only on content it was given by hash.
    """
    snapshot = store.get_json(snapshot_sha)
    root = Path(tempfile.gettempdir()) / "assay-snapshots" / snapshot_sha
    marker = root / ".complete"
    if not marker.exists():
        for name, sha in snapshot["files"].items():
            target = root / _snapshot_relpath(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(store.get(sha))
        marker.touch()
    return suite.load_dataset(root)


def _snapshot_relpath(name: str) -> str:
    """Logical file names map back to the dataset layout ("cases" -> "cases.jsonl")."""
    return name if "/" in name or "." in name else f"{name}.jsonl"


# -- validate -----------------------------------------------------------------------------
def validate(store: ArtifactStore, suite: Suite, snapshot_sha: str) -> dict[str, Any]:
    from assay.validation.gate import run_gate

    data = load_snapshot(store, suite, snapshot_sha)
    report = run_gate(suite, data)
    gx_results = getattr(report, "gx_results", [])
    payload = report.model_dump(mode="json", exclude={"gx_results"})
    return {
        "report": store.put_json(payload),
        "gx_results": store.put_json(gx_results),
        "success": bool(report.success),
        "failed_ids": sorted(report.failed_row_ids),
        "text": report.to_text(),
        "n_problems": len(report.problems),
    }


# -- replay -------------------------------------------------------------------------------
def replay(
    store: ArtifactStore,
    suite: Suite,
    snapshot_sha: str,
    skip_ids: list[str],
    mode: str,
    params: dict[str, Any],
    progress: ProgressFn = _quiet,
) -> dict[str, Any]:
    """Recorded: the dataset's generations. Live: regenerate with the suite's live system."""
    data = load_snapshot(store, suite, snapshot_sha)
    cases = suite.parse_cases(data, set(skip_ids))
    wanted = {c.id for c in cases}
    if mode == "recorded":
        generations = [g for g in data.generations if str(g.get("case_id")) in wanted]
        generations = [{k: v for k, v in g.items() if k != "_line"} for g in generations]
    elif mode == "live":
        generations = suite.live_replay(cases, data, params, progress)
    else:
        raise ValueError(f"unknown replay mode {mode!r}; use 'recorded' or 'live'")
    missing = sorted(wanted - {str(g.get("case_id")) for g in generations})
    return {"generations": store.put_jsonl(generations), "n": len(generations), "missing": missing}


# -- metrics ------------------------------------------------------------------------------
def compute_family(
    store: ArtifactStore,
    suite: Suite,
    family_name: str,
    snapshot_sha: str,
    generations_sha: str,
    skip_ids: list[str],
    params: dict[str, Any],
    jury_config: dict[str, Any] | None,
    call_store_url: str | None,
    progress: ProgressFn = _quiet,
) -> dict[str, Any]:
    family = next(f for f in suite.metric_families() if f.name == family_name)
    data = load_snapshot(store, suite, snapshot_sha)
    cases = suite.parse_cases(data, set(skip_ids))
    generations = suite.parse_generations(store.get_jsonl(generations_sha))
    ctx = MetricContext(params=params, progress=progress, dataset_root=data.root)
    if family.uses_jury:
        ctx.jury = build_runner(jury_config or {}, call_store_url, progress)
    rows = family.compute(cases, generations, ctx)
    out: dict[str, Any] = {"scores": store.put_jsonl(r.model_dump(mode="json") for r in rows), "n_rows": len(rows)}
    if ctx.jury_runs:
        runs = [run.model_dump(mode="json") for run in ctx.jury_runs]
        out["jury_runs"] = store.put_json(runs)
        out["jury_stats"] = _jury_stats(ctx.jury_runs)
        out["request_keys"] = sorted({k for run in ctx.jury_runs for k in run.request_keys})
    return out


def build_runner(jury_config: dict[str, Any], call_store_url: str | None, progress: ProgressFn) -> Any:
    from assay.judges.config import JuryConfig, build_judges
    from assay.judges.runner import JuryRunner
    from assay.judges.store import CallStore

    config = JuryConfig.model_validate(jury_config)
    return JuryRunner(
        build_judges(config),
        CallStore(call_store_url) if call_store_url else None,
        concurrency_per_provider=config.concurrency_per_provider,
        max_retries=config.max_retries,
        max_cost_usd=config.max_cost_usd,
        lang=config.lang,
        progress=progress,
    )


def _jury_stats(runs: list[Any]) -> dict[str, Any]:
    sent = reused = failed = 0
    dropped: dict[str, str] = {}
    cost = 0.0
    for run in runs:
        for stats in run.judge_stats.values():
            sent += stats.sent
            reused += stats.reused
            failed += stats.failed
            cost += stats.cost_usd
        dropped.update(run.dropped_judges)
    budget = any(run.budget_exhausted for run in runs)
    return {"sent": sent, "reused": reused, "failed": failed, "cost_usd": cost, "dropped": dropped, "budget_exhausted": budget}


# -- aggregate ----------------------------------------------------------------------------
def aggregate(
    store: ArtifactStore,
    suite: Suite,
    snapshot_sha: str,
    family_scores: dict[str, str],
    skip_ids: list[str],
    params: dict[str, Any],
) -> dict[str, Any]:
    data = load_snapshot(store, suite, snapshot_sha)
    cases = suite.parse_cases(data, set(skip_ids))
    rows = [ScoreRow.model_validate(r) for name in sorted(family_scores) for r in store.get_jsonl(family_scores[name])]
    result = suite.aggregate(rows, cases, params)
    return {
        "scores": store.put_jsonl(r.model_dump(mode="json") for r in result.rows),
        "summary": store.put_json(result.summary),
        "n_rows": len(result.rows),
    }


def scores_frame_from(store: ArtifactStore, scores_sha: str) -> Any:
    """scores.parquet's table: one row per case × metric (× judge for per-judge rows)."""
    import json

    import pandas as pd

    frame = pd.DataFrame(store.get_jsonl(scores_sha))
    if "details" in frame:
        frame["details"] = frame["details"].map(lambda d: json.dumps(d, ensure_ascii=False, sort_keys=True))
    return frame


def parquet_bytes(frame: Any) -> bytes:
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()
