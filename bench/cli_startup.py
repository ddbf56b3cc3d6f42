"""How long the command line takes to answer when it runs nothing: help and refused runs.

    python bench/cli_startup.py TREE [TREE ...] [--repeat 5]

Each TREE is a checkout of assay (e.g. ``/work/main`` and your worktree); every command runs as
``python -m assay.cli …`` in a fresh process with that tree first on ``PYTHONPATH`` (same
virtual environment), provider keys removed from the environment and ``--out`` in a temporary
folder. One untimed run per tree and command first (Python's bytecode caches), then ``--repeat``
rounds alternating the trees so the machine's load hits them alike.

Printed per command: median wall seconds and CPU seconds (user + system of the child, from
``getrusage(RUSAGE_CHILDREN)``, which load moves far less than wall time) for each tree, the exit
codes, and whether every tree printed the same refusal. The load average is printed before and
after: the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROVIDER_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY")
COMMANDS = {
    "assay run --help": ["run", "--help"],
    "refused: judge with no key": ["run", "rag_qa", "--judge", "openai/gpt-4o-mini"],
    "refused: bad option value": ["run", "rag_qa", "--offline", "--concurrency", "0"],
    "refused: bad target URL": ["run", "rag_qa", "--offline", "--target", "htp://127.0.0.1/x"],
}


def timed(tree: Path, args: list[str], workdir: Path) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds, exit code and stderr of one fresh ``assay`` process."""
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_KEYS}
    env["PYTHONPATH"] = str(tree)
    out = ["--out", str(workdir / "runs")] if args[0] == "run" and "--help" not in args else []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "assay.cli", *args, *out], capture_output=True, text=True,
                          cwd=workdir, env=env, timeout=300)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if (workdir / "runs").exists() and any(p.name != ".assay" for p in (workdir / "runs").iterdir()):
        raise SystemExit(f"{tree}: {' '.join(args)} started a run instead of refusing it")
    return wall, cpu, done.returncode, done.stderr.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path, help="assay checkouts to compare")
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args()
    trees = [tree.resolve() for tree in opts.trees]
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    samples: dict[tuple[str, Path], list[tuple[float, float]]] = {}
    results: dict[tuple[str, Path], tuple[set[int], set[str]]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        workdir = Path(scratch)
        for name, args in COMMANDS.items():
            for tree in trees:  # warm Python's bytecode caches, untimed
                timed(tree, args, workdir)
            for _ in range(opts.repeat):
                for tree in trees:
                    wall, cpu, code, said = timed(tree, args, workdir)
                    samples.setdefault((name, tree), []).append((wall, cpu))
                    codes, lines = results.setdefault((name, tree), (set(), set()))
                    codes.add(code)
                    lines.add(said if "--help" not in args else "")
    header = " | ".join(f"{tree} wall / CPU s" for tree in trees)
    print(f"\n| command (median of {opts.repeat}) | {header} | exit | same message |")
    print("|---" * (len(trees) + 3) + "|")
    for name in COMMANDS:
        cells = []
        for tree in trees:
            walls, cpus = zip(*samples[(name, tree)], strict=True)
            cells.append(f"{statistics.median(walls):.2f} / {statistics.median(cpus):.2f}")
        codes = sorted(set().union(*(results[(name, tree)][0] for tree in trees)))
        said = set().union(*(results[(name, tree)][1] for tree in trees))
        print(f"| {name} | {' | '.join(cells)} | {', '.join(map(str, codes))} | {'yes' if len(said) == 1 else 'no'} |")
    for name in COMMANDS:
        line = next(iter(results[(name, trees[0])][1]))
        if line:
            print(f"{name}: {line}")
    print(f"\nload average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
