"""Run parameters, dataset fingerprints and the jury configuration as recorded in manifests."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from pydantic import BaseModel


class RunParameters(BaseModel):
    suite: str
    dataset: str
    replay: str = "recorded"
    generator: str | None = None
    api_base: str | None = None
    k: int = 10
    quarantine: bool = False
    lang: str = "ko"
    embedding_model: str | None = None


def fingerprint_dataset(root: str | Path) -> str:
    """sha256 over every file's relative path and bytes: the ingest step's cache key."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"dataset directory not found: {root}")
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def resolve_jury_dict(
    judges: list[str] | None,
    weights: list[float] | None,
    api_base: str | None,
    offline: bool,
    config_file: str | None,
    max_cost: float | None,
    concurrency: int | None,
    lang: str,
) -> dict[str, Any]:
    """The jury as a plain dict without secrets (only env var names), safe for manifests and cache keys."""
    from assay.judges.config import resolve_jury

    config = resolve_jury(judges, weights, api_base, offline, Path(config_file) if config_file else None)
    updates: dict[str, Any] = {"lang": lang}
    if max_cost is not None:
        updates["max_cost_usd"] = max_cost
    if concurrency:
        updates["concurrency_per_provider"] = concurrency
    public = config.model_copy(update=updates).public_dict()
    public["panel"] = jury_panel(public)
    return public


def jury_panel(public: dict[str, Any]) -> list[dict[str, Any]]:
    """The judges by name, model and weight, for reports and ensemble weights (offline ones too)."""
    if public.get("offline"):
        from assay.judges.offline import offline_jury

        return [{"name": j.name, "model": j.model, "weight": j.weight} for j in offline_jury(public.get("offline_weights"))]
    return [{"name": j["name"], "model": j["model"], "weight": j.get("weight", 1.0)} for j in public.get("judges", [])]
