import os
import shutil
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import assay  # noqa: E402,F401  (sets the offline switches before anything else loads)

# Tests never use a user's Prefect profile or home.
os.environ.setdefault("PREFECT_HOME", str(ROOT / ".pytest_cache" / "prefect-home"))
# Under pytest-xdist (`make test` runs `-n 2`) each worker gets a home of its own: the kept local
# server's state file and lock, the resident worker's socket and Prefect's profile all live under
# PREFECT_HOME, and two workers sharing them would find, lease and stop each other's servers.
# Workers inherit the controller's PREFECT_HOME, so the worker's name is appended exactly once.
_xdist_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _xdist_worker and not os.environ["PREFECT_HOME"].endswith(f"-{_xdist_worker}"):
    os.environ["PREFECT_HOME"] = f"{os.environ['PREFECT_HOME']}-{_xdist_worker}"
Path(os.environ["PREFECT_HOME"]).mkdir(parents=True, exist_ok=True)
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
# Hypothesis' per-example deadline (200 ms) measures the machine, not the code: under parallel
# test processes on 2 cores an example's first call can take longer. Every property still runs.
settings.register_profile("assay", deadline=None)
settings.load_profile("assay")
# Every run's temporary server stops with its process: the suite leaves no server behind. The
# tests of the local server that outlives runs (tests/flows/test_local_server.py) opt in.
os.environ["ASSAY_SERVER_IDLE_SECONDS"] = "0"


@pytest.fixture(scope="session")
def prefect_server():
    """One temporary Prefect server (SQLite) for every flow test in the session, started with the
    settings assay's own temporary server uses (``SERVER_ENV``: no block catalogue registered at
    start, about 5 CPU s of each start; a run's result storage registers its own block type)."""
    from prefect.testing.utilities import prefect_test_harness

    from assay.flows.ephemeral_server import SERVER_ENV

    with ExitStack() as stack:
        with pytest.MonkeyPatch.context() as env:
            for name, value in SERVER_ENV.items():
                env.setenv(name, os.environ.get(name, value))  # read by the server process as it starts
            stack.enter_context(prefect_test_harness(server_startup_timeout=120))
        yield


@pytest.fixture(scope="session")
def bundled_rag_qa() -> Path:
    return ROOT / "datasets" / "rag_qa"


@pytest.fixture
def short_tmp_path():
    """A temporary folder with a short path, for unix sockets: their path must fit in 107 bytes, and
    tmp_path (/tmp/pytest-of-USER/pytest-N/popen-gwK/<test name>/..., under pytest-xdist) leaves
    too few for PREFECT_HOME/assay-server/worker/worker.sock."""
    path = Path(tempfile.mkdtemp(prefix="assay-t-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)
