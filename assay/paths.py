"""Where bundled data lives. ``datasets/`` sits at the project root (data only)."""

from __future__ import annotations

import os
from pathlib import Path


def project_root() -> Path:
    return Path(__file__).resolve().parents[1]


def datasets_dir() -> Path:
    override = os.environ.get("ASSAY_DATASETS_DIR")
    return Path(override) if override else project_root() / "datasets"
