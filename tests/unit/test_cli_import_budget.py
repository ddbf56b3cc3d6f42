"""Nothing heavy before the preflight: `assay --help`, `assay run --help` and every run the
preflight refuses parse, check and refuse with the standard library, pydantic and the spec
loaded. Each command runs in a fresh interpreter, which then lists the heavy libraries it
imported (``sys.modules``, not a timer: the machine is shared)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

HEAVY = ("prefect", "great_expectations", "pandas", "litellm", "kiwipiepy", "torch", "sentence_transformers",
         "numpy",  # only the scoring and the agreement statistics need it
         "assay.judges.offline")  # the offline jury's rules: half a second; the spec needs only its panel
PROVIDER_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY")

# The console command's own entry point, then what it left in sys.modules (stdout is the command's).
PROBE = f"""
import json, sys
from assay.cli import main
sys.argv = ["assay", *json.loads(sys.argv[1])]
try:
    main()
    code = 0
except SystemExit as exc:
    code = exc.code or 0
loaded = [name for name in {HEAVY!r} if name in sys.modules]  # a package is there if any of its modules is
print(json.dumps({{"exit": code, "heavy": loaded}}), file=sys.stderr)
"""


def assay_in_fresh_process(tmp_path, *args: str) -> tuple[int, list[str], str]:
    """Exit code, heavy libraries imported, and the lines the command printed to stderr."""
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_KEYS}
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(list(args))], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120, env={**env, "PYTHONPATH": str(ROOT)})
    *said, last = done.stderr.strip().splitlines()
    probe = json.loads(last)
    return probe["exit"], probe["heavy"], "\n".join(said)


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"]])
def test_help_imports_nothing_heavy(tmp_path, args):
    code, heavy, _ = assay_in_fresh_process(tmp_path, *args)
    assert code == 0 and heavy == []


@pytest.mark.parametrize("args, said", [
    (["rag_qa", "--offline", "--concurrency", "0"], "--concurrency 0: Input should be greater than or equal to 1"),
    (["rag_qa", "--judge", "openai/gpt-4o-mini"], "needs OPENAI_API_KEY, which is not set"),
    (["rag_qa", "--offline", "--replay", "live", "--generator", "anthropic/claude-x"], "needs ANTHROPIC_API_KEY"),
    (["rag_qa", "--offline", "--target", "htp://127.0.0.1/x"], "a target url must start with http:// or https://"),
    (["rag_qa", "--offline", "--dataset", "no-such-folder"], "--dataset no-such-folder: no such directory"),
    (["rag_qa", "--offline", "--config", "no-such.yaml"], "cannot read config no-such.yaml"),
    (["nosuite", "--offline"], "unknown suite 'nosuite'"),
])
def test_a_refused_run_imports_nothing_heavy(tmp_path, args, said):
    code, heavy, printed = assay_in_fresh_process(tmp_path, "run", *args, "--out", str(tmp_path / "runs"))
    assert code == 1 and said in printed, printed
    assert heavy == []
    assert not (tmp_path / "runs").exists()  # refused before anything was written


BUILT_IN = ["agent", "answers", "clinical", "memory", "rag_qa", "report"]


@pytest.mark.parametrize("suite", BUILT_IN)
def test_every_suite_checks_criteria_without_its_tables(tmp_path, suite):
    """A refusal that reads the suite: its record fields and its metric families."""
    criteria = tmp_path / "criteria.yaml"
    criteria.write_text("criteria:\n  - name: terse\n    rubric: Is it short?\n    reads: [no_such_field]\n")
    code, heavy, printed = assay_in_fresh_process(tmp_path, "run", suite, "--offline", "--criteria", str(criteria))
    assert code == 1 and f"criterion terse: reads 'no_such_field', which suite {suite} does not have" in printed
    assert heavy == []


def declares_metric_names(suite: str) -> bool:
    """A suite that names its metrics before the run (the others' --assert is checked after it)."""
    from assay.suites.kit import Suite
    from assay.suites.registry import get_suite

    return type(get_suite(suite)).metric_names is not Suite.metric_names


@pytest.mark.parametrize("suite", [s for s in BUILT_IN if declares_metric_names(s)])
def test_every_suite_checks_an_assert_without_its_tables(tmp_path, suite):
    code, heavy, printed = assay_in_fresh_process(tmp_path, "run", suite, "--offline", "--assert", "no_such_metric>=1",
                                                  "--out", str(tmp_path / "runs"))
    assert code == 1 and f"the {suite} suite has no metric 'no_such_metric'" in printed, printed
    assert heavy == []
