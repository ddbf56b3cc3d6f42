"""The explicit registry of suites, with "did you mean" errors."""

from __future__ import annotations

import difflib
from collections.abc import Callable

from assay.suites.kit import Suite


class UnknownSuiteError(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def _rag_qa() -> Suite:
    from assay.suites.rag_qa.suite import RagQASuite

    return RagQASuite()


def _report() -> Suite:
    from assay.suites.report.suite import ReportSuite

    return ReportSuite()


# Factories keep `import assay.suites.registry` cheap: a suite's module loads when asked for.
_FACTORIES: dict[str, Callable[[], Suite]] = {
    "rag_qa": _rag_qa,
    "report": _report,
}


def suite_names() -> list[str]:
    return sorted(_FACTORIES)


def get_suite(name: str) -> Suite:
    try:
        return _FACTORIES[name]()
    except KeyError:
        close = difflib.get_close_matches(name, suite_names(), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownSuiteError(f"unknown suite {name!r}.{hint} Available: {', '.join(suite_names())}") from None


def register_suite(name: str, factory: Callable[[], Suite]) -> None:
    """Add a suite (e.g. from a plugin) without touching the flow."""
    _FACTORIES[name] = factory
