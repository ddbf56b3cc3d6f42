"""GX's kwargs lookups with one configuration each (``assay.validation.gx_kwargs``): the same
values as GX's own for every expectation the bundled suites use, the same validation reports,
nothing kept between two lookups, and GX's own kept on a version they were not written from.
Real GX validations."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from assay.suites.registry import get_suite, suite_names
from assay.validation import gx_kwargs, gx_session
from tests.unit.validation.test_gx_session import gx_results, payload
from tests.unit.validation.test_ingest_and_gate import (
    BAD_CASES,
    BAD_GENERATIONS,
    CLEAN_CASES,
    CLEAN_GENERATIONS,
    GateOnlySuite,
    write_dataset,
)


@pytest.fixture
def gx() -> Any:
    gx = gx_session.import_gx()  # installs the lookups
    yield gx
    gx_kwargs.install(gx)  # a test that took them out puts them back


def kept_expectations() -> list[Any]:
    """Every expectation of every registered suite's expectation files, as GX builds them."""
    from assay.validation.gate import run_gate

    for name in suite_names():
        suite = get_suite(name)
        run_gate(suite, suite.load_dataset(suite.default_dataset))  # builds and keeps each suite
    return [e for kept in gx_session._suites.values() for e in kept.expectations]  # noqa: SLF001


def lookups(expectation: Any) -> tuple:
    return (
        expectation._get_domain_kwargs(),  # noqa: SLF001
        expectation._get_success_kwargs(),  # noqa: SLF001
        [expectation._get_success_kwarg(k) for k in (*expectation.success_keys, *expectation.runtime_keys)],  # noqa: SLF001
        expectation._get_runtime_kwargs(),  # noqa: SLF001
        expectation._get_runtime_kwargs({"result_format": "COMPLETE"}),  # noqa: SLF001
    )


def test_the_lookups_give_gx_s_own_values_for_every_bundled_expectation(gx: Any) -> None:
    expectations = kept_expectations()
    assert len({type(e).__name__ for e in expectations}) >= 5
    ours = [lookups(e) for e in expectations]
    gx_kwargs.uninstall()
    theirs = [lookups(e) for e in expectations]
    assert ours == theirs
    # and in the same key order (the metric graph's kwargs are built from these dicts)
    assert [[list(d) for d in o if isinstance(d, dict)] for o in ours] == [
        [list(d) for d in t if isinstance(d, dict)] for t in theirs
    ]


def test_a_validation_reports_what_it_reports_with_gx_s_own_lookups(gx: Any, tmp_path: Path) -> None:
    from assay.validation.gate import run_gate

    suite = GateOnlySuite()
    datasets = [suite.load_dataset(write_dataset(tmp_path / name, cases, gens)) for name, cases, gens in
                (("clean", CLEAN_CASES, CLEAN_GENERATIONS), ("bad", BAD_CASES, BAD_GENERATIONS))]
    ours = [run_gate(suite, d) for d in datasets]
    gx_kwargs.uninstall()
    theirs = [run_gate(suite, d) for d in datasets]
    assert [payload(r) for r in ours] == [payload(r) for r in theirs]
    assert [gx_results(r) for r in ours] == [gx_results(r) for r in theirs]
    assert ours[0].success and not ours[1].success


def test_a_lookup_reads_the_expectation_as_it_is_now(gx: Any) -> None:
    expectation = gx.expectations.ExpectColumnValuesToBeBetween(column="score", min_value=1, max_value=5)
    assert expectation._get_success_kwargs()["min_value"] == 1  # noqa: SLF001
    expectation.min_value = 2
    expectation.column = "other"
    assert expectation._get_success_kwargs()["min_value"] == 2  # noqa: SLF001
    assert expectation._get_domain_kwargs()["column"] == "other"  # noqa: SLF001
    assert expectation._get_success_kwarg("min_value") == 2  # noqa: SLF001
    assert expectation._get_runtime_kwargs()["max_value"] == 5  # noqa: SLF001


def test_a_subclass_with_its_own_lookup_is_asked_through_it(gx: Any) -> None:
    class Shifted(gx.expectations.ExpectColumnValuesToBeBetween):
        def _get_success_kwarg(self, key: str, default: Any = None) -> Any:
            return "shifted" if key == "catch_exceptions" else super()._get_success_kwarg(key, default)

    runtime = Shifted(column="score", min_value=1)._get_runtime_kwargs()  # noqa: SLF001
    assert runtime["catch_exceptions"] == "shifted" and runtime["min_value"] == 1


def test_another_gx_version_keeps_gx_s_own_lookups(gx: Any) -> None:
    from great_expectations.expectations.expectation import Expectation

    gx_kwargs.uninstall()
    own = {name: Expectation.__dict__[name] for name in gx_kwargs.LOOKUPS}
    assert gx_kwargs.install(SimpleNamespace(__version__="1.99.0")) is False
    assert {name: Expectation.__dict__[name] for name in gx_kwargs.LOOKUPS} == own
    assert gx_kwargs.install(gx) is True
    assert all(Expectation.__dict__[name] is method for name, method in gx_kwargs.LOOKUPS.items())
