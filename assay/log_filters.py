"""Log filters that rewrite every record's message before any handler sees it: one mechanism for
redaction (``assay.redact``) and for making control characters visible (``assay.console``)."""

from __future__ import annotations

import logging
from collections.abc import Callable


class RewritingFilter(logging.Filter):
    """Passes each record's message (with its arguments applied) through ``rewrite``."""

    def __init__(self, rewrite: Callable[[str], str]) -> None:
        super().__init__()
        self.rewrite = rewrite

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed record is passed on untouched
            return True
        shown = self.rewrite(message)
        if shown != message:
            record.msg, record.args = shown, None
        return True


def install(log_filter: logging.Filter, *logger_names: str) -> None:
    """Attach ``log_filter`` to these loggers, the root logger and their handlers (once each)."""
    for name in ("", *logger_names):
        logger = logging.getLogger(name)
        if log_filter not in logger.filters:
            logger.addFilter(log_filter)
        for handler in logger.handlers:
            if log_filter not in handler.filters:
                handler.addFilter(log_filter)
