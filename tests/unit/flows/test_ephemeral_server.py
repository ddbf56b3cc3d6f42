"""What assay's early temporary server leaves out, that a user's own Prefect settings win, and the
local server's idle setting."""

from __future__ import annotations

import pytest

from assay.flows.ephemeral_server import SERVER_ENV, no_heartbeats, server_env


def test_the_server_skips_the_block_catalogue_unless_the_user_asks_for_it(monkeypatch):
    for name in SERVER_ENV:
        monkeypatch.delenv(name, raising=False)
    env = server_env()
    assert env["PREFECT_API_BLOCKS_REGISTER_ON_START"] == "false"
    assert env["PREFECT_MEMOIZE_BLOCK_AUTO_REGISTRATION"] == "false"
    assert env["PREFECT_UI_ENABLED"] == "0"

    monkeypatch.setenv("PREFECT_API_BLOCKS_REGISTER_ON_START", "true")
    assert server_env()["PREFECT_API_BLOCKS_REGISTER_ON_START"] == "true"


def test_flow_runs_send_no_heartbeats_inside_the_block_only(monkeypatch):
    from prefect.settings import get_current_settings

    monkeypatch.delenv("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", raising=False)
    monkeypatch.delenv("PREFECT_RUNNER_HEARTBEAT_FREQUENCY", raising=False)
    before = get_current_settings().flows.heartbeat_frequency
    assert before is not None
    with no_heartbeats():
        assert get_current_settings().flows.heartbeat_frequency is None
    assert get_current_settings().flows.heartbeat_frequency == before


def test_a_heartbeat_frequency_the_user_set_is_kept(monkeypatch):
    from prefect.settings import get_current_settings

    monkeypatch.setenv("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "60")
    with no_heartbeats():
        assert get_current_settings().flows.heartbeat_frequency is not None


def test_the_idle_setting_defaults_to_ten_minutes_and_rejects_what_is_not_seconds(monkeypatch):
    from assay.flows.local_server import IDLE_ENV, idle_seconds

    monkeypatch.delenv(IDLE_ENV, raising=False)
    assert idle_seconds() == 600
    monkeypatch.setenv(IDLE_ENV, "0")
    assert idle_seconds() == 0
    monkeypatch.setenv(IDLE_ENV, "2.5")
    assert idle_seconds() == 2.5
    for bad in ("ten", "-1"):
        monkeypatch.setenv(IDLE_ENV, bad)
        with pytest.raises(ValueError, match=IDLE_ENV):
            idle_seconds()


def test_the_server_environment_has_no_key_variable_but_keeps_the_server_s_own_settings(monkeypatch):
    from assay.redact import register_secret_env

    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider-key-value-1")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "token-value-2")
    monkeypatch.setenv("ODDLY_NAMED", "registered-value-3")
    monkeypatch.setenv("PREFECT_API_KEY", "prefect-cloud-key-4")
    monkeypatch.setenv("PREFECT_SERVER_DATABASE_PASSWORD", "the-server-s-own-database")
    register_secret_env("ODDLY_NAMED")
    env = server_env()
    assert not {"OPENAI_API_KEY", "MY_SERVICE_TOKEN", "ODDLY_NAMED", "PREFECT_API_KEY"} & set(env)
    assert env["PREFECT_SERVER_DATABASE_PASSWORD"] == "the-server-s-own-database"


def test_a_judged_run_imports_its_http_client_while_the_server_is_awaited(monkeypatch):
    from assay.flows.ephemeral_server import FIRST_RUN_MODULES, JUDGE_CALL_MODULES, warm_modules
    from assay.spec import build_run_spec
    from assay.suites.registry import get_suite

    monkeypatch.setenv("OPENAI_API_KEY", "no-key")
    dataset = get_suite("rag_qa").default_dataset
    judged, _ = build_run_spec("rag_qa", default_dataset=dataset,
                               cli={"judges": "openai/judge-a", "api_base": "http://127.0.0.1:9/v1"})
    offline, _ = build_run_spec("rag_qa", default_dataset=dataset, cli={"offline": True})
    assert set(JUDGE_CALL_MODULES) <= set(warm_modules(judged, first_run=False))
    assert not set(JUDGE_CALL_MODULES) & set(warm_modules(offline, first_run=True))
    assert set(FIRST_RUN_MODULES) <= set(warm_modules(offline, first_run=True))
