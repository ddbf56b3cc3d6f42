"""Do two code trees give the same scores and artifacts? One offline run of each suite per tree.

    python bench/same_outputs.py TREE [TREE ...] [--suites rag_qa,agent,report] [--dataset DIR]

For each tree (a checkout of assay; its code runs with the same interpreter, ``PYTHONPATH`` set
to the tree), ``assay run SUITE --offline`` into a fresh output folder, then prints one line per
suite and tree: the sha256 of ``scores/all.jsonl`` and a digest over every artifact's manifest
name and sha256. With two or more trees the first tree runs each suite a second time, so the
artifacts that differ between two runs of the same code (those that carry the run id or a
clock time) are told apart from those a code change altered: the last lines list, per suite,
the artifacts whose hashes differ between the trees but not between the first tree's two runs.
"Same outputs" means that list is empty and the scores' hashes are equal.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def run_once(tree: Path, suite: str, dataset: str | None, out: Path) -> dict[str, str]:
    """Artifact name -> sha256 of one offline run of ``suite`` with ``tree``'s code."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    args = [sys.executable, "-m", "assay.cli", "run", suite, "--offline", "--out", str(out)]
    if dataset:
        args += ["--dataset", dataset]
    done = subprocess.run(args, cwd=tree, env=env, capture_output=True, text=True)
    run_dirs = [line.split(":", 1)[1].strip() for line in done.stdout.splitlines() if line.startswith("run dir:")]
    if not run_dirs:
        raise SystemExit(f"{suite} in {tree} exited {done.returncode} without a run directory:\n{done.stderr[-3000:]}")
    manifest = json.loads((Path(run_dirs[0]) / "manifest.json").read_text(encoding="utf-8"))
    return {name: entry["sha256"] for name, entry in manifest["artifacts"].items()}


def digest(artifacts: dict[str, str]) -> str:
    text = "\n".join(f"{name} {sha}" for name, sha in sorted(artifacts.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def differing(a: dict[str, str], b: dict[str, str]) -> set[str]:
    return {name for name in a.keys() | b.keys() if a.get(name) != b.get(name)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--suites", default="rag_qa")
    parser.add_argument("--dataset", default=None, help="a dataset directory (one suite only)")
    args = parser.parse_args()
    suites = [s for s in args.suites.split(",") if s]
    scratch = Path(tempfile.mkdtemp(prefix="assay-same-outputs-"))
    changed: dict[str, set[str]] = {}
    try:
        for suite in suites:
            runs = []
            for i, tree in enumerate(args.trees):
                runs.append(run_once(tree.resolve(), suite, args.dataset, scratch / f"{suite}-{i}"))
                arts = runs[-1]
                print(f"{suite:8s} {str(tree):34s} scores {arts.get('scores/all.jsonl', 'none')[:16]}  "
                      f"artifacts {len(arts)} digest {digest(arts)}", flush=True)
            if len(args.trees) > 1:
                repeat = run_once(args.trees[0].resolve(), suite, args.dataset, scratch / f"{suite}-repeat")
                per_run = differing(runs[0], repeat)
                calls = sorted(n for n in per_run if n.startswith("judge_calls/"))
                print(f"{suite:8s} differ between two runs of the same code (they record clock times): "
                      f"{len(calls)} judge_calls/*.json, {sorted(per_run - set(calls))}")
                changed[suite] = set().union(*(differing(runs[0], other) for other in runs[1:])) - per_run
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for suite, names in changed.items():
        print(f"{suite:8s} {'SAME OUTPUTS' if not names else 'CHANGED: ' + ', '.join(sorted(names))}")
    if any(changed.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
