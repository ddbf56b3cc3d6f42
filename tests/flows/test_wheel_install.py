"""A non-editable install carries everything a run needs: rules, prompts and the bundled
example datasets travel in the wheel, and the bundled suites run from outside the checkout."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The project built as a wheel and installed (without dependencies) into its own directory."""
    wheels = tmp_path_factory.mktemp("wheels")
    target = tmp_path_factory.mktemp("site")
    build = tmp_path_factory.mktemp("build")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", str(ROOT), "-w", str(wheels)],
        check=True, capture_output=True, text=True, cwd=build,
    )
    wheel = next(wheels.glob("assay-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("assay/_datasets/rag_qa/") for n in names)
    assert not any(n.startswith("datasets/") for n in names), "datasets/ must stay a data folder, not a package"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
        check=True, capture_output=True, text=True, cwd=build,
    )
    return target


def run_installed(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "ASSAY_"))}
    # A temporary server per run: a local server kept up for the next run would outlive the test.
    env.update(PYTHONPATH=str(site), PREFECT_HOME=str(cwd / "prefect-home"), ASSAY_SERVER_IDLE_SECONDS="0")
    return subprocess.run(
        [sys.executable, "-c", "from assay.cli import app; app()", *args],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=600,
    )


@pytest.mark.parametrize("suite", ["rag_qa", "report", "clinical"])
def test_bundled_suites_run_from_a_wheel_install(installed, suite, tmp_path):
    where = subprocess.run(
        [sys.executable, "-c", "import assay, assay.paths; print(assay.__file__); print(assay.paths.datasets_dir())"],
        capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(installed)}, check=True,
    ).stdout.split()
    assert where[0].startswith(str(installed)) and where[1].startswith(str(installed))
    result = run_installed(installed, tmp_path, "run", suite, "--offline", "--out", str(tmp_path / "runs"))
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = next((tmp_path / "runs").glob(f"{suite}-*"))
    assert (run_dir / "report.html").is_file() and (run_dir / "scores.parquet").is_file()
    audit = run_installed(installed, tmp_path, "audit", str(run_dir))
    assert audit.returncode == 0 and "audit PASSED" in audit.stdout, audit.stdout + audit.stderr
