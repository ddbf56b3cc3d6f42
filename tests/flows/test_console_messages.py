"""A failure is said once on the console, by assay: Prefect's own log lines (its ERROR record of
the same failure) only with -v. A judge that hangs is named with its model, endpoint and
the limit (`--judge-timeout`), instead of `TimeoutError: ` and nothing more after minutes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.openai_server import Fault, OpenAICompatServer

ROOT = Path(__file__).resolve().parents[2]


def assay(*args: str) -> tuple[int, str]:
    """`assay ARGS` in its own process, as a user's terminal shows it (stdout and stderr), on
    the session's Prefect server."""
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value())}
    done = subprocess.run([sys.executable, "-m", "assay.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout + done.stderr


@pytest.fixture
def three_cases(bundled_rag_qa, tmp_path) -> Path:
    root = tmp_path / "three"
    root.mkdir()
    shutil.copytree(bundled_rag_qa / "kb", root / "kb")
    for name in ("cases.jsonl", "generations.jsonl"):
        lines = (bundled_rag_qa / name).read_text(encoding="utf-8").splitlines()[:3]
        (root / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_a_hung_judge_is_named_with_its_limit_and_said_once(prefect_server, three_cases, tmp_path):
    config = tmp_path / "run.yaml"
    config.write_text(json.dumps({"jury": {"max_retries": 1}}), encoding="utf-8")
    with OpenAICompatServer() as server:
        server.add_fault(Fault(kind="timeout", delay_s=3))
        started = time.monotonic()
        code, output = assay("run", "rag_qa", "--dataset", str(three_cases), "--out", str(tmp_path / "runs"),
                             "--judge", "openai/hung-judge", "--api-base", server.base_url,
                             "--judge-timeout", "0.5", "--config", str(config))
        print(f"a hung judge at --judge-timeout 0.5 with 1 retry: exit {code} after "
              f"{time.monotonic() - started:.1f} s")
        assert code == 4, output
        said = f"judge openai/hung-judge at {server.base_url} gave no reply within 0.5 s (--judge-timeout)"
        assert said in output, output
        assert "TimeoutError: \n" not in output and not output.rstrip().endswith("TimeoutError:")
        assert "| ERROR" not in output and "Flow run '" not in output, output  # Prefect's record of it
        # once, in the run's verdict at the end; the step's line names the dropped judge only
        assert output.count(said) == 1, output
        assert "every judge dropped (" in output and "why, in the run's verdict" in output, output

        # -v: Prefect's own lines come back
        code, verbose = assay("run", "rag_qa", "--dataset", str(three_cases), "--out", str(tmp_path / "runs"),
                              "--judge", "openai/hung-judge", "--api-base", server.base_url,
                              "--judge-timeout", "0.5", "--config", str(config), "-v")
    assert code == 4, verbose
    assert "| ERROR" in verbose and "incomplete: metric family answer: every judge was dropped" in verbose
