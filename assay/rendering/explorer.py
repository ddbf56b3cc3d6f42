"""The report's case explorer: every case's scores, input, output, contexts, judges and lineage,
embedded once as JSON and drawn on demand by a small inline script.

Why this shape: a run can have 10,000 cases. The page embeds the data once, in a
``<script type="application/json">`` block the browser never executes, with ``<``, ``>`` and
``&`` written as JSON escapes so no value can close the block. The script (``explorer.js``
beside this module, allowed by its sha256 in the page's Content-Security-Policy) filters and
sorts in memory and draws one page of rows at a time, and a case's details only when it is
opened; it writes every value with ``textContent``, never as markup.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from importlib.resources import files
from typing import Any

import pandas as pd
from pydantic import BaseModel, Field

from assay.hashing import sha256_json
from assay.rendering.case_view import CaseView
from assay.schemas import JsonObject

PAGE_SIZE = 50


class JudgeNote(BaseModel):
    """One judge's verdict on one case for one prompt: its scores and what it wrote."""

    prompt: str
    judge: str
    model: str
    scores: dict[str, float] = Field(default_factory=dict)
    notes: dict[str, str] = Field(default_factory=dict, description="feedback, reasoning, issues: the verdict's text")
    error: str | None = None
    request_key: str | None = None
    cached: bool = False


class EnsembleNote(BaseModel):
    judge_scores: dict[str, float | None] = Field(default_factory=dict)
    method: str = ""
    dropped: dict[str, str | None] = Field(default_factory=dict)


class ExplorerCase(BaseModel):
    id: str
    group: str | None = None
    grade: str | None = None
    headline: str = ""
    scores: list[float | None] = Field(description="one per explorer metric, in order; None when unscored")
    unscored: dict[str, str] = Field(default_factory=dict, description="metric -> why")
    disagreements: list[int] = Field(default_factory=list, description="indexes of metrics the jury disagreed on")
    view: CaseView
    judges: list[JudgeNote] = Field(default_factory=list)
    ensemble: dict[str, EnsembleNote] = Field(default_factory=dict)
    lineage: dict[str, str] = Field(default_factory=dict)


class ExplorerMetric(BaseModel):
    name: str
    scale: str = ""
    lower_is_better: bool = False


class ExplorerData(BaseModel):
    suite: str
    group_label: str
    page_size: int = PAGE_SIZE
    ensemble_rule: str = ""
    metrics: list[ExplorerMetric]
    cases: list[ExplorerCase]


ENSEMBLE_RULE = (
    "Each judged metric is the judges' weighted mean; when the judges' scores are as far apart as the "
    "disagreement threshold (scaled to the metric's range) the median is used instead and the case is flagged. "
    "A judge without a score is left out and the other weights renormalised."
)


def _number(value: Any) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def _details(value: Any) -> JsonObject:
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value:
        loaded = json.loads(value)
        return loaded if isinstance(loaded, dict) else {}
    return {}


def judge_notes(jury_runs: Iterable[Mapping[str, Any]]) -> dict[str, list[JudgeNote]]:
    """case id -> every judge's verdict on it, from the stored jury runs."""
    notes: dict[str, list[JudgeNote]] = defaultdict(list)
    for run in jury_runs:
        for case_id, results in run.get("results", {}).items():
            for result in results:
                verdict = result.get("verdict") or {}
                scores = {k: float(v) for k, v in verdict.items() if isinstance(v, int | float) and not isinstance(v, bool)}
                text = {
                    k: v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
                    for k, v in verdict.items() if k not in scores and v not in (None, "", [], {})
                }
                notes[case_id].append(JudgeNote(
                    prompt=str(result.get("prompt_id", run.get("prompt_id", ""))), judge=str(result.get("judge", "")),
                    model=str(result.get("model", "")), scores=scores, notes=text, error=result.get("error"),
                    request_key=result.get("request_key"), cached=bool(result.get("cached")),
                ))
    return notes


_EVIDENCE = (("claim", "supported"), ("chunk", "relevant"))  # a share's parts (kit/grounding.py)


def evidence_notes(scores: pd.DataFrame) -> dict[str, list[JudgeNote]]:
    """case id -> one note per judge and share metric (faithfulness, context relevance) listing
    each part it judged: every claim with its text, or every chunk, the verdict and the reason."""
    out: dict[str, list[JudgeNote]] = defaultdict(list)
    if "judge" not in scores or "details" not in scores:
        return out
    for row in scores[scores["judge"].notna()].itertuples(index=False):
        details = _details(row.details)
        for unit, verdict in _EVIDENCE:
            parts = details.get(f"{unit}s")
            if not isinstance(parts, list) or not parts:
                continue
            text = {
                f"{unit} {part.get(unit)}": (f"{verdict if part.get(verdict) else 'not ' + verdict}: "
                                             + (f"{part['text']} — " if part.get("text") else "") + str(part.get("reason", "")))
                for part in parts if isinstance(part, dict)
            }
            value = _number(row.value)
            out[str(row.case_id)].append(JudgeNote(
                prompt=f"{row.metric}: each {unit}", judge=str(row.judge), model=str(details.get("model", "")),
                scores={} if value is None else {str(row.metric): value}, notes=text,
                request_key=details.get("request_key"), cached=bool(details.get("cached")),
            ))
    return out


def explorer_data(
    suite: str,
    group_label: str,
    metrics: list[ExplorerMetric],
    scores: pd.DataFrame,
    views: Mapping[str, CaseView],
    case_hashes: Mapping[str, str],
    jury_runs: Iterable[Mapping[str, Any]],
    lineage: Mapping[str, str],
) -> ExplorerData:
    """Every case in ``views`` (dataset order) with its final scores and the jury's account."""
    index = {m.name: i for i, m in enumerate(metrics)}
    values: dict[str, list[float | None]] = {cid: [None] * len(metrics) for cid in views}
    unscored: dict[str, dict[str, str]] = defaultdict(dict)
    disagreements: dict[str, list[int]] = defaultdict(list)
    ensembles: dict[str, dict[str, EnsembleNote]] = defaultdict(dict)
    grades: dict[str, str] = {}
    final = scores[scores["judge"].isna()] if "judge" in scores else scores
    for row in final.itertuples(index=False):
        case_id, metric = str(row.case_id), str(row.metric)
        if case_id not in values or metric not in index:
            continue
        value = _number(row.value)
        values[case_id][index[metric]] = value
        if value is None:
            unscored[case_id][metric] = str(getattr(row, "unscored_reason", "") or "no reason recorded")
        details = _details(getattr(row, "details", None))
        if details.get("grade"):
            grades[case_id] = str(details["grade"])
        if details.get("disagreement") is True:
            disagreements[case_id].append(index[metric])
        if "judge_scores" in details or "method" in details:
            ensembles[case_id][metric] = EnsembleNote(
                judge_scores={str(k): _number(v) for k, v in (details.get("judge_scores") or {}).items()},
                method=str(details.get("method", "")),
                dropped={str(k): v for k, v in (details.get("dropped_judges") or {}).items()},
            )
    notes: dict[str, list[JudgeNote]] = defaultdict(list, evidence_notes(scores))
    for item, item_notes in judge_notes(jury_runs).items():
        # A suite may judge parts of a case ("a01#2": the agent's third call): they belong to the case.
        case_id, _, part = (item, "", "") if item in views else item.partition("#")
        for note in item_notes:
            notes[case_id].append(note.model_copy(update={"prompt": f"{note.prompt} #{part}"}) if part else note)
    cases = [
        ExplorerCase(
            id=case_id, group=view.group, grade=grades.get(case_id), headline=view.headline()[:200],
            scores=values[case_id], unscored=unscored.get(case_id, {}), disagreements=sorted(disagreements.get(case_id, [])),
            view=view, judges=notes.get(case_id, []), ensemble=ensembles.get(case_id, {}),
            lineage={"case record sha256": case_hashes.get(case_id, ""), **lineage},
        )
        for case_id, view in views.items()
    ]
    return ExplorerData(suite=suite, group_label=group_label, ensemble_rule=ENSEMBLE_RULE, metrics=metrics, cases=cases)


def case_hash(record: BaseModel) -> str:
    """sha256 of a case record's canonical JSON: what the explorer shows as the case's lineage."""
    return sha256_json(record.model_dump(mode="json"))


# -- the page's parts -----------------------------------------------------------------------
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def embedded_json(data: BaseModel) -> str:
    """JSON that is safe inside a script element: no value can write ``</script>``."""
    text = json.dumps(data.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return escaped_for_script(text)


def escaped_for_script(text: str) -> str:
    """``text`` with each character of ``_JSON_ESCAPES`` replaced by its escape. One ``replace``
    per character: each is a fast search through the text, where ``str.translate`` with a table
    of non-ASCII text looks every character up (about ten times slower on a report's 3 MB).
    No escape holds a character that is escaped, so the order of the passes does not matter."""
    for char, escape in _JSON_ESCAPES.items():
        if char in text:
            text = text.replace(char, escape)
    return text


_DATA_BLOCK = re.compile(r'<script type="application/json" id="assay-cases">(.*?)</script>', re.S)


def embedded_explorer(page: str) -> ExplorerData | None:
    """The explorer data of a published report.html (to re-render the page around it), if any."""
    found = _DATA_BLOCK.search(page)
    return ExplorerData.model_validate_json(found.group(1)) if found else None


def explorer_script() -> str:
    return files("assay.rendering").joinpath("explorer.js").read_text(encoding="utf-8")


def script_hash(script: str) -> str:
    """The CSP source that allows exactly this inline script."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii") + "'"


def explorer_block(data: ExplorerData) -> str:
    """The explorer's section: a heading, a mount point, the data and the script.

    The heading and mount point are fixed text; the data is escaped JSON; the controls and
    rows are built by the script from that data.
    """
    n = len(data.cases)
    return (
        '<h2 id="cases">Cases</h2>\n'
        f"<p>{n} cases. Sort by a column, filter, and open a case to read its input, output, "
        "contexts, each judge's scores and feedback, and its lineage.</p>\n"
        '<div id="explorer"><noscript>The case explorer needs JavaScript; report.md has the summary.</noscript></div>\n'
        f'<script type="application/json" id="assay-cases">{embedded_json(data)}</script>\n'
        f"<script>{explorer_script()}</script>\n"
    )
