"""Figures on where code lives and how typed its seams are, for issue-38-style before → after notes.

    python bench/layout_figures.py [TREE] [-v]   (-v lists the modules counted per suite)

Prints, for the tree (default: this checkout):

- per suite, the lines of Python outside ``assay/suites/<name>/`` that only that suite uses: a
  module counts when every module that imports it (static imports, ``__init__`` re-exports not
  counted as uses) is in that suite's folder or is itself such a module (to a fixed point), or
  when its file name names the suite and nothing else imports it (a module that shared code
  imports is shared, whatever its name: ``validation/report.py`` is the gate's report, not the
  report suite's); a module that is only a lazy re-export of moved code (an old import path kept
  working) is not counted;
- ``Any`` in public signatures (parameters and returns of public functions and methods) of
  ``flows/``, ``tasks/``, ``assay/pipeline.py`` and ``assay/suites/kit/``;
- ``# type: ignore`` comments in ``assay/``, ``flows/``, ``tasks/``.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

VERBOSE = "-v" in sys.argv
SUITES = ("rag_qa", "agent", "memory", "clinical", "report", "answers")
# "answers", not "answer": shared modules say "answer" (judges/offline/answer_core.py)
NAME_HINTS = {"rag_qa": ("rag",), "agent": ("agent",), "memory": ("memory",), "clinical": ("clinical",),
              "report": ("report",), "answers": ("answers",)}


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def python_files(root: Path) -> list[Path]:
    out = []
    for top in ("assay", "flows", "tasks"):
        out += [p for p in (root / top).rglob("*.py") if "__pycache__" not in p.parts]
    return sorted(set(out))


def imports_of(tree: ast.AST, name: str, is_package: bool) -> set[str]:
    found = set()
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return found


def suite_of(name: str) -> str | None:
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["assay", "suites"] and parts[2] in SUITES else None


def suite_only_lines(root: Path) -> dict[str, int]:
    files = python_files(root)
    modules = {module_name(root, p): p for p in files}
    importers: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for target in imports_of(tree, name, path.name == "__init__.py"):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name and path.name != "__init__.py":
                importers[target].add(name)
    owner: dict[str, str] = {}
    changed = True
    while changed:  # to a fixed point: a module used only by a suite's only-modules is that suite's too
        changed = False
        for name, path in modules.items():
            if suite_of(name) or name in owner or path.name == "__init__.py" or not name.startswith("assay."):
                continue
            users = {suite_of(u) or owner.get(u) for u in importers.get(name, ())}
            # names count inside subpackages only (assay/memory.py is the process's memory, not the suite)
            named = [s for s in SUITES if name.count(".") > 1 and any(h in path.stem for h in NAME_HINTS[s])]
            if len(users) == 1 and None not in users:
                owner[name] = next(iter(users))  # imported only from one suite's code
            elif len(named) == 1 and users <= {named[0]}:
                owner[name] = named[0]  # named after one suite, imported by nothing else (shared code included)
            else:
                continue
            changed = True
    if VERBOSE:
        for name in sorted(owner, key=lambda n: (owner[n], n)):
            print(f"  {owner[name]:9} {name}")
    lines: dict[str, int] = dict.fromkeys(SUITES, 0)
    for name, suite in owner.items():
        if not is_reexport(modules[name]):
            lines[suite] += len(modules[name].read_text(encoding="utf-8").splitlines())
    return lines


def is_reexport(path: Path) -> bool:
    """A module kept only so an old import path still works: its one function is a module-level
    ``__getattr__`` (and ``__dir__``) handing out another module's names; not code of its own."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    assigned = {t.id for n in tree.body if isinstance(n, ast.Assign) for e in n.targets
                for t in (e.elts if isinstance(e, ast.Tuple) else [e]) if isinstance(t, ast.Name)}
    others = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    return "__getattr__" in functions | assigned and functions <= {"__getattr__", "__dir__"} and not others


def any_in_public_signatures(root: Path) -> int:
    paths = [*(root / "flows").glob("*.py"), *(root / "tasks").glob("*.py"), root / "assay" / "pipeline.py",
             *(root / "assay" / "suites" / "kit").glob("*.py")]
    count = 0
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name.startswith("_"):
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
                annotations = [a.annotation for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs]
                annotations += [node.args.vararg.annotation if node.args.vararg else None,
                                node.args.kwarg.annotation if node.args.kwarg else None, node.returns]
                count += sum("Any" in ast.unparse(a) for a in annotations if a is not None)
    return count


def type_ignores(root: Path) -> int:
    return sum(p.read_text(encoding="utf-8").count("type: ignore") for p in python_files(root))


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "-v"]
    root = Path(args[0] if args else Path(__file__).resolve().parents[1]).resolve()
    lines = suite_only_lines(root)
    print("lines outside each suite's folder that only it uses: "
          + ", ".join(f"{s} {n}" for s, n in lines.items()) + f" (total {sum(lines.values())})")
    print(f"Any in public signatures of flows/, tasks/, pipeline, kit: {any_in_public_signatures(root)}")
    print(f"type: ignore in assay/, flows/, tasks/: {type_ignores(root)}")


if __name__ == "__main__":
    main()
