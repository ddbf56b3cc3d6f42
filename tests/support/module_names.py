"""What a module's own file defines, read from its source (not from the module object, whose
namespace a lazy re-export fills on demand)."""

from __future__ import annotations

import ast
import importlib
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
