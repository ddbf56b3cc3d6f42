"""A judged run's flow, code trees side by side: the whole command, each step, and the judge step
around its calls, against one loopback judge.

    python bench/judge_step.py TREE [TREE ...] [--cases 960] [--latency 0.05 0.2] [--concurrency 32]
                               [--repeat 3] [--warm]

Each tree is a checkout of assay (``git archive <ref> | tar -x -C DIR`` makes one), run with this
interpreter and ``PYTHONPATH`` set to it. The data and the fake judge are ``bench/peers.py``'s:
``--cases`` rag_qa cases (copies of the bundled ones, each question numbered), one judge call
each, the judge answering after ``--latency`` seconds. Every run is ``assay run rag_qa --judge
openai/bench-judge --api-base URL --concurrency N`` into a fresh output folder (nothing cached, no
call store), with ``ASSAY_TIMELINE=1``; one ``PREFECT_HOME`` whose local server an untimed warm-up
run of each tree starts. With ``--warm`` each tree gets its own ``PREFECT_HOME`` with ``assay server
start`` run first (the kept server and the resident worker), and every run is the ``assay`` console
command's way in (``assay.entry``), so it runs in that tree's worker as a user's would; the bench
stops if a run did not. Trees alternate, ``--repeat`` rounds, medians printed:

- ``whole command``: wall seconds and CPU seconds of the command (the kept server not counted;
  with ``--warm`` the run is the worker's child, so its CPU is not the command's and shows ``nan``);
- ``flow run``: from the flow run's start to its return (``flow run started`` → ``flow returned``);
- each step's seconds as the console reports them;
- ``judge step vs ideal``: ideal (cases x latency / concurrency) over the judge step's seconds;
- ``before first request`` / ``after last reply``: the judge step's start to the server's first
  request, the server's last reply to the step's end; ``judging span`` between them.

Every run's artifacts are checked against the first tree's first run on the same judge server
(its address is part of every call key): ``scores/all.jsonl`` and
every other artifact must be byte-identical once the fields that carry a clock are left out
(``created_at``, ``latency_s``, and what hashes over them); an artifact that differs between two
runs of the first tree too (Great Expectations' results carry their own run ids) is named and
not compared. The last line says ``SAME OUTPUTS`` or which artifacts differ.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.peers import MODEL, build_data, read_stats, start_server  # noqa: E402

TIMELINE_PREFIX = "assay-timeline "
STEP_LINE = re.compile(r"^[✓↺✗] (\S+): (ran|reused|failed) in ([0-9.]+)s")
JUDGE_STEP = "metrics:answer"
CLOCK_FIELDS = {"created_at", "latency_s", "response_sha256", "digest", "finished_at", "started_at", "duration_s"}


def clockless(value: Any) -> Any:
    """``value`` without the fields that differ between two runs of the same code (times)."""
    if isinstance(value, dict):
        return {k: clockless(v) for k, v in value.items() if k not in CLOCK_FIELDS}
    if isinstance(value, list):
        return [clockless(v) for v in value]
    return value


def artifact_digests(run_dir: Path) -> dict[str, str]:
    """Artifact name -> sha256 of its bytes; for JSON objects of judge calls and jury runs, of
    their clockless JSON instead (their records carry when a call was made and how long it took)."""
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    out = {}
    for name, entry in manifest["artifacts"].items():
        if name.startswith("judge_calls/") or name.endswith("jury_runs.json") or name.endswith("gx_results.json"):
            data = json.loads((run_dir / entry["path"]).read_bytes())
            text = json.dumps(clockless(data), sort_keys=True, ensure_ascii=False)
            out[name] = hashlib.sha256(text.encode()).hexdigest()
        else:
            out[name] = entry["sha256"]
    return out


def tree_env(tree: Path, prefect_home: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree), "PREFECT_HOME": str(prefect_home), "OPENAI_API_KEY": "no-key",
            "NO_COLOR": "1", "ASSAY_TIMELINE": "1", "ASSAY_SERVER_IDLE_SECONDS": "600"}


def assay_command(warm: bool) -> list[str]:
    """``assay`` as the console command runs it (``assay.entry``: to the resident worker when one
    runs this tree) with ``--warm``; else the CLI in this process (``assay.cli``), as before."""
    module = "assay.entry" if warm else "assay.cli"
    return [sys.executable, "-c", f"import sys; from {module} import main; sys.exit(main())"]


def one_run(tree: Path, dataset: Path, base: str, out: Path, concurrency: int, prefect_home: Path,
            warm: bool = False) -> dict[str, Any]:
    env = tree_env(tree, prefect_home)
    command = [*assay_command(warm), "run", "rag_qa", "--dataset", str(dataset), "--judge",
               f"openai/{MODEL}", "--api-base", base, "--concurrency", str(concurrency), "--out", str(out)]
    read_stats(base)  # reset
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    stats = read_stats(base)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: exited {done.returncode}:\n{done.stderr[-3000:]}")
    marks: dict[str, float] = {}
    steps: dict[str, float] = {}
    for line in done.stderr.splitlines():
        if line.startswith(TIMELINE_PREFIX):
            marks = {label: at for label, at in json.loads(line[len(TIMELINE_PREFIX):])["marks"]}
        elif found := STEP_LINE.match(line.strip()):
            steps[found[1]] = float(found[3])
    run_dir = Path(next(line.split(":", 1)[1].strip() for line in done.stdout.splitlines() + done.stderr.splitlines()
                        if line.startswith("run dir:")))
    step_end = marks[f"step {JUDGE_STEP} ran"]
    step_start = step_end - steps[JUDGE_STEP]
    if warm and not any(label.startswith("worker child") for label in marks):
        raise SystemExit(f"{tree}: --warm, but the run did not go to the resident worker:\n{done.stderr[-2000:]}")
    return {
        "wall": wall,
        # with --warm the run is the worker's child, not this process's: its CPU is not counted
        "cpu": float("nan") if warm else (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "flow": marks["flow returned"] - marks["flow run started"],
        "steps": steps,
        "before_first": stats["first_at"] - step_start,
        "after_last": step_end - stats["last_at"],
        "span": stats["span_s"],
        "most_in_flight": stats["most_in_flight"],
        "calls": stats["calls"],
        "artifacts": (artifacts := artifact_digests(run_dir)),
        "scores": artifacts["scores/all.jsonl"],
    }


def step_seconds(step: str) -> Any:
    return lambda r: r["steps"].get(step, 0.0)


def table(trees: list[Path], results: dict[Path, list[dict[str, Any]]], ideal: float) -> str:
    def med(tree: Path, pick: Any) -> float:
        return statistics.median(pick(r) for r in results[tree])

    steps = list(results[trees[0]][0]["steps"])
    rows: list[tuple[str, Any, str]] = [
        ("whole command, wall s", lambda r: r["wall"], "{:.1f}"),
        ("whole command, CPU s", lambda r: r["cpu"], "{:.1f}"),
        ("flow run (started → returned), s", lambda r: r["flow"], "{:.2f}"),
        *[(f"step {step}, s", step_seconds(step), "{:.2f}") for step in steps],
        (f"judge step vs ideal ({ideal:.2f} s)", lambda r: ideal / r["steps"][JUDGE_STEP], "{:.2f}"),
        ("judge step: before first request, s", lambda r: r["before_first"], "{:.2f}"),
        ("judge step: judging span, s", lambda r: r["span"], "{:.2f}"),
        ("judge step: after last reply, s", lambda r: r["after_last"], "{:.2f}"),
        ("most calls in flight", lambda r: r["most_in_flight"], "{:.0f}"),
    ]
    paired = len(trees) == 2  # base and change: the change's figure over the base's
    out = ["| | " + " | ".join(t.name for t in trees) + (" | ratio |" if paired else " |"),
           "|---|" + "---|" * (len(trees) + paired)]
    for label, pick, fmt in rows:
        cells = [fmt.format(med(t, pick)) for t in trees]
        if paired:
            first, second = med(trees[0], pick), med(trees[1], pick)
            cells.append(f"{second / first:.2f}" if first else "-")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--cases", type=int, default=960)
    parser.add_argument("--latency", type=float, nargs="+", default=[0.05, 0.2])
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--warm", action="store_true",
                        help="each tree's runs go to its resident worker (`assay server start`, one PREFECT_HOME a "
                             "tree), as `assay run` does once a user has started it")
    args = parser.parse_args()
    trees = [t.resolve() for t in args.trees]
    scratch = Path(tempfile.mkdtemp(prefix="assay-judge-step-"))
    # one kept server for all trees; with --warm one each, since a resident worker runs one tree
    homes = {t: scratch / (f"prefect-home-{i}" if args.warm else "prefect-home") for i, t in enumerate(trees)}
    reference: dict[str, str] = {}  # the artifacts of the first run against this server
    varying: set[str] = set()  # artifacts that differ between runs of the first tree too
    differs: set[str] = set()  # artifacts of another tree that differ from the first run's
    try:
        if args.warm:
            for tree in trees:
                subprocess.run([*assay_command(False), "server", "start"], cwd=tree, env=tree_env(tree, homes[tree]),
                               check=True, capture_output=True, text=True, timeout=300)
        dataset, _ = build_data(args.cases, scratch)
        print(f"{args.cases} cases, concurrency {args.concurrency}, {args.repeat} alternated rounds; "
              f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}", flush=True)
        counter = 0
        for latency in args.latency:
            process, base = start_server(latency)
            reference = {}  # each server has its own port, which is part of every call key
            try:
                for tree in trees:  # the kept server up, and each tree's bytecode compiled: not timed
                    counter += 1
                    one_run(tree, dataset, base, scratch / f"run-{counter}", args.concurrency, homes[tree], args.warm)
                results: dict[Path, list[dict[str, Any]]] = {t: [] for t in trees}
                for round_ in range(args.repeat):
                    for tree in trees:
                        counter += 1
                        r = one_run(tree, dataset, base, scratch / f"run-{counter}", args.concurrency, homes[tree],
                                    args.warm)
                        shutil.rmtree(scratch / f"run-{counter}", ignore_errors=True)
                        results[tree].append(r)
                        reference = reference or r["artifacts"]
                        names = r["artifacts"].keys() | reference.keys()
                        changed = {n for n in names if r["artifacts"].get(n) != reference.get(n)}
                        (varying if tree == trees[0] else differs).update(changed)
                        print(f"  {latency * 1000:.0f} ms round {round_ + 1} {tree.name}: {r['wall']:.1f} s, judge step "
                              f"{r['steps'][JUDGE_STEP]:.2f} s (before {r['before_first']:.2f}, span {r['span']:.2f}, "
                              f"after {r['after_last']:.2f}), load {os.getloadavg()[0]:.1f}", flush=True)
                ideal = args.cases * latency / args.concurrency
                print(f"\n{latency * 1000:.0f} ms judge, medians of {args.repeat}:\n"
                      + table(trees, results, ideal) + "\n", flush=True)
            finally:
                process.terminate()
                process.wait()
        print(f"load average after: {os.getloadavg()[0]:.1f}")
        changed = sorted(differs - varying)
        print(f"artifacts that differ between runs of {trees[0].name} too (not compared): "
              + (", ".join(sorted(varying)) or "none"))
        print("SAME OUTPUTS (scores/all.jsonl and every other artifact, clock fields left out)" if not changed else
              "DIFFERENT OUTPUTS: " + ", ".join(changed[:20]) + (" …" if len(changed) > 20 else ""))
    finally:
        for tree, home in homes.items():
            if home.exists():
                subprocess.run([*assay_command(False), "server", "stop"], capture_output=True, cwd=tree,
                               env=tree_env(tree, home))
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
