"""The screenshots in docs/: the top of a report and one opened case, taken with the browser
test's harness. Usage: python -m tests.support.screenshots RUN_DIR CASE_ID OUT_DIR"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.browser import Browser


def take(run_dir: Path, case_id: str, out: Path, width: int = 1100, height: int = 1300) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    top, case = out / "report-top.png", out / "report-case.png"
    with Browser(width=width, height=height) as browser:
        browser.open(run_dir / "report.html")
        browser.screenshot(top)
        browser.open_case(case_id)
        browser.evaluate("(() => { document.querySelector('tr.case-row').scrollIntoView(); window.scrollBy(0, -150); })()")
        browser.screenshot(case)
        if browser.requests or browser.errors:
            raise SystemExit(f"the page made requests {browser.requests} or errors {browser.errors}")
    return [top, case]


if __name__ == "__main__":
    for path in take(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])):
        print(path, path.stat().st_size)
