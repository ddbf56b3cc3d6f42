"""The report's case explorer at 100, 1,000 and 10,000 cases, in headless Chromium, side by side.

    python bench/report_explorer.py [--sizes 100 1000 10000]

Each page is a real report page (render_html with the explorer) over synthetic cases of
realistic size: a 120-character question, a 400-character answer, five 500-character contexts,
three judges with a 150-character feedback each, eight metrics. For each size it measures the
page's bytes, load time (navigation start to load event end, from the page's own timing), then
inside the page: a text filter, a sort on a metric column and opening a case (each the time of
the synchronous redraw), and the table rows in the document. Ratios are against the smallest size.
Needs /usr/bin/chromium (make browser).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas as pd  # noqa: E402

from assay.rendering.case_view import CaseContext, CaseField, CaseView  # noqa: E402
from assay.rendering.explorer import ExplorerMetric, explorer_data  # noqa: E402
from assay.rendering.render import ReportHeader, render_html, render_markdown  # noqa: E402
from assay.rendering.sections import ReportSection  # noqa: E402
from tests.support.browser import Browser  # noqa: E402

METRICS = ["reciprocal_rank", "ndcg@10", "precision@10", "recall@10", "keyword_coverage", "accuracy", "completeness", "relevance"]
JUDGES = ["judge-a", "judge-b", "judge-c"]
TEXT = "별빛투어의 계약 조건과 일정에 관한 문장입니다. "


def page(n: int) -> str:
    views, rows, results = {}, [], {}
    for i in range(n):
        cid = f"q{i:05d}"
        views[cid] = CaseView(
            group=f"category-{i % 7}",
            inputs=[CaseField(label="question", text=f"{i}번 질문: " + (TEXT * 5)[:120]),
                    CaseField(label="reference answer", text=(TEXT * 8)[:300])],
            outputs=[CaseField(label="answer", text=(TEXT * 12)[:400])],
            contexts=[CaseContext(title=f"doc{k}.md", text=(TEXT * 20)[:500], score=0.9 - k / 10) for k in range(5)],
        )
        for j, metric in enumerate(METRICS):
            value = None if (i + j) % 97 == 0 else ((i * 31 + j * 7) % 100) / 100 * (5 if j >= 5 else 1)
            details = {"judge_scores": dict.fromkeys(JUDGES, value), "method": "weighted_mean"} if j >= 5 else {}
            rows.append({"case_id": cid, "metric": metric, "judge": None, "value": value,
                         "unscored_reason": None if value is not None else "judge failed", "details": json.dumps(details)})
        results[cid] = [{"judge": judge, "model": judge, "prompt_id": "rag_answer",
                         "verdict": {"accuracy": 4, "completeness": 3, "relevance": 5, "feedback": (TEXT * 6)[:150]},
                         "request_key": "0" * 64} for judge in JUDGES]
    data = explorer_data("rag_qa", "category", [ExplorerMetric(name=m) for m in METRICS], pd.DataFrame(rows), views,
                         dict.fromkeys(views, "1" * 64), [{"prompt_id": "rag_answer", "results": results}],
                         {"dataset snapshot": "2" * 64})
    header = ReportHeader(suite="rag_qa", suite_title="bench", snapshot="0" * 64, n_cases=n, replay="recorded",
                          generations="0" * 64, validation="passed", config_hash="0" * 64, judges="bench")
    return render_html(render_markdown(header, [ReportSection("Overall", "x")]), {}, "bench", data)


TIMED = "(() => { const t0 = performance.now(); %s; return performance.now() - t0; })()"


def measure(browser: Browser, path: Path, n: int) -> dict[str, float]:
    browser.open(path)
    load = browser.evaluate("(() => { const e = performance.getEntriesByType('navigation')[0]; return e.loadEventEnd - e.startTime; })()")
    search = "const s = document.getElementById('explorer-search'); s.value = %s; s.dispatchEvent(new Event('input'))"
    filt = browser.evaluate(TIMED % (search % json.dumps("q0000")))
    browser.evaluate(search % json.dumps(""))
    sort = browser.evaluate(TIMED % "document.querySelectorAll('table.cases th')[8].click()")
    case = browser.evaluate(TIMED % "document.querySelector('tr.case-row').click()")
    rows = browser.evaluate("document.querySelectorAll('tr').length")
    if browser.errors or browser.requests:
        raise SystemExit(f"{n} cases: errors {browser.errors}, requests {browser.requests}")
    return {"bytes": path.stat().st_size, "load_ms": load, "filter_ms": filt, "sort_ms": sort, "open_ms": case, "tr": rows}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp, Browser(width=1280, height=900) as browser:
        for n in args.sizes:
            path = Path(tmp) / f"report-{n}.html"
            path.write_text(page(n), encoding="utf-8")
            results[n] = measure(browser, path, n)
    base = results[args.sizes[0]]
    print(f"{'cases':>6s} {'MB':>7s} {'load ms':>9s} {'filter ms':>10s} {'sort ms':>8s} {'open ms':>8s} {'<tr>':>5s}"
          f"   ratios vs {args.sizes[0]}: bytes, load, filter, sort, open")
    for n, r in results.items():
        ratios = ", ".join(f"{r[k] / base[k]:.1f}" if base[k] else "-" for k in ("bytes", "load_ms", "filter_ms", "sort_ms", "open_ms"))
        print(f"{n:6d} {r['bytes'] / 1e6:7.2f} {r['load_ms']:9.0f} {r['filter_ms']:10.1f} {r['sort_ms']:8.1f} {r['open_ms']:8.1f} "
              f"{r['tr']:5d}   {ratios}")


if __name__ == "__main__":
    main()
