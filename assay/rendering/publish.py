"""The published report from loaded content: report.md, report.html and the suite's charts.

Pure rendering: the pipeline's publish step reads everything from the store and hands it
here, so this module knows nothing of stores or Prefect.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd
from pydantic import BaseModel

from assay.rendering.explorer import ExplorerData, ExplorerMetric, case_hash, explorer_data
from assay.rendering.jury_costs import jury_cost_section
from assay.rendering.render import ReportHeader, render_html, render_markdown
from assay.rendering.sections import ReportSection
from assay.schemas import JsonObject


@dataclass
class RenderedReport:
    markdown: str
    html: str
    charts: dict[str, bytes]


def judges_line(jury: JsonObject | None) -> str:
    if not jury or not jury.get("panel"):
        return "none"
    kind = "offline jury" if jury.get("offline") else "LLM jury"
    names = ", ".join(f"{j['name']} ({j.get('weight', 1.0):g})" for j in jury["panel"])
    return f"{kind}: {names}"


def render_report(
    suite: Any,
    header: ReportHeader,
    scores: pd.DataFrame,
    summary: Any,
    cases: list[Any],
    generations: Mapping[str, BaseModel],
    jury_runs: list[JsonObject],
    comparison: ReportSection | None = None,
    criteria: ReportSection | None = None,
    charts_drawn: Callable[[], dict[str, bytes]] | None = None,
) -> RenderedReport:
    """The suite's sections, the comparison with a baseline, your criteria beside the suite's
    jury, the jury's cost account, charts, and both page formats (the HTML one with the case
    explorer). ``charts_drawn``: the suite's charts of ``summary`` when they are being drawn
    elsewhere already (``assay.rendering.beside``); None draws them here."""
    sections = suite.report_sections(scores, summary, cases, generations)
    if comparison is not None:
        sections.insert(1, comparison)  # right after the headline
    if criteria is not None:
        titles = [s.title for s in sections]
        sections.insert(titles.index("Jury") + 1 if "Jury" in titles else max(len(sections) - 1, 0), criteria)
    costs = jury_cost_section(jury_runs)
    if costs is not None:
        sections.insert(len(sections) - 1, costs)  # before the suite's reading guide
    charts = charts_drawn() if charts_drawn is not None else suite.charts(summary)
    header = header.model_copy(update={"charts": sorted(charts)})
    markdown_text = render_markdown(header, sections)
    explorer = case_explorer(suite, header, scores, summary, cases, generations, jury_runs)
    html_text = render_html(markdown_text, charts, f"assay {suite.name} report", explorer)
    return RenderedReport(markdown=markdown_text, html=html_text, charts=charts)


def case_explorer(
    suite: Any,
    header: ReportHeader,
    scores: pd.DataFrame,
    summary: Any,
    cases: list[Any],
    generations: Mapping[str, BaseModel],
    jury_runs: list[JsonObject],
) -> ExplorerData:
    """Every case through the suite's ``case_view``, with its scores, judges and lineage."""
    lower = set(summary.lower_is_better)
    metrics = [ExplorerMetric(name=m, scale=summary.scales.get(m, ""), lower_is_better=m in lower) for m in summary.metrics]
    return explorer_data(
        suite=suite.name,
        group_label=suite.group_label,
        metrics=metrics,
        scores=scores,
        views={case.id: suite.case_view(case, generations.get(case.id)) for case in cases},
        case_hashes={case.id: case_hash(case) for case in cases},
        jury_runs=jury_runs,
        lineage={"dataset snapshot": header.snapshot, "generations": header.generations},
    )
