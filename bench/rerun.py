"""What a run costs beyond its work: a cold demo run and identical reruns, side by side.

    python bench/rerun.py [--suite rag_qa] [--repeat 2]

In one fresh ``--out``: a cold run (empty caches), then identical reruns (every step a cache
hit) in three set-ups, alternated ``--repeat`` times so the machine's load hits them alike:

- ``early server``: the default: Prefect's temporary server started first, booting while the
  flow is imported (``flows/ephemeral_server.py``);
- ``prefect's own``: ``ASSAY_EARLY_SERVER=0``, Prefect starts its temporary server on first use;
- ``running server``: ``PREFECT_API_URL`` names a server that is already up (``make server``).

Printed per row: wall seconds and CPU seconds of the whole process tree (user + system, from
``getrusage(RUSAGE_CHILDREN)``), which the machine's load moves far less than wall time.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="rag_qa")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="assay-rerun-"))
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(PREFECT_SERVER_ANALYTICS_ENABLED="false", DO_NOT_TRACK="1")
    run = [sys.executable, "-m", "assay.cli", "run", args.suite, "--offline", "--out", str(out)]
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; assay run {args.suite} --offline")
    print(f"{'':28s} {'wall s':>7s} {'cpu s':>7s}")
    server, url = start_server(env)
    try:
        wall, cpu = timed(run, env)
        print(f"{'cold run (early server)':28s} {wall:7.1f} {cpu:7.1f}", flush=True)
        setups = {
            "rerun, early server": env,
            "rerun, prefect's own": {**env, "ASSAY_EARLY_SERVER": "0"},
            "rerun, running server": {**env, "PREFECT_API_URL": url},
        }
        for _ in range(args.repeat):
            for label, setup in setups.items():
                wall, cpu = timed(run, setup)
                print(f"{label:28s} {wall:7.1f} {cpu:7.1f}", flush=True)
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(out, ignore_errors=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
