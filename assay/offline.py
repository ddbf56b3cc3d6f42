"""Offline switches, applied by the project itself before any heavy library is imported.

litellm fetches a model cost map at import time, Hugging Face libraries try the hub, and
Prefect sends telemetry. assay promises that nothing reaches the internet at import or
run time, so these switches are set here (``setdefault``: a user may still opt in).
"""

from __future__ import annotations

import os

OFFLINE_ENV: dict[str, str] = {
    # litellm: read the bundled cost map instead of downloading it at import.
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_OFFLINE_MODE": "true",
    "LITELLM_TELEMETRY": "False",
    # Hugging Face: models load from installed packages or local paths only.
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "TOKENIZERS_PARALLELISM": "false",
    # Prefect: no analytics from the ephemeral server, no update checks.
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "DO_NOT_TRACK": "1",
}


def apply_offline_env() -> None:
    """Set every offline switch that the user has not set explicitly."""
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)
