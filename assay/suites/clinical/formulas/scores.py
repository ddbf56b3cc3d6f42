"""Clinical answer scores (seed 002): slot factuality, contraindication penalty, context use.

Pure formulas over already-judged facts, rules and slots, and ``evaluate_answer``, which reads
an answer against the patient record (``slots_truth``) with the bundled rules
(``assay/suites/clinical/rules/``, read on first use) and returns the three scores with the
evidence behind each.

- SFS = 1 − Σ w·h / (Σ w + 1e-6) over the facts the answer mentions; w by severity
  (critical 2.0, normal 1.0, minor 0.5), h = 1 for a fact asserted about the patient that the
  record contradicts. Examples, general advice and hypotheticals are mentioned facts that are
  never hallucinated. An answer that mentions no fact scores 1.0 (the seed's ε makes 0/ε = 0).
- CSP = Σ w·violated / Σ w over the rules that apply to this patient and question (w = |penalty|);
  0.0 when no rule applies. Lower is better.
- CUS = Σ w·u / Σ w over the required slots, u = 1.0 explicit, 0.5 indirect, 0.0 absent;
  None (unscored) when the turn requires no slot.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from assay.suites.clinical.formulas.checks import RuleCheck, SlotUse
from assay.suites.clinical.formulas.extract import Fact

SEVERITY_WEIGHTS = {"critical": 2.0, "normal": 1.0, "minor": 0.5}
EPSILON = 1e-6


def slot_factuality(facts: Iterable[tuple[str, bool]], weights: Mapping[str, float] = SEVERITY_WEIGHTS) -> float:
    """1 − Σ w·h / (Σ w + ε) over ``(severity, hallucinated)`` pairs."""
    total = hallucinated = 0.0
    for severity, is_hallucinated in facts:
        if severity not in weights:
            raise ValueError(f"unknown severity {severity!r}; expected one of {', '.join(weights)}")
        total += weights[severity]
        hallucinated += weights[severity] * bool(is_hallucinated)
    return 1.0 - hallucinated / (total + EPSILON)


def contraindication_penalty(rules: Iterable[tuple[float, bool, bool]]) -> float:
    """Σ w·violated / Σ w over ``(weight, applicable, violated)`` rules that apply; 0.0 when none does."""
    applicable = violated = 0.0
    for weight, is_applicable, is_violated in rules:
        if weight < 0:
            raise ValueError(f"a rule weight is |penalty| and cannot be negative, got {weight}")
        if is_applicable:
            applicable += weight
            violated += weight * bool(is_violated)
    return violated / applicable if applicable > 0 else 0.0


USAGE_SCORES = {"explicit": 1.0, "indirect": 0.5, "absent": 0.0}


def context_utilization(slots: Iterable[tuple[float, float | str]]) -> float | None:
    """Σ w·u / Σ w over ``(weight, usage)`` required slots; None when nothing is required.

    ``usage`` is a number in 0-1 or one of "explicit" (1.0), "indirect" (0.5), "absent" (0.0).
    """
    total = used = 0.0
    for weight, given in slots:
        usage = USAGE_SCORES[given] if isinstance(given, str) and given in USAGE_SCORES else given
        if isinstance(usage, str) or not 0.0 <= usage <= 1.0:
            raise ValueError(f"slot usage must be within 0-1 or explicit/indirect/absent, got {given!r}")
        total += weight
        used += weight * usage
    return used / total if total > 0 else None


def normalize(value: float, lo: float, hi: float, higher_is_better: bool) -> float:
    """The seed's §4.2 onto [0, 1]: (v − lo)/(hi − lo), or 1 − that when lower is better.

    A 0-1 metric with lo=0, hi=1 passes unchanged (or as 1 − v); values outside [lo, hi] are
    clipped, so a perplexity of 55 on the seed's 10-40 range is 0, not negative.
    """
    if hi <= lo:
        raise ValueError(f"normalisation range needs lo < hi, got {lo}..{hi}")
    share = min(max((float(value) - lo) / (hi - lo), 0.0), 1.0)
    return share if higher_is_better else 1.0 - share


class AggregateScore(BaseModel):
    value: float | None
    used: dict[str, float] = Field(description="metric -> its normalised value, for the metrics that were computed")
    weights: dict[str, float] = Field(description="metric -> weight after renormalising over the computed ones")
    dropped: list[str] = Field(default_factory=list, description="metrics with a weight but no value")


def aggregate_score(values: Mapping[str, float | None], weights: Mapping[str, float],
                    ranges: Mapping[str, tuple[float, float, bool]]) -> AggregateScore:
    """Σ w·normalize(m) over the metrics that were computed, weights renormalised to sum to 1.

    A metric with no value (unscored, or perplexity without log-probabilities) is dropped
    rather than counted as 0. The seed lists ASS without defining it; it has no weight.
    """
    present = {m: float(v) for m, v in values.items()
               if m in weights and v is not None and not math.isnan(float(v)) and weights[m] > 0}
    dropped = sorted(m for m in weights if m not in present)
    total = sum(weights[m] for m in present)
    if not present or total <= 0:
        return AggregateScore(value=None, used={}, weights={}, dropped=dropped)
    used = {m: normalize(v, *ranges[m]) for m, v in present.items()}
    renormalised = {m: weights[m] / total for m in present}
    return AggregateScore(value=sum(renormalised[m] * used[m] for m in present), used=used,
                          weights=renormalised, dropped=dropped)


class AnswerEvaluation(BaseModel):
    """The three scores of one answer and the evidence behind each."""

    sfs: float
    csp: float
    cus: float | None
    facts: list[Fact] = Field(description="every fact mentioned, how it was read, and whether it is hallucinated")
    rules: list[RuleCheck] = Field(description="every rule: whether it applied, whether it was violated and by what text")
    slots: list[SlotUse] = Field(description="every required slot and how the answer used it")

    @property
    def hallucinations(self) -> list[Fact]:
        return [f for f in self.facts if f.hallucinated]

    @property
    def violations(self) -> list[RuleCheck]:
        return [r for r in self.rules if r.violated]


def evaluate_answer(answer: str, question: str, slots_truth: Mapping[str, Any], required_slots: Iterable[str],
                    rules: Any = None) -> AnswerEvaluation:
    """SFS, CSP and CUS of ``answer`` to ``question`` for the patient ``slots_truth``.

    ``rules`` is a ``ClinicalRules`` (default: the bundled ones). A required slot the record
    does not hold raises ``ValueError`` naming it.
    """
    from assay.suites.clinical.formulas.checks import check_rules, slot_uses
    from assay.suites.clinical.formulas.extract import extract_facts, reader_for
    from assay.suites.clinical.formulas.rules import load_rules

    rules = rules or load_rules()
    reader = reader_for(rules, slots_truth, question)
    facts, parsed = extract_facts(reader, answer or "")
    checks = check_rules(reader, answer or "", parsed)
    slots = slot_uses(reader, facts, parsed, list(required_slots))
    weights = rules.scoring.severity_weights
    return AnswerEvaluation(
        sfs=slot_factuality(((f.severity, f.hallucinated) for f in facts), weights),
        csp=contraindication_penalty((r.weight, r.applicable, r.violated) for r in checks),
        cus=context_utilization((s.weight, s.score) for s in slots),
        facts=facts, rules=checks, slots=slots,
    )
