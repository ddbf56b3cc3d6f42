"""Every golden verdict table (``tests/golden/<prompt id>[_<topic>].jsonl``, see its README):
each row's verdict from the offline jury falls in the range a careful reader gave it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.judges.offline import offline_jury
from assay.judges.prompts import all_prompts, get_prompt
from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "golden"
PROMPT_IDS = sorted((p.id for p in all_prompts()), key=len, reverse=True)


def prompt_of(path: Path) -> str:
    """The prompt a table is for: the longest prompt id its name starts with."""
    for prompt_id in PROMPT_IDS:
        if path.stem == prompt_id or path.stem.startswith(f"{prompt_id}_"):
            return prompt_id
    raise ValueError(f"{path.name}: the name starts with no prompt id (known: {sorted(PROMPT_IDS)})")


def golden_rows() -> list[pytest.param]:
    rows = []
    for path in sorted(GOLDEN.glob("*.jsonl")):
        prompt_id = prompt_of(path)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                row = json.loads(line)
                rows.append(pytest.param(prompt_id, row, id=f"{path.stem}:{number}:{row.get('name', '')}"))
    return rows


@pytest.fixture(scope="module")
def juries():
    """The offline jury, and the same judges on their rules alone (a row's ``"fitted": false``)."""
    return {True: offline_jury(), False: offline_jury(fitted=False)}


def holds(value: object, expected: object) -> bool:
    if isinstance(expected, list):
        low, high = expected
        return isinstance(value, int | float) and low <= value <= high
    return value == expected


@pytest.mark.parametrize(("prompt_id", "row"), golden_rows())
def test_golden_verdict(juries, prompt_id, row):
    jury = juries[row.get("fitted", True)]
    prompt = get_prompt(prompt_id)
    prompt.input_model.model_validate(row["input"])  # a table row that no longer fits is an error, not a skip
    verdicts = [judge.verdict(prompt, row["input"]) for judge in jury]
    for field, expected in row["expect"].items():
        if row.get("judge") == "ensemble":
            total = sum(j.weight for j in jury)
            seen = [sum(j.weight * float(v[field]) for j, v in zip(jury, verdicts, strict=True)) / total]
        else:
            seen = [v[field] for v in verdicts]
        for value, verdict in zip(seen, verdicts, strict=False):
            assert holds(value, expected), (
                f"{field}={value}, expected {expected} ({row.get('why', '')}); feedback: {verdict.get('feedback')}"
            )


def test_every_table_names_a_prompt():
    assert all(prompt_of(path) for path in GOLDEN.glob("*.jsonl"))
