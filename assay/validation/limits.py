"""Input limits: what a dataset row (or a target's reply) may hold before later steps break.

Every later step assumes sane values: publishing writes strict JSON (no NaN, no Infinity), the
offline jury's time and memory grow with the length of a text, and Python's JSON reader and
every recursive walk stop at about a thousand levels of nesting. So each JSON value read from a
dataset is checked here, once, and a row that breaks a limit is named by row and field instead
of crashing a step (or taking minutes and gigabytes) later:

- numbers must be finite: ``NaN``, ``Infinity``, ``1e999`` and integers beyond a float's range
  are refused;
- a text (any string, at any depth) may hold at most ``max_text_chars`` characters;
- a value may nest at most ``max_depth`` arrays/objects deep.

The limits are read from the environment when a dataset is read (``ASSAY_MAX_TEXT_CHARS``,
``ASSAY_MAX_JSON_DEPTH``); ``docs/architecture.md`` ("Input limits") documents them with the
validation gate.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

DEFAULT_MAX_TEXT_CHARS = 100_000  # ~25,000 tokens, a long report; ~23 s of offline-jury CPU for one
DEFAULT_MAX_DEPTH = 64
TEXT_ENV, DEPTH_ENV = "ASSAY_MAX_TEXT_CHARS", "ASSAY_MAX_JSON_DEPTH"
_FLOAT_DIGITS = 309  # an integer literal of this many digits is beyond a float's range (1.8e308)
_FLOAT_BITS = 1024
_MAX_PROBLEMS = 5  # per value: enough to fix the row, not a flood


class LimitError(ValueError):
    """A limit set in the environment that is not a positive whole number."""


@dataclass(frozen=True)
class InputLimits:
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS
    max_depth: int = DEFAULT_MAX_DEPTH

    @classmethod
    def from_env(cls) -> InputLimits:
        """The limits set by ``ASSAY_MAX_TEXT_CHARS`` / ``ASSAY_MAX_JSON_DEPTH`` (defaults when unset)."""
        return cls(_positive(TEXT_ENV, DEFAULT_MAX_TEXT_CHARS), _positive(DEPTH_ENV, DEFAULT_MAX_DEPTH))


def _positive(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip().replace("_", "")
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise LimitError(f"{name}={os.environ[name]!r}: give a positive whole number (default {default})")
    return int(raw)


@dataclass(frozen=True)
class ValueProblem:
    path: str  # where in the value: "answer", "retrieved[0].text"; "" for the value as a whole
    expectation: str  # "finite numbers", "input limits"
    detail: str

    @property
    def where(self) -> str:
        """The path as shown: a path 60 levels deep is cut short."""
        return self.path if len(self.path) <= 80 else f"{self.path[:77]}…"

    @property
    def inner_detail(self) -> str:
        """The detail, prefixed with the path when it goes deeper than the column."""
        return f"at {self.where}: {self.detail}" if self.path != (self.column or "") else self.detail

    @property
    def column(self) -> str | None:
        """The top-level field the problem is in (a table's column)."""
        head = self.path.split(".", 1)[0].split("[", 1)[0]
        return head or None


class RejectedValue(ValueError):
    """A JSON text that cannot be read or breaks a limit; ``problems`` say where and why."""

    def __init__(self, problems: list[ValueProblem], value: Any = None) -> None:
        super().__init__("; ".join(f"{p.where or 'value'}: {p.detail}" for p in problems))
        self.problems = problems
        self.value = value  # what was read, when it could be (to name the row by its id)


def loads_checked(text: str, limits: InputLimits) -> Any:
    """``json.loads(text)`` for input that later steps will use; raises ``json.JSONDecodeError``
    for text that is not JSON and ``RejectedValue`` for JSON that breaks a limit."""
    flags = {"non_finite": False}

    def number(literal: str) -> float:
        value = float(literal)
        flags["non_finite"] |= not math.isfinite(value)
        return value

    def integer(literal: str) -> int:
        flags["non_finite"] |= len(literal.lstrip("-")) >= _FLOAT_DIGITS
        return int(literal)

    try:
        value = json.loads(text, parse_float=number, parse_int=integer, parse_constant=number)
    except RecursionError:
        raise RejectedValue([ValueProblem("", "input limits", f"nested too deep to read (limit {limits.max_depth} "
                                                              f"levels, {DEPTH_ENV})")]) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # an integer literal of thousands of digits, refused by int()
        raise RejectedValue([ValueProblem("", "finite numbers", f"a number Python refuses to read ({exc})")]) from None
    # Walk the value only when a limit can be broken: most rows are short, flat and finite.
    nesting = text.count("[") + text.count("{")
    if flags["non_finite"] or len(text) > limits.max_text_chars or nesting > limits.max_depth:
        problems = list(islice(value_problems(value, limits), _MAX_PROBLEMS))
        if problems:
            raise RejectedValue(problems, value)
    return value


def value_problems(value: Any, limits: InputLimits) -> Iterator[ValueProblem]:
    """Every non-finite number, too-long text and too-deep nesting in ``value`` (a walk with its
    own stack: no recursion, whatever the depth)."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, bool) or item is None:
            continue
        if isinstance(item, float) and not math.isfinite(item):
            yield ValueProblem(path, "finite numbers", f"not a finite number (reads as {_literal(item)})")
        elif isinstance(item, int) and item.bit_length() > _FLOAT_BITS:
            yield ValueProblem(path, "finite numbers", "an integer beyond a float's range (1.8e308)")
        elif isinstance(item, str) and len(item) > limits.max_text_chars:
            yield ValueProblem(path, "input limits", f"a text of {len(item):,} characters; the limit is "
                                                     f"{limits.max_text_chars:,} ({TEXT_ENV})")
        elif isinstance(item, dict | list):
            if depth >= limits.max_depth:
                yield ValueProblem(path, "input limits", f"nested more than {limits.max_depth} levels deep ({DEPTH_ENV})")
                continue
            children = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in reversed(list(children)):
                stack.append((child, _join(path, key), depth + 1))


def _join(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def _literal(value: float) -> str:
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
