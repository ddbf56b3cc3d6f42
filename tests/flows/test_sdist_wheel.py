"""The source distribution builds a wheel, offline, and that wheel is the one the checkout builds:
the sdist carries everything setup.py's build hook reads (the bundled ``datasets/``) besides the
package, its rules and its flow code."""

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.flows.test_wheel_install import ROOT, clean_copy, pip

pytestmark = pytest.mark.slow


def build_sdist(tree: Path, out: Path) -> Path:
    """What ``python -m build --sdist --no-isolation`` runs: setuptools' PEP 517 hook, in the tree."""
    code = f"from setuptools import build_meta; print(build_meta.build_sdist({str(out)!r}))"
    done = subprocess.run([sys.executable, "-c", code], cwd=tree, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return out / done.stdout.splitlines()[-1].strip()


def wheel_files(wheel_dir: Path) -> set[str]:
    wheel = next(wheel_dir.glob("assay-*.whl"))
    return {n for n in zipfile.ZipFile(wheel).namelist() if not n.endswith("RECORD")}


def test_a_wheel_built_from_the_sdist_holds_what_the_checkout_wheel_holds(tmp_path):
    tree = clean_copy(tmp_path / "tree")
    sdist = build_sdist(tree, tmp_path / "dist")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    unpacked = next((tmp_path / "unpacked").iterdir())
    bundled = {p.relative_to(ROOT).as_posix() for p in (ROOT / "datasets").rglob("*") if p.is_file()}
    assert bundled and bundled <= {p.relative_to(unpacked).as_posix() for p in unpacked.rglob("*") if p.is_file()}

    pip(tmp_path, "wheel", "--no-deps", "--no-build-isolation", "--no-index", str(unpacked), "-w", "from-sdist")
    pip(tmp_path, "wheel", "--no-deps", "--no-build-isolation", "--no-index", str(tree), "-w", "from-tree")
    from_sdist = wheel_files(tmp_path / "from-sdist")
    assert from_sdist == wheel_files(tmp_path / "from-tree")
    assert {f"assay/_datasets/{name.removeprefix('datasets/')}" for name in bundled} <= from_sdist
