"""Failed calls are failures: the cases a live replay could not measure, counted once.

A case whose target (or generator) call still failed after its retries was not measured. The
replay step tallies them (``tally``) into ``failed_calls.json``; the flow ends the run
``incomplete`` unless ``--max-failed-calls`` allows that many (``Allowance``); the report, the
console, ``--junit`` and ``--assert`` all read the same record. The agent suite scores a failed
call (a timeout is a stability of 0), so its cases stay scored, but the count and the banner
are the same.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from pydantic import BaseModel, Field

from assay.schemas import JsonObject

_ALLOWANCE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$")


class Allowance(BaseModel):
    """``--max-failed-calls``: a number of calls (``3``) or a share of the run's calls (``5%``)."""

    count: int | None = None
    percent: float | None = None

    @classmethod
    def parse(cls, text: str) -> Allowance:
        found = _ALLOWANCE.match(text)
        if not found or (not found.group(2) and "." in found.group(1)):
            raise ValueError("give a number of calls (3) or a share of the run's calls (5%)")
        if found.group(2):
            percent = float(found.group(1))
            if percent > 100:
                raise ValueError("a share of the run's calls is at most 100%")
            return cls(percent=percent)
        return cls(count=int(found.group(1)))

    def limit(self, total_calls: int) -> int:
        """How many failed calls of ``total_calls`` this allows."""
        if self.count is not None:
            return self.count
        return math.floor((self.percent or 0.0) * total_calls / 100 + 1e-9)

    def __str__(self) -> str:
        return str(self.count) if self.count is not None else f"{self.percent:g}%"


class FailedCalls(BaseModel):
    """What a live replay failed to measure. ``cases``: case id -> its first failed call's error."""

    target: str = Field(description="what was called: the target's URL or function, or the generator model")
    n_cases: int
    n_calls: int = Field(description="calls made (a case may make several: the agent suite's repeats)")
    n_failed: int = Field(description="calls that failed after their retries")
    cases: dict[str, str] = Field(default_factory=dict)
    scored_by_suite: bool = Field(default=False, description="the suite scores a failed call (agent), so its cases stay scored")

    @property
    def first(self) -> str | None:
        return next(iter(self.cases.values()), None)

    def allowed(self, allowance: str | None) -> bool:
        if not self.n_failed:
            return True
        return allowance is not None and self.n_failed <= Allowance.parse(allowance).limit(self.n_calls)

    def banner(self) -> str:
        """One line: how many cases were not measured, how many calls failed, the first failure."""
        first = f"first: {self.target}, {self.first}"
        # "of N" only where a case makes several calls (repeats); otherwise calls are cases
        calls = f"{self.n_failed} of {self.n_calls}" if self.n_calls != self.n_cases else f"{self.n_failed}"
        failed = f"{calls} target call{'' if calls == '1' else 's'} failed ({first})"
        if self.scored_by_suite:
            return f"{len(self.cases)} of {self.n_cases} cases had failed calls, scored as failures by this suite: {failed}"
        return f"{len(self.cases)} of {self.n_cases} cases not measured: {failed}"

    def unmeasured(self) -> set[str]:
        """The cases without a measurement (none where the suite scores failed calls)."""
        return set() if self.scored_by_suite else set(self.cases)


def tally(generations: Iterable[JsonObject], target: str, scored_by_suite: bool = False) -> FailedCalls:
    """Count the failed calls in a live replay's generations: a generation's ``error``, or each
    of its ``calls`` (repeats) that has one. A generation with ``counted_with`` (a clinical turn
    never asked after its patient's failed turn, a memory query whose session's summary failed)
    is a case not measured whose failed call is counted with that other case."""
    n_cases = n_calls = n_failed = 0
    cases: dict[str, str] = {}
    for generation in generations:
        n_cases += 1
        if generation.get("counted_with"):
            cases[str(generation.get("case_id"))] = str(generation.get("error") or f"see {generation['counted_with']}")
            continue
        calls = generation.get("calls")
        errors = [c.get("error") for c in calls if isinstance(c, dict)] if isinstance(calls, list) else [generation.get("error")]
        n_calls += max(1, len(errors))
        failed = [str(e) for e in errors if e]
        if not failed and generation.get("error"):
            failed = [str(generation["error"])]
        n_failed += len(failed)
        if failed:
            cases[str(generation.get("case_id"))] = failed[0]
    return FailedCalls(target=target, n_cases=n_cases, n_calls=n_calls, n_failed=n_failed, cases=cases,
                       scored_by_suite=scored_by_suite)
