"""`import assay` and the metric modules must stay light: no Prefect, litellm, torch or GX."""

import subprocess
import sys

HEAVY = ("prefect", "litellm", "torch", "great_expectations", "sentence_transformers")


def test_core_imports_pull_in_no_heavy_modules():
    code = (
        "import sys, assay, assay.metrics.retrieval, assay.lineage.audit, assay.suites.registry, assay.schemas;"
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
# suites, the pipeline that wires them, the CLI.
LAYERS = [
    {"assay", "assay.offline", "assay.paths", "assay.hashing", "assay.redact", "assay.schemas",
     "assay.yaml_files", "assay.cancellation", "assay.partitions"},
    {"assay.metrics"},
    {"assay.judges"},
    {"assay.aggregation", "assay.spec", "assay.artifacts", "assay.failed_calls"},
    {"assay.validation", "assay.lineage", "assay.replay", "assay.preflight"},
    {"assay.rendering", "assay.compare", "assay.calibration", "assay.gates", "assay.runs"},
    {"assay.suites"},
    {"assay.pipeline", "assay.deep_audit", "assay.importing", "assay.workers"},
    {"assay.tasks"},  # assay.tasks / assay.flows: the repository's tasks/ and flows/ (Prefect wiring)
    {"assay.cli", "assay.api", "assay.worker_client", "assay.entry", "assay.flows"},
]


# `assay.evaluate` / `assay.load_run`: the package re-exports its Python API through a lazy
# module __getattr__, so `import assay` itself still imports nothing below it (checked above).
LAZY_REEXPORTS = {("assay", "assay.api")}


def _import_graph() -> dict[str, set[str]]:
    """Module -> assay modules it imports at run time (lazy imports included; imports under
    ``if TYPE_CHECKING`` excluded, as they never execute)."""
    import ast
    from pathlib import Path

    package = Path(__file__).resolve().parents[2] / "assay"

    def name_of(path: Path) -> str:
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    modules = {name_of(p) for p in package.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(n) for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for n in ast.walk(node)
        }
        targets: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "assay":
                # "from pkg import sub" imports the submodule, not the package's __init__
                subs = {f"{node.module}.{a.name}" for a in node.names} & modules
                targets |= subs or {node.module}
            elif isinstance(node, ast.Import):
                targets |= {a.name for a in node.names if a.name.split(".")[0] == "assay"}
        graph[name_of(path)] = targets
    for module, target in LAZY_REEXPORTS:
        graph[module].discard(target)
    return graph


def _layer(module: str) -> int:
    for depth in (2, 1):
        head = ".".join(module.split(".")[:depth])
        for i, layer in enumerate(LAYERS):
            if head in layer:
                return i
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS")


def test_no_module_imports_a_layer_below_it():
    upward = [
        f"{module} -> {target}"
        for module, targets in _import_graph().items()
        for target in targets
        if _layer(target) > _layer(module)
    ]
    assert not upward, "imports against the layer order:\n" + "\n".join(sorted(upward))


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
    graph = _import_graph()
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
    assert not cycles, f"import cycles: {cycles}"
