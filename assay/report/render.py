"""Rendering a run's report: markdown, a self-contained HTML page, and PNG charts.

The report depends only on content (scores, summary, dataset snapshot, configuration), not
on the run id or the clock, so an identical rerun produces identical bytes and the publish
step can be reused from cache. The run id lives in the manifest and the directory name.
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any

from assay.report.tables import fmt
from assay.suites.base import ReportSection

CHART_DPI = 110


def render_markdown(header: dict[str, Any], sections: list[ReportSection]) -> str:
    lines = [f"# assay report: {header['suite_title']} (`{header['suite']}`)", ""]
    if header.get("offline_jury"):
        lines += ["> **Offline jury.** Judged answers come from deterministic offline judges, not LLMs.", ""]
    lines += [
        f"- Dataset snapshot: `{header['snapshot'][:16]}` ({header['n_cases']} cases"
        + (f", {header['n_quarantined']} quarantined" if header.get("n_quarantined") else "")
        + ")",
        f"- Generations: {header['replay']} (`{header['generations'][:16]}`)",
        f"- Validation: {header['validation']}",
        f"- Configuration hash: `{header['config_hash'][:16]}`",
        f"- Judges: {header['judges']}",
    ]
    if header.get("quarantined"):
        lines.append(
            f"- Quarantined rows (failed validation, stored in `validation/quarantine.json`, not scored): "
            f"{', '.join(header['quarantined'])}"
        )
    lines.append("")
    for section in sections:
        lines += [f"## {section.title}", "", section.markdown.strip(), ""]
    if header.get("charts"):
        lines += ["## Charts", ""]
        lines += [f"![{name}](charts/{name}.png)" for name in header["charts"]]
        lines.append("")
    lines += ["---", "Lineage: every number above is traced in `manifest.json`; check it with `assay audit RUN`."]
    return "\n".join(lines) + "\n"


def render_html(markdown_text: str, charts: dict[str, bytes], title: str) -> str:
    """A single HTML file: charts inlined as data URIs, no external CSS or scripts."""
    import markdown as md

    body = md.markdown(markdown_text, extensions=["tables", "fenced_code"])
    for name, png in charts.items():
        uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        body = body.replace(f'src="charts/{name}.png"', f'src="{uri}"')
    return _PAGE.format(title=html.escape(title), body=body)


def render_charts(summary: dict[str, Any]) -> dict[str, bytes]:
    """Seed 003's plots: metric means (0-1 and 1-5 scales side by side) and MRR per category."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    charts: dict[str, bytes] = {}
    overall = summary.get("overall", {})
    scales = summary.get("scales", {})
    unit = {m: v["mean"] for m, v in overall.items() if v["mean"] is not None and scales.get(m) == "0-1"}
    five = {m: v["mean"] for m, v in overall.items() if v["mean"] is not None and scales.get(m) == "1-5"}
    if unit or five:
        fig, axes = plt.subplots(1, 2 if five else 1, figsize=(12 if five else 7, 4), squeeze=False)
        _bars(axes[0][0], unit, (0, 1.1), 0.75, "Retrieval metrics (mean, 0-1)")
        if five:
            _bars(axes[0][1], five, (0, 5.5), 4.0, "Answer metrics (mean, 1-5)")
        charts["metric_means"] = _png(fig, plt)
    by_category = summary.get("by_category", {})
    mrr = {cat: v.get("reciprocal_rank") for cat, v in by_category.items() if v.get("reciprocal_rank") is not None}
    if mrr:
        fig, ax = plt.subplots(figsize=(7, 0.45 * len(mrr) + 1.2))
        items = sorted(mrr.items(), key=lambda kv: kv[1])
        ax.barh([k for k, _ in items], [v for _, v in items], color="#4C72B0")
        ax.axvline(0.75, color="gray", linestyle="--", alpha=0.6)
        ax.set_xlim(0, 1.05)
        ax.set_xlabel("mean reciprocal rank")
        ax.set_title("MRR by category")
        charts["mrr_by_category"] = _png(fig, plt)
    return charts


def _bars(ax: Any, values: dict[str, float], ylim: tuple[float, float], good: float, title: str) -> None:
    names = list(values)
    ax.bar(names, [values[n] for n in names], color="#4C72B0")
    ax.set_ylim(*ylim)
    ax.axhline(good, color="gray", linestyle="--", alpha=0.6, label=f"good ({good:g})")
    for i, name in enumerate(names):
        ax.text(i, values[name] + ylim[1] * 0.02, fmt(values[name]), ha="center", fontsize=8)
    ax.set_title(title)
    ax.tick_params(axis="x", rotation=20)
    ax.legend(loc="lower right")


def _png(fig: Any, plt: Any) -> bytes:
    buffer = io.BytesIO()
    fig.tight_layout()
    # No timestamp or software tag in the PNG, so identical charts hash identically.
    fig.savefig(buffer, format="png", dpi=CHART_DPI, metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: -apple-system, "Segoe UI", "Noto Sans KR", sans-serif; max-width: 1100px; margin: 2rem auto;
       padding: 0 1rem; color: #222; line-height: 1.5; }}
table {{ border-collapse: collapse; margin: 0.8rem 0; font-size: 0.88rem; }}
th, td {{ border: 1px solid #ccc; padding: 0.25rem 0.55rem; text-align: left; }}
th {{ background: #f3f3f3; }}
blockquote {{ border-left: 4px solid #d9822b; margin: 1rem 0; padding: 0.4rem 1rem; background: #fff7ed; }}
img {{ max-width: 100%; }}
code {{ background: #f5f5f5; padding: 0 0.2rem; }}
</style></head>
<body>
{body}
</body></html>
"""
