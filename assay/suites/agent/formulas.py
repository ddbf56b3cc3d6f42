"""Agent metrics (seed 004, a hiring agent's scoring rubric): pure functions, no I/O.

Scores are 0-5. Per call (one repeat of a query): accuracy from the share of checks that pass,
latency from the response time and the query's latency class, stability 5 or 0. Per query over
its N repeats: consistency from the mode shares of intent labels and data signatures, and the
total ``0.2·intent + 0.1·consistency + 0.3·accuracy + 0.2·latency + 0.2·stability``.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.schemas import JsonObject

WEIGHTS = {"intent": 0.2, "consistency": 0.1, "accuracy": 0.3, "latency": 0.2, "stability": 0.2}
LATENCY_BANDS = {  # upper bound of each band in seconds, for scores 5, 4, 3, 2, 1
    "SINGLE": (5.0, 8.0, 10.0, 15.0, 20.0),
    "MULTI": (20.0, 30.0, 40.0, 50.0, 60.0),
}
SIGNATURE_KEYS = ("formType", "actionType", "planId", "value.nodeId", "value.nodeType", "setting", "filterType")
EMPTY = "EMPTY"
OPERATORS = ("equals", "contains", "in", "ge", "le", "exists")


def accuracy_score(pass_ratio: float | None, errored: bool) -> float:
    """0 on an error, a timeout or a parse failure, or with no checks (``pass_ratio`` None);
    else 5 for all checks passing, 4 from 0.75, 3 from 0.5, 2 from 0.25, 1 above 0, 0 at 0."""
    if errored or pass_ratio is None:
        return 0.0
    if not 0.0 <= pass_ratio <= 1.0:
        raise ValueError(f"pass ratio must be within 0-1, got {pass_ratio}")
    for floor, score in ((1.0, 5.0), (0.75, 4.0), (0.5, 3.0), (0.25, 2.0)):
        if pass_ratio >= floor:
            return score
    return 1.0 if pass_ratio > 0 else 0.0


def latency_score(seconds: float | None, latency_class: str) -> float:
    """5..1 by the class's bands (each upper bound inclusive); 0 beyond the last, or missing."""
    bands = LATENCY_BANDS[latency_class]
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return 0.0
    for bound, score in zip(bands, (5.0, 4.0, 3.0, 2.0, 1.0), strict=True):
        if seconds <= bound:
            return score
    return 0.0


def stability_score(error: str | None, parsed: Mapping[str, Any] | None) -> float:
    """5 when the call raised no error, its JSON parsed and it holds assistantMessage and
    dataUIList (an empty list is present); else 0."""
    if error or parsed is None:
        return 0.0
    message = parsed.get("assistantMessage")
    return 5.0 if isinstance(message, str) and message.strip() and isinstance(parsed.get("dataUIList"), list) else 0.0


def parse_response(raw: str | None) -> tuple[JsonObject | None, str | None]:
    """The agent's JSON object, or None and why it could not be read."""
    if raw is None or not raw.strip():
        return None, "empty response"
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc.msg} at character {exc.pos}"
    if not isinstance(value, dict):
        return None, f"not a JSON object but {type(value).__name__}"
    return value, None


# -- checks -------------------------------------------------------------------------------
_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_MISSING = object()


def get_path(obj: Any, path: str) -> Any:
    """The value at a dotted path with list indices (``dataUIList[0].value.nodeId``);
    ``_MISSING`` when any step is absent. ``dataUIList[*].x`` collects x from every item."""
    current: Any = obj
    for part in path.replace("[*]", ".*").split("."):
        if part == "*":
            if not isinstance(current, list):
                return _MISSING
            continue
        for name, index in _PART.findall(part):
            if isinstance(current, list) and name:
                current = [item.get(name, _MISSING) if isinstance(item, dict) else _MISSING for item in current]
                current = [c for c in current if c is not _MISSING]
            elif name:
                if not isinstance(current, dict) or name not in current:
                    return _MISSING
                current = current[name]
            else:
                i = int(index)
                if not isinstance(current, list) or i >= len(current):
                    return _MISSING
                current = current[i]
    return current


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.replace(",", ""))
        except ValueError:
            return None
    return None


@dataclass(frozen=True)
class CheckResult:
    path: str
    op: str
    expected: Any
    actual: Any  # None when the path is absent (see ``found``)
    found: bool
    passed: bool

    def describe(self) -> str:
        actual = json.dumps(self.actual, ensure_ascii=False)[:120] if self.found else "(missing)"
        return f"{self.path} {self.op} {json.dumps(self.expected, ensure_ascii=False)[:120]}: got {actual}"


def run_check(response: Mapping[str, Any], path: str, op: str, expected: Any = None) -> CheckResult:
    """One accuracy check over a parsed response. Operators: equals (numbers by value), contains
    (substring of text, or member of a list), in (the value is one of ``expected``), ge / le
    (numbers), exists."""
    if op not in OPERATORS:
        raise ValueError(f"unknown check operator {op!r}; use one of {', '.join(OPERATORS)}")
    actual = get_path(response, path)
    found = actual is not _MISSING
    if op == "exists":
        passed = found and actual not in (None, [], "")
    elif not found:
        passed = False
    elif op == "equals":
        a, e = _number(actual), _number(expected)
        passed = a == e if a is not None and e is not None else actual == expected
    elif op == "contains":
        if isinstance(actual, list):
            passed = expected in actual or any(isinstance(x, str) and str(expected) in x for x in actual)
        else:
            passed = str(expected) in str(actual)
    elif op == "in":
        # a list value is "in" when every element is (e.g. every filtered stage is allowed)
        items = actual if isinstance(actual, list) else [actual]
        passed = isinstance(expected, list) and bool(items) and all(a in expected for a in items)
    else:
        a, e = _number(actual), _number(expected)
        passed = a is not None and e is not None and (a >= e if op == "ge" else a <= e)
    return CheckResult(path, op, expected, actual if found else None, found, passed)


def pass_ratio(results: Sequence[CheckResult]) -> float | None:
    return sum(r.passed for r in results) / len(results) if results else None


# -- repeats ------------------------------------------------------------------------------
def signature(response: Mapping[str, Any] | None) -> str:
    """The core of a response's dataUIList for consistency: per item formType, actionType,
    planId, value.nodeId, value.nodeType, setting, filterType (those present; setting and
    filterType fall back to the response's own); ``EMPTY`` for an empty or missing list."""
    if not response:
        return EMPTY
    items = response.get("dataUIList")
    if not isinstance(items, list) or not items:
        return EMPTY
    parts = []
    for item in items:
        if not isinstance(item, dict):
            parts.append(json.dumps(item, sort_keys=True, ensure_ascii=False))
            continue
        fields = {}
        for key in SIGNATURE_KEYS:
            value = get_path(item, key)
            if value is _MISSING and key in ("setting", "filterType"):
                value = response.get(key, _MISSING)
            if value is not _MISSING:
                fields[key] = value
        parts.append(json.dumps(fields, sort_keys=True, ensure_ascii=False))
    return "|".join(parts)


def mode_share(values: Sequence[Any]) -> float:
    """count(value == mode) / N."""
    if not values:
        return 0.0
    counts = Counter(json.dumps(v, sort_keys=True, ensure_ascii=False) for v in values)
    return max(counts.values()) / len(values)


def consistency_score(intent_labels: Sequence[str | None], signatures: Sequence[str]) -> float:
    """((ratioA + ratioB) / 2) · 5 over N repeats, clamped to 0-5; 0 when N < 2."""
    n = len(signatures)
    if n < 2 or len(intent_labels) != n:
        return 0.0
    return max(0.0, min(5.0, (mode_share(list(intent_labels)) + mode_share(list(signatures))) / 2 * 5))


def total_score(scores: Mapping[str, float | None]) -> float | None:
    """0.2 intent + 0.1 consistency + 0.3 accuracy + 0.2 latency + 0.2 stability (0-5);
    None (unscored) when any of the five is."""
    values = [scores.get(name) for name in WEIGHTS]
    if any(v is None for v in values):
        return None
    return sum(WEIGHTS[name] * float(scores[name]) for name in WEIGHTS)  # type: ignore[arg-type]


def mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None
