"""How a suite hands its offline rules to the offline jury.

The jury's core (this package) computes signals from a language pack and never names a suite.
Each suite that judges offline has an ``offline`` package beside its code whose ``__init__``
defines ``RULES = SuiteRules(...)``: the prompts it answers, the class that holds its rules, the
data files they read and its fitted stages (``fitted.Stage``: forests over the rules' signals).
The jury finds them by scanning the suites package once.

A rule set is built per judge (``rule_set(judge)``) and reads the judge's signals (``units``,
``coverage``, ``conflicts``, thresholds, ``signal``, ``fitted``) through ``RuleSet``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Generic, TypeVar

from assay.judges.offline.fitted import Stage
from assay.judges.offline.messages import Msg
from assay.schemas import JsonObject

# The one package the jury looks in for suites' rules (a name, not an import of any suite).
SUITES_PACKAGE = "assay.suites"

State = TypeVar("State")


@dataclass(frozen=True)
class Rule(Generic[State]):
    """One named rule: when ``applies(state)``, ``adjust(state, scores)`` gives the new scores
    and ``reason(state)`` the note the feedback carries: a message (``messages.say``), written in
    the run's language once every rule has run, or plain text, written as it is."""

    name: str
    applies: Callable[[State], bool]
    adjust: Callable[[State, dict[str, float]], dict[str, float]]
    reason: Callable[[State], str | Msg] = lambda state: ""


def apply_rules(
    rules: tuple[Rule[State], ...], state: State, scores: dict[str, float]
) -> tuple[dict[str, float], list[str | Msg]]:
    """Every rule that applies, in order: the scores after them and their notes."""
    notes = []
    for rule in rules:
        if rule.applies(state):
            scores = rule.adjust(state, scores)
            note = rule.reason(state)
            if note:
                notes.append(note)
    return scores, notes


class RuleSet:
    """Base of a suite's rules: the judge's signals and thresholds read as attributes."""

    def __init__(self, judge: Any) -> None:
        self.judge = judge

    def __getattr__(self, name: str) -> Any:
        # only reached for names the rule set does not define: the judge's signals
        return getattr(self.judge, name)


@dataclass(frozen=True)
class SuiteRules:
    """A suite's offline rules: prompt id -> method of ``rule_set``. Their sources, hashed into
    its prompts' call keys, are the ``offline`` package (its fitted stages' forests included), the
    suite's ``rules/*.yaml`` cue tables beside it, and ``files``: any other code or data they read.
    ``stages``: the fitted stages its rules run after their verdicts (``fitted.refine``)."""

    rule_set: type[RuleSet]
    prompts: Mapping[str, str]
    package: Path
    files: tuple[Path, ...] = field(default_factory=tuple)
    stages: tuple[Stage, ...] = field(default_factory=tuple)

    def sources(self) -> list[Path]:
        own = [p for p in self.package.rglob("*") if p.is_file() and p.suffix in (".py", ".yaml", ".json")]
        tables = sorted((self.package.parent / "rules").glob("*.yaml"))
        return sorted({p.resolve() for p in (*own, *tables, *self.files)})


_ADDED: list[SuiteRules] = []


def register(rules: SuiteRules) -> SuiteRules:
    """Add a suite's rules from outside the suites package (a plugin suite); returns them."""
    if rules not in _ADDED:
        _ADDED.append(rules)
    return rules


def registered() -> tuple[SuiteRules, ...]:
    """Every built-in suite's ``offline.RULES`` and every registered suite's rules."""
    return (*built_in(), *_ADDED)


@cache
def built_in() -> tuple[SuiteRules, ...]:
    """The built-in suites' ``offline.RULES``, found once by scanning the suites package."""
    suites = importlib.import_module(SUITES_PACKAGE)
    found = []
    for info in sorted(pkgutil.iter_modules(suites.__path__), key=lambda i: i.name):
        if not info.ispkg:
            continue
        name = f"{SUITES_PACKAGE}.{info.name}.offline"
        if importlib.util.find_spec(name) is None:
            continue
        rules = getattr(importlib.import_module(name), "RULES", None)
        if isinstance(rules, SuiteRules):
            found.append(rules)
    return tuple(found)


def rules_for(judge: Any) -> dict[str, Callable[[Any], JsonObject]]:
    """prompt id -> the judge's rule for it, from every suite's rule set."""
    table: dict[str, Callable[[Any], JsonObject]] = {}
    for suite in registered():
        rule_set = suite.rule_set(judge)
        table.update({prompt_id: getattr(rule_set, method) for prompt_id, method in suite.prompts.items()})
    return table


def owner(prompt_id: str) -> SuiteRules | None:
    """The suite rules that answer ``prompt_id`` (the last registered, as ``rules_for`` picks)."""
    found = [suite for suite in registered() if prompt_id in suite.prompts]
    return found[-1] if found else None


def fitted_stages() -> dict[str, Stage]:
    """prompt id -> its fitted stage, from every registered suite (the last registered wins, as
    for the rules)."""
    return {stage.prompt_id: stage for suite in registered() for stage in suite.stages}


_HASHES: dict[int, str] = {}


def sources_hash(prompt_id: str) -> str:
    """sha256 (16 hex) over the rule files of the suite that answers ``prompt_id`` ("-" for
    none): an edited rule or cue table is a different judge for that suite's prompts only, and
    a plugin suite registered in one process changes no other suite's call keys."""
    suite = owner(prompt_id)
    if suite is None:
        return "-"
    if id(suite) not in _HASHES:
        digest = hashlib.sha256()
        for path in suite.sources():
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
        _HASHES[id(suite)] = digest.hexdigest()[:16]
    return _HASHES[id(suite)]


def forget_hashes() -> None:
    """Hash the rule files again on next use (after a cue table was edited in this process)."""
    _HASHES.clear()
