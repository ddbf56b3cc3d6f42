"""What a run costs beyond its work: a cold demo run and identical reruns, side by side.

    python bench/rerun.py [--suite rag_qa] [--repeat 3] [--compare-ref main] [--setups default,idle0,running]

In a fresh ``--out`` per code tree: a cold run (empty ``--out``: no cached steps, no call store,
no assay local server running; Prefect's database and Python's bytecode caches are as the
machine has them), then identical reruns (every step a cache hit), alternated ``--repeat`` times
across set-ups and trees so the machine's load hits them alike. Set-ups:

- ``default``: as a user runs it: this tree reuses the local server the cold run left running
  (``flows/local_server.py``); a tree without it starts a temporary server per run;
- ``idle0``: ``ASSAY_SERVER_IDLE_SECONDS=0``: a temporary server per run, started first and
  booting while the flow is imported (``flows/ephemeral_server.py``);
- ``own``: ``ASSAY_EARLY_SERVER=0`` as well: Prefect starts its temporary server on first use;
- ``running``: ``PREFECT_API_URL`` names a server that is already up (``make server``).

The CPU seconds count the processes a run waits for: a server that outlives the run (the local
server, ``running``) is not counted — its start-up CPU lands in no row.

``--compare-ref REF`` runs the same rows with the code of git ref REF (a temporary
``git worktree``, same virtual environment), so a change is measured against what it changes.

Printed per row: median wall seconds and CPU seconds of the whole process tree (user + system,
from ``getrusage(RUSAGE_CHILDREN)``), which the machine's load moves far less than wall time.
Then, for this tree, where the seconds go (``ASSAY_TIMELINE=1``, ``assay/timeline.py``): the
time from launch to each phase mark and the summed repeated costs, cold run and median rerun.
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
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assay.flows.local_server import IDLE_ENV  # noqa: E402
from assay.flows.local_server import stop as stop_local_server  # noqa: E402
from assay.timeline import ENV as TIMELINE_ENV  # noqa: E402
from assay.timeline import PREFIX as TIMELINE_PREFIX  # noqa: E402


class Timed:
    def __init__(self, wall: float, cpu: float, timeline: dict | None, launched: float) -> None:
        self.wall, self.cpu, self.timeline, self.launched = wall, cpu, timeline, launched

    def phases(self) -> list[tuple[str, float]]:
        """Seconds spent before each mark (since the previous mark, the first since launch)."""
        if not self.timeline:
            return []
        out, previous = [], self.launched
        for label, at in self.timeline["marks"]:
            out.append((label, at - previous))
            previous = at
        return out


def timed(args: list[str], cwd: Path, env: dict[str, str]) -> Timed:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    launched = time.time()
    started = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} (in {cwd}) exited {done.returncode}:\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    timeline = None
    for line in done.stderr.splitlines():
        if line.startswith(TIMELINE_PREFIX):
            timeline = json.loads(line[len(TIMELINE_PREFIX):])
    return Timed(wall, cpu, timeline, launched)


def start_server(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/api"
    for _ in range(1200):
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2):
                return process, url
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the Prefect server did not come up")


def add_worktree(ref: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix="assay-rerun-ref-"))
    subprocess.run(["git", "worktree", "add", "--detach", str(path), ref], cwd=ROOT, check=True,
                   capture_output=True)
    return path


def remove_worktree(path: Path) -> None:
    subprocess.run(["git", "worktree", "remove", "--force", str(path)], cwd=ROOT, capture_output=True)
    shutil.rmtree(path, ignore_errors=True)


def median_phases(runs: list[Timed]) -> list[tuple[str, float]]:
    per_run = [dict(r.phases()) for r in runs if r.timeline]
    if not per_run:
        return []
    labels = [label for label, _ in runs[0].phases()]
    return [(label, statistics.median(p.get(label, 0.0) for p in per_run)) for label in labels]


def median_totals(runs: list[Timed]) -> dict[str, tuple[int, float]]:
    totals: dict[str, list[tuple[int, float]]] = {}
    for r in runs:
        for label, (count, seconds) in (r.timeline or {}).get("totals", {}).items():
            totals.setdefault(label, []).append((count, seconds))
    return {label: (values[0][0], statistics.median(s for _, s in values)) for label, values in totals.items()}


def print_breakdown(title: str, runs: list[Timed]) -> None:
    phases = median_phases(runs)
    if not phases:
        return
    print(f"\n{title} (median of {len(runs)}; seconds since the previous mark)")
    steps = [seconds for label, seconds in phases if label.startswith("step ")]
    shown_steps = False
    for label, seconds in phases:
        if not label.startswith("step "):
            print(f"  {seconds:6.2f}  -> {label}")
        elif not shown_steps:  # the steps, one row: their marks are per step
            print(f"  {sum(steps):6.2f}  -> {len(steps)} steps settled")
            shown_steps = True
    for label, (count, seconds) in sorted(median_totals(runs).items()):
        print(f"  {seconds:6.3f}  {count:3d}x {label}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="rag_qa")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compare-ref", default=None, help="git ref whose code runs the same rows, side by side")
    parser.add_argument("--setups", default="default,idle0,running", help="comma-separated: default, idle0, own, running")
    args = parser.parse_args()
    setups = [s for s in args.setups.split(",") if s]
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", TIMELINE_ENV)}
    env.update(PREFECT_SERVER_ANALYTICS_ENABLED="false", DO_NOT_TRACK="1", **{TIMELINE_ENV: "1"})
    trees = {"this tree": ROOT}
    scratch: list[Path] = []
    if args.compare_ref:
        trees[args.compare_ref] = add_worktree(args.compare_ref)
    outs = {label: Path(tempfile.mkdtemp(prefix="assay-rerun-out-")) for label in trees}
    scratch.extend(outs.values())

    def command(label: str) -> list[str]:
        return [sys.executable, "-m", "assay.cli", "run", args.suite, "--offline", "--out", str(outs[label])]

    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; assay run {args.suite} --offline; "
          f"trees: {', '.join(trees)}")
    server = url = None
    results: dict[tuple[str, str], list[Timed]] = {}
    try:
        if "running" in setups:
            server, url = start_server(env)
        idle0 = {**env, IDLE_ENV: "0"}
        setup_env = {"default": env, "idle0": idle0, "own": {**idle0, "ASSAY_EARLY_SERVER": "0"},
                     "running": {**env, "PREFECT_API_URL": url or ""}}
        if stop_local_server() is not None:
            print("stopped the local server that was running, so the cold run starts one")
        for label, tree in trees.items():
            results[(label, "cold run")] = [timed(command(label), tree, env)]
        for _ in range(args.repeat):
            for setup in setups:
                for label, tree in trees.items():
                    results.setdefault((label, f"rerun, {setup} server"), []).append(timed(command(label), tree, setup_env[setup]))
    finally:
        stop_local_server()  # the one the cold run left running
        if server is not None:
            server.terminate()
            server.wait()
        for path in scratch:
            shutil.rmtree(path, ignore_errors=True)
        for tree in trees.values():
            if tree != ROOT:
                remove_worktree(tree)

    names = list(trees)
    header = "".join(f" {name[:18]:>18s}" for name in names)
    print(f"\n{'':26s}{header}   (median wall s / cpu s)" + ("   ratio wall" if len(names) == 2 else ""))
    rows = sorted({row for _, row in results}, key=lambda r: (not r.startswith("cold"), r))
    for row in rows:
        cells, walls = "", []
        for name in names:
            runs = results.get((name, row), [])
            wall, cpu = statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs)
            walls.append(wall)
            cells += f" {wall:8.1f} / {cpu:6.1f} "
        ratio = f"   {walls[0] / walls[1]:5.2f}" if len(walls) == 2 else ""
        print(f"{row:26s}{cells}{ratio}")
    print_breakdown("where a cold run's seconds go, this tree", results[("this tree", "cold run")])
    for setup in ("default", "idle0"):
        if setup in setups:
            print_breakdown(f"where an identical rerun's seconds go, this tree, {setup} server",
                            results[("this tree", f"rerun, {setup} server")])
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
