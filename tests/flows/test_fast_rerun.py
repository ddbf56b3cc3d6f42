"""An identical rerun, as a user runs it (`assay run` twice, each its own process): every step
is a cache hit, the libraries only a step's own work needs are never imported, the early
temporary server carries the run, and the rerun's run directory passes `assay audit`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from assay.timeline import PREFIX as TIMELINE_PREFIX
from tests.support.cli import cli

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("great_expectations", "litellm", "torch", "sentence_transformers", "matplotlib")

# `assay run …` in this interpreter, printing at exit which heavy libraries the process imported.
DRIVER = f"""
import atexit, json, runpy, sys
atexit.register(lambda: print("heavy-modules " + json.dumps(sorted(
    m for m in sys.modules if m.split(".")[0] in {HEAVY!r})), file=sys.stderr))
sys.argv = ["assay", *sys.argv[1:]]
runpy.run_module("assay.cli", run_name="__main__")
"""


def assay_run(out: Path) -> tuple[str, list[str], dict]:
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}  # the early server, as for a user
    env["ASSAY_TIMELINE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, "run", "rag_qa", "--offline", "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    run_dir = next(line.split()[-1] for line in done.stdout.splitlines() if line.startswith("run dir:"))
    heavy = next(json.loads(line.split(" ", 1)[1]) for line in done.stderr.splitlines() if line.startswith("heavy-modules "))
    timeline = next(json.loads(line[len(TIMELINE_PREFIX):]) for line in done.stderr.splitlines() if line.startswith(TIMELINE_PREFIX))
    return run_dir, heavy, timeline


def test_an_identical_rerun_reuses_every_step_imports_no_step_library_and_passes_audit(tmp_path):
    first_dir, first_heavy, _ = assay_run(tmp_path)
    assert "great_expectations" in first_heavy  # the cold run did validate: the check below can fail

    rerun_dir, heavy, timeline = assay_run(tmp_path)
    assert rerun_dir != first_dir
    assert heavy == []

    manifest = json.loads((Path(rerun_dir) / "manifest.json").read_text())
    assert manifest["status"] == "completed"
    assert {s["status"] for s in manifest["steps"]} == {"reused"}
    for name, entry in manifest["artifacts"].items():  # sizes recorded from the cache-hit check
        assert (Path(rerun_dir) / entry["path"]).stat().st_size == entry["size"], name

    marks = [label for label, _ in timeline["marks"]]
    assert marks.index("server launched") < marks.index("spec built") < marks.index("server healthy")
    assert timeline["totals"]["manifest saves"][0] == 2  # the start and the end: reused steps add none

    result, output = cli("audit", rerun_dir)  # in-process: the runs above are the fresh interpreters
    assert result.exit_code == 0, output
