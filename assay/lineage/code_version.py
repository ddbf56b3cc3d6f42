"""A hash of the code and rule data that compute scores, used in step cache keys.

Prefect's TASK_SOURCE only covers a task's own body; our tasks are thin wrappers over
``assay``, so a change to a formula in ``assay`` (or to an expectation suite or synonym
file) must also invalidate cached steps. Judge calls stay cached per request regardless.
"""

from __future__ import annotations

import functools
import hashlib

from assay.paths import datasets_dir, project_root

RULE_DATA_DIRS = ("expectations", "schema", "rules")


@functools.cache
def code_version() -> str:
    digest = hashlib.sha256()
    package = project_root() / "assay"
    files = sorted(package.rglob("*.py"))
    for suite_dir in sorted(p for p in datasets_dir().iterdir() if p.is_dir()) if datasets_dir().exists() else []:
        for sub in RULE_DATA_DIRS:
            if (suite_dir / sub).is_dir():
                files += sorted(f for f in (suite_dir / sub).rglob("*") if f.is_file())
    for path in files:
        digest.update(str(path.relative_to(project_root())).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
