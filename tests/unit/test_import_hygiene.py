"""`import assay` and the metric modules must stay light: no Prefect, litellm, torch or GX."""

import subprocess
import sys

HEAVY = ("prefect", "litellm", "torch", "great_expectations", "sentence_transformers")


def test_core_imports_pull_in_no_heavy_modules():
    code = (
        "import sys, assay, assay.metrics.retrieval, assay.lineage.audit, assay.suites.registry, assay.schemas;"
        f"print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_import_sets_offline_switches():
    code = "import os, assay; print(os.environ['HF_HUB_OFFLINE'], os.environ['LITELLM_LOCAL_MODEL_COST_MAP'])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin"})
    assert out.stdout.split() == ["1", "True"]
