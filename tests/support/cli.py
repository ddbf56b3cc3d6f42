"""Invoking the `assay` CLI in-process from tests."""

from __future__ import annotations

from typer.testing import CliRunner, Result

from assay.cli import app

_runner = CliRunner()


def cli(*args: str) -> tuple[Result, str]:
    """Run `assay ARGS…`; returns the result and everything it printed (stdout + stderr)."""
    result = _runner.invoke(app, list(args))
    return result, result.output + (result.stderr if result.stderr_bytes is not None else "")


def run_id_of(output: str) -> str:
    """The run id `assay run` / `assay rerun` printed."""
    return next(line.split()[-1] for line in output.splitlines() if line.startswith("run id:"))
