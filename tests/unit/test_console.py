"""What a command prints: terminal control from data is shown as its escape, never acted on."""

import re
from pathlib import Path

from assay.console import console_safe
from tests.support.hostile import CONTROL, TERMINAL_CONTROL


def test_every_control_sequence_is_made_visible_and_text_is_kept():
    for text in CONTROL:
        shown = console_safe(f"case {text} 답변")
        assert TERMINAL_CONTROL.search(shown) is None, shown
        assert shown.startswith("case ") and shown.endswith(" 답변")
    assert console_safe("\x1b]52;c;ZWNobyBwd25lZA==\x07") == "\\x1b]52;c;ZWNobyBwd25lZA==\\x07"
    assert console_safe("\u202egnp.exe \x9b2J") == "\\u202egnp.exe \\x9b2J"
    assert console_safe("a\tb\nc — 한국어 é") == "a\tb\nc — 한국어 é"  # layout and ordinary text untouched


def test_the_cli_prints_only_through_the_console_boundary():
    source = (Path(__file__).parents[2] / "assay" / "cli.py").read_text(encoding="utf-8")
    assert re.findall(r"\btyper\.s?echo\(|\bprint\(|sys\.std(?:out|err)\.write", source) == []


def test_log_records_are_made_console_safe(caplog):
    import logging

    from assay.console import install_console_safe_logging

    install_console_safe_logging("assay.test.console")
    logger = logging.getLogger("assay.test.console")
    with caplog.at_level(logging.INFO, logger="assay.test.console"):
        logger.info("case %s failed", "q1\x1b]0;title\x07")
    assert caplog.records[-1].getMessage() == "case q1\\x1b]0;title\\x07 failed"
