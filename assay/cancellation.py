"""A process-wide stop request, so SIGTERM ends a run promptly and resumably.

The CLI's signal handler calls ``request_stop()``; the jury runner stops sending new calls
(the ones already answered are in the call store), and the flow stops at the next step
boundary, records the run as stopped, and ``assay rerun`` picks it up from there.
"""

from __future__ import annotations

import threading

_STOP = threading.Event()
_REASON: list[str] = []


class RunStopped(RuntimeError):
    """The run was asked to stop (e.g. SIGTERM); it can be resumed with ``assay rerun``."""


def request_stop(reason: str = "stop requested") -> None:
    _REASON[:] = [reason]
    _STOP.set()


def stop_requested() -> bool:
    return _STOP.is_set()


def raise_if_stopped() -> None:
    if _STOP.is_set():
        raise RunStopped(f"run stopped ({_REASON[0] if _REASON else 'stop requested'}); resume with `assay rerun`")


def reset() -> None:
    _STOP.clear()
    _REASON.clear()
