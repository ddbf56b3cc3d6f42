"""What a small run costs, code trees side by side, with assay's local Prefect server up.

    python bench/small_runs.py TREE [TREE ...] [--repeat 3] [--worker]

Each tree is a checkout of assay (``git archive <ref> | tar -x -C DIR`` makes one); its code runs
with this interpreter and ``PYTHONPATH`` set to it. One ``PREFECT_HOME`` for the whole bench, its
local server started before the first timed row (as a user's is after their first run), so no row
pays a server's start. Rows, alternated across trees ``--repeat`` times, medians printed:

- ``1-case run``: ``assay run rag_qa --offline`` on a one-case copy of the bundled dataset, into a
  fresh output folder (nothing cached), and, from its ``ASSAY_TIMELINE`` marks, the seconds of its
  validation step (Great Expectations' first use in the process);
- ``10-case identical rerun``: the same command on ten cases into a folder that already holds
  that run (every step a cache hit);
- with ``--worker``, for a tree that has the resident worker (``flows/warm_worker.py``): the two
  rows above again with its worker up (``assay server start``, not timed); their CPU seconds are
  the client's only, the run's own are the worker's child's. The other rows run with
  ``ASSAY_WORKER=0``;
- ``evaluate, 2nd call, new folder`` / ``same folder``: one Python process calls
  ``assay.evaluate`` three times on the ten cases (a notebook); the second call's seconds (a
  fresh folder: every step computed again) and the third's (the second's folder again:
  an identical rerun).

Wall seconds, and CPU seconds of the process (and what it waited for; the kept server is not
counted; for ``evaluate`` the calling process's own CPU during the call), which the machine's
load moves far less.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assay.flows.local_server import stop as stop_local_server  # noqa: E402
from bench.scale import synthesize  # noqa: E402

TIMELINE_PREFIX = "assay-timeline "

NOTEBOOK = """
import json, sys, time
import assay
seconds = []
for out in (sys.argv[2], sys.argv[3], sys.argv[3]):
    started, cpu = time.perf_counter(), time.process_time()
    run = assay.evaluate("rag_qa", dataset=sys.argv[1], offline=True, out=out)
    assert run.status == "completed", run
    seconds.append((time.perf_counter() - started, time.process_time() - cpu))
print("calls " + json.dumps(seconds))
"""


def timed(args: list[str], tree: Path, env: dict[str, str]) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(args, cwd=tree, env={**env, "PYTHONPATH": str(tree)}, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} (in {tree}) exited {done.returncode}:\n{done.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout + done.stderr


def step_seconds(output: str, step: str) -> float | None:
    """Seconds between the mark before ``step ... ran`` and it (``assay/timeline.py``)."""
    for line in output.splitlines():
        if line.startswith(TIMELINE_PREFIX):
            marks = json.loads(line[len(TIMELINE_PREFIX):])["marks"]
            for (_, before), (label, at) in zip(marks, marks[1:], strict=False):
                if label == f"step {step} ran":
                    return at - before
    return None


def run_args(dataset: Path, out: Path, tree: Path) -> list[str]:
    """``assay run`` as the console command starts it (``assay.entry``; older trees: ``assay.cli``)."""
    entry = ["-c", "from assay.entry import main; main()"] if (tree / "assay" / "entry.py").exists() else ["-m", "assay.cli"]
    return [sys.executable, *entry, "run", "rag_qa", "--offline", "--dataset", str(dataset), "--out", str(out)]


def has_worker(tree: Path) -> bool:
    return (tree / "flows" / "warm_worker.py").exists()


def flows_package(tree: Path) -> str:
    """The flows' import name in ``tree``: ``assay.flows``, or plain ``flows`` in trees from before it moved."""
    return "assay.flows" if (tree / "assay" / "flows").exists() else "flows"


class Workers:
    """The resident worker (``assay server start``) of one tree at a time, for the ``--worker`` rows."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env, self.tree = env, None

    def up_for(self, tree: Path) -> None:
        if self.tree == tree:
            return
        self.down()
        done = subprocess.run([sys.executable, "-m", "assay.cli", "server", "start"], cwd=tree,
                              env={**self.env, "PYTHONPATH": str(tree)}, capture_output=True, text=True)
        if done.returncode != 0 or "ready" not in done.stdout:
            raise SystemExit(f"assay server start (in {tree}) failed:\n{done.stdout}{done.stderr[-3000:]}")
        self.tree = tree

    def down(self) -> None:
        if self.tree is not None:
            subprocess.run([sys.executable, "-c", f"from {flows_package(self.tree)}.warm_worker import stop; stop()"], cwd=self.tree,
                           env={**self.env, "PYTHONPATH": str(self.tree)}, capture_output=True)
            self.tree = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", action="store_true",
                        help="also time the two CLI rows through the resident worker, for trees that have one")
    args = parser.parse_args()
    trees = [t.resolve() for t in args.trees]
    scratch = Path(tempfile.mkdtemp(prefix="assay-small-runs-"))
    home = scratch / "prefect-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(PREFECT_HOME=str(home), ASSAY_SERVER_IDLE_SECONDS="600", ASSAY_TIMELINE="1",
               PREFECT_SERVER_ANALYTICS_ENABLED="false", DO_NOT_TRACK="1", ASSAY_WORKER="0")
    workers = Workers({**env, "ASSAY_WORKER": "1"})
    one, ten = synthesize("rag_qa", 1, scratch / "one"), synthesize("rag_qa", 10, scratch / "ten")
    rows: dict[tuple[str, int], list[tuple[float, float]]] = {}
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; trees: {', '.join(map(str, trees))}", flush=True)
    try:
        for i, tree in enumerate(trees):  # the server comes up; each tree's 10-case folder is filled
            timed(run_args(ten, scratch / f"ten-{i}", tree), tree, env)
        for r in range(args.repeat):
            for i, tree in enumerate(trees):
                if args.worker and has_worker(tree):
                    workers.up_for(tree)  # its start is not timed, as the server's is not
                    with_worker = {**env, "ASSAY_WORKER": "1"}
                    rows.setdefault(("1-case run, worker up", i), []).append(
                        timed(run_args(one, scratch / f"one-w-{i}-{r}", tree), tree, with_worker)[:2])
                    rows.setdefault(("10-case identical rerun, worker up", i), []).append(
                        timed(run_args(ten, scratch / f"ten-{i}", tree), tree, with_worker)[:2])
                wall, cpu, output = timed(run_args(one, scratch / f"one-{i}-{r}", tree), tree, env)
                rows.setdefault(("1-case run", i), []).append((wall, cpu))
                validate = step_seconds(output, "validate")
                if validate is not None:
                    rows.setdefault(("  its validation step", i), []).append((validate, float("nan")))
                rows.setdefault(("10-case identical rerun", i), []).append(
                    timed(run_args(ten, scratch / f"ten-{i}", tree), tree, env)[:2])
                _, _, output = timed([sys.executable, "-c", NOTEBOOK, str(ten), str(scratch / f"nb-{i}-{r}-a"),
                                      str(scratch / f"nb-{i}-{r}-b")], tree, env)
                calls = json.loads(next(line for line in output.splitlines() if line.startswith("calls "))[6:])
                for label, call in zip(("1st call", "2nd call, new folder", "3rd call, same folder"), calls, strict=True):
                    rows.setdefault((f"evaluate, {label}", i), []).append(tuple(call))
                print(f"  round {r + 1}, tree {i + 1} done (load {os.getloadavg()[0]:.1f})", flush=True)
    finally:
        workers.down()
        stop_local_server(home)
        shutil.rmtree(scratch, ignore_errors=True)
    header = "".join(f"  {('tree ' + str(i + 1)):>16s}" for i in range(len(trees)))
    print(f"\n{'median wall s / cpu s':34s}{header}")
    for label in dict.fromkeys(label for label, _ in rows):
        cells = ""
        for i in range(len(trees)):
            values = rows.get((label, i), [])
            wall = statistics.median(v[0] for v in values)
            cpus = [v[1] for v in values if v[1] == v[1]]
            cells += f"  {wall:7.2f} / {statistics.median(cpus):5.2f}" if cpus else f"  {wall:7.2f}        "
        print(f"{label:34s}{cells}")
    for i, tree in enumerate(trees):
        print(f"tree {i + 1}: {tree}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
