"""The kit's defaults: a suite's records come from its Suite[...] parameters, and the methods the
flow calls delegate to the functions the suite declares, so a suite.py states only what differs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from pydantic import BaseModel

from assay.schemas import LoadedDataset, ScoreRow
from assay.spec import RunSpec
from assay.suites.kit import (
    AggregateResult,
    AutomaticFamily,
    DatasetFunctions,
    ReportSection,
    Suite,
    Summary,
    SummaryFunctions,
)
from assay.suites.kit.suite import case_model_class
from assay.suites.registry import get_suite


class Case(BaseModel):
    id: str
    question: str


class Generation(BaseModel):
    case_id: str
    answer: str


class ToySummary(Summary):
    note: str = ""


EMPTY = Summary(n_cases=0, metrics=[], scales={}, overall={})


def load(root: Path) -> LoadedDataset:
    return LoadedDataset(suite="toy", root=root, records=[{"id": "c1", "question": "q?", "_line": 1}])


def frames(data: LoadedDataset) -> dict[str, pd.DataFrame]:
    return {"cases": pd.DataFrame(data.records)}


def aggregate(rows, cases: list[Case], spec: RunSpec) -> AggregateResult:
    listed = list(rows)
    return AggregateResult(rows=listed, summary=ToySummary(n_cases=len(cases), metrics=[], scales={}, overall={}, note=f"{len(listed)} rows"))


def sections(scores: pd.DataFrame, summary: ToySummary, cases: list[Case], generations: dict[str, Generation]) -> list[ReportSection]:
    return [ReportSection("Note", f"{summary.note}; {len(cases)} cases, {len(generations)} generations")]


def charts(summary: ToySummary) -> dict[str, bytes]:
    return {"note": summary.note.encode()}


def length(case: Case, generation: Generation, ctx) -> list[ScoreRow]:
    return [ScoreRow(case_id=case.id, metric="length", family="size", value=float(len(generation.answer)), scale="chars")]


FAMILY = AutomaticFamily("size", {"length": "chars"}, length, "answer length")


class ToySuite(Suite[Case, Generation, ToySummary]):
    name = "toy"
    title = seed = description = "toy"
    dataset_functions = DatasetFunctions(load, frames)
    families = [FAMILY]
    summary_functions = SummaryFunctions(aggregate, sections, charts, metrics=("length",))


class PlainSuite(Suite[Case, Generation]):
    """The summary parameter left out: the kit's Summary, and no charts or metric names."""

    name = "plain"
    title = seed = description = "plain"
    dataset_functions = DatasetFunctions(load, frames, lambda data: {"min_cases": len(data.records)})
    families = [FAMILY]
    summary_functions = SummaryFunctions(aggregate, sections)


def test_the_records_come_from_the_suite_parameters_unless_the_class_names_them():
    assert (ToySuite.case_model, ToySuite.generation_model, ToySuite.summary_model) == (Case, Generation, ToySummary)
    assert PlainSuite.summary_model is Summary

    class Named(Suite[Case, Generation, ToySummary]):
        name = title = seed = description = "named"
        case_model = Generation  # type: ignore[assignment]  # the class's own choice wins
        dataset_functions, families, summary_functions = ToySuite.dataset_functions, [FAMILY], ToySuite.summary_functions

    class Derived(ToySuite):
        name = "derived"

    assert Named.case_model is Generation and Named.summary_model is ToySummary
    assert (Derived.case_model, Derived.summary_model) == (Case, ToySummary)


def test_every_default_calls_the_declared_function(tmp_path):
    suite = ToySuite()
    data = suite.load_dataset(tmp_path)
    assert data.root == tmp_path and list(suite.validation_frames(data)) == ["cases"]
    assert suite.validation_parameters(data) == {}  # no parameters declared
    cases = suite.parse_cases(data)
    assert cases == [Case(id="c1", question="q?")]
    assert suite.metric_families() == [FAMILY] and suite.metric_names(RunSpec(suite="toy")) == ["length"]
    rows = [ScoreRow(case_id="c1", metric="length", family="size", value=3.0, scale="chars")]
    result = suite.aggregate(rows, cases, RunSpec(suite="toy"))
    summary = suite.load_summary(result.summary.model_dump(mode="json"))
    assert isinstance(summary, ToySummary) and summary.note == "1 rows"
    assert suite.charts(summary) == {"note": b"1 rows"}
    generations = suite.parse_generations([{"case_id": "c1", "answer": "abc"}])
    assert suite.report_sections(pd.DataFrame(), summary, cases, generations) == [
        ReportSection("Note", "1 rows; 1 cases, 1 generations")
    ]


def test_what_a_suite_leaves_out_has_the_old_defaults(tmp_path):
    suite = PlainSuite()
    data = suite.load_dataset(tmp_path)
    assert suite.validation_parameters(data) == {"min_cases": 1}
    assert suite.charts(EMPTY) == {}
    assert suite.metric_names(RunSpec(suite="plain")) is None


def test_the_id_defaults_read_the_cases_ids_and_a_case_that_is_no_pydantic_model_is_named(tmp_path):
    suite = PlainSuite()
    cases = [Case(id="c1", question="q?"), Case(id="c2", question="r?")]
    data = LoadedDataset(suite="plain", root=tmp_path, records=[], generations=[
        {"case_id": "c2", "answer": "b", "_line": 2}, {"case_id": "c9", "answer": "x", "_line": 3}])
    assert [suite.partition_group(c) for c in cases] == ["c1", "c2"]
    assert suite.recorded_generations(data, cases) == [{"case_id": "c2", "answer": "b"}]
    assert suite.case_view(cases[0], None).inputs[0].text == "q?"

    @dataclass
    class NotAModel:  # a case with an id, but no pydantic model
        id: str

    with pytest.raises(TypeError, match="a suite's case must be a pydantic model, not NotAModel"):
        suite.case_view(NotAModel("c1"), None)
    with pytest.raises(TypeError, match="a suite's case model must be a pydantic model, not NotAModel"):
        case_model_class(NotAModel)


def test_a_suite_that_neither_declares_nor_overrides_is_refused_when_made():
    class Forgetful(Suite[Case, Generation]):
        name = title = seed = description = "forgetful"
        dataset_functions = ToySuite.dataset_functions
        families = [FAMILY]

    with pytest.raises(TypeError, match="suite Forgetful declares no summary_functions; declare it or override aggregate, report_sections"):
        Forgetful()

    class HalfDone(Forgetful):
        def aggregate(self, rows, cases, spec):
            return aggregate(rows, cases, spec)

    with pytest.raises(TypeError, match="declares no summary_functions"):
        HalfDone()  # report_sections still has nothing to call

    class Overriding(HalfDone):
        def report_sections(self, scores, summary, cases, generations):
            return []

    assert Overriding().report_sections(pd.DataFrame(), EMPTY, [], {}) == []


# The suites whose metric_names returned their summary's METRICS before the kit did it for them.
FIXED_METRICS = {"agent", "clinical", "memory", "report"}


@pytest.mark.parametrize("name", ["agent", "answers", "clinical", "memory", "rag_qa", "report"])
def test_the_built_in_suites_declare_what_their_methods_did(name):
    import importlib

    suite = get_suite(name)
    dataset = importlib.import_module(f"assay.suites.{name}.dataset")
    summary = importlib.import_module(f"assay.suites.{name}.summary")
    metrics = importlib.import_module(f"assay.suites.{name}.metrics")
    assert suite.metric_families() == metrics.FAMILIES
    assert suite.summary_model.__module__ == summary.__name__ and suite.summary_model is not Summary
    assert suite.dataset_functions is not None and suite.dataset_functions.load.__module__ == dataset.__name__
    spec = RunSpec(suite=name, k=3)
    if name in FIXED_METRICS:
        assert suite.metric_names(spec) == list(summary.METRICS)
    elif name == "rag_qa":
        from assay.suites.kit.grounding import GROUNDING_METRICS

        assert suite.metric_names(spec) == [*metrics.retrieval_metric_names(3), *metrics.ANSWER_METRICS,
                                            *GROUNDING_METRICS]
    else:
        assert suite.metric_names(spec) is None  # answers names its metrics after the run
