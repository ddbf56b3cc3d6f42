"""``ASSAY_TIMELINE=1``: the one line a process prints at exit, its marks, totals and notes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT

CODE = ("from assay import timeline; timeline.mark('a'); "
        "timeline.note('modules the run imported', ['x', 'y'])\nwith timeline.timed('t'): pass\n"
        "import time\nstarted = time.process_time()\nwhile time.process_time() - started < 0.2: pass\n"
        "time.sleep(0.2)\ntimeline.mark('b')")


def _run(**env: str) -> str:
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env})
    return done.stderr


def test_notes_are_printed_beside_the_marks_and_totals():
    line, = [x for x in _run(ASSAY_TIMELINE="1").splitlines() if x.startswith("assay-timeline ")]
    record = json.loads(line.removeprefix("assay-timeline "))
    assert [label for label, _ in record["marks"]] == ["a", "b", "exit"]
    assert record["totals"]["t"][0] == 1
    assert record["notes"] == {"modules the run imported": ["x", "y"]}


def test_nothing_is_printed_unless_asked():
    assert "assay-timeline" not in _run(ASSAY_TIMELINE="0")


def test_each_mark_has_the_process_cpu_seconds_beside_its_wall_time():
    line, = [x for x in _run(ASSAY_TIMELINE="1").splitlines() if x.startswith("assay-timeline ")]
    record = json.loads(line.removeprefix("assay-timeline "))
    wall, cpu = dict(record["marks"]), dict(record["cpu"])
    assert list(cpu) == ["a", "b", "exit"]
    # between a and b: 0.2 CPU s of work and 0.2 s asleep; the sleep is wall time only
    assert 0.19 <= cpu["b"] - cpu["a"] < 0.3 <= wall["b"] - wall["a"]
