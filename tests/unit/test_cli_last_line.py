"""The `assay` console command never shows a traceback: a defect no command catches is said in
one line (exit 1), and ASSAY_DEBUG=1 lets the traceback through for whoever fixes it."""

from __future__ import annotations

import sys

import pytest

import assay.runs
from assay.cli import main


def test_a_defect_no_command_catches_is_one_line(monkeypatch, capsys, tmp_path):
    def defect(*args, **kwargs):
        raise RuntimeError("boom from a defect")

    monkeypatch.setattr(assay.runs, "list_runs", defect)
    monkeypatch.setattr(sys, "argv", ["assay", "runs", "--out", str(tmp_path)])
    monkeypatch.delenv("ASSAY_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip().splitlines() == [
        "assay: internal error: RuntimeError: boom from a defect (set ASSAY_DEBUG=1 to see where; please report it)"]
    monkeypatch.setenv("ASSAY_DEBUG", "1")
    with pytest.raises(RuntimeError, match="boom from a defect"):
        main()


def test_usage_errors_and_exits_keep_their_codes(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "argv", ["assay", "compare", "a", "b", "--resamples", "many"])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2  # click's usage error, not the internal-error line
    monkeypatch.setattr(sys, "argv", ["assay", "show", "nope", "--out", str(tmp_path)])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 1
