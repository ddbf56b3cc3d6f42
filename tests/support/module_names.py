"""What a module's own file defines, read from its source (not from the module object, whose
namespace a lazy re-export fills on demand)."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path


def defined_public_names(module: str) -> set[str]:
    """The public names a module's file defines at top level (functions, classes, constants)."""
    tree = ast.parse(Path(importlib.import_module(module).__file__).read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {n.id for target in node.targets for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if not name.startswith("_")}


def assert_reexports(old: str, new: str) -> None:
    """``old`` (a lazy re-export kept for its import path) offers exactly what ``new``'s file
    defines, each the same object, to attribute access, ``dir`` and a star import alike."""
    old_module, new_module = importlib.import_module(old), importlib.import_module(new)
    assert set(old_module.__all__) == defined_public_names(new), "the re-export's names and the moved module's differ"
    assert sorted(dir(old_module)) == sorted(old_module.__all__)
    for name in old_module.__all__:
        assert getattr(old_module, name) is getattr(new_module, name), name
    namespace: dict[str, object] = {}
    exec(f"from {old} import *", namespace)  # noqa: S102 - the star import a user may write
    assert {k for k in namespace if k != "__builtins__"} == set(old_module.__all__)
    try:
        old_module.not_a_moved_name  # noqa: B018
    except AttributeError as error:
        assert "no attribute 'not_a_moved_name'" in str(error)
    else:
        raise AssertionError(f"{old} answers a name that did not move")


def imports_before_and_after_first_use(old: str, new: str) -> list[str]:
    """In a fresh interpreter: is ``new`` imported after ``import old``, and after one of its names is used?"""
    code = (
        f"import sys, {old} as m; before = {new!r} in sys.modules; m.__all__ and getattr(m, m.__all__[0]); "
        f"print(before, {new!r} in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()
