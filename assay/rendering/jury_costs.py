"""The report's account of judge calls: per judge, how many were sent or reused, tokens, cost."""

from __future__ import annotations

from collections import defaultdict

from assay.rendering.sections import ReportSection
from assay.rendering.tables import markdown_table, md_text
from assay.schemas import JsonObject


def jury_cost_section(runs: list[JsonObject]) -> ReportSection | None:
    """From stored JuryRun records. "Used" counts every call a score rests on, including
    calls reused from the call store; "spent" is what the step paid for when it ran."""
    if not runs:
        return None
    totals: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for run in runs:
        for judge, stats in run.get("judge_stats", {}).items():
            for field in ("sent", "reused", "failed", "retries"):
                totals[judge][field] += stats.get(field, 0)
            totals[judge]["spent_usd"] += stats.get("cost_usd", 0.0)
        for results in run.get("results", {}).values():
            for result in results:
                usage = result.get("usage") or {}
                totals[result["judge"]]["input_tokens"] += usage.get("input_tokens", 0)
                totals[result["judge"]]["output_tokens"] += usage.get("output_tokens", 0)
                totals[result["judge"]]["used_usd"] += usage.get("cost_usd", 0.0)
    rows = []
    for judge, t in sorted(totals.items()):
        rows.append([
            md_text(judge), int(t["sent"]), int(t["reused"]), int(t["failed"]), int(t["retries"]),
            int(t["input_tokens"]), int(t["output_tokens"]), f"{t['used_usd']:.4f}", f"{t['spent_usd']:.4f}",
        ])
    all_rows = list(totals.values())
    total = ["**total**"] + [int(sum(t[f] for t in all_rows)) for f in ("sent", "reused", "failed", "retries", "input_tokens", "output_tokens")]
    total += [f"{sum(t['used_usd'] for t in all_rows):.4f}", f"{sum(t['spent_usd'] for t in all_rows):.4f}"]
    table = markdown_table(
        ["judge", "sent", "reused", "failed", "retries", "input tokens", "output tokens", "cost of calls used $", "spent when computed $"],
        rows + [total],
    )
    budget = any(run.get("budget_exhausted") for run in runs)
    note = "\n\n**The cost budget was exhausted:** calls past it were not sent and their scores are unscored." if budget else ""
    intro = (
        "Requests sent include retries; reused calls were answered from the content-addressed call store "
        "and cost nothing when reused. Cost is litellm's price where the model is known, 0 for local endpoints "
        "and the offline jury.\n\n"
    )
    return ReportSection("Judge calls, tokens and cost", intro + table + note)
