"""Reference-free grounding metrics with real litellm calls to a loopback OpenAI-compatible
server: faithfulness claim by claim, context relevance, answer relevancy, judge failures, the
call store, and what the offline jury honestly can (and cannot) say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import assay  # noqa: F401  (offline switches before litellm)
from assay.judges.llm import LiteLLMJudge
from assay.judges.offline import offline_jury
from assay.judges.runner import JuryRunner
from assay.judges.store import CallStore
from assay.metrics.grounding import figure_checks, names_in
from assay.spec import RunSpec
from assay.suites.kit import MetricContext
from assay.suites.kit.grounding import NEEDS_LLM, NO_CONTEXTS, Grounded, GroundingFamily, merged_claims
from tests.support.grounding_judge import GroundingResponder
from tests.support.openai_server import Fault, OpenAICompatServer


class Case:
    def __init__(self, id: str, question: str) -> None:
        self.id, self.question = id, question


class Gen:
    def __init__(self, answer: str, contexts: list[str], error: str | None = None) -> None:
        self.answer, self.contexts, self.error = answer, contexts, error


FAMILY = GroundingFamily("grounding", lambda c, g, ctx: Grounded(c.question, g.answer, g.contexts))
CASES = [Case("c1", "How long is the return window?"), Case("c2", "Is there a data cap?")]
GENERATIONS = {
    "c1": Gen("Returns are accepted within 30 days. Shipping is free. You also get a gift card.",
              ["Returns: 30 days from delivery.", "Return shipping is free.", "Fiber 500 is $45 per month."]),
    "c2": Gen("No plan has a data cap.", []),
}


def by_model(**responders: GroundingResponder):
    return lambda body: responders[body["model"]](body)


def score(judges, store: CallStore | None = None, cases=CASES, generations=GENERATIONS):
    runner = JuryRunner(judges, store=store, backoff_base_s=0.01, backoff_max_s=0.02, lang="en")
    ctx = MetricContext(spec=RunSpec(suite="answers", lang="en"), jury=runner)
    rows = FAMILY.compute(cases, generations, ctx)
    return {(r.case_id, r.metric, r.judge): r for r in rows}, ctx


def llm(server: OpenAICompatServer, model: str) -> LiteLLMJudge:
    return LiteLLMJudge(f"openai/{model}", api_base=server.base_url, name=model)


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def test_faithfulness_is_each_judges_supported_share_with_every_claim_and_verdict_kept(key):
    strict = GroundingResponder(unsupported=("gift card", "free"))
    lenient = GroundingResponder(unsupported=("gift card",))
    with OpenAICompatServer(responder=by_model(a=strict, b=lenient)) as server:
        rows, ctx = score([llm(server, "a"), llm(server, "b")])
    assert rows[("c1", "faithfulness", "a")].value == pytest.approx(1 / 3)
    assert rows[("c1", "faithfulness", "b")].value == pytest.approx(2 / 3)
    claims = rows[("c1", "faithfulness", "b")].details["claims"]
    assert [(c["claim"], c["text"], c["supported"]) for c in claims] == [
        (1, "Returns are accepted within 30 days.", True), (2, "Shipping is free.", True),
        (3, "You also get a gift card.", False)]
    assert all(c["reason"] == "scripted" and c["request_key"] for c in claims)
    # each claim was sent on its own, framed as data, with the contexts framed too
    claim_prompts = [seen for seen in lenient.seen if "claim" in seen]
    assert sorted(seen["claim"] for seen in claim_prompts) == sorted(c["text"] for c in claims)
    assert all("[1] Returns: 30 days from delivery." in seen["contexts"] for seen in claim_prompts)
    # no contexts: faithfulness and context relevance are not applicable, never 0
    for metric in ("faithfulness", "context_relevance"):
        row = rows[("c2", metric, None)]
        assert row.value is None and row.unscored_reason == NO_CONTEXTS and row.is_not_applicable
    assert {run.prompt_id for run in ctx.jury_runs} == {
        "answer_relevancy", "context_relevance", "faithfulness_claims", "faithfulness_verdict"}


def test_context_relevance_is_the_relevant_share_of_the_chunks(key):
    judge = GroundingResponder(irrelevant=("Fiber 500",))
    with OpenAICompatServer(responder=judge) as server:
        rows, _ = score([llm(server, "a")])
    row = rows[("c1", "context_relevance", "a")]
    assert row.value == pytest.approx(2 / 3)
    assert [c["relevant"] for c in row.details["chunks"]] == [True, True, False]
    assert rows[("c1", "answer_relevancy", "a")].value == 4.0
    assert rows[("c2", "answer_relevancy", "a")].value == 4.0


def test_a_judge_that_fails_leaves_its_rows_unscored_with_the_reason_and_the_others_score(key):
    with OpenAICompatServer(responder=GroundingResponder()) as server:
        server.add_fault(Fault(kind="status", status=401, model="b"))
        rows, _ = score([llm(server, "a"), llm(server, "b")])
    assert rows[("c1", "faithfulness", "a")].value == 1.0
    failed = rows[("c1", "faithfulness", "b")]
    assert failed.value is None and "judge b failed" in failed.unscored_reason and "permanent" in failed.unscored_reason


def test_a_rerun_is_answered_from_the_call_store(key, tmp_path: Path):
    with OpenAICompatServer(responder=GroundingResponder(unsupported=("gift",))) as server:
        first, _ = score([llm(server, "a")], CallStore(str(tmp_path)))
        sent = server.count()
        again, _ = score([llm(server, "a")], CallStore(str(tmp_path)))
        assert server.count() == sent  # nothing sent twice: claims, verdicts and chunks all cached
    assert again[("c1", "faithfulness", "a")].value == first[("c1", "faithfulness", "a")].value == pytest.approx(2 / 3)
    assert again[("c1", "faithfulness", "a")].details["cached"] is True


def test_claims_of_several_judges_are_merged_once_each():
    assert merged_claims([["Shipping is free.", "A"], ["shipping is FREE", "B."]], 10) == ["Shipping is free.", "A", "B."]
    assert merged_claims([["a", "b", "c"]], 2) == ["a", "b"]


def test_offline_the_judged_metrics_say_they_need_an_llm_and_only_the_figure_check_scores():
    rows, ctx = score(offline_jury())
    for metric in ("faithfulness", "answer_relevancy", "context_relevance"):
        for case in ("c1", "c2"):
            row = rows[(case, metric, None)]
            assert row.value is None and row.unscored_reason == NEEDS_LLM
    assert not ctx.jury_runs  # no offline judge was asked for a verdict it cannot give
    check = rows[("c1", "figure_support", None)]
    assert check.value == 1.0 and "offline figure check" in check.details["check"]  # 30 is in the contexts
    assert rows[("c2", "figure_support", None)].unscored_reason == NO_CONTEXTS


def test_in_a_mixed_jury_only_the_llm_judges_answer(key):
    with OpenAICompatServer(responder=GroundingResponder()) as server:
        rows, ctx = score([llm(server, "a"), *offline_jury()])
    assert {judge for (_, _, judge) in rows if judge} == {"a"}
    assert all(set(run.judge_stats) == {"a"} and not run.dropped_judges for run in ctx.jury_runs)


def test_a_case_without_a_generation_is_unscored_for_every_metric(key):
    rows, _ = score(offline_jury(), generations={"c1": GENERATIONS["c1"]})
    assert {m for (c, m, _) in rows if c == "c2"} == {"faithfulness", "answer_relevancy", "context_relevance",
                                                     "figure_support"}
    assert all(r.unscored_reason == "no generation recorded for this case" for (c, _, _), r in rows.items() if c == "c2")


def test_the_figure_check_finds_figures_and_names_the_contexts_lack():
    checks = figure_checks("Fiber 1000 costs $70 per month. Support is open daily. Ask Maria Lopez in Salem.",
                           ["Fiber 1000 is $65 per month.", "Our Salem office is open 9 to 5."], "What does it cost?")
    assert [(c.sentence, c.found) for c in checks] == [
        ("Fiber 1000 costs $70 per month.", False), ("Ask Maria Lopez in Salem.", False)]
    assert "Maria" in checks[1].missing and "Salem" not in checks[1].missing
    assert names_in("We use AWS and Google Cloud.") == ["AWS", "Google", "Cloud"]
    assert json.dumps([c.checked for c in checks])
    # figures are the ones written in digits, shown as written: "at once" is not a figure
    assert figure_checks("Restart it at once.", ["Restart the router."]) == []
    assert figure_checks("Usage rose 12% to 1,250 users.", ["Up 12 percent, to 1250 users."])[0].checked == ("12%", "1250")
