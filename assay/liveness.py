"""Is a run that says "running" still running? What a run records about its own process.

A run's manifest says ``running`` until the run ends. A run killed outright (SIGKILL, a lost
machine) never writes its end, so the manifest also records the process that runs it: its pid,
its host and when that process started (on Linux the boot id and the process's start time in
clock ticks, which tell a reused pid from the original). A reader on the same host can then
tell a run whose process is gone (``interrupted``: resume it with ``assay rerun``) from one
still going; a run on another host cannot be checked from here (``running-elsewhere``).
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

ProcessState = Literal["alive", "gone", "elsewhere", "unknown"]


class RunProcess(BaseModel):
    pid: int
    host: str
    started: str = Field(default="", description="the process's start: '<boot id>:<start ticks>' on Linux, else ''")


def this_process() -> RunProcess:
    return RunProcess(pid=os.getpid(), host=socket.gethostname(), started=_started(os.getpid()) or "")


def process_state(process: RunProcess | None) -> ProcessState:
    """Whether the recorded process still runs: ``alive``, ``gone`` (the run was interrupted),
    ``elsewhere`` (another host: not checkable here) or ``unknown`` (nothing was recorded)."""
    if process is None:
        return "unknown"
    if process.host != socket.gethostname():
        return "elsewhere"
    try:
        os.kill(process.pid, 0)
    except ProcessLookupError:
        return "gone"
    except PermissionError:
        pass  # another user's process: it exists
    started = _started(process.pid)
    if started is not None and process.started and started != process.started:
        return "gone"  # the pid now belongs to another process
    if started is None and Path("/proc/self/stat").exists():
        return "gone"  # a zombie or vanished between the two checks
    return "alive"


def _started(pid: int) -> str | None:
    """``<boot id>:<start time in ticks>`` of process ``pid`` (Linux), None where unreadable."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    if fields[0] == "Z":  # exited, not yet reaped
        return None
    return f"{boot}:{fields[19]}"  # field 22 of stat; fields here start at field 3
