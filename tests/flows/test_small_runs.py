"""Fixed costs paid once per process: a second ``assay.evaluate`` in one Python process (a
notebook) runs on the server the first one found or started — no second server, no second
start —, a small run's steps do not each pay a full garbage collection (``assay.memory``), and
its flow runs send no heartbeats on that server, as ``assay run``'s do not (their thread is
joined at the end of each flow run, waiting out its one-second sleep)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from assay.flows.local_server import read_state, server_dir
from bench.scale import synthesize
from tests.flows.test_local_server import ROOT, env_for, home, supervisors  # noqa: F401  (fixture)

pytestmark = pytest.mark.slow

# Two evaluate() calls in one process, each into its own output folder (so both compute every
# step); counts the local server starts and the steps' memory releases that collected, and notes
# each flow run's heartbeat interval (None: no heartbeat thread). Prefect is imported first, as
# in a notebook that used it before.
TWO_CALLS = """
import gc, json, sys
import assay
from assay import memory
import assay.flows.local_server as local_server
import prefect.flow_engine as flow_engine

starts, collections, heartbeats = [], [], []
real_heartbeats = flow_engine._send_heartbeats
flow_engine._send_heartbeats = lambda engine, *a, **k: heartbeats.append(engine.heartbeat_seconds) or real_heartbeats(engine, *a, **k)
real_start, real_collect = local_server._start, gc.collect
local_server._start = lambda *a, **k: starts.append(1) or real_start(*a, **k)
memory.gc = type("gc", (), {"collect": staticmethod(lambda *a: collections.append(1) or real_collect(*a))})
calls = []
for out in sys.argv[2:4]:
    starts.clear(); collections.clear(); heartbeats.clear()
    run = assay.evaluate("rag_qa", dataset=sys.argv[1], offline=True, out=out)
    state = local_server.read_state(local_server.server_dir())
    calls.append({"status": run.status, "steps": [s["status"] for s in json.loads((run.run_dir / "manifest.json").read_text())["steps"]],
                  "starts": len(starts), "collections": len(collections), "heartbeats": heartbeats, "server_pid": state.pid if state else None})
print(json.dumps(calls))
"""


def test_a_second_evaluate_in_one_process_reuses_its_server_and_skips_needless_collections(home, tmp_path):  # noqa: F811
    data = synthesize("rag_qa", 2, tmp_path / "two-cases")
    done = subprocess.run([sys.executable, "-c", TWO_CALLS, str(data), str(tmp_path / "a"), str(tmp_path / "b")],
                          cwd=ROOT, env=env_for(home, 120), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    first, second = json.loads(done.stdout.strip().splitlines()[-1])
    assert first["status"] == second["status"] == "completed"
    assert set(second["steps"]) == {"ran"}  # a new output folder: the second call did all the work again
    assert first["starts"] == 1 and second["starts"] == 0  # one server for the process
    state = read_state(server_dir(home))
    assert state is not None and first["server_pid"] == second["server_pid"] == state.pid
    assert supervisors(home) == [state.pid]
    # the first call grew the process (Great Expectations, the analyser): it released at least once;
    # the second call's steps read two cases and grew nothing worth a collection
    assert first["collections"] >= 1
    assert second["collections"] == 0
    assert first["heartbeats"] == second["heartbeats"] == [None]  # one flow run each, no heartbeat thread
