"""tests/unit/ mirrors the source tree, so a module's tests sit where a reader looks for them.

The source packages are ``assay/`` and its sub-packages (``assay/tasks`` and ``assay/flows`` are
the repository's ``tasks/`` and ``flows/``), and ``bench/`` (the measuring scripts). Two rules:

1. Every folder under tests/unit/ is the mirror of a source package: ``tests/unit/lineage/`` holds
   the tests of ``assay/lineage/``, ``tests/unit/suites/rag_qa/offline/`` those of
   ``assay/suites/rag_qa/offline/``, ``tests/unit/bench/`` those of ``bench/``. Each folder has an
   ``__init__.py``, so same-named files in two folders (``suites/*/test_suite.py``) are two modules.
2. A file directly in tests/unit/ tests a top-level module (``assay/x.py``, named ``test_x*.py``)
   or the project as a whole (it imports no assay module). Read by its name and its imports,
   anywhere in the file: one not named after a top-level module that imports assay or bench
   modules, none of them a top-level module of assay (``import assay`` alone, for the offline
   switches, does not count), belongs in the folder of the package whose imported names it uses
   most; the failure names that folder.

A test of two packages goes with the one it mostly tests; rule 2 only catches a flat file that
names no top-level module at all. The end-to-end tests in tests/flows/ are not held to this.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from tests.conftest import ROOT

UNIT = ROOT / "tests" / "unit"
SOURCE_ROOTS = ("assay", "bench")
# Flat files that check the project as a whole although they read one package's constant.
WHOLE_PROJECT_CHECKS = {
    "test_packaging.py": "the wheel's layout and the flows/ and tasks/ links, named by code_version's list",
}


def mirrored_source(rel: Path) -> Path | None:
    """The source package a folder under tests/unit/ mirrors, or None."""
    if rel.parts[0] == "bench":
        folder = ROOT / rel
        return folder if folder.is_dir() and any(folder.glob("*.py")) else None
    folder = ROOT / "assay" / rel
    return folder if (folder / "__init__.py").is_file() else None


def unit_folders(unit: Path) -> list[Path]:
    return sorted(p for p in unit.rglob("*") if p.is_dir() and "__pycache__" not in p.parts
                  and not any(part.startswith(".") for part in p.relative_to(unit).parts))


def folder_problems(unit: Path) -> list[str]:
    problems = [] if (unit / "__init__.py").is_file() else [f"{unit.name}/ has no __init__.py: add an empty one"]
    for folder in unit_folders(unit):
        rel = folder.relative_to(unit)
        shown = f"{unit.name}/{rel.as_posix()}/"
        if mirrored_source(rel) is None:
            problems.append(f"{shown} mirrors no source package (no assay/{rel.as_posix()}/ nor bench/"
                            f"{rel.as_posix()}/): move its files into the folder of the package each tests")
        if not (folder / "__init__.py").is_file():
            problems.append(f"{shown} has no __init__.py: add an empty one (same-named test files in two "
                            "folders need distinct module names)")
    return problems


def _module_path(dotted: str) -> Path | None:
    """The file or package folder of a dotted module name under the repository, or None."""
    base = ROOT.joinpath(*dotted.split("."))
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return base if (base / "__init__.py").is_file() else None


def imported_modules(tree: ast.AST) -> dict[str, str]:
    """Each name a file binds by importing from assay or bench -> the module it comes from."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in SOURCE_ROOTS and alias.name != "assay":
                    bound[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] not in SOURCE_ROOTS:
                continue
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                bound[alias.asname or alias.name] = full if _module_path(full) else node.module
    return bound


def package_of(module: str) -> str:
    """A module's package as a path under tests/unit/ would name it: '' for assay's top level."""
    path = _module_path(module)
    parts = module.split(".")
    folder = parts if path is not None and path.is_dir() else parts[:-1]
    return "/".join(folder[1:]) if folder[0] == "assay" else "/".join(folder)


def named_after_a_top_level_module(path: Path) -> bool:
    subject = path.stem.removeprefix("test_")
    return any(subject == m.stem or subject.startswith(m.stem + "_") for m in (ROOT / "assay").glob("*.py"))


def flat_file_problem(path: Path, unit: Path) -> str | None:
    if path.name in WHOLE_PROJECT_CHECKS and unit == UNIT:
        return None
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bound = imported_modules(tree)
    if named_after_a_top_level_module(path) or not bound or any(package_of(m) == "" for m in bound.values()):
        return None  # the test of a top-level module, or a whole-project check
    uses = Counter(node.id for node in ast.walk(tree) if isinstance(node, ast.Name))
    weight: Counter[str] = Counter()
    for name, module in bound.items():
        weight[package_of(module)] += 1 + uses[name]
    home = max(sorted(weight), key=lambda package: weight[package])
    modules = ", ".join(sorted(set(bound.values())))
    return (f"{unit.name}/{path.name} imports no top-level module of assay, only {modules}: "
            f"git mv it to {unit.name}/{home}/ (the package whose names it uses most)")


def flat_file_problems(unit: Path) -> list[str]:
    found = (flat_file_problem(path, unit) for path in sorted(unit.glob("test_*.py")))
    return [problem for problem in found if problem]


def test_every_folder_under_tests_unit_mirrors_a_source_package():
    problems = folder_problems(UNIT)
    assert not problems, "\n".join(problems)


def test_every_flat_test_file_tests_a_top_level_module_or_the_whole_project():
    problems = flat_file_problems(UNIT)
    assert not problems, "\n".join(problems)


def test_the_rules_name_a_misplaced_file_and_folder_and_where_it_goes(tmp_path):
    unit = tmp_path / "unit"
    for folder in ("lineage", "judges/offline", "nowhere"):
        (unit / folder).mkdir(parents=True)
    for init in ("__init__.py", "lineage/__init__.py", "judges/offline/__init__.py"):
        (unit / init).write_text("")
    files = {
        # only sub-package modules (the bare `import assay` is the offline switch): misplaced
        "test_store.py": "import assay\nfrom assay.lineage.store import ArtifactStore\n"
                         "from assay.judges.store import CallStore\nArtifactStore(1)\nArtifactStore(2)\nCallStore(3)\n",
        "test_rules.py": "from assay.judges.offline import offline_jury\noffline_jury()\n",
        "test_probe.py": "from bench import peers\npeers\n",
        # a top-level module among its imports or in its name, or no assay import at all: stays flat
        "test_kept_calls.py": "from assay import pipeline\nfrom assay.lineage.store import ArtifactStore\n",
        "test_cli_startup.py": "from assay.suites.registry import get_suite\n",
        "test_whole_project.py": "from tests.conftest import ROOT\n",
    }
    for name, text in files.items():
        (unit / name).write_text(text)

    problems = flat_file_problems(unit)
    assert len(problems) == 3, problems
    assert "unit/test_probe.py" in problems[0] and problems[0].endswith("to unit/bench/ (the package whose names it uses most)")
    assert "unit/test_rules.py" in problems[1] and "to unit/judges/offline/" in problems[1]
    assert "unit/test_store.py" in problems[2] and "to unit/lineage/" in problems[2]
    assert "assay.judges.store, assay.lineage.store" in problems[2]

    folders = folder_problems(unit)
    assert folders == [
        "unit/judges/ has no __init__.py: add an empty one (same-named test files in two folders need distinct module names)",
        "unit/nowhere/ mirrors no source package (no assay/nowhere/ nor bench/nowhere/): move its files into the "
        "folder of the package each tests",
        "unit/nowhere/ has no __init__.py: add an empty one (same-named test files in two folders need distinct module names)",
    ]
