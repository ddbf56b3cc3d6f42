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
        (["run", "rag_qa", "--offline", "--assert", "accuracy=>4"], "write METRIC>=VALUE"),
    ],
)
def test_bad_options_fail_fast(args, message, tmp_path):
    result, output = cli(*args, "--out", str(tmp_path))
    assert result.exit_code == 1, output
    assert message in output
    assert "Traceback" not in output
    assert not any(tmp_path.iterdir())  # nothing was started


def test_a_model_without_its_key_fails_before_anything_starts(tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("MY_JUDGE_KEY", raising=False)
    for args, message in [
        (["--judge", "anthropic/claude-3-5-haiku-latest"], "judge claude-3-5-haiku-latest (anthropic/claude-3-5-haiku-latest) needs ANTHROPIC_API_KEY"),
        (["--judge", "openai/a", "--api-key-env", "MY_JUDGE_KEY", "--replay", "live", "--generator", "openai/g",
          "--api-base", "http://127.0.0.1:9/v1"], "reads its key from MY_JUDGE_KEY"),
    ]:
        result, output = cli("run", "rag_qa", *args, "--out", str(tmp_path))
        assert result.exit_code == 1 and message in output, output
        assert not any(tmp_path.iterdir())


def test_suites_lists_the_built_in_suites():
    result, output = cli("suites")
    assert result.exit_code == 0
    assert "rag_qa" in output and "seed 003" in output and "report" in output and "seed 000" in output


def test_audit_and_lineage_of_an_unknown_run(tmp_path):
    for args in (["audit", "nope"], ["lineage", "nope", "--case", "q001"], ["rerun", "nope"]):
        result, output = cli(*args, "--out", str(tmp_path))
        assert result.exit_code == 1 and "no run 'nope'" in output, output


def test_runs_and_show_on_an_empty_store(tmp_path):
    result, output = cli("runs", "--out", str(tmp_path))
    assert result.exit_code == 0 and output.strip() == "no runs"
    result, output = cli("show", "nope", "--out", str(tmp_path))
    assert result.exit_code == 1 and "no run 'nope'" in output
    (tmp_path / "broken-run").mkdir()
    (tmp_path / "broken-run" / "manifest.json").write_text("{not json")
    result, output = cli("runs", "--out", str(tmp_path))
    assert "broken-run" in output and "damaged" in output  # listed, never skipped
