"""Declarative metric families: the per-case loop, unscored rows and the judge loop, once.

- ``AutomaticFamily(name, metrics, score)``: ``score(case, generation, ctx)`` returns the rows
  of one case; a case without a generation gets one unscored row per declared metric.
- ``JuryFamily(name, prompts, to_input)``: every case with a usable generation becomes one
  judge input; each ``JuryPrompt`` is run over all of them and its verdicts become one row
  per case, judge and metric, taken from the prompt's declared score and count fields. A
  failed judge call becomes an unscored row naming the judge and the error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel

from assay.schemas import JsonObject, ScoreRow
from assay.spec import RunSpec
from assay.suites.kit.suite import FamilyCaseT, FamilyGenT, MetricContext, MetricFamily

if TYPE_CHECKING:
    from assay.judges.base import JudgeResult
    from assay.judges.prompts.base import Prompt

NO_GENERATION = "no generation recorded for this case"
PROGRESS_EVERY = 5  # cases between progress lines of an automatic family (at least; ten lines at most)

MetricScales = Mapping[str, str] | Callable[[RunSpec], Mapping[str, str]]


def missing_generation(gen: BaseModel | None) -> str | None:
    """Why a case cannot be judged: no generation, or the generator failed on it."""
    if gen is None:
        return NO_GENERATION
    error = getattr(gen, "error", None)
    return f"generation failed: {error}" if error else None


def AutomaticFamily(  # noqa: N802 - reads as a declaration, like a class
    name: str,
    metrics: MetricScales,
    score: Callable[[FamilyCaseT, FamilyGenT, MetricContext], list[ScoreRow]],
    description: str = "",
) -> MetricFamily[FamilyCaseT, FamilyGenT]:
    """Metrics computed from a case and its generation alone (no judges).

    ``metrics`` maps each metric to its scale, or is a function of the run parameters that
    does (e.g. ``ndcg@{k}``); it names the unscored rows of a case without a generation.
    """

    def compute(
        cases: list[FamilyCaseT], generations: Mapping[str, FamilyGenT], ctx: MetricContext
    ) -> list[ScoreRow]:
        scales = metrics(ctx.spec) if callable(metrics) else metrics
        rows: list[ScoreRow] = []
        every = max(PROGRESS_EVERY, len(cases) // 10)  # each line is a log record the server stores
        for i, case in enumerate(cases, 1):
            gen = generations.get(case.id)
            if gen is None:
                rows += [ScoreRow.unscored(case.id, m, name, s, NO_GENERATION) for m, s in scales.items()]
            else:
                rows += score(case, gen, ctx)
            if i % every == 0 or i == len(cases):
                ctx.progress(f"{name} metrics: {i}/{len(cases)} cases")
        return rows

    def names(spec: RunSpec) -> list[str]:
        return list(metrics(spec) if callable(metrics) else metrics)

    return MetricFamily(name, compute, uses_jury=False, description=description, metrics=names)


@dataclass(frozen=True)
class JuryPrompt:
    """One judge prompt of a family and how its verdict becomes score rows.

    ``metrics`` maps a row's metric name to the prompt field it reads (default: every score
    and count field under its own name). ``details(metric, verdict)`` adds what explains a
    score (feedback, issues) to the per-judge row.
    """

    prompt_id: str
    metrics: Mapping[str, str] | None = None
    details: Callable[[str, JsonObject], JsonObject] = field(default=lambda metric, verdict: {})

    def prompt(self) -> Prompt:
        from assay.judges.prompts import get_prompt

        return get_prompt(self.prompt_id)

    def fields(self) -> dict[str, str]:
        prompt = self.prompt()
        return dict(self.metrics) if self.metrics else {f: f for f in [*prompt.score_fields, *prompt.count_fields]}

    def scales(self) -> dict[str, str]:
        prompt = self.prompt()
        return {metric: scale_of(prompt, f) for metric, f in self.fields().items()}


def scale_of(prompt: Prompt, field_name: str) -> str:
    """A prompt field's scale as a row names it: "1-5", "0-10", "0-1", or "count"."""
    if field_name in prompt.score_fields:
        lo, hi = prompt.score_fields[field_name]
        return f"{lo:g}-{hi:g}"
    return "count"


def JuryFamily(  # noqa: N802 - reads as a declaration, like a class
    name: str,
    prompts: Sequence[JuryPrompt],
    to_input: Callable[[FamilyCaseT, FamilyGenT, MetricContext], BaseModel],
    description: str = "",
) -> MetricFamily[FamilyCaseT, FamilyGenT]:
    """Metrics judged by the run's jury, one prompt after another over every usable case."""

    def compute(
        cases: list[FamilyCaseT], generations: Mapping[str, FamilyGenT], ctx: MetricContext
    ) -> list[ScoreRow]:
        rows: list[ScoreRow] = []
        items = []
        for case in cases:
            gen = generations.get(case.id)
            reason = missing_generation(gen)
            if reason:
                rows += [
                    ScoreRow.unscored(case.id, metric, name, scale, reason)
                    for jp in prompts
                    for metric, scale in jp.scales().items()
                ]
            elif gen is not None:  # always so without a reason; the check tells the type checker
                items.append((case.id, to_input(case, gen, ctx)))
        if not items:
            return rows
        for jp in prompts:
            prompt = jp.prompt()
            fields, scales = jp.fields(), jp.scales()
            run = ctx.jury_runner().run(prompt, items)
            ctx.jury_runs.append(run)
            ctx.progress(f"jury: {prompt.id} done")
            for case_id, results in run.results.items():
                for result in results:
                    rows += verdict_rows(name, case_id, result, prompt, fields, scales, jp.details)
        return rows

    return MetricFamily(name, compute, uses_jury=True, description=description,
                        metrics=lambda spec: [metric for jp in prompts for metric in jp.scales()])


def verdict_rows(
    family: str,
    case_id: str,
    result: JudgeResult,
    prompt: Prompt,
    fields: Mapping[str, str],
    scales: Mapping[str, str],
    details: Callable[[str, JsonObject], JsonObject],
) -> list[ScoreRow]:
    """One judge's rows for one case: its scores, or unscored rows saying why it has none."""
    base = {"request_key": result.request_key, "cached": result.cached, "model": result.model}
    common = {"case_id": case_id, "family": family, "judge": result.judge}
    if result.verdict is None:
        reason = f"judge {result.judge} failed ({result.error_kind}): {result.error}"
        return [
            ScoreRow(metric=m, scale=scales[m], value=None, unscored_reason=reason,
                     details={**base, "error_kind": result.error_kind}, **common)
            for m in fields
        ]
    values = prompt.scores(result.verdict)
    return [
        ScoreRow(metric=m, scale=scales[m], value=float(values[f]),
                 details={**base, **details(m, result.verdict)}, **common)
        for m, f in fields.items()
    ]
