"""Prices for the lean transport: litellm's answer, without litellm's import when its map cannot
price the model; one lookup per model, started before the first call."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading

import pytest

import assay  # noqa: F401  (offline switches before litellm)
from assay.judges import prices
from tests.conftest import ROOT

UNKNOWN = ["openai/bench-judge", "openai/judge-a", "openai/my-local-model", "openai/hung-judge", "openai/x",
           "openai/Qwen/Qwen2.5-7B-Instruct", "openai/llama-3.1-8b-instruct", "openai/claude-sonnet-4-5",
           "openai/ft:gpt-4o-mini:org::abc", "openai/gemma-2-9b", "openai/deepseek-v3"]


def candidates() -> list[str]:
    """Unknown names, known ones, and near misses of known ones (a character dropped or added,
    another separator, other case, a dated or provider-prefixed variant)."""
    names, _ = prices._bundled_map()
    assert len(names) > 1000, "litellm's bundled price map was not found"
    sample = sorted(names)[::40]
    out = list(UNKNOWN)
    for name in sample:
        tail = name.rsplit("/", 1)[-1]
        out += [f"openai/{tail}", f"openai/{tail[:-1]}", f"openai/{tail}-2031-01-01", f"openai/x{tail}",
                f"openai/{tail.replace('-', '_')}", f"openai/{tail.upper()}", f"openai/{name}"]
    return out


def test_the_map_never_calls_a_priced_model_unpriced():
    litellm_answers = {name: prices._litellm_price_of(name) for name in candidates()}
    unpriced = [name for name in litellm_answers if prices.unpriced_in_bundled_map(name)]
    assert unpriced, "every candidate went to litellm: the shortcut is never taken"
    assert "openai/bench-judge" in unpriced and "openai/gpt-4o" not in unpriced
    wrong = {name: litellm_answers[name] for name in unpriced if litellm_answers[name] != (0.0, 0.0)}
    assert not wrong, f"called unpriced, priced by litellm: {wrong}"


def test_a_known_model_is_priced_by_litellm():
    assert not prices.unpriced_in_bundled_map("openai/gpt-4o")
    assert prices.price_of("openai/gpt-4o") == prices._litellm_price_of("openai/gpt-4o") != (0.0, 0.0)


def test_another_price_map_in_use_always_asks_litellm(monkeypatch):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "False")  # litellm would fetch a remote map
    assert not prices.unpriced_in_bundled_map("openai/bench-judge")


def test_one_lookup_per_model_however_many_calls_wait(monkeypatch):
    looked_up: list[str] = []
    gate = threading.Event()

    def slow_price(model: str) -> prices.Prices:
        gate.wait(5)
        looked_up.append(model)
        return 0.5, 1.5

    monkeypatch.setattr(prices, "price_of", slow_price)
    monkeypatch.setattr(prices, "_lookups", {})

    async def many() -> list[prices.Prices]:
        waiting = [asyncio.create_task(prices.prices("openai/m")) for _ in range(50)]
        await asyncio.sleep(0.05)
        gate.set()
        return await asyncio.gather(*waiting)

    assert asyncio.run(many()) == [(0.5, 1.5)] * 50
    assert looked_up == ["openai/m"]
    assert prices.lookup("openai/m").result() == (0.5, 1.5)  # kept for the process's later runs


JURY_WITHOUT_LITELLM = """
import json, sys
import assay
from assay.judges.llm import LiteLLMJudge
from assay.judges.runner import JuryRunner
from tests.unit.judges.test_llm import PROMPT, Item
base, model = sys.argv[1], sys.argv[2]
runner = JuryRunner([LiteLLMJudge(model, api_base=base, transport="lean")], concurrency_per_provider=4)
run = runner.run(PROMPT, [(f"c{i}", Item(question="q", answer=f"a{i}")) for i in range(8)])
costs = sorted({r.usage.cost_usd for rs in run.results.values() for r in rs})
print(json.dumps({"ok": all(r.ok for rs in run.results.values() for r in rs), "costs": costs,
                  "litellm": "litellm" in sys.modules}))
"""


@pytest.mark.parametrize(("model", "priced"), [("openai/judge-a", False), ("openai/gpt-4o", True)])
def test_a_jury_on_an_unpriced_model_never_imports_litellm(model, priced):
    from tests.support.openai_server import OpenAICompatServer

    with OpenAICompatServer() as server:
        done = subprocess.run([sys.executable, "-c", JURY_WITHOUT_LITELLM, server.base_url, model], cwd=ROOT,
                              capture_output=True, text=True, check=True)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["ok"]
    assert seen["litellm"] is priced  # an unpriced model's 3.5-4 CPU s of import are never paid
    assert (seen["costs"] != [0.0]) is priced


def test_a_failing_shortcut_falls_back_to_litellm_and_never_leaves_a_call_waiting(monkeypatch):
    def broken(model: str) -> prices.Prices:
        raise RuntimeError("unreadable map")

    monkeypatch.setattr(prices, "price_of", broken)
    monkeypatch.setattr(prices, "_lookups", {})
    assert prices.lookup("openai/judge-a").result(timeout=60) == (0.0, 0.0)
    assert prices.lookup("openai/gpt-4o").result(timeout=60) == prices._litellm_price_of("openai/gpt-4o")


def test_the_price_map_can_be_read_ahead_and_only_when_litellm_would_read_it(monkeypatch):
    """The resident worker reads it before forking its runs (flows/warm_worker.py)."""
    prices._bundled_map.cache_clear()
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "False")
    prices.read_price_map()
    assert prices._bundled_map.cache_info().currsize == 0  # litellm would fetch a remote map: nothing to read
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    prices.read_price_map()
    assert prices._bundled_map.cache_info().currsize == 1
    misses = prices._bundled_map.cache_info().misses
    assert prices.unpriced_in_bundled_map("openai/bench-judge")
    assert prices._bundled_map.cache_info().misses == misses  # the lookup used what was read ahead
