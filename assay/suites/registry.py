"""The explicit registry of suites, with "did you mean" errors."""

from __future__ import annotations

import difflib
from collections.abc import Callable

from assay.judges.prompts.base import declare
from assay.suites.kit.suite import AnySuite


class UnknownSuiteError(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def _rag_qa() -> AnySuite:
    from assay.suites.rag_qa.suite import RagQASuite

    return RagQASuite()


def _answers() -> AnySuite:
    from assay.suites.answers.suite import AnswersSuite

    return AnswersSuite()


def _report() -> AnySuite:
    from assay.suites.report.suite import ReportSuite

    return ReportSuite()


def _agent() -> AnySuite:
    from assay.suites.agent.suite import AgentSuite

    return AgentSuite()


def _clinical() -> AnySuite:
    from assay.suites.clinical.suite import ClinicalSuite

    return ClinicalSuite()


def _memory() -> AnySuite:
    from assay.suites.memory.suite import MemorySuite

    return MemorySuite()


# Factories keep `import assay.suites.registry` cheap: a suite's module loads when asked for.
_FACTORIES: dict[str, Callable[[], AnySuite]] = {
    "agent": _agent,
    "answers": _answers,
    "clinical": _clinical,
    "memory": _memory,
    "rag_qa": _rag_qa,
    "report": _report,
}


ENTRY_POINT_GROUP = "assay.suites"


def _plugins() -> dict[str, Callable[[], AnySuite]]:
    """Suites other packages declare under the ``assay.suites`` entry-point group."""
    from importlib.metadata import entry_points

    return {ep.name: ep.load for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name not in _FACTORIES}


def _factories() -> dict[str, Callable[[], AnySuite]]:
    return {**_plugins(), **_FACTORIES}


def suite_names() -> list[str]:
    return sorted(_factories())


def get_suite(name: str) -> AnySuite:
    factories = _factories()
    try:
        factory = factories[name]
    except KeyError:
        close = difflib.get_close_matches(name, suite_names(), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownSuiteError(f"unknown suite {name!r}.{hint} Available: {', '.join(suite_names())}") from None
    made = factory()
    # An entry point may name the class or a factory function; either gives a suite.
    suite = made() if isinstance(made, type) else made
    declare(suite.prompts)  # its own judge prompts, found by id from here on
    return suite


def declare_every_suites_prompts() -> None:
    """Hand every known suite's own prompts to the prompt registry (a prompt id not found there)."""
    for name in suite_names():
        get_suite(name)


def register_suite(name: str, factory: Callable[[], AnySuite]) -> None:
    """Add a suite (a class or a factory) without touching the flow."""
    _FACTORIES[name] = factory
