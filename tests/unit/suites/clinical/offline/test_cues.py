"""The clinical offline rules' cue tables (``offline/cues.py``, ``rules/offline_cues.yaml``)."""

from __future__ import annotations

import pytest

from assay.suites.clinical.offline.cues import CUES, CUES_PATH, TABLES, offline_cues
from tests.conftest import ROOT

OFFLINE = ROOT / "assay" / "suites" / "clinical" / "offline"


def test_the_cue_tables_are_checked_on_load(tmp_path):
    good = offline_cues()
    assert (
        "먹어도" in good.permission
        and ("간 수치", "간수치", "간 기능", "간기능", "liver enzymes", "liver function")
        == good.lab_groups[0][0]
    )
    broken = tmp_path / "offline_cues.yaml"
    broken.write_text(
        CUES_PATH.read_text(encoding="utf-8").replace("permission:", "permissions:"), encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"offline_cues\.yaml: key 'permission'"):
        offline_cues(broken)
    broken.write_text(
        CUES_PATH.read_text(encoding="utf-8").replace("native_counts: {", "native_counts: {x: many, "),
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=r"key 'native_counts\.x'"):
        offline_cues(broken)
    broken.write_text(
        CUES_PATH.read_text(encoding="utf-8").replace("  history: ", "  history: (?<=a+)"), encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"key 'regexes'.*history: global flags not at the start"):
        offline_cues(broken)
    broken.write_text(
        CUES_PATH.read_text(encoding="utf-8").replace("first_vowels: {a: ", "first_vowels: {a: [1], x: "),
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=r"key 'first_vowels\.a'"):
        offline_cues(broken)


def test_every_table_is_declared_once_and_read_by_a_rule():
    names = [name for _, names in TABLES for name in names.split()]
    assert len(names) == len(set(names))
    code = "\n".join(path.read_text(encoding="utf-8") for path in OFFLINE.glob("*.py"))
    assert [n for n in names if n != "regexes" and f"CUES.{n}" not in code] == []
    assert [n for n in CUES.regexes if f'CUES.regex("{n}")' not in code] == []


def test_a_regex_is_compiled_once():
    assert CUES.regex("forbids") is CUES.regex("forbids")
    assert CUES.regex("bare_yes").match("네, 맞아요.") and CUES.regex("bare_yes").match("YES")
