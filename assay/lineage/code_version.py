"""A hash of the code and rule data that compute scores, used in step cache keys.

Prefect's TASK_SOURCE only covers a task's own body; our tasks are thin wrappers over
``assay``, so a change to a formula in ``assay`` (or to a suite's rule files: expectation
suites, schema and synonym files under ``assay/suites/<name>/rules/``) must also invalidate
cached steps. Judge calls stay cached per request regardless.
"""

from __future__ import annotations

import functools
import hashlib

from assay.paths import PACKAGE_DIR

RULE_SUFFIXES = (".py", ".json", ".yaml", ".yml")
SKIPPED_DIRS = {"__pycache__", "_datasets"}  # bytecode; bundled example data (not rules)
# assay.flows and assay.tasks: Prefect wrappers, not formulas. In a checkout they are links to the
# repository's flows/ and tasks/, in a wheel real folders; leaving them out keeps the hash (and so
# every step's cache key) the same however assay is installed. In this order, the resident
# worker's tree hash (``assay.worker_client.tree_version``) adds them back.
FLOW_PACKAGES = ("flows", "tasks")


@functools.cache
def code_version() -> str:
    digest = hashlib.sha256()
    files = sorted(
        path
        for path in PACKAGE_DIR.rglob("*")
        if path.is_file()
        and path.suffix in RULE_SUFFIXES
        and not SKIPPED_DIRS & set(path.relative_to(PACKAGE_DIR).parts)
        and path.relative_to(PACKAGE_DIR).parts[0] not in FLOW_PACKAGES
    )
    for path in files:
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
