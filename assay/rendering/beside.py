"""A report's charts drawn in a forked child while the publish step does the rest of its work.

Drawing the charts (matplotlib: layout, rasterising, PNG) is about a third of the publish
step's CPU on a 960-case run, and needs only the summary; the scores' Parquet file, the
report's sections and tables need the rest. On a machine with a second core the child draws
while this process writes those, so the step takes about the longer of the two, not their sum.

The child runs the same drawing function on a copy of this process (``os.fork``), sends back
each chart's name and PNG bytes as length-prefixed frames (no pickle), and exits without
running this process's exit handlers. Whatever goes wrong there (no ``fork`` on this platform,
the child failing, dying, sending something malformed, or not answering within
``TIMEOUT_S``), the charts are drawn here instead, as before: the same bytes either way
(the drawing is deterministic), only the time differs.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import struct
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Charts = dict[str, bytes]
TIMEOUT_S = 120.0  # a child that has not answered by then is stopped, and the charts drawn here
EXIT_GRACE_S = 10.0  # a child that sent its charts: time to finish exiting before it is stopped
_FRAME = struct.Struct("!IQ")  # name length, data length
_END = b"\xff" * _FRAME.size  # after the last frame: the child finished


def can_fork() -> bool:
    """Linux only: macOS's system libraries are not safe to use in a forked copy of a threaded process."""
    return hasattr(os, "fork") and sys.platform.startswith("linux")


def encode(charts: Charts) -> bytes:
    frames = [_FRAME.pack(len(name.encode("utf-8")), len(data)) + name.encode("utf-8") + data
              for name, data in charts.items()]
    return b"".join(frames) + _END


def decode(payload: bytes) -> Charts:
    """The charts of a complete payload; ValueError for anything else (cut short, malformed)."""
    charts: Charts = {}
    at = 0
    while True:
        header = payload[at:at + _FRAME.size]
        if header == _END and at + _FRAME.size == len(payload):
            return charts
        if len(header) < _FRAME.size:
            raise ValueError("charts cut short")
        name_len, data_len = _FRAME.unpack(header)
        at += _FRAME.size
        end = at + name_len + data_len
        if end > len(payload):
            raise ValueError("charts cut short")
        charts[payload[at:at + name_len].decode("utf-8")] = payload[at + name_len:end]
        at = end


class Pending:
    """Charts being drawn in a child; ``result()`` gives them (drawn here if the child did not)."""

    def __init__(self, draw: Callable[[], Charts], pid: int | None, read_fd: int | None) -> None:
        self._draw, self._pid, self._fd = draw, pid, read_fd
        self._charts: Charts | None = None
        self.drawn_beside = False  # the child's charts were used (for tests and the timeline)

    def result(self) -> Charts:
        if self._charts is None:
            charts = self._from_child()
            self.drawn_beside = charts is not None
            self._charts = charts if charts is not None else self._draw()
        return self._charts

    def _from_child(self) -> Charts | None:
        if self._pid is None or self._fd is None:
            return None
        payload = _read_until_eof(self._fd, time.monotonic() + TIMEOUT_S)
        # The end of the pipe comes before the child has finished exiting (a large process takes
        # a while to give back its memory): it is given EXIT_GRACE_S to, a child still sending
        # or stuck none. A complete payload ends with _END, sent only after draw() returned.
        self._stop_child(grace_s=EXIT_GRACE_S if payload is not None else 0.0)
        if payload is None:
            return None
        try:
            return decode(payload)
        except (ValueError, UnicodeDecodeError):
            return None

    def _stop_child(self, grace_s: float = 0.0) -> None:
        """Close the pipe; reap the child, stopped if it has not exited within ``grace_s``."""
        pid, fd, self._pid, self._fd = self._pid, self._fd, None, None
        if fd is not None:
            os.close(fd)
        if pid is None:
            return
        # ChildProcessError: already reaped by someone else (a process that ignores SIGCHLD
        # has its children reaped by the system): nothing left to stop.
        with contextlib.suppress(ChildProcessError):
            deadline = time.monotonic() + grace_s
            while os.waitpid(pid, os.WNOHANG)[0] == 0:
                if time.monotonic() >= deadline:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    return
                time.sleep(0.005)

    def close(self) -> None:
        self._stop_child()


def _read_until_eof(fd: int, deadline: float) -> bytes | None:
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        try:
            chunk = os.read(fd, 1 << 16)
        except InterruptedError:
            continue
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


@contextmanager
def drawn_beside(draw: Callable[[], Charts]) -> Iterator[Pending]:
    """``draw()`` started in a forked child (where this platform allows it); the child is
    stopped and reaped when the block ends, whether or not its charts were asked for."""
    pending = Pending(draw, *_start(draw)) if can_fork() else Pending(draw, None, None)
    try:
        yield pending
    finally:
        pending.close()


def _start(draw: Callable[[], Charts]) -> tuple[int | None, int | None]:
    read_fd, write_fd = os.pipe()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork with threads (handled above)
            pid = os.fork()
    except (OSError, RuntimeError):  # no memory, or a library's fork guard (filelock's) in another thread
        os.close(read_fd)
        os.close(write_fd)
        return None, None
    if pid == 0:  # the child: draw, send, and leave without this process's exit handlers
        code = 1
        try:
            os.close(read_fd)
            payload = encode(draw())
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(payload)
            code = 0
        finally:
            os._exit(code)
    os.close(write_fd)
    return pid, read_fd
