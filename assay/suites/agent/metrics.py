"""agent metric families (seed 004): what each call did, and the jury's intent verdict per call.

Repeats combine by their mean (a choice the seed leaves open; a flaky agent scores in
proportion to how often it fails): accuracy, latency, stability and intent are each the mean
of their per-repeat scores. Consistency needs the intent labels, so it is computed in the
aggregate (summary.py) from the per-repeat labels kept in the jury rows' details.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from assay.schemas import JsonObject, ScoreRow
from assay.suites.agent import formulas as am
from assay.suites.agent.schema import AgentCall, AgentCase, AgentGeneration
from assay.suites.kit import AutomaticFamily, MetricContext, MetricFamily, missing_generation
from assay.suites.kit.families import verdict_rows

PROMPT = "agent_intent"
CALLS, INTENT = "calls", "intent"
CALL_METRICS = {"accuracy": "0-5", "latency": "0-5", "stability": "0-5"}
MAX_TEXT = 300


def read_call(call: AgentCall) -> tuple[JsonObject | None, str | None]:
    """The parsed response of a call, or why there is none (transport error or bad JSON)."""
    if call.error:
        return None, call.error
    return am.parse_response(call.raw)


def call_rows(case: AgentCase, gen: AgentGeneration, ctx: MetricContext) -> list[ScoreRow]:
    if gen.error or not gen.calls:
        reason = f"agent calls failed: {gen.error}" if gen.error else "no calls recorded"
        return [ScoreRow.unscored(case.id, m, CALLS, s, reason) for m, s in CALL_METRICS.items()]
    per_repeat = []
    for call in sorted(gen.calls, key=lambda c: c.repeat):
        parsed, problem = read_call(call)
        checks = [am.run_check(parsed, c.path, c.op, c.value) for c in case.checks] if parsed is not None else []
        ratio = am.pass_ratio(checks)
        per_repeat.append({
            "repeat": call.repeat,
            "accuracy": am.accuracy_score(ratio, errored=parsed is None),
            "latency": am.latency_score(call.response_time_sec, case.latency_class),
            "stability": am.stability_score(call.error, parsed),
            "response_time_sec": call.response_time_sec,
            "pass_ratio": ratio,
            "failed_checks": [c.describe() for c in checks if not c.passed],
            "signature": am.signature(parsed),
            "problem": (problem or "")[:MAX_TEXT],
        })
    why = {"accuracy": "no checks defined for this query" if not case.checks else ""}
    rows = []
    for metric, scale in CALL_METRICS.items():
        value = am.mean(r[metric] for r in per_repeat)
        details = {"per_repeat": [r[metric] for r in per_repeat], "repeats": len(per_repeat)}
        if metric == "accuracy":
            details |= {"pass_ratios": [r["pass_ratio"] for r in per_repeat], "failed_checks": [r["failed_checks"] for r in per_repeat],
                        "no_checks": not case.checks}
        if metric == "latency":
            details |= {"seconds": [r["response_time_sec"] for r in per_repeat], "latency_class": case.latency_class}
        if metric == "stability":
            details |= {"signatures": [r["signature"] for r in per_repeat], "problems": [r["problem"] for r in per_repeat]}
        rows.append(ScoreRow(case_id=case.id, metric=metric, family=CALLS, value=value, scale=scale,
                             details={**details, "note": why.get(metric, "")}))
    return rows


def judge_input(case: AgentCase, parsed: JsonObject) -> BaseModel:
    from assay.judges.prompts import get_prompt

    return get_prompt(PROMPT).input_model.model_validate({
        "query": case.query,
        "assistant_message": str(parsed.get("assistantMessage") or ""),
        "expected_result": case.expected_result,
    })


def intent_compute(cases: list[AgentCase], generations: Mapping[str, AgentGeneration], ctx: MetricContext) -> list[ScoreRow]:
    """The jury reads every repeat's assistantMessage (item id ``<case>#<repeat>``). A call that
    failed (error, timeout, bad JSON, no message) is FAILED (0) with label ERROR, as the seed's
    rubric reads "무관/무응답/실패", without asking a judge. Per judge: the mean over repeats, with
    each repeat's verdict and label in the details for consistency."""
    from assay.judges.prompts import get_prompt
    from assay.suites.agent.prompts import INTENT_SCORES

    prompt = get_prompt(PROMPT)
    rows: list[ScoreRow] = []
    items, failed_calls = [], defaultdict(list)
    order: dict[str, list[int]] = {}
    for case in cases:
        gen = generations.get(case.id)
        reason = missing_generation(gen) or (None if gen and gen.calls else "no calls recorded")
        if reason:
            rows.append(ScoreRow.unscored(case.id, "intent", INTENT, "0-5", reason))
            continue
        order[case.id] = sorted(c.repeat for c in gen.calls)
        for call in gen.calls:
            parsed, _ = read_call(call)
            if parsed is None or not str(parsed.get("assistantMessage") or "").strip():
                failed_calls[case.id].append(call.repeat)
            else:
                items.append((f"{case.id}#{call.repeat}", judge_input(case, parsed)))
    judged: dict[str, dict[str, dict[int, Any]]] = defaultdict(lambda: defaultdict(dict))  # case -> judge -> repeat -> result
    judges = [j.name for j in ctx.jury.judges] if ctx.jury is not None else []
    if items:
        run = ctx.jury_runner().run(prompt, items)
        ctx.jury_runs.append(run)
        ctx.progress(f"jury: {prompt.id} done ({len(items)} calls)")
        for item_id, item_results in run.results.items():
            case_id, _, repeat_number = item_id.rpartition("#")
            for judge_result in item_results:
                judged[case_id][judge_result.judge][int(repeat_number)] = judge_result
    for case_id, repeats in order.items():
        for judge in judges:
            results = judged[case_id][judge]
            scores, labels, verdicts, failures = [], [], [], []
            for repeat in repeats:
                if repeat in failed_calls[case_id]:
                    scores.append(INTENT_SCORES["FAILED"])
                    labels.append("ERROR")
                    verdicts.append("FAILED")
                    continue
                result = results.get(repeat)
                if result is None or result.verdict is None:
                    failures.append(result)
                    continue
                scores.append(INTENT_SCORES[result.verdict["verdict"]])
                labels.append(result.verdict["intent_label"])
                verdicts.append(result.verdict["verdict"])
            first = next((r for r in results.values() if r is not None), None)
            if failures:
                failed = next((f for f in failures if f is not None), None)
                if failed is not None:  # the judge failed on some repeat: its row says why
                    rows += verdict_rows(INTENT, case_id, failed, prompt, {"intent": "verdict"}, {"intent": "0-5"},
                                         lambda metric, verdict: {})
                    continue
            details = {"verdicts": verdicts, "labels": labels, "repeats": repeats,
                       "reasoning": str(first.verdict.get("reasoning", ""))[:MAX_TEXT] if first and first.verdict else ""}
            if first is not None:
                details |= {"request_key": first.request_key, "cached": first.cached, "model": first.model}
            rows.append(ScoreRow(case_id=case_id, metric="intent", family=INTENT, judge=judge,
                                 value=am.mean(scores), scale="0-5", details=details))
    return rows


FAMILIES = [
    AutomaticFamily(CALLS, CALL_METRICS, call_rows,
                    "per call: accuracy from the checks' pass ratio, latency by class, stability; mean over repeats"),
    MetricFamily(INTENT, intent_compute, uses_jury=True,
                 description="jury: intent verdict (PERFECT 5 … FAILED 0) and intent label of every repeat"),
]
