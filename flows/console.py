"""What `assay run` prints on the console: its own lines, each failure once; Prefect's own log
lines (a failure's ERROR record, task-run states) only with ``-v``.

Prefect's records still reach its API handler (the run's log in the UI): only the console
handler is filtered, and only while a run started from the command line is going.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager


class _NotPrefect(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.name == "prefect" or record.name.startswith("prefect."))


@contextmanager
def prefect_console(verbose: bool) -> Iterator[None]:
    """Prefect's log records stay off the console unless ``verbose``."""
    if verbose:
        yield
        return
    from prefect.logging.handlers import PrefectConsoleHandler

    quiet = _NotPrefect()
    handlers = [h for h in logging.getLogger().handlers if isinstance(h, PrefectConsoleHandler)]
    for handler in handlers:
        handler.addFilter(quiet)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(quiet)
