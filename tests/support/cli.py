"""Invoking the `assay` CLI in-process from tests."""

from __future__ import annotations

from functools import cache
from unittest import mock

import typer.main
import typer.testing
from typer.testing import CliRunner, Result

from assay.cli import app

_runner = CliRunner()


@cache
def _command() -> typer.main.TyperGroup:
    """The click command Typer builds from the app's signatures. Typer's runner rebuilds it on
    every call (about 8 ms of CPU: hundreds of calls in a file such as test_read_commands); the
    app's commands never change while tests run, so it is built once."""
    return typer.main.get_command(app)


def cli(*args: str) -> tuple[Result, str]:
    """Run `assay ARGS…`; returns the result and everything it printed (stdout + stderr)."""
    with mock.patch.object(typer.testing, "_get_command", lambda _app: _command()):
        result = _runner.invoke(app, list(args))
    return result, result.output + (result.stderr if result.stderr_bytes is not None else "")


def run_id_of(output: str) -> str:
    """The run id `assay run` / `assay rerun` printed."""
    return next(line.split()[-1] for line in output.splitlines() if line.startswith("run id:"))
