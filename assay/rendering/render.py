"""Rendering a run's report: markdown and a self-contained, inert HTML page.

The report depends only on content (scores, summary, dataset snapshot, configuration), not
on the run id or the clock, so an identical rerun produces identical bytes and the publish
step can be reused from cache. The run id lives in the manifest and the directory name.
"""

from __future__ import annotations

import base64
import html

from pydantic import BaseModel

from assay.rendering.sanitize import sanitize_html
from assay.rendering.sections import ReportSection
from assay.rendering.tables import md_text


class ReportHeader(BaseModel):
    """What the report says about the run before the suite's sections."""

    suite: str
    suite_title: str
    snapshot: str
    n_cases: int
    quarantined: list[str] = []
    replay: str
    generations: str
    validation: str
    config_hash: str
    judges: str
    offline_jury: bool = False
    incomplete: list[str] = []
    charts: list[str] = []


def render_markdown(header: ReportHeader, sections: list[ReportSection]) -> str:
    lines = [f"# assay report: {md_text(header.suite_title)} (`{header.suite}`)", ""]
    if header.incomplete:
        lines += ["> **Incomplete run.** It finished its steps but did not measure what it set out to:", ">"]
        lines += [f"> - {md_text(reason)}" for reason in header.incomplete]
        lines.append("")
    if header.offline_jury:
        lines += ["> **Offline jury.** Judged answers come from deterministic offline judges, not LLMs.", ""]
    quarantined = f", {len(header.quarantined)} quarantined" if header.quarantined else ""
    lines += [
        f"- Dataset snapshot: `{header.snapshot[:16]}` ({header.n_cases} cases{quarantined})",
        f"- Generations: {md_text(header.replay)} (`{header.generations[:16]}`)",
        f"- Validation: {md_text(header.validation)}",
        f"- Configuration hash: `{header.config_hash[:16]}`",
        f"- Judges: {md_text(header.judges)}",
    ]
    if header.quarantined:
        lines.append(
            "- Quarantined rows (failed validation, stored in `validation/quarantine.json`, not scored): "
            + ", ".join(md_text(i) for i in header.quarantined)
        )
    lines.append("")
    for section in sections:
        lines += [f"## {md_text(section.title)}", "", section.markdown.strip(), ""]
    if header.charts:
        lines += ["## Charts", ""]
        lines += [f"![{name}](charts/{name}.png)" for name in header.charts]
        lines.append("")
    lines += ["---", "Lineage: every number above is traced in `manifest.json`; check it with `assay audit RUN`."]
    return "\n".join(lines) + "\n"


def render_html(markdown_text: str, charts: dict[str, bytes], title: str) -> str:
    """A single inert HTML file: charts inlined as data URIs, no external CSS, no scripts.

    Raw HTML in the markdown is not passed through (it shows as text), and the result is
    filtered to an allowlist of tags, attributes and link schemes (``sanitize``).
    """
    import markdown as md

    converter = md.Markdown(extensions=["tables", "fenced_code"])
    converter.preprocessors.deregister("html_block")
    converter.inlinePatterns.deregister("html")
    body = converter.convert(markdown_text)
    for name, png in charts.items():
        uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        body = body.replace(f'src="charts/{name}.png"', f'src="{uri}"')
    return _PAGE.format(title=html.escape(title), body=sanitize_html(body))


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<title>{title}</title>
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
