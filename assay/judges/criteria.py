"""Your own criteria as data: a criterion record, its strict reading, and its judge prompt.

A criterion (``--criteria criteria.yaml`` or ``criteria:`` in ``--config``) names what to judge
in your words: a rubric, optional evaluation steps (G-Eval's), a scale (``[low, high]`` or
``pass_fail``) and the case and generation fields the judge is shown (``reads``). It is part of
the ``RunSpec``, so of every cache key and of the manifest.

Each criterion becomes a ``Prompt`` of its own (``criterion_prompt``): the rubric and steps are
the instructions (your text, trusted), every field it reads is framed as untrusted data
(``<<<DATA name>>>``), and the reply must be a strict verdict, ``{"reason", "score"}`` or
``{"reason", "verdict": "pass"|"fail"}`` (pass is 1, fail 0). The prompt's version is the
template's version plus a hash of the criterion, so editing a rubric is a new prompt version.

Which fields a suite can show is the suite's business (``assay.suites.kit.criteria``); here a
criterion is checked for what it is on its own. Every error is one line naming the criterion.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from assay.hashing import sha256_json
from assay.judges.prompts.base import Prompt, Template

TEMPLATE_VERSION = "1"  # bump when the wording below changes; the criterion's hash follows it
PASS_FAIL = "pass_fail"  # the scale name, and the scale text its score rows carry
NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
FIELDS = ("name", "rubric", "steps", "scale", "reads")
MAX_TEXT = 4000  # characters of a rubric or a step


class CriteriaError(ValueError):
    """A criteria file or entry that cannot be used; one line naming the criterion."""


class Criterion(BaseModel):
    """One criterion as the run records it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="the metric's name in scores, reports and --assert")
    rubric: str = Field(description="what the judge decides, in your words")
    steps: tuple[str, ...] = Field(default=(), description="evaluation steps the judge follows (G-Eval)")
    scale: Literal["pass_fail"] | tuple[float, float] = Field(default=(1.0, 5.0))
    reads: tuple[str, ...] = Field(description="the case and generation fields the judge is shown")

    @property
    def pass_fail(self) -> bool:
        return self.scale == PASS_FAIL

    @property
    def bounds(self) -> tuple[float, float]:
        return (0.0, 1.0) if self.scale == PASS_FAIL else (float(self.scale[0]), float(self.scale[1]))

    @property
    def scale_text(self) -> str:
        """The scale as score rows name it: ``pass_fail`` or ``low-high``."""
        lo, hi = self.bounds
        return PASS_FAIL if self.pass_fail else f"{lo:g}-{hi:g}"


# -- reading criteria strictly --------------------------------------------------------------
def load_criteria_file(path: Path) -> list[Criterion]:
    """``--criteria FILE``: a YAML mapping with a ``criteria:`` list (or that list alone)."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise CriteriaError(f"cannot read criteria file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CriteriaError(f"criteria file {path} is not UTF-8 text (a YAML file is expected)") from None
    except yaml.YAMLError as exc:
        raise CriteriaError(f"criteria file {path} is not valid YAML: {' '.join(str(exc).split())}") from None
    if isinstance(data, dict):
        unknown = sorted(set(data) - {"criteria"})
        if unknown:
            raise CriteriaError(f"criteria file {path}: unknown key {unknown[0]!r} (the file holds 'criteria:', a list)")
        data = data.get("criteria")
    return parse_criteria(data, f"criteria file {path}")


def parse_criteria(data: Any, where: str) -> list[Criterion]:
    """A list of criterion mappings (or ``Criterion`` records) checked one by one."""
    if data is None:
        raise CriteriaError(f"{where}: no criteria (give a list under 'criteria:')")
    if not isinstance(data, list) or not data:
        raise CriteriaError(f"{where}: 'criteria' must be a non-empty list of criteria")
    out: list[Criterion] = []
    seen: set[str] = set()
    for number, entry in enumerate(data, 1):
        criterion = entry if isinstance(entry, Criterion) else _one(entry, f"{where}: criterion {number}")
        if criterion.name in seen:
            raise CriteriaError(f"{where}: criterion {number} ({criterion.name}): duplicate name {criterion.name!r}")
        seen.add(criterion.name)
        out.append(criterion)
    return out


def _one(entry: Any, where: str) -> Criterion:
    if not isinstance(entry, Mapping):
        raise CriteriaError(f"{where}: expected a mapping with {', '.join(FIELDS)}, got {type(entry).__name__}")
    name = entry.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise CriteriaError(
            f"{where}: invalid name {name!r}: use lowercase letters, digits and _ , starting with a letter (at most 64)"
        )
    where = f"{where} ({name})"
    unknown = sorted(set(entry) - set(FIELDS))
    if unknown:
        raise CriteriaError(f"{where}: unknown field {unknown[0]!r} (a criterion has {', '.join(FIELDS)})")
    return Criterion(
        name=name,
        rubric=_text(entry.get("rubric"), f"{where}: rubric"),
        steps=tuple(_text(step, f"{where}: step {i}") for i, step in enumerate(_list(entry.get("steps", []), f"{where}: steps"), 1)),
        scale=_scale(entry.get("scale", [1, 5]), where),
        reads=_reads(entry.get("reads"), where),
    )


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise CriteriaError(f"{where} must be a list, got {type(value).__name__}")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CriteriaError(f"{where} must be non-empty text")
    if len(value) > MAX_TEXT:
        raise CriteriaError(f"{where} is {len(value)} characters; at most {MAX_TEXT}")
    braces = PLACEHOLDER.search(value)
    if braces:
        raise CriteriaError(
            f"{where} contains {braces.group(0)}: name a field without braces (the fields in 'reads' are shown to the judge)"
        )
    return value.strip()


def _scale(value: Any, where: str) -> Literal["pass_fail"] | tuple[float, float]:
    if value == PASS_FAIL:
        return PASS_FAIL
    bad = CriteriaError(f"{where}: bad scale {value!r}: give [low, high] with 0 <= low < high (e.g. [1, 5]), or pass_fail")
    if not isinstance(value, list) or len(value) != 2:
        raise bad
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in value):
        raise bad
    lo, hi = float(value[0]), float(value[1])
    if not 0 <= lo < hi:
        raise bad
    return (lo, hi)


def _reads(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        raise CriteriaError(f"{where}: no 'reads': list the case and generation fields the judge is shown")
    fields = _list(value, f"{where}: reads")
    if not fields or not all(isinstance(f, str) and f for f in fields):
        raise CriteriaError(f"{where}: reads must be a non-empty list of field names")
    repeated = sorted({f for f in fields if fields.count(f) > 1})
    if repeated:
        raise CriteriaError(f"{where}: reads names {repeated[0]!r} twice")
    return tuple(fields)


# -- the judge prompt ------------------------------------------------------------------------
def criterion_prompt(criterion: Criterion) -> Prompt:
    """The criterion's judge prompt (one per distinct criterion, built once per process)."""
    return _prompt(criterion.model_dump_json())


def prompt_id(criterion: Criterion) -> str:
    return f"criterion:{criterion.name}"


@lru_cache(maxsize=256)
def _prompt(criterion_json: str) -> Prompt:
    criterion = Criterion.model_validate_json(criterion_json)
    lo, hi = criterion.bounds
    # Fields by position, each aliased to the field it reads: a suite field may share a name
    # with a pydantic attribute (``json``, ``copy``), which a model field cannot.
    input_model = create_model(  # type: ignore[call-overload]
        "CriterionInput", __config__=ConfigDict(extra="forbid", populate_by_name=False),
        **{f"field_{i}": (str, Field(alias=f)) for i, f in enumerate(criterion.reads)},
    )
    if criterion.pass_fail:
        verdict_model: type[BaseModel] = create_model(
            "CriterionPassFailVerdict", __config__=ConfigDict(extra="forbid"),
            reason=(str, Field(description="why, citing the data")),
            verdict=(Literal["pass", "fail"], Field(description="pass when the criterion is met")),
        )
        score_fields, label_maps = {"verdict": (0.0, 1.0)}, {"verdict": {"pass": 1.0, "fail": 0.0}}
    else:
        verdict_model = create_model(
            "CriterionScoreVerdict", __config__=ConfigDict(extra="forbid"),
            reason=(str, Field(description="why, citing the data")),
            score=(float, Field(ge=lo, le=hi, description=f"{lo:g} (not met at all) to {hi:g} (fully met)")),
        )
        score_fields, label_maps = {"score": (lo, hi)}, {}
    return Prompt(
        id=prompt_id(criterion),
        version=f"{TEMPLATE_VERSION}+{sha256_json(criterion.model_dump(mode='json'))[:12]}",
        description=criterion.rubric,
        family="criteria",
        seed="your criteria",
        input_model=input_model,
        verdict_model=verdict_model,
        templates={lang: _template(criterion, lang) for lang in ("ko", "en")},
        score_fields=score_fields,
        label_maps=label_maps,
        render=render_fields,
    )


def render_fields(item: BaseModel, lang: str) -> dict[str, str]:
    """The fields a criterion reads, by the names the suite gives them."""
    return item.model_dump(by_alias=True)


def _template(criterion: Criterion, lang: str) -> Template:
    words = _WORDS[lang]
    lo, hi = criterion.bounds
    steps = "".join(f"\n{i}. {step}" for i, step in enumerate(criterion.steps, 1))
    system = words["system"] + f"\n\n{words['criterion']} ({criterion.name}):\n{criterion.rubric}"
    if steps:
        system += f"\n\n{words['steps']}{steps}"
    if criterion.pass_fail:
        system += "\n\n" + words["pass_fail"]
        reply = '{\n  "reason": "…",\n  "verdict": "pass" | "fail"\n}'
    else:
        system += "\n\n" + words["score"].format(lo=f"{lo:g}", hi=f"{hi:g}")
        reply = f'{{\n  "reason": "…",\n  "score": {lo:g}-{hi:g}\n}}'
    shown = "\n\n".join(f"{field}:\n{{{field}}}" for field in criterion.reads)
    return Template(system=system, user=f"{shown}\n\n{words['reply']}\n{reply}")


_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "system": "You are an expert evaluator. Judge the data you are shown against one criterion, and only that one.",
        "criterion": "Criterion",
        "steps": "Evaluation steps (follow them in order):",
        "pass_fail": "Verdict: \"pass\" when the criterion is met, \"fail\" when it is not.",
        "score": "Score from {lo} (the criterion is not met at all) to {hi} (it is fully met).",
        "reply": "Give your reason first, then your judgement, only as JSON in this format:",
    },
    "ko": {
        "system": "당신은 전문 평가자입니다. 주어진 데이터를 아래의 한 가지 기준으로만 평가하세요.",
        "criterion": "평가 기준",
        "steps": "평가 단계 (순서대로 따르세요):",
        "pass_fail": "판정: 기준을 충족하면 \"pass\", 충족하지 못하면 \"fail\".",
        "score": "점수: {lo}(기준을 전혀 충족하지 못함)부터 {hi}(완전히 충족)까지.",
        "reply": "먼저 이유를, 그다음 판정을 다음 JSON 형식으로만 반환하세요:",
    },
}


def field_text(value: Any) -> str:
    """A field's value as the judge reads it: text as is, a list of texts numbered, else JSON."""
    import json

    if value is None:
        return "(none)"
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return "\n\n".join(f"[{i}] {v}" for i, v in enumerate(value, 1)) if value else "(none)"
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    elif isinstance(value, Sequence):
        value = [v.model_dump(mode="json") if isinstance(v, BaseModel) else v for v in value]
    return json.dumps(value, ensure_ascii=False, default=str)
