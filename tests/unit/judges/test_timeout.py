"""A judge that hangs: its error names the model, the endpoint and the limit; the limit is
`--judge-timeout S` (or `jury: {timeout_s: S}` in a --config file) and reaches every judge."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.judges.config import build_judges
from assay.judges.llm import LiteLLMJudge
from assay.spec import SpecError, build_run_spec
from tests.support.openai_server import Fault
from tests.unit.judges.test_llm import judge_once, server, transport  # noqa: F401  (fixtures)

DATASET = {"default_dataset": Path("datasets/rag_qa")}


def test_a_timeout_names_the_model_the_endpoint_and_the_limit(server, transport):  # noqa: F811
    server.add_fault(Fault(kind="timeout", delay_s=3))
    result = judge_once(LiteLLMJudge("openai/hung-judge", api_base=server.base_url, transport=transport, timeout_s=0.5))
    assert result.error_kind == "transient"
    assert "openai/hung-judge" in result.error and server.base_url in result.error, result.error
    assert "within 0.5 s" in result.error and "--judge-timeout" in result.error
    assert not result.error.rstrip().endswith(":"), result.error  # was "TimeoutError: " and nothing more


def test_judge_timeout_flag_and_config_set_every_judges_limit(tmp_path):
    cli = {"judges": ["openai/a", "openai/b"], "api_base": "http://127.0.0.1:9/v1", "judge_timeout": 7.5}
    spec, _ = build_run_spec("rag_qa", cli=cli, **DATASET)
    assert spec.jury.timeout_s == 7.5
    assert [j.timeout_s for j in build_judges(spec.jury.config(), timeout_s=spec.jury.config().timeout_s)] == [7.5, 7.5]
    config = tmp_path / "run.yaml"
    config.write_text("jury:\n  timeout_s: 12\n", encoding="utf-8")
    spec, _ = build_run_spec("rag_qa", config_file=config, cli={"offline": True}, **DATASET)
    assert spec.jury.timeout_s == 12
    spec, _ = build_run_spec("rag_qa", config_file=config, cli={"offline": True, "judge_timeout": 3}, **DATASET)
    assert spec.jury.timeout_s == 3  # the flag wins
    assert build_run_spec("rag_qa", cli={"offline": True}, **DATASET)[0].jury.timeout_s == 60  # the default


@pytest.mark.parametrize("value", [0, -1, float("nan"), float("inf")])
def test_a_judge_timeout_that_is_not_a_positive_number_is_refused(value):
    with pytest.raises(SpecError, match="--judge-timeout"):
        build_run_spec("rag_qa", cli={"offline": True, "judge_timeout": value}, **DATASET)


def test_a_target_timeout_names_the_url_or_function_and_the_limit():
    import time as clock

    from assay.replay.targets import TargetCall, call_target, register_function
    from assay.spec import TargetSpec
    from tests.support.endpoint import LoopbackEndpoint

    case = [TargetCall(case_id="c0", fields={"question": "slow?", "id": "c0"})]
    with LoopbackEndpoint(lambda body, n: (200, {"answer": "late"}, 1.0)) as endpoint:
        [reply] = call_target(TargetSpec(url=endpoint.url, timeout_s=0.3, max_retries=0), case,
                              default_body='{"question": "{question}"}')
    assert f"{endpoint.url} gave no reply within 0.3 s" in reply.error, reply.error

    def sleepy(question: str) -> str:
        clock.sleep(1.0)
        return "late"

    name = register_function(sleepy)
    [reply] = call_target(TargetSpec(function=name, timeout_s=0.3, max_retries=0), case, default_body=None)
    assert f"{name} gave no reply within 0.3 s" in reply.error, reply.error
