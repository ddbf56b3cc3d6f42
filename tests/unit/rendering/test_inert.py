"""Reports are inert: whatever data, generations or judges wrote, the page runs no script."""

import pytest

from assay.rendering.render import ReportHeader, render_html, render_markdown
from assay.rendering.sanitize import safe_href, sanitize_html
from assay.rendering.sections import ReportSection
from assay.rendering.tables import markdown_table, md_markup, md_text
from tests.support.hostile import HOSTILE, executable_parts


def page(text: str) -> str:
    header = ReportHeader(suite="s", suite_title=text, snapshot="0" * 64, n_cases=1, quarantined=[text],
                          replay="recorded", generations="0" * 64, validation="passed", config_hash="0" * 64,
                          judges=text)
    sections = [
        ReportSection(text, f"- raw: {text}\n- escaped: {md_text(text)}\n\n" + markdown_table(["id", "note"], [[text, md_text(text)]])),
    ]
    return render_html(render_markdown(header, sections), {}, text)


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_is_never_executable_in_the_page(text):
    html = page(text)
    body = html.split("<body>", 1)[1]
    assert executable_parts(body) == [], body


def test_escaped_text_reads_as_written():
    html = page("<b>bold</b> [link](http://example.com)")
    assert "&lt;b&gt;bold&lt;/b&gt;" in html  # shown, not interpreted


def test_safe_links_and_charts_survive():
    md = "[docs](https://example.com/a?b=1) [anchor](#overall)\n\n![metric_means](charts/metric_means.png)\n"
    html = render_html(md, {"metric_means": b"\x89PNG"}, "t")
    assert 'href="https://example.com/a?b=1"' in html and 'href="#overall"' in html
    assert 'src="data:image/png;base64,' in html


@pytest.mark.parametrize(
    ("href", "ok"),
    [("https://a", True), ("http://a", True), ("#x", True), ("javascript:x", False), (" javascript:x", False),
     ("jav\nascript:x", False), ("data:text/html,x", False), ("//evil.example", False), ("vbscript:x", False)],
)
def test_link_schemes(href, ok):
    assert safe_href(href) is ok


def test_sanitizer_drops_unknown_tags_and_attributes_keeps_text():
    out = sanitize_html('<p style="x" onclick="y">hi <marquee>there</marquee><script>bad()</script></p>')
    assert out == "<p>hi there</p>"


def test_markdown_table_cells_cannot_break_the_table():
    table = markdown_table(["a", "b"], [["x|y\nz", "ok"]])
    assert table.splitlines()[2] == "| x\\|y z | ok |"


def markdown_page(text: str) -> str:
    """report.md as assay writes it, with ``text`` in every kind of place data reaches: the
    header, a section title, prose, every column of a table (its headers too) and the jury
    section's per-judge table, whose case ids and judge names come straight from the scores."""
    from assay.schemas import ScoreRow
    from assay.spec import JurySpec, PanelJudge, RunSpec
    from assay.suites.kit import jury_section, jury_summary
    from assay.suites.kit.summary import scores_frame

    rows = []
    for judge, value in ((text, 4.0), ("b", 1.0)):
        rows.append(ScoreRow(case_id=text, metric="accuracy", family="answer", value=value, scale="1-5", judge=judge))
    rows.append(ScoreRow(case_id=text, metric="accuracy", family="answer", value=2.5, scale="1-5"))
    panel = [PanelJudge(name=n, model=f"openai/{n}", weight=0.5) for n in (text, "b")]
    jury = jury_summary(rows, RunSpec(suite="rag_qa", jury=JurySpec(panel=panel)))
    header = ReportHeader(suite="s", suite_title=text, snapshot="0" * 64, n_cases=1, quarantined=[text],
                          replay="recorded", generations="0" * 64, validation="passed", config_hash="0" * 64,
                          judges=text)
    sections = [
        ReportSection(text, f"- escaped: {md_text(text)}\n\n" + markdown_table([text, "note"], [[text, md_text(text)]])),
        ReportSection("Jury", jury_section(scores_frame(rows), jury, "Answers")),
    ]
    return render_markdown(header, sections)


@pytest.mark.parametrize("text", HOSTILE)
def test_report_markdown_is_inert_in_a_viewer_that_passes_html_through(text):
    import markdown

    md = markdown_page(text)
    html = markdown.markdown(md, extensions=["tables"])  # raw HTML allowed, as many viewers do
    assert executable_parts(html) == [], md
    assert "<table>" in html  # the tables are still tables


def test_markdown_table_escapes_every_cell_unless_it_is_markdown_already():
    table = markdown_table(["<b>", "n"], [["<img src=x>", 1], [md_markup("**overall**"), md_text("a_b")]])
    assert table.splitlines() == ["| &lt;b&gt; | n |", "|---|---|", "| &lt;img src=x&gt; | 1 |", "| **overall** | a\\_b |"]
