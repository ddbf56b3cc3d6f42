"""CLI mistakes are caught before any Prefect server starts, with a clear message."""

import pytest

from tests.support.cli import cli


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "rag_qaa"], "Did you mean 'rag_qa'?"),
        (["run", "rag_qa", "--dataset", "/nonexistent"], "no such directory"),
        (["run", "rag_qa", "--replay", "live"], "--replay live needs --generator"),
        (["run", "rag_qa", "--replay", "sometimes"], "--replay 'sometimes': Input should be 'recorded' or 'live'"),
        (["run", "rag_qa", "--judge", "openai/a", "--judge-weight", "0.5", "--judge-weight", "0.5"], "1 judges but 2 weights"),
        (["run", "rag_qa", "--config", "/nonexistent.yaml"], "cannot read config"),
        (["run", "rag_qa", "--offline", "--judge", "openai/a"], "exclude each other"),
    ],
)
def test_bad_options_fail_fast(args, message, tmp_path):
    result, output = cli(*args, "--out", str(tmp_path))
    assert result.exit_code == 1, output
    assert message in output
    assert "Traceback" not in output
    assert not any(tmp_path.iterdir())  # nothing was started


def test_suites_lists_the_built_in_suites():
    result, output = cli("suites")
    assert result.exit_code == 0
    assert "rag_qa" in output and "seed 003" in output and "report" in output and "seed 000" in output


def test_audit_and_lineage_of_an_unknown_run(tmp_path):
    for args in (["audit", "nope"], ["lineage", "nope", "--case", "q001"], ["rerun", "nope"]):
        result, output = cli(*args, "--out", str(tmp_path))
        assert result.exit_code == 1 and "no run 'nope'" in output, output
