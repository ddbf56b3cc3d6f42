"""Where a run's seconds go: phase marks and summed costs, printed only when asked.

``ASSAY_TIMELINE=1`` makes the process print, at exit, one line to stderr::

    assay-timeline {"marks": [["cli", 1764046472.12], ...], "totals": {"manifest saves": [8, 0.031]}}

Marks are wall-clock times (``time.time()``), so a caller that noted when it launched the
process (``bench/rerun.py``) can place interpreter start-up and imports too. Beside them,
``"cpu"`` gives the process's CPU seconds (every thread, user and system) at each mark: on a
shared machine a phase's wall seconds include waiting for a core, its CPU seconds do not. Totals sum the
seconds and count of a repeated cost (each manifest save, each step's cache check); notes, when
any, are facts beside them (``"notes": {...}``). With the variable unset, ``mark``, ``timed`` and
``note`` cost one dictionary lookup.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

ENV = "ASSAY_TIMELINE"
PREFIX = "assay-timeline "

_marks: list[tuple[str, float]] = []
_cpu: list[tuple[str, float]] = []  # the process's CPU seconds at each mark
_totals: dict[str, list[float]] = {}
_notes: dict[str, object] = {}
_lock = threading.Lock()
_registered = False


def enabled() -> bool:
    return os.environ.get(ENV) == "1"


def mark(label: str) -> None:
    """Note that phase ``label`` was reached now."""
    if not enabled():
        return
    with _lock:
        _register()
        _marks.append((label, time.time()))
        _cpu.append((label, time.process_time()))


@contextmanager
def timed(label: str) -> Iterator[None]:
    """Add the seconds of the enclosed block to the total named ``label``."""
    if not enabled():
        yield
        return
    started = time.perf_counter()
    try:
        yield
    finally:
        seconds = time.perf_counter() - started
        with _lock:
            _register()
            count_sum = _totals.setdefault(label, [0, 0.0])
            count_sum[0] += 1
            count_sum[1] += seconds


def note(label: str, value: object) -> None:
    """Record a fact about the run beside its marks (e.g. the modules a worker's child had to import)."""
    if not enabled():
        return
    with _lock:
        _register()
        _notes[label] = value


def _register() -> None:
    global _registered
    if not _registered:
        _registered = True
        atexit.register(_emit)


def _emit() -> None:
    _marks.append(("exit", time.time()))
    _cpu.append(("exit", time.process_time()))
    record = {"marks": [[label, round(at, 4)] for label, at in _marks],
              "cpu": [[label, round(seconds, 4)] for label, seconds in _cpu],
              "totals": {label: [int(n), round(s, 4)] for label, (n, s) in _totals.items()}}
    if _notes:
        record["notes"] = dict(_notes)
    sys.stderr.write(PREFIX + json.dumps(record) + "\n")
    sys.stderr.flush()
