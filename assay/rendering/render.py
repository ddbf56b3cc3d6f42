"""Rendering a run's report: markdown and a self-contained, inert HTML page.

The report depends only on content (scores, summary, dataset snapshot, configuration), not
on the run id or the clock, so an identical rerun produces identical bytes and the publish
step can be reused from cache. The run id lives in the manifest and the directory name.
"""

from __future__ import annotations

import base64
import html
import re

from pydantic import BaseModel

from assay.rendering.explorer import ExplorerData, explorer_block, explorer_script, script_hash
from assay.rendering.sanitize import sanitize_html
from assay.rendering.sections import ReportSection
from assay.rendering.tables import md_text


class ReportHeader(BaseModel):
    """What the report says about the run before the suite's sections."""

    suite: str
    suite_title: str
    snapshot: str
    n_cases: int
    cases_shown: int | None = None  # listed case by case when fewer than n_cases
    quarantined: list[str] = []
    replay: str
    generations: str
    validation: str
    config_hash: str
    judges: str
    offline_jury: bool = False
    incomplete: list[str] = []
    not_measured: str | None = None  # the failed-calls banner (assay.failed_calls)
    not_applicable: list[str] = []  # metrics no case could have a score for, with why (pipeline.ScoreGaps)
    charts: list[str] = []


def render_markdown(header: ReportHeader, sections: list[ReportSection]) -> str:
    lines = [f"# assay report: {md_text(header.suite_title)} (`{header.suite}`)", ""]
    if header.not_measured and header.not_measured not in header.incomplete:  # allowed by --max-failed-calls
        lines += [f"> **Failed calls** (allowed by `--max-failed-calls`): {md_text(header.not_measured)}", ""]
    if header.incomplete:
        lines += ["> **Incomplete run.** It finished its steps but did not measure what it set out to:", ">"]
        lines += [f"> - {md_text(reason)}" for reason in header.incomplete]
        lines.append("")
    if header.not_applicable:  # never mistaken for measured: named before any figure
        if len(header.not_applicable) == 1:
            lines += [f"> **Not measured:** {md_text(header.not_applicable[0])}", ""]
        else:
            lines += ["> **Not measured:**", ">", *(f"> - {md_text(line)}" for line in header.not_applicable), ""]
    if header.offline_jury:
        lines += [
            "> **Offline jury.** Judged answers come from deterministic offline judges, not LLMs. They are a",
            "> screen: on blind labelled sets they agree with people much less than on the data their rules",
            "> were written on (`docs/judges.md`, \"Agreement with people\"). Where scores matter, use an LLM",
            "> jury and measure it against your own labels with `assay calibrate RUN --labels FILE`.",
            "",
        ]
    quarantined = f", {len(header.quarantined)} quarantined" if header.quarantined else ""
    lines += [
        f"- Dataset snapshot: `{header.snapshot[:16]}` ({header.n_cases} cases{quarantined})",
        f"- Generations: {md_text(header.replay)} (`{header.generations[:16]}`)",
        f"- Validation: {md_text(header.validation)}",
        f"- Configuration hash: `{header.config_hash[:16]}`",
        f"- Judges: {md_text(header.judges)}",
    ]
    if header.cases_shown is not None and header.cases_shown < header.n_cases:
        lines.append(
            f"- Cases listed one by one: the first {header.cases_shown} of {header.n_cases}; the summary and charts "
            f"cover all {header.n_cases}, and {header.n_cases - header.cases_shown} more cases are in `scores.parquet`"
        )
    if header.quarantined:
        lines.append(
            "- Quarantined rows (failed validation, stored in `validation/quarantine.json`, not scored): "
            + ", ".join(md_text(i) for i in header.quarantined)
        )
    lines.append("")
    # The headline (the suite's first section) and the charts come first; details follow.
    for section in sections[:1]:
        lines += [f"## {md_text(section.title)}", "", section.markdown.strip(), ""]
    if header.charts:
        lines += [f"## {CHARTS_TITLE}", ""]
        lines += [f"![{name}](charts/{name}.png)" for name in header.charts]
        lines.append("")
    for section in sections[1:]:
        lines += [f"## {md_text(section.title)}", "", section.markdown.strip(), ""]
    lines += ["---", "Lineage: every number above is traced in `manifest.json`; check it with `assay audit RUN`."]
    return "\n".join(lines) + "\n"


def render_html(markdown_text: str, charts: dict[str, bytes], title: str, explorer: ExplorerData | None = None) -> str:
    """A single self-contained HTML file: charts inlined as data URIs, no external anything.

    Raw HTML in the markdown is not passed through (it shows as text), and the result is
    filtered to an allowlist of tags, attributes and link schemes (``sanitize``). The page
    gets a table of contents and, given ``explorer``, the case explorer after the charts: the
    only script on the page, allowed by its hash in the Content-Security-Policy.
    """
    import markdown as md

    converter = md.Markdown(extensions=["tables", "fenced_code"])
    converter.preprocessors.deregister("html_block")
    converter.inlinePatterns.deregister("html")
    body = converter.convert(markdown_text)
    for name, png in charts.items():
        uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        body = body.replace(f'src="charts/{name}.png"', f'src="{uri}"')
    body = sanitize_html(body)
    script_src = "'none'"
    if explorer is not None:
        body = _insert_after_charts(body, explorer_block(explorer))
        script_src = script_hash(explorer_script())
    return _PAGE.format(title=html.escape(title), body=_with_contents(body), script_src=script_src, css=_CSS)


CHARTS_TITLE = "Charts"
_H2 = re.compile(r"<h2( id=\"cases\")?>(.*?)</h2>", re.S)


def _insert_after_charts(body: str, block: str) -> str:
    """The explorer goes before the section after the charts (after the headline without charts).

    Headings come only from the report's own section titles: data cannot write ``<h2>``
    (markdown escaping and the sanitizer see to that).
    """
    headings = list(_H2.finditer(body))
    titles = [m.group(2) for m in headings]
    after = titles.index(CHARTS_TITLE) + 1 if CHARTS_TITLE in titles else min(1, len(titles))
    if after >= len(headings):
        return body + block
    at = headings[after].start()
    return body[:at] + block + body[at:]


def _with_contents(body: str) -> str:
    """Number the sections, and list them under the title."""
    entries = []

    def number(match: re.Match[str]) -> str:
        anchor = "cases" if match.group(1) else f"s{len(entries) + 1}"
        entries.append(f'<li><a href="#{anchor}">{match.group(2)}</a></li>')
        return f'<h2 id="{anchor}">{match.group(2)}</h2>'

    body = _H2.sub(number, body)
    if not entries:
        return body
    nav = '<nav class="toc"><strong>Contents</strong><ol>' + "".join(entries) + "</ol></nav>\n"
    end = body.find("</h1>")
    at = end + len("</h1>") if end >= 0 else 0
    return body[:at] + "\n" + nav + body[at:]


_CSS = """
body { font-family: -apple-system, "Segoe UI", "Noto Sans KR", "Noto Sans CJK KR", sans-serif; max-width: 1200px;
       margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.5; }
table { border-collapse: collapse; margin: 0.8rem 0; font-size: 0.88rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.55rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
blockquote { border-left: 4px solid #d9822b; margin: 1rem 0; padding: 0.4rem 1rem; background: #fff7ed; }
img { max-width: 100%; }
code { background: #f5f5f5; padding: 0 0.2rem; }
nav.toc { background: #f7f7f9; border: 1px solid #e2e2e8; padding: 0.4rem 1rem; margin: 1rem 0; font-size: 0.9rem; }
nav.toc ol { margin: 0.2rem 0; columns: 2; }
.controls { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; align-items: center; margin: 0.5rem 0; font-size: 0.9rem; }
.controls input[type=search] { min-width: 16rem; padding: 0.2rem 0.4rem; }
.pager { font-size: 0.85rem; color: #555; margin: 0.3rem 0; }
.scroll { overflow-x: auto; }
table.cases { width: 100%; font-size: 0.82rem; }
table.cases > thead th { cursor: pointer; user-select: none; }
table.cases td.id { white-space: nowrap; }
table.cases td.headline { max-width: 14rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
tr.case-row { cursor: pointer; }
tr.case-row:hover { background: #f2f7ff; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.unscored, div.unscored { color: #a33; }
td.disagree { background: #fff3cd; }
tr.detail > td { background: #fbfbfd; padding: 0.6rem 1rem; }
.cols { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
.block h4 { margin: 0.8rem 0 0.3rem; }
.label { font-size: 0.8rem; color: #666; margin-top: 0.3rem; }
pre { white-space: pre-wrap; word-break: break-word; background: #fff; border: 1px solid #e4e4e4; padding: 0.35rem 0.5rem;
      margin: 0.15rem 0; max-height: 22rem; overflow: auto; font-size: 0.85rem; font-family: inherit; }
pre.context { max-height: 9rem; }
.judge { border-left: 3px solid #6b8cce; padding-left: 0.6rem; margin: 0.5rem 0; }
.note { font-size: 0.8rem; color: #666; }
dd.hash { font-family: monospace; font-size: 0.8rem; margin-left: 1rem; word-break: break-all; }
"""

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src {script_src}">
<title>{title}</title>
<style>{css}</style></head>
<body>
{body}
</body></html>
"""
