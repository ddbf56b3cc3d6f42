"""The fitted stage of an offline verdict: a random forest per judge that reads the judge's rule
scores and signals and gives the final scores.

Why: each round of hand-written rules lifted the labelled set it was written on and barely
moved the next blind one; a forest fitted on the same signals, on every labelled set but the
blind ones, ranked the blind sets' answers better than the rules did (``docs/judges.md``, "The
fitted stage"). The rules still run first and their evidence stays in the feedback; the forest
only re-weighs what they found.

This module is the mechanism and names no suite: a suite that has a fitted stage declares it as
a ``Stage`` (its features function, the fields its forests give, where they are) in its
``offline`` package and lists it in its ``SuiteRules(stages=...)``; its rules call ``refine``
with it, and ``suite_rules.fitted_stages()`` lists every registered one (for ``bench/``).

The forests live beside the suite's rules (``<name>_forest.json``: data, never a pickle), are
written by ``bench/fit_forest.py`` and, being part of the suite's ``offline`` package, are hashed
into its prompts' call keys like the rules.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from assay.judges.offline.forest import Forest
from assay.judges.offline.messages import Msg, joined, key_part, say
from assay.schemas import JsonObject

# How many of the strongest moves the feedback names.
SHOWN_MOVES = 3


def rule_scores(rule_verdict: JsonObject, fields: tuple[str, ...], shortcut: bool) -> dict[str, float]:
    """The rules' scores, and whether they took a shortcut instead of reading signals: the
    features every stage starts from."""
    return {**{f"rule {f}": float(rule_verdict[f]) for f in fields}, "shortcut": float(shortcut)}


@dataclass(frozen=True)
class Stage:
    """One prompt family's fitted stage, declared by the suite that answers the prompt: what it
    reads and where its forests are."""

    prompt_id: str
    suite: str  # the held-out sets' folder for this family
    fields: tuple[str, ...]  # the scores the forests give, in their output order (others stay the rules')
    scale: tuple[float, float]
    rule_verdict: str  # the rules' method that returns (verdict, signals)
    features: Callable[[JsonObject, Any], dict[str, float]]
    explained: str  # the field whose strongest moves the feedback names
    text_key: str  # the verdict's free-text field the stage's note is appended to
    model_path: Path  # the forests (JSON written by bench/fit_forest.py), in the suite's offline package


@cache
def model_file(stage: Stage) -> JsonObject:
    return json.loads(stage.model_path.read_text(encoding="utf-8"))


@cache
def forest_for(stage: Stage, signal: str) -> Forest:
    """The forest fitted for ``stage`` and the judge whose signal is ``signal`` (lexical, ngram,
    numeric)."""
    judges = model_file(stage)["judges"]
    if signal not in judges:
        raise KeyError(f"{stage.model_path.name} has no forest for the {signal!r} judge (has {sorted(judges)})")
    return Forest.from_json(judges[signal])


def refine(stage: Stage, signal: str, rule_verdict: JsonObject, signals: Any) -> JsonObject:
    """The rule verdict with the forest's scores, and the feedback saying what moved them."""
    forest = forest_for(stage, signal)
    explained = forest.explain(stage.features(rule_verdict, signals), output=forest.outputs.index(stage.explained))
    lo, hi = stage.scale
    scores = {
        f: round(min(hi, max(lo, explained.prediction[forest.outputs.index(f)])), 2) for f in stage.fields
    }
    strongest = sorted(explained.contributions.items(), key=lambda kv: -abs(kv[1]))[:SHOWN_MOVES]
    moves = joined((say("fitted.move", signal=signal_name(name), value=value) for name, value in strongest
                    if abs(value) >= 0.005), ", ")
    about = model_file(stage).get("fitted_on", {})
    note = say(
        "fitted.stage", trees=len(forest.trees), rows=about.get("rows", "?"),
        fields=joined((say(f"fitted.field_{f}") for f in stage.fields), "/"),
        before=_scores(rule_verdict, stage.fields), after=_scores(scores, stage.fields),
        moves=say(f"fitted.moved_{stage.explained}", moves=moves) if moves.parts else "", bias=explained.bias,
    )  # fmt: skip
    return {**rule_verdict, **scores, stage.text_key: joined((rule_verdict[stage.text_key], note), " ")}


def signal_name(feature: str) -> Msg:
    """A forest feature as the feedback names it in the run's language: "rule accuracy" is a rule
    score, "finding polarity" a claim check (``finding.<name>``), any other ``fitted.signal_<name>``
    (every feature of every shipped forest has its message: tests/unit/judges/offline/test_feedback_language.py)."""
    kind, _, rest = feature.partition(" ")
    if kind == "rule" and rest:
        return say("fitted.signal_rule", field=say(f"fitted.field_{rest}"))
    if kind == "finding" and rest:
        return say("fitted.signal_finding", rule=say(f"finding.{key_part(rest)}"))
    return say(f"fitted.signal_{key_part(feature)}")


def _scores(verdict: JsonObject, fields: tuple[str, ...]) -> str:
    return "/".join(f"{float(verdict[f]):g}" for f in fields)
