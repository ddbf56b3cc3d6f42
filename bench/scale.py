"""How an offline run scales with the number of cases: time, memory, bytes, rerun, audit.

    python bench/scale.py [--suites rag_qa agent] [--sizes 1000 10000] [--huge]

For each suite and size it builds a synthetic dataset by copying the bundled one's cases (and
their recorded generations/responses) under new ids until it has that many cases, then runs
``assay run SUITE --offline`` in a subprocess, runs it again unchanged (every step a cache
hit), audits the first run, then edits one case (its last case's first text field) and runs
again: only that case's partition is scored again. Printed per size: seconds, cases per second,
peak memory of the whole process tree (the sum of every descendant's RSS, sampled every 0.2 s
with psutil; ``max single`` is the largest one process reached, from
``getrusage(RUSAGE_CHILDREN)``), bytes written under ``--out`` by the first run (run directory
plus the shared pool and Prefect's results, each inode once) and per case, the manifest's and
report.html's size, rerun and audit seconds, and the one-case-edited run's seconds with how many
of its metric steps ran (the rest were reused). ``--huge`` adds 100,000 cases; ``--partition-size``
is passed to ``assay run``. The machine's load is printed: other work shares the cores.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
ASSAY = [sys.executable, "-m", "assay.cli"]

# suite -> (file with one case per line, files whose rows point at a case, their case-id field)
LAYOUT = {
    "rag_qa": ("cases.jsonl", {"generations.jsonl": "case_id", "answer_labels.jsonl": "case_id"}),
    "agent": ("cases.jsonl", {"responses.jsonl": "case_id"}),
    "report": ("cases.jsonl", {"generations.jsonl": "case_id"}),
}


def synthesize(suite: str, size: int, target: Path) -> Path:
    """A copy of the bundled dataset with ``size`` cases: copy k of case X is ``X-k``."""
    source = ROOT / "datasets" / suite
    shutil.copytree(source, target)
    cases_file, linked = LAYOUT[suite]
    cases = [json.loads(line) for line in (source / cases_file).read_text(encoding="utf-8").splitlines() if line.strip()]
    copies = -(-size // len(cases))
    chosen = [(k, c) for k in range(copies) for c in cases][:size]
    kept = {(k, c["id"]) for k, c in chosen}
    with open(target / cases_file, "w", encoding="utf-8") as out:
        for k, case in chosen:
            out.write(json.dumps({**case, "id": f"{case['id']}-{k}"}, ensure_ascii=False) + "\n")
    for name, field in linked.items():
        if not (source / name).exists():
            continue
        rows = [json.loads(line) for line in (source / name).read_text(encoding="utf-8").splitlines() if line.strip()]
        with open(target / name, "w", encoding="utf-8") as out:
            for k in range(copies):
                for row in rows:
                    if (k, row[field]) in kept:
                        out.write(json.dumps({**row, field: f"{row[field]}-{k}"}, ensure_ascii=False) + "\n")
    return target


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(args: list[str], cwd: Path = ROOT) -> tuple[float, float, int, int, str]:
    """(seconds, CPU seconds, peak tree RSS bytes, exit code, output) of one command run in
    ``cwd`` (whose ``assay`` package ``python -m`` imports), sampling its process tree. CPU
    seconds count the command and every descendant it waited for: under a shared machine's load
    they move far less than wall seconds."""
    started, cpu_before = time.perf_counter(), cpu_seconds()
    process = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        root = psutil.Process(process.pid)
        while not done.is_set():
            try:
                tree = [root, *root.children(recursive=True)]
                peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
            except psutil.Error:
                pass
            done.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output, _ = process.communicate()
    done.set()
    sampler.join()
    return time.perf_counter() - started, cpu_seconds() - cpu_before, peak, process.returncode, output


def bytes_under(path: Path) -> int:
    """Bytes on disk under ``path``, each inode once (a hard-linked artifact is one copy)."""
    seen: dict[tuple[int, int], int] = {}
    for p in path.rglob("*"):
        if p.is_file() and not p.is_symlink():
            st = p.stat()
            seen[(st.st_dev, st.st_ino)] = st.st_size
    return sum(seen.values())


def edit_one_case(suite: str, dataset: Path) -> None:
    """Append a marker to the first text field of the dataset's last case (still a valid case)."""
    path = dataset / LAYOUT[suite][0]
    lines = path.read_text(encoding="utf-8").splitlines()
    case = json.loads(lines[-1])
    field = next(k for k, v in case.items() if k != "id" and isinstance(v, str) and v)
    case[field] += " (edited)"
    lines[-1] = json.dumps(case, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def metric_steps(run_dir: str) -> tuple[int, int]:
    """(metric steps that ran, metric steps in all) of a run, from its manifest."""
    steps = [s for s in json.loads((Path(run_dir) / "manifest.json").read_text())["steps"] if s["name"].startswith("metrics:")]
    return sum(1 for s in steps if s["status"] == "ran"), len(steps)


def checked(label: str, args: list[str], cwd: Path = ROOT) -> tuple[float, float, int, str]:
    seconds, cpu, peak, code, output = timed(args, cwd)
    if code != 0:
        raise SystemExit(f"{label}: exited {code}:\n{output[-3000:]}")
    return seconds, cpu, peak, output


def run_dir_of(output: str) -> str:
    return next(line.split()[-1] for line in output.splitlines() if line.startswith("run dir:"))


def measure(suite: str, size: int, scratch: Path, partition_size: int | None) -> dict[str, float]:
    dataset = synthesize(suite, size, scratch / f"{suite}-{size}")
    out = scratch / f"runs-{suite}-{size}"
    run = [*ASSAY, "run", suite, "--offline", "--dataset", str(dataset), "--out", str(out)]
    run += ["--partition-size", str(partition_size)] if partition_size else []
    seconds, cpu, peak, output = checked(f"{suite} x {size}: assay run", run)
    run_dir = run_dir_of(output)
    written = bytes_under(out)
    rerun_seconds, _, _, _ = checked(f"{suite} x {size}: rerun", run)
    audit_seconds, _, _, _ = checked(f"{suite} x {size}: audit", [*ASSAY, "audit", run_dir])
    edit_one_case(suite, dataset)
    edited_seconds, _, _, output = checked(f"{suite} x {size}: one case edited", run)
    ran, total = metric_steps(run_dir_of(output))
    return {
        "seconds": seconds, "cpu_seconds": cpu, "cases_per_s": size / seconds, "peak_mb": peak / 2**20,
        "written_mb": written / 2**20, "manifest_mb": (Path(run_dir) / "manifest.json").stat().st_size / 2**20,
        "report_mb": (Path(run_dir) / "report.html").stat().st_size / 2**20,
        "rerun_seconds": rerun_seconds, "audit_seconds": audit_seconds,
        "edited_seconds": edited_seconds, "edited_ran": ran, "metric_steps": total,
    }


def measure_baseline(suite: str, size: int, scratch: Path, code: Path) -> dict[str, float]:
    """The first run only, with another checkout's code (``--baseline``), on a fresh copy of the
    same synthetic dataset and a store of its own."""
    dataset = synthesize(suite, size, scratch / f"{suite}-{size}-baseline")
    out = scratch / f"runs-{suite}-{size}-baseline"
    run = [*ASSAY, "run", suite, "--offline", "--dataset", str(dataset), "--out", str(out)]
    seconds, cpu, peak, output = checked(f"{suite} x {size}: baseline run", run, cwd=code)
    run_dir = Path(run_dir_of(output))
    return {"seconds": seconds, "cpu_seconds": cpu, "peak_mb": peak / 2**20, "written_mb": bytes_under(out) / 2**20,
            "manifest_mb": (run_dir / "manifest.json").stat().st_size / 2**20,
            "report_mb": (run_dir / "report.html").stat().st_size / 2**20}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suites", nargs="+", default=["rag_qa", "agent"], choices=sorted(LAYOUT))
    parser.add_argument("--sizes", nargs="+", type=int, default=[1000, 10000])
    parser.add_argument("--huge", action="store_true", help="also 100,000 cases")
    parser.add_argument("--keep", action="store_true", help="keep the synthetic datasets and runs")
    parser.add_argument("--partition-size", type=int, default=None, help="passed to assay run (default: its own)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another checkout (e.g. `git archive main | tar -x -C DIR`): its first run is measured "
                             "beside this code's and the ratios printed")
    args = parser.parse_args()
    sizes = [*args.sizes, *([100_000] if args.huge else [])]
    scratch = Path(tempfile.mkdtemp(prefix="assay-scale-"))
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; scratch {scratch}")
    print(f"{'suite':8s} {'cases':>7s} {'seconds':>8s} {'CPU s':>7s} {'cases/s':>8s} {'peak MB':>8s} {'max single MB':>13s} "
          f"{'written MB':>10s} {'KB/case':>8s} {'manifest MB':>11s} {'report MB':>9s} {'rerun s':>8s} {'audit s':>8s} "
          f"{'1 edit s':>8s} {'steps ran':>9s}")
    try:
        for suite in args.suites:
            for size in sizes:
                row = measure(suite, size, scratch, args.partition_size)
                single = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
                print(f"{suite:8s} {size:7d} {row['seconds']:8.1f} {row['cpu_seconds']:7.1f} {row['cases_per_s']:8.1f} {row['peak_mb']:8.0f} "
                      f"{single:13.0f} {row['written_mb']:10.1f} {row['written_mb'] * 1024 / size:8.1f} "
                      f"{row['manifest_mb']:11.2f} {row['report_mb']:9.2f} "
                      f"{row['rerun_seconds']:8.1f} {row['audit_seconds']:8.1f} {row['edited_seconds']:8.1f} "
                      f"{row['edited_ran']:4d}/{row['metric_steps']:<4d}", flush=True)
                print(f"  load average now {os.getloadavg()[0]:.1f}", flush=True)
                if args.baseline:
                    base = measure_baseline(suite, size, scratch, args.baseline.resolve())
                    print(f"  baseline {args.baseline}: {base['seconds']:.1f} s, {base['cpu_seconds']:.1f} CPU s, "
                          f"peak {base['peak_mb']:.0f} MB, written {base['written_mb']:.1f} MB, manifest "
                          f"{base['manifest_mb']:.2f} MB, report {base['report_mb']:.2f} MB; load average now "
                          f"{os.getloadavg()[0]:.1f}", flush=True)
                    ratios = ", ".join(f"{key} {row[key] / base[key]:.2f}" for key in
                                       ("seconds", "cpu_seconds", "peak_mb", "written_mb", "manifest_mb", "report_mb"))
                    print(f"  this code / baseline: {ratios}", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
