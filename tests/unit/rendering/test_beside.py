"""A report's charts drawn in a forked child (``assay.rendering.beside``): the bytes drawing
them here gives, and drawn here whenever the child does not deliver (fails, hangs, no fork).
Real forks, real matplotlib charts."""

from __future__ import annotations

import os
import time

import pytest

from assay.rendering import beside
from assay.suites.kit.charts import hbar_chart

pytestmark = pytest.mark.skipif(not beside.can_fork(), reason="charts are drawn beside on Linux only")


def draw() -> dict[str, bytes]:
    return {"scores": hbar_chart({"a": 0.4, "b": 0.8}, (0.0, 1.0), 0.5, "score", "by group"),
            "한글 이름": hbar_chart({"c": 0.1}, (0.0, 1.0), 0.5, "score", "one")}


def gone(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True  # reaped: no zombie left behind
    return False


def test_charts_drawn_beside_are_the_bytes_drawn_here() -> None:
    with beside.drawn_beside(draw) as pending:
        pid = pending._pid  # noqa: SLF001
        charts = pending.result()
        assert pending.drawn_beside
    assert charts == draw() and list(charts) == ["scores", "한글 이름"]
    assert charts["scores"].startswith(b"\x89PNG")
    assert pid is not None and gone(pid)


def test_charts_from_a_child_slow_to_exit_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pipe ends before the child has exited (a large process takes a while to give back
    its memory): its complete charts are used, not drawn again here."""
    real_exit = os._exit

    def slow_exit(code: int) -> None:  # only the child calls it
        time.sleep(1.0)
        real_exit(code)

    monkeypatch.setattr(os, "_exit", slow_exit)
    parent = os.getpid()
    drawn_here = []

    def counted() -> dict[str, bytes]:
        if os.getpid() == parent:
            drawn_here.append(1)
        return draw()

    with beside.drawn_beside(counted) as pending:
        pid = pending._pid  # noqa: SLF001
        assert pending.result() == draw()
        assert pending.drawn_beside and not drawn_here
    assert pid is not None and gone(pid)


def test_a_process_that_ignores_sigchld_still_gets_the_child_s_charts() -> None:
    """Such a process's children are reaped by the system: waiting for one finds none."""
    import signal

    before = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        with beside.drawn_beside(draw) as pending:
            assert pending.result() == draw() and pending.drawn_beside
    finally:
        signal.signal(signal.SIGCHLD, before)


def test_a_child_that_fails_leaves_the_drawing_here() -> None:
    parent = os.getpid()

    def fails_in_the_child() -> dict[str, bytes]:
        if os.getpid() != parent:
            raise RuntimeError("no fonts here")
        return draw()

    with beside.drawn_beside(fails_in_the_child) as pending:
        assert pending.result() == draw()
        assert not pending.drawn_beside


def test_a_child_that_hangs_is_stopped_and_the_charts_drawn_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(beside, "TIMEOUT_S", 0.5)
    parent = os.getpid()

    def hangs_in_the_child() -> dict[str, bytes]:
        if os.getpid() != parent:
            time.sleep(60)
        return draw()

    started = time.monotonic()
    with beside.drawn_beside(hangs_in_the_child) as pending:
        pid = pending._pid  # noqa: SLF001
        assert pending.result() == draw() and not pending.drawn_beside
    assert time.monotonic() - started < 30
    assert pid is not None and gone(pid)


def test_a_block_that_ends_without_asking_stops_and_reaps_the_child() -> None:
    parent = os.getpid()

    def slow_in_the_child() -> dict[str, bytes]:
        if os.getpid() != parent:
            time.sleep(60)
        return {}

    with pytest.raises(KeyError), beside.drawn_beside(slow_in_the_child) as pending:
        pid = pending._pid  # noqa: SLF001
        raise KeyError("the step failed before it needed its charts")
    assert pid is not None and gone(pid)


def test_without_fork_the_charts_are_drawn_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(beside, "can_fork", lambda: False)
    with beside.drawn_beside(draw) as pending:
        assert pending._pid is None  # noqa: SLF001
        assert pending.result() == draw() and not pending.drawn_beside


def test_a_payload_cut_short_or_malformed_is_refused() -> None:
    charts = {"a": b"\x89PNG-a", "b": b""}
    payload = beside.encode(charts)
    assert beside.decode(payload) == charts
    for broken in (payload[:-1], payload[:5], payload + b"x", b""):
        with pytest.raises(ValueError):
            beside.decode(broken)


def test_a_refused_fork_draws_the_charts_here(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused() -> int:  # filelock's fork guard while another thread changes a lock (seen in CI)
        raise RuntimeError("os.fork is unsafe while filelock is changing descriptor ownership")

    monkeypatch.setattr(beside.os, "fork", refused)
    with beside.drawn_beside(draw) as pending:
        assert pending._pid is None  # noqa: SLF001
        assert pending.result() == draw() and not pending.drawn_beside
