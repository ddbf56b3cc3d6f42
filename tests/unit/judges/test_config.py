"""Jury configuration: precedence, validation, offline fallback, and what manifests see."""

from __future__ import annotations

import json
import sys
import types

import pytest

from assay.judges.config import (
    DEFAULT_LIVE_JURY,
    PROVIDER_KEY_ENV,
    JudgeSpec,
    JuryConfig,
    JuryConfigError,
    build_judges,
    resolve_jury,
)

ALL_KEY_VARS = sorted({name for names in PROVIDER_KEY_ENV.values() for name in names})


@pytest.fixture
def no_keys(monkeypatch):
    for name in ALL_KEY_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def all_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(name, f"secret-value-of-{name}")


def write(tmp_path, text: str):
    path = tmp_path / "jury.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_default_jury_is_seed_000():
    assert [(s.model, s.weight, s.temperature, s.max_tokens) for s in DEFAULT_LIVE_JURY] == [
        ("gemini/gemini-2.5-flash", 0.34, 0.2, 4096),
        ("anthropic/claude-haiku-4-5-20251001", 0.33, 0.2, 4096),
        ("openai/gpt-4o", 0.33, 0.2, 4096),
    ]


def test_no_keys_and_no_api_base_means_offline(no_keys):
    config = resolve_jury()
    assert config.offline and config.judges == []
    assert "OPENAI_API_KEY" in config.reason and "no API keys" in config.reason


def test_keys_in_environment_select_the_live_jury(all_keys):
    config = resolve_jury()
    assert not config.offline
    assert [s.judge_name for s in config.judges] == ["gemini-2.5-flash", "claude-haiku-4-5", "gpt-4o"]


def test_partial_keys_stay_offline_and_name_the_missing(no_keys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    config = resolve_jury()
    assert config.offline and "ANTHROPIC_API_KEY" in config.reason and "OPENAI_API_KEY" not in config.reason


def test_api_base_selects_the_live_jury_without_keys(no_keys):
    config = resolve_jury(api_base="http://127.0.0.1:4000/v1", weights=[0.5, 0.25, 0.25])
    assert not config.offline
    assert all(s.api_base == "http://127.0.0.1:4000/v1" for s in config.judges)
    assert [s.weight for s in config.judges] == [0.5, 0.25, 0.25]


def test_explicit_judges_win_over_file(tmp_path, no_keys):
    path = write(
        tmp_path, "judges:\n  - model: openai/from-file\nconcurrency: 3\nretries: 1\nmax_cost_usd: 2.5\n"
    )
    config = resolve_jury(judges=["openai/cli-a", "openai/cli-b"], weights=[2, 1], config_file=path)
    assert [s.model for s in config.judges] == ["openai/cli-a", "openai/cli-b"]
    assert [s.weight for s in config.judges] == [2, 1]
    # run settings from the file still apply
    assert (config.concurrency_per_provider, config.max_retries, config.max_cost_usd) == (3, 1, 2.5)


def test_file_judges(tmp_path, no_keys):
    path = write(
        tmp_path,
        """
judges:
  - model: openai/gpt-4o
    api_key_env: TEAM_OPENAI_KEY
    weight: 0.6
  - model: openai/local-judge
    api_base: http://localhost:8000/v1
    weight: 0.4
lang: en
""",
    )
    config = resolve_jury(config_file=path)
    assert not config.offline and config.lang == "en"
    assert [(s.judge_name, s.weight, s.api_key_env) for s in config.judges] == [
        ("gpt-4o", 0.6, "TEAM_OPENAI_KEY"),
        ("local-judge", 0.4, None),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("judges: [model: x\n", "not valid YAML"),
        ("- just a list\n", "must be a mapping"),
        ("judgs: []\n", "did you mean 'judges'"),
        ("judges:\n  - weight: 1\n", "bad judge entry"),
        ("judges:\n  - model: openai/a\n    weight: -1\n", "bad judge entry"),
        ("judges: openai/a\n", "list of mappings"),
        (
            "judges:\n  - model: openai/a\n    api_key_env: sk-live-abc123\n",
            "NAME of an environment variable",
        ),
        ("judges:\n  - model: openai/a\nconcurrency: 0\n", "invalid jury settings"),
    ],
)
def test_bad_config_files_fail_clearly(tmp_path, text, message):
    with pytest.raises(JuryConfigError, match=message):
        resolve_jury(config_file=write(tmp_path, text))


def test_missing_config_file_fails_clearly(tmp_path):
    with pytest.raises(JuryConfigError, match="cannot read"):
        resolve_jury(config_file=tmp_path / "nope.yaml")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"judges": ["openai/a", "openai/b"], "weights": [1.0]}, "2 judges but 1 weights"),
        ({"judges": ["openai/a"], "weights": [-0.5]}, ">= 0"),
        ({"judges": ["openai/a", "openai/b"], "weights": [0, 0]}, "> 0"),
        ({"judges": ["openai/a"], "offline": True}, "exclude each other"),
        ({"api_base": "http://x/v1", "weights": [1, 1]}, "default jury has 3 judges"),
    ],
)
def test_bad_arguments_fail_clearly(kwargs, message, no_keys):
    with pytest.raises(JuryConfigError, match=message):
        resolve_jury(**kwargs)


def test_repeated_models_get_distinct_names():
    config = resolve_jury(judges=["openai/a", "openai/a"], api_base="http://h/v1")
    assert [s.judge_name for s in config.judges] == ["a", "a#2"]


def test_public_dict_has_variable_names_never_values(tmp_path, all_keys, monkeypatch):
    monkeypatch.setenv("TEAM_KEY", "sk-super-secret-value")
    path = write(
        tmp_path,
        "judges:\n  - model: openai/gpt-4o\n    api_key_env: TEAM_KEY\n"
        "    api_base: https://bob:hunter2@proxy.example.com/v1?token=abc\n",
    )
    public = resolve_jury(config_file=path).public_dict()
    text = json.dumps(public)
    assert "TEAM_KEY" in text
    for secret in ("sk-super-secret-value", "hunter2", "token=abc", "secret-value-of-"):
        assert secret not in text
    assert public["judges"][0]["api_base"] == "https://proxy.example.com/v1"
    assert public["judges"][0]["name"] == "gpt-4o"


def test_build_live_judges():
    config = JuryConfig(
        judges=[JudgeSpec(model="openai/gpt-4o", weight=0.7, api_key_env="K", temperature=0.0)]
    )
    (judge,) = build_judges(config, timeout_s=5)
    assert (judge.name, judge.model, judge.weight, judge.api_key_env, judge.temperature, judge.timeout_s) == (
        "gpt-4o",
        "openai/gpt-4o",
        0.7,
        "K",
        0.0,
        5,
    )
    assert judge.offline is False


def test_build_offline_jury_imports_the_offline_module_lazily(monkeypatch, no_keys):
    seen = []
    fake = types.ModuleType("assay.judges.offline")
    fake.offline_jury = lambda weights=None: seen.append(weights) or ["offline-judges"]
    monkeypatch.setitem(sys.modules, "assay.judges.offline", fake)
    assert build_judges(resolve_jury(offline=True, weights=[0.5, 0.3, 0.2])) == ["offline-judges"]
    assert build_judges(resolve_jury()) == ["offline-judges"]
    assert seen == [[0.5, 0.3, 0.2], None]
