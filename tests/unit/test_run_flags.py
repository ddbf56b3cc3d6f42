"""`assay run`'s options are declared once (assay/run_flags.py): every spec field is a flag or
says why not, a flag's help is its field's description, and each flag sets the fields it names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from pydantic import BaseModel

from assay import cli as cli_module
from assay import run_command, run_flags
from assay.run_command import field_info, help_text
from assay.run_flags import FLAGS, NOT_FLAGS
from assay.spec import GeneratorSpec, JurySpec, RunOptions, RunSpec, TargetSpec
from tests.conftest import ROOT
from tests.support.cli import cli

RECORDS: dict[str, type[BaseModel]] = {"generator": GeneratorSpec, "target": TargetSpec, "jury": JurySpec}


def every_field() -> set[str]:
    """Every field of RunSpec (and of its generator, target and jury records) and RunOptions."""
    paths = set(RunSpec.model_fields) | {f"options.{name}" for name in RunOptions.model_fields}
    for record, model in RECORDS.items():
        paths |= {f"{record}.{name}" for name in model.model_fields}
    return paths


def test_every_field_is_set_by_a_flag_or_listed_with_the_reason_it_is_not():
    set_by_flags = {path for flag in FLAGS for path in flag.sets}
    assert every_field() - set_by_flags - set(NOT_FLAGS) == set(), "add a Flag or a NOT_FLAGS reason"
    assert set_by_flags - every_field() == set(), "a flag names a field that does not exist"
    assert set(NOT_FLAGS) - every_field() == set(), "NOT_FLAGS lists a field that does not exist"
    assert set(NOT_FLAGS) & set_by_flags == set(), "a field both set by a flag and listed as not"


def shown_run_command() -> typer.core.TyperCommand:
    """The `assay run` click command after it rendered its help (when it reads the fields')."""
    group = typer.main.get_command(cli_module.app)
    assert isinstance(group, typer.core.TyperGroup)
    command = group.commands["run"]
    assert isinstance(command, typer.core.TyperCommand)
    command.get_help(command.context_class(command, info_name="run"))
    return command


def test_a_flags_help_is_its_fields_description_and_its_default_the_fields_default():
    options = {param.name: param for param in shown_run_command().params}
    assert set(options) == {"suite"} | {flag.param for flag in FLAGS}
    for flag in FLAGS:
        option = options[flag.param]
        if flag.help is None:
            field = field_info(flag.sets[0])
            assert field.description, f"{flag.sets[0]} has no description for {flag.spelling}"
            said = f"{flag.context}: {field.description}" if flag.context else field.description
            assert option.help == said
            if field.default not in (None, False):
                assert option.show_default == f"{field.default:g}" if isinstance(field.default, float) \
                    else option.show_default == str(field.default)
        else:
            assert option.help == help_text(flag)
        assert "[" not in option.help, "rich would read [..] as markup and drop it"
        assert option.opts[0] == flag.spelling or flag.spelling in option.opts


def test_only_run_help_reads_the_spec_for_its_help_texts(tmp_path):
    """`assay --help`, `assay suites`... build the run command too; its help waits for `run --help`."""
    probe = "import sys, assay.cli; print('assay.spec' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.stdout.strip() == "False", done.stderr


def test_the_run_options_page_is_generated_from_the_flags():
    page = (ROOT / "docs" / "run-options.md").read_text(encoding="utf-8")
    assert page == run_command.markdown(), "regenerate: python -m assay.run_command > docs/run-options.md"


# -- each flag, given on the command line, reaches the fields it names ---------------------------------

TARGET_URL = "http://127.0.0.1:9/answer"


def target_file(tmp_path: Path, **fields: object) -> str:
    import yaml

    path = tmp_path / f"target-{len(list(tmp_path.iterdir()))}.yaml"
    path.write_text(yaml.safe_dump(fields), encoding="utf-8")
    return str(path)


def samples(tmp_path: Path) -> dict[str, list[tuple[list[str], list[str]]]]:
    """For each flag that sets fields: (arguments it needs beside it, the flag and its value)."""
    criteria = tmp_path / "criteria.yaml"
    criteria.write_text("criteria:\n  - name: terse\n    rubric: Is it short?\n    reads: [answer]\n", encoding="utf-8")
    live = ["--replay", "live", "--generator", "openai/g"]
    url_file = target_file(tmp_path, url=TARGET_URL, body_template='{"q": "{question}"}', answer_path="a.b",
                           contexts_path="c", headers={"X-Key": "MY_TOKEN"}, version="v2", timeout_s=7,
                           max_retries=1, retry_base_s=0.25, retry_max_s=2)
    return {
        "dataset": [([], ["--dataset", str(tmp_path)])],
        "out": [([], ["--out", str(tmp_path / "elsewhere")])],
        "store": [([], ["--store", "memory://bucket"])],
        "replay": [(["--generator", "openai/g"], ["--replay", "live"])],
        "generator": [(["--replay", "live", "--target", TARGET_URL], ["--generator", "openai/g"])],
        "api_base": [([], ["--api-base", "http://127.0.0.1:9/v1"])],
        "target": [([], ["--target", TARGET_URL]), ([], ["--target", "mypkg.rag:answer"])],
        "target_file": [([], ["--target-file", url_file]),
                        ([], ["--target-file", target_file(tmp_path, function="mypkg.rag:answer")])],
        "repeats": [(live, ["--repeats", "5"])],
        "body_template": [(["--target", TARGET_URL], ["--body-template", '{"q": "{question}"}'])],
        "api_key_env": [([], ["--api-key-env", "MY_KEY"])],
        "gen_max_tokens": [(live, ["--gen-max-tokens", "77"])],
        "gen_timeout": [(["--target", TARGET_URL], ["--gen-timeout", "7"])],
        "gen_retries": [(["--target", TARGET_URL], ["--gen-retries", "2"])],
        "chunk_size": [(live, ["--chunk-size", "300"])],
        "chunk_overlap": [(live, ["--chunk-overlap", "50"])],
        "embedding_model": [(live, ["--embedding-model", "my-model"])],
        "judge": [([], ["--judge", "openai/a"])],
        "judge_weight": [(["--judge", "openai/a", "--judge", "openai/b"], ["--judge-weight", "0.25", "--judge-weight", "0.75"]),
                         (["--offline"], ["--judge-weight", "0.2", "--judge-weight", "0.3", "--judge-weight", "0.5"])],
        "offline": [(["--api-base", "http://127.0.0.1:9/v1"], ["--offline"])],  # else no keys: offline anyway
        "criteria": [([], ["--criteria", str(criteria)])],
        "k": [([], ["-k", "5"])],
        "quarantine": [([], ["--quarantine"])],
        "allow_symlinks": [([], ["--allow-symlinks"])],
        "max_cost": [([], ["--max-cost", "2.5"])],
        "judge_timeout": [([], ["--judge-timeout", "9"])],
        "concurrency": [([], ["--concurrency", "3"])],
        "lang": [([], ["--lang", "en"])],
        "runner": [([], ["--runner", "dask"])],
        "partition_size": [([], ["--partition-size", "10"])],
        "compare_with": [([], ["--compare-with", "latest"])],
        "fail_on_regression": [([], ["--fail-on-regression"])],
        "max_failed_calls": [([], ["--max-failed-calls", "5%"])],
    }


@pytest.fixture
def built(monkeypatch, tmp_path):
    """`assay run rag_qa ARGS` up to the spec and options it would run (nothing is started)."""
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    captured: list[tuple[RunSpec, RunOptions]] = []
    monkeypatch.setattr(cli_module, "_prepare_prefect", lambda verbose: None)
    monkeypatch.setattr(cli_module, "_preflight", lambda *args, **kwargs: None)
    monkeypatch.setattr(cli_module, "_start_server_early", lambda: None)
    monkeypatch.setattr(cli_module, "_execute", lambda spec, options, *a, **kw: captured.append((spec, options)))

    def build(args: list[str]) -> tuple[RunSpec, RunOptions]:
        result, output = cli("run", "rag_qa", *args)
        assert result.exit_code == 0, f"{args}: {output}"
        return captured.pop()

    return build


def value_at(spec: RunSpec, options: RunOptions, path: str) -> object:
    value: object = options if path.startswith("options.") else spec
    for name in path.removeprefix("options.").split("."):
        value = getattr(value, name, None) if value is not None else None
    return value


def test_each_flag_sets_every_field_it_names(built, tmp_path):
    given = samples(tmp_path)
    assert set(given) == {flag.param for flag in FLAGS if flag.sets}, "give the new flag a sample here"
    for flag in FLAGS:
        changed: set[str] = set()
        for beside, own in given.get(flag.param, []):
            before, after = built(beside), built(beside + own)
            changed |= {path for path in flag.sets if value_at(*before, path) != value_at(*after, path)}
        assert changed == set(flag.sets), f"{flag.spelling} did not set {set(flag.sets) - changed}"


def test_a_flag_left_out_leaves_the_config_files_value(built, tmp_path):
    config = tmp_path / "run.yaml"
    config.write_text("k: 4\nlang: en\nquarantine: true\nconcurrency: 2\n", encoding="utf-8")
    spec, options = built(["--config", str(config)])
    assert (spec.k, spec.lang, spec.quarantine, options.concurrency) == (4, "en", True, 2)
    spec, options = built(["--config", str(config), "-k", "6"])
    assert (spec.k, spec.lang) == (6, "en")


def test_the_python_api_names_the_generator_knobs_as_the_flags_do():
    assert run_flags.generator_knobs() == {"api_key_env", "repeats", "max_tokens", "timeout_s", "max_retries",
                                           "chunk_size", "chunk_overlap", "embedding_model"}
    assert run_flags.generator_knobs() <= set(GeneratorSpec.model_fields)


@pytest.mark.parametrize(("args", "said"), [
    (["--lang", "xx"], "--lang 'xx': Input should be 'ko' or 'en'"),  # the spec's lang and the jury's
    (["--target", TARGET_URL, "--gen-timeout", "0"], "--gen-timeout 0.0: Input should be greater than 0"),
    (["--runner", "nope"], "--runner 'nope': unknown runner 'nope'"),
])
def test_an_invalid_value_is_named_by_its_flag_once(args, said, tmp_path):
    result, _ = cli("run", "rag_qa", "--offline", *args, "--out", str(tmp_path))
    output = result.output  # stdout and stderr, each line once
    assert result.exit_code == 1 and output.count(said) == 1 and output.startswith(said), output
    assert "jury." not in output and "runner:" not in output
