"""A non-editable install carries everything a run needs: rules, prompts, the bundled example
datasets and the flow code (``flows/`` and ``tasks/``, installed as ``assay.flows`` and
``assay.tasks`` only). The wheel is installed beside another project that ships its own top-level
``tasks`` and ``flows`` packages, and runs from a working folder holding a user's own ``tasks.py``
(as a notebook's folder may): each import gets its own module and the bundled suites run."""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

OTHER_PYPROJECT = """\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "other-project"
version = "1.0"

[tool.setuptools]
packages = ["tasks", "flows"]
"""

CHECK = """
import json, sys
import tasks, flows
import assay, assay.cli, assay.flows.evaluate, assay.tasks.steps
from assay.lineage.code_version import code_version
from assay.worker_client import tree_version
print(json.dumps({"tasks": getattr(tasks, "OWNER", None), "flows": getattr(flows, "OWNER", None), "assay": assay.__file__,
                  "flow": assay.flows.evaluate.__file__, "steps": assay.tasks.steps.__file__,
                  "code_version": code_version(), "tree_version": tree_version()}))
"""


def pip(cwd: Path, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", "-q", "--disable-pip-version-check", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]


def clean_copy(target: Path) -> Path:
    """The working tree as it is (its links kept), without what builds and runs leave behind: a
    stale ``build/lib`` would put the files of an earlier build into the wheel."""
    shutil.copytree(ROOT, target, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "runs", ".prefect", "__pycache__", "build", "dist", "*.egg-info", ".*_cache"))
    return target


def other_project(target: Path) -> Path:
    """Another project whose top-level packages are named ``tasks`` and ``flows``."""
    for package in ("tasks", "flows"):
        (target / package).mkdir(parents=True)
        (target / package / "__init__.py").write_text('OWNER = "other-project"\n')
    (target / "pyproject.toml").write_text(OTHER_PYPROJECT)
    return target


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The project built as a wheel and installed (without dependencies) into its own directory,
    beside the other project's wheel."""
    scratch = tmp_path_factory.mktemp("build")
    wheels, target = scratch / "wheels", scratch / "site"
    for source in (clean_copy(scratch / "assay"), other_project(scratch / "other")):
        pip(scratch, "wheel", "--no-deps", "--no-build-isolation", "--no-index", str(source), "-w", str(wheels))
    wheel = next(wheels.glob("assay-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("assay/_datasets/rag_qa/") for n in names)
    assert not any(n.startswith("datasets/") for n in names), "datasets/ must stay a data folder, not a package"
    assert not any(n.startswith(("flows/", "tasks/")) for n in names), "flows/ and tasks/ install under assay/ only"
    for package in ("flows", "tasks"):
        assert {f"assay/{package}/{p.name}" for p in (ROOT / package).glob("*.py")} <= set(names)
    pip(scratch, "install", "--no-deps", "--no-index", "--target", str(target), *map(str, sorted(wheels.glob("*.whl"))))
    return target


@pytest.fixture
def notebook_dir(tmp_path) -> Path:
    """A working folder with a user's own ``tasks.py`` (first on sys.path for ``-c`` and ``-m``)."""
    (tmp_path / "tasks.py").write_text('OWNER = "the user"\n')
    return tmp_path


@pytest.fixture(scope="module")
def prefect_home(tmp_path_factory) -> Iterator[Path]:
    """The installed copy's PREFECT_HOME: its first run leaves the local server up for the next
    (a user's default path), and it is stopped here, so no server outlives the tests."""
    from assay.flows.local_server import stop

    home = tmp_path_factory.mktemp("prefect-home")
    yield home
    stop(home)


def run_installed(site: Path, cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "ASSAY_"))}
    # The server stops by itself after two idle minutes should the fixture's stop not be reached.
    env.update(PYTHONPATH=str(site), PREFECT_HOME=str(home), ASSAY_SERVER_IDLE_SECONDS="120")
    return subprocess.run(
        [sys.executable, "-c", "from assay.cli import app; app()", *args],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=600,
    )


def imports_seen(site: Path, cwd: Path, check: str = CHECK) -> dict:
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=cwd, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(site)})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_every_import_gets_its_own_module(installed, notebook_dir):
    seen = imports_seen(installed, notebook_dir)
    assert seen["tasks"] == "the user" and seen["flows"] == "other-project"
    assert Path(seen["assay"]) == installed / "assay" / "__init__.py"
    assert Path(seen["flow"]) == installed / "assay" / "flows" / "evaluate.py"
    assert Path(seen["steps"]) == installed / "assay" / "tasks" / "steps.py"
    assert (installed / "flows" / "__init__.py").read_text() == 'OWNER = "other-project"\n'
    # What keys step caches and the resident worker is the same as in this checkout.
    ours = imports_seen(ROOT, notebook_dir, CHECK.replace("import tasks, flows", "tasks = flows = None"))
    assert (seen["code_version"], seen["tree_version"]) == (ours["code_version"], ours["tree_version"])


@pytest.mark.parametrize("suite", ["rag_qa", "report", "clinical"])
def test_bundled_suites_run_from_a_wheel_install(installed, suite, notebook_dir, prefect_home):
    where = subprocess.run(
        [sys.executable, "-c", "import assay, assay.paths; print(assay.__file__); print(assay.paths.datasets_dir())"],
        capture_output=True, text=True, cwd=notebook_dir, env={**os.environ, "PYTHONPATH": str(installed)}, check=True,
    ).stdout.split()
    assert where[0].startswith(str(installed)) and where[1].startswith(str(installed))
    result = run_installed(installed, notebook_dir, prefect_home, "run", suite, "--offline", "--out", str(notebook_dir / "runs"))
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = next((notebook_dir / "runs").glob(f"{suite}-*"))
    assert (run_dir / "report.html").is_file() and (run_dir / "scores.parquet").is_file()
    audit = run_installed(installed, notebook_dir, prefect_home, "audit", str(run_dir))
    assert audit.returncode == 0 and "audit PASSED" in audit.stdout, audit.stdout + audit.stderr
