"""A run whose process is gone is listed as interrupted, with the `assay rerun` hint; one on
another host as running-elsewhere; one still running as running (issue 33, item 9). Processes
here are real: a child started and killed, this test's own process."""

import json
import subprocess
import sys

from assay.lineage.manifest import Manifest, anchor, now_iso
from assay.lineage.store import ArtifactStore
from assay.liveness import RunProcess, process_state, this_process
from assay.runs import format_runs, list_runs, show_run
from tests.support.cli import cli


def write_running(out, run_id, process):
    manifest = Manifest(run_id=run_id, suite="rag_qa", created_at=now_iso(), process=process)
    (out / run_id).mkdir(parents=True)
    (out / run_id / "manifest.json").write_text(json.dumps(anchor(manifest.model_dump(mode="json"))), encoding="utf-8")


def killed_process() -> RunProcess:
    """The record a run wrote while its process ran, for a process that has since been killed."""
    child = subprocess.Popen([sys.executable, "-c", "import json, sys; from assay.liveness import this_process;"
                              "print(this_process().model_dump_json(), flush=True); sys.stdin.read()"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    record = RunProcess.model_validate_json(child.stdout.readline())
    assert process_state(record) == "alive"
    child.kill()
    child.wait()
    return record


def test_a_killed_run_is_interrupted_a_live_one_running_and_another_hosts_elsewhere(tmp_path):
    killed = killed_process()
    write_running(tmp_path, "r-killed", killed)
    write_running(tmp_path, "r-live", this_process())
    write_running(tmp_path, "r-remote", RunProcess(pid=1, host="another-host.example", started="x:1"))
    write_running(tmp_path, "r-old", None)  # written by an assay that recorded no process
    rows = {row.run_id: row for row in list_runs(ArtifactStore(str(tmp_path)))}
    assert {run_id: row.status for run_id, row in rows.items()} == {
        "r-killed": "interrupted", "r-live": "running", "r-remote": "running-elsewhere", "r-old": "unknown"}
    assert "assay rerun r-killed" in rows["r-killed"].problem and str(killed.pid) in rows["r-killed"].problem
    assert "another-host.example" in rows["r-remote"].problem
    listing = format_runs(list(rows.values()))
    assert "interrupted" in listing and "resume: assay rerun r-killed" in listing
    assert "status:    interrupted" in show_run(ArtifactStore(str(tmp_path)), "r-killed")

    result, output = cli("runs", "--out", str(tmp_path), "--status", "interrupted")
    assert result.exit_code == 0 and "r-killed" in output and "r-live" not in output


def test_a_reused_pid_is_not_the_run_s_process(tmp_path):
    """The pid alone is not enough: a new process with the same pid has another start time."""
    me = this_process()
    assert process_state(me.model_copy(update={"started": me.started + "0"})) == "gone"
