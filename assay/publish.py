"""The publish step: report.md, report.html, scores.parquet and charts from stored content."""

from __future__ import annotations

from typing import Any

from assay.lineage.store import ArtifactStore
from assay.pipeline import load_snapshot, parquet_bytes, scores_frame_from
from assay.report.jury_costs import jury_cost_section
from assay.report.render import render_html, render_markdown
from assay.suites.base import Suite


def judges_line(jury: dict[str, Any] | None) -> str:
    if not jury or not jury.get("panel"):
        return "none"
    kind = "offline jury" if jury.get("offline") else "LLM jury"
    names = ", ".join(f"{j['name']} ({j.get('weight', 1.0):g})" for j in jury["panel"])
    return f"{kind}: {names}"


def publish(store: ArtifactStore, suite: Suite, inputs: dict[str, Any]) -> dict[str, Any]:
    data = load_snapshot(store, suite, inputs["snapshot"])
    skip = set(inputs.get("skip_ids", []))
    cases = suite.parse_cases(data, skip)
    generations = suite.parse_generations(store.get_jsonl(inputs["generations"]))
    summary = store.get_json(inputs["summary"])
    frame = scores_frame_from(store, inputs["scores"])
    sections = suite.report_sections(frame, summary, cases, generations)
    costs = jury_cost_section([run for sha in inputs.get("jury_runs", []) for run in store.get_json(sha)])
    if costs is not None:
        sections.insert(len(sections) - 1, costs)  # before the suite's reading guide
    charts = suite.charts(summary)
    validation = store.get_json(inputs["validation_report"])
    header = {
        "suite": suite.name,
        "suite_title": suite.title,
        "snapshot": inputs["snapshot"],
        "generations": inputs["generations"],
        "replay": inputs.get("replay", "recorded"),
        "n_cases": len(cases),
        "n_quarantined": len(skip),
        "quarantined": sorted(skip),
        "validation": "passed" if validation.get("success") else f"{len(validation.get('problems', []))} problems, rows quarantined",
        "config_hash": inputs["config_hash"],
        "judges": judges_line(inputs.get("jury")),
        "offline_jury": bool((inputs.get("jury") or {}).get("offline")),
        "charts": sorted(charts),
    }
    markdown_text = render_markdown(header, sections)
    html_text = render_html(markdown_text, charts, f"assay {suite.name} report")
    return {
        "report_md": store.put(markdown_text.encode("utf-8")),
        "report_html": store.put(html_text.encode("utf-8")),
        "scores_parquet": store.put(parquet_bytes(frame)),
        "charts": {name: store.put(png) for name, png in charts.items()},
    }
