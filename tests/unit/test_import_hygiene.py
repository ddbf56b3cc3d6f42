"""`import assay` and the metric modules must stay light: no Prefect, litellm, torch or GX."""

import ast
import re
import subprocess
import sys
from pathlib import Path

HEAVY = ("prefect", "litellm", "torch", "great_expectations", "sentence_transformers")


def test_core_imports_pull_in_no_heavy_modules():
    code = (
        "import sys, assay, assay.suites.rag_qa.retrieval_metrics, assay.lineage.audit, assay.suites.registry, assay.schemas;"
        f"print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_import_sets_offline_switches():
    code = "import os, assay; print(os.environ['HF_HUB_OFFLINE'], os.environ['LITELLM_LOCAL_MODEL_COST_MAP'])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin"})
    assert out.stdout.split() == ["1", "True"]


# -- layering ---------------------------------------------------------------------------
# Each layer may import only from its own layer and the layers above it in this list; the
# tree reads top-down: what a run is, pure formulas, judges, storage and checks, rendering,
# suites, the pipeline that wires them, Prefect's tasks over it, the flow over them, the CLI.
# Every module of assay/, flows/ and tasks/ must belong to one (named, or its package named).
LAYERS = [
    {"assay", "assay.offline", "assay.paths", "assay.hashing", "assay.redact", "assay.schemas",
     "assay.yaml_files", "assay.cancellation", "assay.partitions", "assay.atomic_files", "assay.signing",
     "assay.timeline", "assay.console", "assay.log_filters", "assay.liveness", "assay.memory", "assay.reexport", "assay.cores"},
    {"assay.metrics"},
    {"assay.judges"},
    {"assay.aggregation", "assay.spec", "assay.run_flags", "assay.artifacts", "assay.failed_calls"},
    {"assay.validation", "assay.lineage", "assay.replay", "assay.preflight", "assay.run_config"},
    {"assay.rendering", "assay.compare", "assay.calibration", "assay.gates", "assay.runs", "assay.rerun_trust"},
    {"assay.suites"},
    {"assay.pipeline", "assay.step_inputs", "assay.deep_audit", "assay.importing", "assay.workers"},
    {"assay.tasks"},  # the repository's tasks/ (assay/tasks links to it)
    {"assay.flows"},  # the repository's flows/
    # flows/warm_worker.py is the CLI's resident worker: it runs ``assay.cli`` in its children.
    {"assay.cli", "assay.cli_as_main", "assay.run_command", "assay.api", "assay.worker_client", "assay.entry", "assay.flows.warm_worker", "assay.flows.worker_control"},
]
SOURCE_PACKAGES = ("assay", "flows", "tasks")
# The repository's flows/ and tasks/ are imported as assay.flows and assay.tasks (links under assay/).
NAMESPACED = ("flows", "tasks")


# `assay.evaluate` / `assay.load_run`: the package re-exports its Python API through a lazy
# module __getattr__, so `import assay` itself still imports nothing below it (checked above).
# A suite's formulas moved into its folder keep their old public path the same way.
LAZY_REEXPORTS = {
    ("assay", "assay.api"),
    ("assay.metrics.report", "assay.suites.report.formulas"),
    ("assay.metrics.agent", "assay.suites.agent.formulas"),
}
# The clinical formulas' old names (issue 38 moved them into the suite's folder).
LAZY_REEXPORTS |= {
    (f"assay.metrics.{old}", f"assay.suites.clinical.formulas.{new}")
    for old, new in (("clinical", "scores"), ("clinical_checks", "checks"), ("clinical_extract", "extract"),
                     ("clinical_lexicon", "lexicon"), ("clinical_rules", "rules"))
}
# rag_qa's retrieval metrics, knowledge-base chunking and embedding index (issue 38).
LAZY_REEXPORTS |= {
    ("assay.metrics.retrieval", "assay.suites.rag_qa.retrieval_metrics"),
    ("assay.replay.chunking", "assay.suites.rag_qa.chunking"),
    ("assay.replay.embedding", "assay.suites.rag_qa.embedding"),
}
# The suites' own judge prompts (issue 38): the package and the old modules re-export them.
LAZY_REEXPORTS |= {
    (old, f"assay.suites.{suite}.prompts")
    for suite in ("agent", "clinical", "memory", "report")
    for old in ("assay.judges.prompts", f"assay.judges.prompts.{suite}")
}

# Imports against the layer order still to be removed, each with why it is allowed until then.
# The test fails when one is gone, so the list only shrinks.
KNOWN_UPWARD: set[str] = set()


# Import cycles still to be broken, each with why it is allowed until then (the list only shrinks).
KNOWN_CYCLES: set[tuple[str, str]] = set()

# Shared code (everything but a suite's own folder and the registry) that names a suite's folder
# or module, each with why it is allowed until it goes (the list only shrinks).
KNOWN_SUITE_REACHES: set[str] = set()


def _canonical(name: str) -> str:
    """A module of the repository's flows/ or tasks/ by the name it is imported as (assay.…)."""
    return f"assay.{name}" if name.split(".")[0] in NAMESPACED else name


def _source_files() -> dict[str, Path]:
    """Module name -> file, for every module of assay/, flows/ and tasks/."""
    root = Path(__file__).resolve().parents[2]
    files = {}
    for package in SOURCE_PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            files[_canonical(".".join(parts[:-1] if parts[-1] == "__init__" else parts))] = path
    return files


def _typing_only_nodes(tree) -> set[int]:
    """The nodes in the body of an ``if TYPE_CHECKING:`` (not its ``else``)."""
    return {
        id(n) for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for n in ast.walk(statement)
    }


def _import_graph(typing_only: bool = True) -> dict[str, set[str]]:
    """Module -> our modules it imports (lazy imports included); imports under ``if
    TYPE_CHECKING`` count when ``typing_only``: they never execute, but they are a dependency
    all the same (the layer order), though not a cycle at run time."""
    files = _source_files()
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = set() if typing_only else _typing_only_nodes(tree)
        targets: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                base = _canonical(node.module)
                if base.split(".")[0] not in SOURCE_PACKAGES:
                    continue
                # "from pkg import sub" imports the submodule, not the package's __init__
                subs = {f"{base}.{a.name}" for a in node.names} & files.keys()
                targets |= subs or {base}
            elif isinstance(node, ast.Import):
                targets |= {_canonical(a.name) for a in node.names if a.name.split(".")[0] in SOURCE_PACKAGES}
        graph[module] = targets - {module}
    for module, target in LAZY_REEXPORTS:
        graph[module].discard(target)
    return graph


def _layer(module: str) -> int:
    parts = module.split(".")
    # The most specific name first; "assay" alone is the package's __init__, not all of it.
    for head in dict.fromkeys([module, ".".join(parts[:2]), parts[0]]):
        if head == "assay" and module != "assay":
            continue
        for i, layer in enumerate(LAYERS):
            if head in layer:
                return i
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS")


def test_the_graph_covers_flows_tasks_and_typing_only_imports():
    graph = _import_graph()
    assert "assay.tasks.steps" in graph["assay.flows.evaluate"] and "assay.pipeline" in graph["assay.tasks.steps"]
    assert "assay.rendering.case_view" in graph["assay.cli"]  # under ``if TYPE_CHECKING``
    assert "assay.rendering.case_view" not in _import_graph(typing_only=False)["assay.cli"]


def test_every_module_belongs_to_a_layer():
    for module in _source_files():
        _layer(module)


def test_no_module_imports_a_layer_below_it():
    upward = {
        f"{module} -> {target}"
        for module, targets in _import_graph().items()
        for target in targets
        if _layer(target) > _layer(module)
    }
    assert not upward - KNOWN_UPWARD, "imports against the layer order:\n" + "\n".join(sorted(upward - KNOWN_UPWARD))
    assert not KNOWN_UPWARD - upward, f"gone, remove from KNOWN_UPWARD: {sorted(KNOWN_UPWARD - upward)}"


def test_suites_share_only_the_kit():
    """A suite imports the kit and lower layers, never another suite; the kit imports no suite."""
    crossing = []
    for module, targets in _import_graph().items():
        if not module.startswith("assay.suites.") or module == "assay.suites.registry":
            continue
        own = module.split(".")[2]
        for target in targets:
            if target.startswith("assay.suites.") and target != "assay.suites.registry":
                other = target.split(".")[2]
                if other != own and other != "kit":
                    crossing.append(f"{module} -> {target}")
    assert not crossing, "\n".join(crossing)


def test_no_import_cycles():
    graph = _import_graph(typing_only=False)  # a typing-only import never runs: no cycle
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in list(graph):
        if module not in index:
            visit(module)
    found = {tuple(cycle) for cycle in cycles}
    assert not found - KNOWN_CYCLES, f"import cycles: {sorted(found - KNOWN_CYCLES)}"
    assert not KNOWN_CYCLES - found, f"gone, remove from KNOWN_CYCLES: {sorted(KNOWN_CYCLES - found)}"


# -- shared code never reaches into a suite's folder ------------------------------------
# A string naming a suite's folder or module: "assay/suites/clinical/...", "assay.suites.memory...",
# or a path fragment that starts with it ("suites/clinical/rules"). The kit and the registry are shared.
_SUITE_NAMED = re.compile(r"(?:\bassay[/.]|^)suites[/.](?!kit\b|registry\b)(\w+)")


def _is_shared(module: str) -> bool:
    parts = module.split(".")
    return not (parts[:2] == ["assay", "suites"] and len(parts) > 2 and parts[2] not in ("kit", "registry"))


def _docstrings(tree) -> set[int]:
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value) for node in ast.walk(tree)
        if isinstance(node, owners) and node.body and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def _path_parts(node) -> list:
    """The operands of ``a / b / c`` or the arguments of ``join(a, b)``, ``Path(a, b)`` ..."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return [*_path_parts(node.left), node.right] if isinstance(node.left, ast.BinOp) else [node.left, node.right]
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name in ("join", "joinpath", "Path", "PurePath", "PurePosixPath"):
            return list(node.args)
    return []


def _suite_reaches(tree) -> set[str]:
    """Where ``tree`` names a suite's folder or module, as "<what it names>"."""
    skipped = _docstrings(tree)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
            if _SUITE_NAMED.search(node.value):
                found.add(node.value)
        parts = _path_parts(node)
        for before, after in zip(parts, parts[1:], strict=False):
            if isinstance(before, ast.Constant) and before.value == "suites":
                named = after.value if isinstance(after, ast.Constant) else ast.unparse(after)
                if named not in ("kit", "registry"):
                    found.add(f"suites / {named}")
    return found


def test_the_suite_reach_check_sees_paths_and_module_names():
    code = (
        'A = Path(__file__).parents[1] / "suites" / "clinical" / "rules"\n'
        'B = os.path.join(ROOT, "suites", name)\n'
        'C = "assay/suites/memory/rules/x.yaml"\n'
        'D = importlib.import_module("assay.suites.rag_qa.suite")\n'
        'E = Path(ROOT, "suites", "kit") / "x"\n'
        'F = "docs/suites/answers.md and assay.suites.kit.criteria"\n'
    )
    assert _suite_reaches(ast.parse(code)) == {
        "suites / clinical", "suites / name", "assay/suites/memory/rules/x.yaml", "assay.suites.rag_qa.suite",
    }


def test_shared_code_names_no_suite_folder():
    """Shared code lives below the suites and never names one (the registry lists them)."""
    reaches = {
        f"{module}: {named}"
        for module, path in _source_files().items()
        if _is_shared(module)
        for named in _suite_reaches(ast.parse(path.read_text(encoding="utf-8")))
        if (module, named) not in LAZY_REEXPORTS  # an old path naming where its code moved (assay.reexport)
    }
    assert not reaches - KNOWN_SUITE_REACHES, "shared code naming a suite:\n" + "\n".join(sorted(reaches - KNOWN_SUITE_REACHES))
    assert not KNOWN_SUITE_REACHES - reaches, f"gone, remove from KNOWN_SUITE_REACHES: {sorted(KNOWN_SUITE_REACHES - reaches)}"
