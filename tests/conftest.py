import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import assay  # noqa: E402,F401  (sets the offline switches before anything else loads)

# Tests never use a user's Prefect profile or home.
os.environ.setdefault("PREFECT_HOME", str(ROOT / ".pytest_cache" / "prefect-home"))
Path(os.environ["PREFECT_HOME"]).mkdir(parents=True, exist_ok=True)
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
# Every run's temporary server stops with its process: the suite leaves no server behind. The
# tests of the local server that outlives runs (tests/flows/test_local_server.py) opt in.
os.environ["ASSAY_SERVER_IDLE_SECONDS"] = "0"


@pytest.fixture(scope="session")
def prefect_server():
    """One temporary Prefect server (SQLite) for every flow test in the session."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield


@pytest.fixture(scope="session")
def bundled_rag_qa() -> Path:
    return ROOT / "datasets" / "rag_qa"
