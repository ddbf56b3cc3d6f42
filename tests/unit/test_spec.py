"""RunSpec: one typed record of what a run computes, built from flags and a config file."""

import json

import pytest

from assay.hashing import sha256_json
from assay.spec import RunOptions, RunSpec, SpecError, build_run_spec
from assay.suites.registry import get_suite
from tests.support.cli import cli

RAG = get_suite("rag_qa").default_dataset


def spec_of(cli_values=None, config_file=None):
    return build_run_spec("rag_qa", default_dataset=RAG, config_file=config_file, cli=cli_values or {})


def test_concurrency_and_locations_change_no_step_key():
    a, options_a = spec_of({"offline": True, "concurrency": 2, "out": "/tmp/a"})
    b, options_b = spec_of({"offline": True, "concurrency": 16, "out": "/tmp/b"})
    assert options_a != options_b
    assert sha256_json(a.step_view().model_dump(mode="json")) == sha256_json(b.step_view().model_dump(mode="json"))
    moved = a.model_copy(update={"dataset": "/elsewhere/rag_qa", "compare_with": "latest"})
    assert moved.step_view() == a.step_view()


def test_result_changing_fields_do_change_the_step_key():
    base, _ = spec_of({"offline": True})
    for changed in (
        {"k": 5}, {"lang": "en"}, {"generator_chunk_size": 300}, {"generator_max_tokens": 64},
        {"generator_timeout_s": 5.0}, {"judge_weights": [0.5, 0.25, 0.25]},
    ):
        other, _ = spec_of({"offline": True, **changed})
        assert other.step_view() != base.step_view(), changed


def test_config_file_sets_spec_jury_and_options_and_flags_win(tmp_path):
    config = tmp_path / "run.yaml"
    config.write_text(
        "k: 5\nlang: en\nconcurrency: 3\n"
        "generator: {model: openai/gen, chunk_size: 300, chunk_overlap: 50, timeout_s: 9, max_retries: 1}\n"
        "jury: {judges: [{model: openai/judge-a, weight: 2}], max_cost_usd: 1.5}\n"
    )
    spec, options = spec_of({"k": 7}, config)
    assert spec.k == 7 and spec.lang == "en"  # the flag wins; the file fills the rest
    assert spec.generator.model == "openai/gen" and spec.generator.chunk_size == 300
    assert spec.generator.timeout_s == 9 and spec.generator.max_retries == 1
    assert [j.model for j in spec.jury.judges] == ["openai/judge-a"] and spec.jury.max_cost_usd == 1.5
    assert spec.jury.panel[0].weight == 2 and options.concurrency == 3


def test_older_jury_files_still_work(tmp_path):
    config = tmp_path / "jury.yaml"
    config.write_text("judges:\n  - model: openai/a\n  - model: openai/b\nconcurrency: 4\nretries: 2\n")
    spec, options = spec_of({}, config)
    assert [j.name for j in spec.jury.panel] == ["a", "b"] and spec.jury.max_retries == 2
    assert options.concurrency == 4


@pytest.mark.parametrize(
    ("values", "content", "message"),
    [
        ({"k": 0}, None, "-k 0"),
        ({"lang": "xx"}, None, "--lang 'xx'"),
        ({"max_cost": float("nan")}, None, "--max-cost must be a finite number"),
        ({"max_cost": -1.0}, None, "--max-cost must be a finite number"),
        ({"generator_chunk_size": 100, "generator_chunk_overlap": 100}, None, "chunk_overlap (100) must be smaller"),
        ({"offline": True, "judge_weights": [0.5]}, None, "weights"),
        ({}, "kk: 3\n", "unknown key 'kk' (did you mean 'k'?)"),
        ({}, "- a\n- b\n", "must be a mapping"),
        ({}, "suite: report\n", "is for suite 'report'"),
    ],
)
def test_bad_specs_name_the_problem(values, content, message, tmp_path):
    config = None
    if content is not None:
        config = tmp_path / "run.yaml"
        config.write_text(content)
    with pytest.raises(SpecError) as error:
        spec_of(values, config)
    assert message in str(error.value)


def test_credentials_never_enter_the_spec():
    spec, _ = spec_of({"offline": True, "api_base": "http://user:hunter22@127.0.0.1:9/v1?api_key=abcdefgh"})
    text = json.dumps(spec.model_dump(mode="json"))
    assert "hunter22" not in text and "abcdefgh" not in text
    assert spec.generator.api_base.startswith("http://127.0.0.1:9/v1")


def test_a_recorded_spec_round_trips_for_reruns():
    spec, _ = spec_of({"offline": True, "k": 4})
    recorded = json.loads(json.dumps(spec.completed(RAG).model_dump(mode="json")))
    assert RunSpec.model_validate(recorded) == spec.completed(RAG)
    assert RunOptions.model_validate(RunOptions(concurrency=2).model_dump(mode="json")).concurrency == 2


def test_a_deployment_may_leave_dataset_and_jury_open():
    spec = RunSpec.model_validate({"suite": "rag_qa", "jury": {"offline": True}})
    done = spec.completed(RAG)
    assert done.dataset == str(RAG.resolve())
    assert [j.name for j in done.jury.panel] == ["offline-lexical", "offline-ngram", "offline-numeric"]


def test_every_deployment_in_prefect_yaml_is_a_valid_spec_of_a_registered_suite():
    from pathlib import Path

    import yaml

    project = yaml.safe_load((Path(__file__).resolve().parents[2] / "prefect.yaml").read_text(encoding="utf-8"))
    suites = set()
    for deployment in project["deployments"]:
        spec = RunSpec.model_validate(deployment["parameters"]["spec"])
        RunOptions.model_validate(deployment["parameters"].get("options", {}))
        entrypoint = deployment["entrypoint"]
        assert entrypoint in ("flows/evaluate.py:evaluate", "flows/on_dask.py:evaluate_on_dask"), entrypoint
        assert deployment["name"].startswith(f"{spec.suite}-"), deployment["name"]
        suites.add(spec.suite)
    from assay.suites.registry import _FACTORIES

    assert suites == set(_FACTORIES)  # every built-in suite is scheduled


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--lang", "xx"], "--lang 'xx'"),
        (["-k", "0"], "-k 0"),
        (["--max-cost", "nan"], "--max-cost must be a finite number"),
        (["--chunk-size", "50", "--chunk-overlap", "60"], "must be smaller than chunk_size"),
    ],
)
def test_cli_rejects_bad_specs_before_any_server_starts(args, message, tmp_path):
    result, output = cli("run", "rag_qa", "--offline", *args, "--out", str(tmp_path))
    assert result.exit_code == 1, output
    assert message in output and "Traceback" not in output
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("name", ["threads", "dask", "dask=tcp://10.0.0.5:8786"])
def test_run_options_take_the_runners_assay_can_start(name):
    assert RunOptions(runner=name).runner == name


@pytest.mark.parametrize("name", ["thread", "dask=", "ray", ""])
def test_an_unknown_runner_is_refused_with_the_names_that_work(name):
    with pytest.raises(ValueError, match=r"unknown runner .*threads, dask .* or dask=ADDRESS"):
        RunOptions(runner=name)
    result, output = cli("run", "rag_qa", "--offline", "--runner", name or "''")
    assert result.exit_code != 0 and "unknown runner" in output


def test_secret_env_names_are_every_key_and_header_variable_the_run_sends():
    from assay.judges.config import JudgeSpec
    from assay.spec import GeneratorSpec, JurySpec, TargetSpec

    spec = RunSpec(suite="rag_qa", replay="live", generator=GeneratorSpec(api_key_env="GEN_KEY"),
                   target=TargetSpec(url="http://127.0.0.1:9/a", headers={"Authorization": "Bearer RAG_AUTH", "X-S": "SESSION"}),
                   jury=JurySpec(judges=[JudgeSpec(model="openai/a", api_key_env="JUDGE_KEY"), JudgeSpec(model="openai/b")]))
    assert sorted(spec.secret_env_names()) == ["GEN_KEY", "JUDGE_KEY", "RAG_AUTH", "SESSION"]
