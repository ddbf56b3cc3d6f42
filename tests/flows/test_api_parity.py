"""`assay.evaluate` refuses what `assay run` refuses, with the same line (`SpecError`), before
any server starts or run directory is written; and it runs on assay's kept local server, as
`assay run` does, instead of starting a temporary one per call."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

import assay
from assay.flows.local_server import read_state, server_dir
from assay.spec import SpecError
from tests.flows.test_local_server import ROOT, env_for, home, supervisors  # noqa: F401  (fixture)
from tests.support.cli import cli

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(("kwargs", "says"), [
    ({"dataset": "nope"}, "no such directory"),
    ({"suite": "nope"}, "unknown suite"),
    ({"judges": ["gpt-4o"], "api_base": None}, "gpt-4o"),
    ({"config": "no-such-run.yaml"}, "no-such-run.yaml"),
])
def test_evaluate_raises_what_assay_run_says_before_anything_starts(home, tmp_path, monkeypatch, kwargs, says):  # noqa: F811
    monkeypatch.setenv("PREFECT_HOME", str(home))
    monkeypatch.setenv("ASSAY_SERVER_IDLE_SECONDS", "120")  # a kept server would be started: none may be
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "runs"
    suite = kwargs.pop("suite", "rag_qa")
    started = time.monotonic()
    with pytest.raises(SpecError) as raised:
        assay.evaluate(suite, out=out, **kwargs)
    print(f"evaluate({suite!r}, {kwargs}) refused in {time.monotonic() - started:.2f} s: {raised.value}")
    assert says in str(raised.value) and "\n" not in str(raised.value)
    assert not out.exists() or not [p for p in out.iterdir() if p.name != ".assay"]  # no run directory
    assert read_state(server_dir(home)) is None and supervisors(home) == []  # no server started
    # `assay run` says the same thing
    args = ["run", suite, "--out", str(out)] + (["--dataset", kwargs["dataset"]] if "dataset" in kwargs else []) \
        + [f for judge in kwargs.get("judges", []) for f in ("--judge", judge)] \
        + (["--config", kwargs["config"]] if "config" in kwargs else [])
    result, output = cli(*args)
    assert result.exit_code == 1 and says in output, output


EVALUATE_ON_THE_KEPT_SERVER = """
import json, sys, time
import assay
started = time.monotonic()
run = assay.evaluate("rag_qa", offline=True, out=sys.argv[1])
print(json.dumps({"status": run.status, "seconds": time.monotonic() - started, "run_dir": str(run.run_dir)}))
"""


def test_evaluate_uses_the_kept_local_server_as_assay_run_does(home, tmp_path):  # noqa: F811
    runs = []
    for _ in range(2):  # the second call finds the server the first left running
        done = subprocess.run([sys.executable, "-c", EVALUATE_ON_THE_KEPT_SERVER, str(tmp_path / "runs")], cwd=ROOT,
                              env=env_for(home, 120), capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        state = read_state(server_dir(home))
        assert state is not None and supervisors(home) == [state.pid], "evaluate() did not use the kept server"
    print("evaluate() seconds, first call then with the server up: "
          + ", ".join(f"{r['seconds']:.1f}" for r in runs))
    assert [r["status"] for r in runs] == ["completed", "completed"]
    manifest = json.loads((Path(runs[1]["run_dir"]) / "manifest.json").read_text())
    assert {s["status"] for s in manifest["steps"]} == {"reused"}
    assert not list((server_dir(home) / "leases").iterdir())  # each call released its lease
