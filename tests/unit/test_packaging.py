"""The flow code lives in the repository's flows/ and tasks/ but is imported only as ``assay.flows``
and ``assay.tasks`` (``assay/flows`` and ``assay/tasks`` link to them): a top-level ``flows`` or
``tasks`` of another project, or a user's own ``tasks.py``, can neither shadow ours nor be
shadowed by it. The installed wheel beside such a package: tests/flows/test_wheel_install.py."""

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

from assay.lineage.code_version import FLOW_PACKAGES

ROOT = Path(__file__).resolve().parents[2]
# A module named by a string: "flows.x", "-m tasks.y", "from flows.x import …", "import tasks"
MODULE_IN_TEXT = re.compile(r"^(flows|tasks)(\.\w+)+$|(-m|\bfrom|\bimport)\s+(flows|tasks)\b")
# It imports another project's top-level tasks and flows, installed beside the wheel, on purpose.
IMPORTS_OTHERS = ROOT / "tests" / "flows" / "test_wheel_install.py"


def test_assay_flows_and_tasks_are_the_repository_folders():
    for package in FLOW_PACKAGES:
        link = ROOT / "assay" / package
        assert link.is_symlink() and os.readlink(link) == f"../{package}", link
        assert link.resolve() == (ROOT / package).resolve()


def _python_files() -> list[Path]:
    """Every Python file of the project, each once (the links under assay/ are not entered)."""
    roots = [ROOT / name for name in ("assay", "flows", "tasks", "tests", "bench")]
    return sorted(path for root in roots for path in root.rglob("*.py")
                  if "__pycache__" not in path.parts and path != IMPORTS_OTHERS)


def _module_names(node: ast.AST) -> list[str]:
    """The modules an import statement imports, or a string that names one of ours."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name.split(".")[0] in FLOW_PACKAGES]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module] if node.module.split(".")[0] in FLOW_PACKAGES else []
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_IN_TEXT.search(node.value):
        return [node.value]
    return []


def test_nothing_names_a_top_level_flows_or_tasks_module():
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno}: {name}"
        for path in _python_files()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        for name in _module_names(node)
    ]
    assert not found, "\n".join(found)


def test_the_cli_the_flow_and_the_tasks_load_no_top_level_flows_or_tasks_module(tmp_path):
    """In one process that imported everything a run imports, each module has one name only."""
    code = (
        "import sys, assay.cli, assay.api, assay.worker_client\n"
        "import assay.flows.evaluate, assay.flows.warm_worker, assay.flows.local_server, assay.flows.runners\n"
        "import assay.tasks.steps, assay.tasks.results, assay.tasks.common\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('flows', 'tasks')))\n"
        "print(assay.flows.evaluate.__file__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    modules, flow_file = done.stdout.splitlines()[-2:]
    assert modules == "[]"
    assert Path(flow_file) == ROOT / "assay" / "flows" / "evaluate.py"
