"""Build hook: a wheel carries the bundled example datasets as ``assay/_datasets``.

``datasets/`` stays at the top level of the repository (data only, no package); everything
else about the build is declared in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithDatasets(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads datasets/ in place
        target = Path(self.build_lib) / "assay" / "_datasets"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(ROOT / "datasets", target, symlinks=False)


setup(cmdclass={"build_py": BuildWithDatasets})
