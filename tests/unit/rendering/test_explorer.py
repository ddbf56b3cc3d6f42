"""The report's case explorer: data embedded once, escaped so no value can leave its block; the
page's only script is its own, allowed by hash; a 10,000-case run adds no row to the HTML."""

import json
import re

import pandas as pd
import pytest

from assay.rendering.case_view import CaseContext, CaseField, CaseView, default_case_view
from assay.rendering.explorer import (
    ExplorerMetric,
    embedded_json,
    explorer_data,
    explorer_script,
    script_hash,
)
from assay.rendering.render import ReportHeader, render_html, render_markdown
from assay.rendering.sections import ReportSection
from assay.suites.rag_qa.schema import RagCase, RagGeneration
from tests.support.hostile import HOSTILE, executable_parts

SCRIPT = re.compile(r"<script([^>]*)>(.*?)</script>", re.S)


def data_for(n: int, text: str = "질문") -> object:
    views = {f"q{i:05d}": CaseView(group="g" + str(i % 3), inputs=[CaseField(label="question", text=f"{text} {i}")],
                                   outputs=[CaseField(label="answer", text=text)],
                                   contexts=[CaseContext(title=text, text=text, score=0.5)]) for i in range(n)}
    rows = [{"case_id": cid, "metric": "accuracy", "judge": None, "value": 4.0 if i % 2 else None,
             "unscored_reason": None if i % 2 else text,
             "details": json.dumps({"judge_scores": {"a": 4.0}, "disagreement": i % 5 == 0, "method": "median"})}
            for i, cid in enumerate(views)]
    runs = [{"prompt_id": "rag-answer", "results": {cid: [{"judge": "a", "model": "m", "prompt_id": "rag-answer",
                                                           "verdict": {"accuracy": 4, "feedback": text}}]
                                                     for cid in views}}]
    return explorer_data("rag_qa", "category", [ExplorerMetric(name="accuracy", scale="1-5")], pd.DataFrame(rows),
                         views, {cid: "0" * 64 for cid in views}, runs, {"dataset snapshot": "1" * 64})


def page(n: int, text: str = "질문") -> str:
    header = ReportHeader(suite="rag_qa", suite_title="t", snapshot="0" * 64, n_cases=n, replay="recorded",
                          generations="0" * 64, validation="passed", config_hash="0" * 64, judges="j")
    sections = [ReportSection("Overall", "x"), ReportSection("Per case", "y")]
    return render_html(render_markdown(header, sections), {}, "t", data_for(n, text))


@pytest.mark.parametrize("text", [*HOSTILE, "</script><script>alert(1)</script>", "</SCRIPT >", "<!--", "&lt;"])
def test_hostile_values_stay_inside_the_data_block(text):
    html = page(3, text)
    scripts = SCRIPT.findall(html)
    assert [attrs for attrs, _ in scripts] == [' type="application/json" id="assay-cases"', ""]
    data, code = scripts[0][1], scripts[1][1]
    assert "<" not in data and ">" not in data and "&" not in data
    assert json.loads(data)["cases"][0]["view"]["outputs"][0]["text"] == text  # read back as written
    assert code == explorer_script()
    head, body = html.split("<body>", 1)
    assert f"script-src {script_hash(code)}" in head  # the page's own script, and no other, may run
    outside = SCRIPT.sub("", body)
    assert executable_parts(outside) == [], outside


def test_the_script_writes_values_as_text_never_as_markup():
    code = explorer_script()
    assert "innerHTML" not in code and "insertAdjacentHTML" not in code and "document.write" not in code
    assert "eval(" not in code and "new Function" not in code
    assert "textContent" in code


def test_ten_thousand_cases_are_embedded_once_and_drawn_by_page():
    html = page(10_000)
    assert html.count('"q09999"') == 1  # once, in the data block
    assert html.count("<tr") < 20  # no row per case in the document; the script draws a page at a time
    data = json.loads(SCRIPT.findall(html)[0][1])
    assert len(data["cases"]) == 10_000 and data["page_size"] == 50
    assert data["cases"][0]["scores"] == [None] and data["cases"][1]["scores"] == [4.0]
    assert data["cases"][0]["unscored"] == {"accuracy": "질문"}
    assert data["cases"][0]["disagreements"] == [0] and data["cases"][1]["disagreements"] == []
    assert data["cases"][1]["judges"][0]["notes"] == {"feedback": "질문"}
    assert len(html) < 40_000_000


def test_headline_and_charts_come_first_with_contents():
    html = page(2)
    titles = re.findall(r'<h2 id="([^"]+)">([^<]*)</h2>', html)
    assert [t for _, t in titles] == ["Overall", "Cases", "Per case"]
    assert '<nav class="toc">' in html and 'href="#cases"' in html
    md = render_markdown(
        ReportHeader(suite="s", suite_title="t", snapshot="0" * 64, n_cases=1, replay="r", generations="0" * 64,
                     validation="passed", config_hash="0" * 64, judges="j", charts=["means"]),
        [ReportSection("Overall", "x"), ReportSection("Jury", "y")],
    )
    assert md.index("## Overall") < md.index("## Charts") < md.index("## Jury")


def test_default_case_view_lists_fields_and_the_rag_view_shows_contexts():
    from assay.suites.registry import get_suite

    case = RagCase(id="q1", question="누구?", keywords=["a"], reference_answer="윤서진", category="direct_fact")
    gen = RagGeneration(case_id="q1", answer="윤서진입니다", retrieved=[{"source": "a.md", "text": "본문", "score": 0.9}])
    view = default_case_view(case, gen)
    assert view.group == "direct_fact" and view.inputs[0].label == "question" and view.outputs[0].text == "윤서진입니다"
    rag = get_suite("rag_qa").case_view(case, gen)
    assert [f.label for f in rag.outputs] == ["answer"] and rag.contexts[0].text == "본문" and rag.headline() == "누구?"
    assert get_suite("rag_qa").case_view(case, None).outputs == []


def test_embedded_json_escapes_line_separators():
    from pydantic import BaseModel

    class M(BaseModel):
        s: str

    assert embedded_json(M(s="a\u2028b</script>")) == '{"s":"a\\u2028b\\u003c/script\\u003e"}'


@pytest.mark.parametrize("text", [
    "", "plain ascii", "한국어 <b>굵게</b> & 끝", "&&<<>>\u2028\u2029</script><!--", "\\u003c already escaped & <",
    "混合 text \u2028 with <every> & one \u2029" * 50,
])
def test_the_script_escape_is_one_character_at_a_time(text):
    """Each character escaped as a table lookup per character would (the reference below), and
    nothing an escape adds is escaped again, whatever the order of the passes."""
    from assay.rendering.explorer import _JSON_ESCAPES, escaped_for_script

    assert escaped_for_script(text) == text.translate(str.maketrans(_JSON_ESCAPES))
    assert not re.search("[<>&\u2028\u2029]", escaped_for_script(text))


def test_a_published_page_gives_back_its_explorer_data():
    from assay.rendering.explorer import embedded_explorer

    original = data_for(3, "</script><b>x</b>")
    html = render_html("# t\n\n## Overall\n\nx\n", {}, "t", original)
    assert embedded_explorer(html) == original
    assert embedded_explorer("<html></html>") is None
