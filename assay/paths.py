"""Where bundled example data lives.

In a checkout (or an editable install) that is ``datasets/`` at the project root. A wheel
carries the same files inside the package as ``assay/_datasets`` (copied at build time by
``setup.py``), so ``pip install .`` can run the bundled examples from any directory.
``ASSAY_DATASETS_DIR`` overrides both.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def project_root() -> Path:
    return PACKAGE_DIR.parent


def datasets_dir() -> Path:
    override = os.environ.get("ASSAY_DATASETS_DIR")
    if override:
        return Path(override)
    checkout = project_root() / "datasets"
    return checkout if checkout.is_dir() else PACKAGE_DIR / "_datasets"
