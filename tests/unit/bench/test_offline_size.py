"""bench/offline_size.py: code lines leave out comments, docstrings and blanks; the jury's files are found."""

from __future__ import annotations

from bench.offline_size import jury_files, line_counts
from tests.conftest import ROOT


def test_code_lines_leave_out_docstrings_comments_and_blank_lines():
    source = (
        '"""Module docstring,\nover two lines."""\n\n'
        "# a comment\n"
        "X = {\n    'a': 1,  # trailing\n}\n\n"
        "def f():\n    '''Doc.'''\n    return '''not a\ndocstring'''\n"
    )
    assert line_counts(source) == (6, 12)  # X's 3 lines, the def, the return's 2


def test_the_jury_is_its_core_and_every_suites_offline_package():
    files = {str(path.relative_to(ROOT)) for path in jury_files()}
    assert "assay/judges/offline/__init__.py" in files
    assert {f.split("/")[2] for f in files if f.startswith("assay/suites/")} >= {"rag_qa", "memory", "clinical", "agent", "report"}
