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

An offline judge's version is a hash of its code's files, so moving or editing that code changes
every call key (the ``request_key`` in the scores, the ``judge_calls/<key>.json`` names) though no
verdict moves. ``--code-moved`` says that is expected: every text artifact (``judge_calls/*``
aside, which are named by key and hold clock times) is also compared with its 64-hex keys masked,
and a suite whose only differences are keys prints SAME OUTPUTS BUT CALL KEYS (exit 0).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

KEY = re.compile(rb"\b[0-9a-f]{64}\b")
TEXT = (".json", ".jsonl", ".md", ".html", ".csv", ".txt", ".svg", ".parquet")


def _comparable_bytes(path: Path, name: str) -> bytes:
    """The artifact's bytes, a Parquet table's rows as JSON lines (its keys are compressed)."""
    if not name.endswith(".parquet"):
        return path.read_bytes()
    import pyarrow.parquet as pq

    rows = pq.read_table(path).to_pylist()
    return "\n".join(json.dumps(row, sort_keys=True, default=str, ensure_ascii=False) for row in rows).encode()


def run_once(tree: Path, suite: str, dataset: str | None, out: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Artifact name -> sha256 of one offline run of ``suite`` with ``tree``'s code, and text
    artifact name -> sha256 with its 64-hex keys masked (``judge_calls/*`` left out)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    args = [sys.executable, "-m", "assay.cli", "run", suite, "--offline", "--out", str(out)]
    if dataset:
        args += ["--dataset", dataset]
    done = subprocess.run(args, cwd=tree, env=env, capture_output=True, text=True)
    run_dirs = [line.split(":", 1)[1].strip() for line in done.stdout.splitlines() if line.startswith("run dir:")]
    if not run_dirs:
        raise SystemExit(f"{suite} in {tree} exited {done.returncode} without a run directory:\n{done.stderr[-3000:]}")
    run_dir = Path(run_dirs[0])
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    artifacts = manifest["artifacts"]
    masked = {
        name: hashlib.sha256(KEY.sub(b"<key>", _comparable_bytes(run_dir / entry["path"], name))).hexdigest()
        for name, entry in artifacts.items()
        if name.endswith(TEXT) and not name.startswith("judge_calls/")
    }
    return {name: entry["sha256"] for name, entry in artifacts.items()}, masked


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
    parser.add_argument("--code-moved", action="store_true",
                        help="the offline judges' code moved: call keys may differ, nothing else")
    args = parser.parse_args()
    suites = [s for s in args.suites.split(",") if s]
    scratch = Path(tempfile.mkdtemp(prefix="assay-same-outputs-"))
    changed: dict[str, set[str]] = {}
    changed_masked: dict[str, set[str]] = {}
    try:
        for suite in suites:
            runs, masked = [], []
            for i, tree in enumerate(args.trees):
                arts, text = run_once(tree.resolve(), suite, args.dataset, scratch / f"{suite}-{i}")
                runs.append(arts)
                masked.append(text)
                print(f"{suite:8s} {str(tree):34s} scores {arts.get('scores/all.jsonl', 'none')[:16]}  "
                      f"artifacts {len(arts)} digest {digest(arts)}", flush=True)
            if len(args.trees) > 1:
                repeat, repeat_text = run_once(args.trees[0].resolve(), suite, args.dataset, scratch / f"{suite}-repeat")
                per_run = differing(runs[0], repeat)
                calls = sorted(n for n in per_run if n.startswith("judge_calls/"))
                print(f"{suite:8s} differ between two runs of the same code (they record clock times): "
                      f"{len(calls)} judge_calls/*.json, {sorted(per_run - set(calls))}")
                changed[suite] = set().union(*(differing(runs[0], other) for other in runs[1:])) - per_run
                per_run_text = differing(masked[0], repeat_text)
                changed_masked[suite] = set().union(*(differing(masked[0], m) for m in masked[1:])) - per_run_text
                # the same number of judge calls: a key moved, no call was added or dropped
                calls = {len([n for n in arts if n.startswith("judge_calls/")]) for arts in runs}
                if len(calls) > 1:
                    changed_masked[suite].add(f"judge_calls/* (counts {sorted(calls)})")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    failed = False
    for suite, names in changed.items():
        keys_only = args.code_moved and names and not changed_masked[suite]
        failed |= bool(names) and not keys_only
        if not names:
            print(f"{suite:8s} SAME OUTPUTS")
        elif keys_only:
            print(f"{suite:8s} SAME OUTPUTS BUT CALL KEYS: {len(names)} artifacts differ only in 64-hex keys "
                  f"({len([n for n in names if n.startswith('judge_calls/')])} judge_calls/*.json renamed, "
                  f"{sorted(n for n in names if not n.startswith('judge_calls/'))})")
        else:
            shown = changed_masked[suite] if args.code_moved else names
            print(f"{suite:8s} CHANGED: {', '.join(sorted(shown))}")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
