"""What a suite is: typed records, a dataset reader, rules, metric families and a summary.

The flow only talks to this interface, so adding a suite never touches the flow. A suite is
generic over its case, generation and summary records (``Suite[RagCase, RagGeneration,
RagSummary]``), which become its ``case_model``, ``generation_model`` and ``summary_model``; its
metric families are declared with ``AutomaticFamily`` and ``JuryFamily`` (``families.py``);
its summary is a typed model built with the summary kit (``summary.py``). Rules (Great
Expectations suites, schema files) live beside the suite's code in ``rules/``, as package
data, so a wheel carries them.

What most suites do the same way is a default here, driven by what the suite declares: its
``DatasetFunctions`` (read, tables for the gate, rule parameters), its ``families`` and its
``SummaryFunctions`` (aggregate, report sections, charts, reported metrics). A suite overrides a
method only where it does something of its own.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, Self, get_args, get_origin

from pydantic import BaseModel
from typing_extensions import TypeVar  # a TypeVar with a default: Suite[Case, Generation] still reads

from assay.rendering.case_view import CaseView, default_case_view
from assay.rendering.sections import ReportSection
from assay.schemas import JsonObject, LoadedDataset, ScoreRow
from assay.spec import RunSpec
from assay.suites.kit.rows import ScoreRows
from assay.suites.kit.summary import Summary

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas (nor the judges' runner)
    import pandas as pd

    from assay.judges.prompts import Prompt
    from assay.judges.runner import JuryRun, JuryRunner

ProgressFn = Callable[[str], None]


class CaseWithId(Protocol):
    """What a metric family needs of a case: its id (every suite's case model has one)."""

    @property
    def id(self) -> str: ...


class CaseRecord(CaseWithId, Protocol):
    """What the kit needs of a suite's case: the id it groups, selects and stores cases by, and
    the pydantic model's validate and dump. A protocol, since a type cannot say "a BaseModel
    with an id"; where the kit needs the model itself it asks with the two functions below."""

    @classmethod
    def model_validate(cls, obj: object) -> Self: ...

    def model_dump(self, *, mode: str = "python") -> dict[str, object]: ...


def case_model_class(model: type[CaseRecord]) -> type[BaseModel]:
    """A suite's case model as the pydantic model it must be (``CaseRecord`` cannot say so)."""
    if not issubclass(model, BaseModel):
        raise TypeError(f"a suite's case model must be a pydantic model, not {model.__name__}")
    return model


def case_record(case: CaseRecord) -> BaseModel:
    """A case as the pydantic model it must be (``CaseRecord`` cannot say so)."""
    if not isinstance(case, BaseModel):
        raise TypeError(f"a suite's case must be a pydantic model, not {type(case).__name__}")
    return case


CaseT = TypeVar("CaseT", bound=CaseRecord)
GenT = TypeVar("GenT", bound=BaseModel)
SummaryT = TypeVar("SummaryT", bound=Summary, default=Summary)

# A family's case and generation types: any case with an id, any generation model.
FamilyCaseT = TypeVar("FamilyCaseT", bound=CaseWithId)
FamilyGenT = TypeVar("FamilyGenT", bound=BaseModel)


DEFAULT_CONCURRENCY = 8  # calls in flight when the run's options leave it open


@dataclass
class MetricContext:
    """What a metric family may use besides cases and generations: the run's typed spec (k,
    language, jury…), how many calls may be in flight, and the jury runner for judged families."""

    spec: RunSpec
    concurrency: int = DEFAULT_CONCURRENCY
    jury: JuryRunner | None = None  # set when the family needs judges
    progress: ProgressFn = lambda message: None
    dataset_root: Path | None = None
    jury_runs: list[JuryRun] = field(default_factory=list)  # stored for lineage

    def jury_runner(self) -> JuryRunner:
        """The run's jury, for a judged family (the metric step sets it for every ``uses_jury``)."""
        if self.jury is None:
            raise ValueError("a judged metric family ran without the run's jury")
        return self.jury


@dataclass(frozen=True)
class ReplayContext:
    """What a suite's live replay reads: the generator settings in the spec, how many calls may
    be in flight, and where answered calls are kept so a rerun re-sends only the failed ones."""

    spec: RunSpec
    concurrency: int = DEFAULT_CONCURRENCY
    call_store: str | None = None  # a local folder; None when the store is remote
    progress: ProgressFn = lambda message: None


@dataclass(frozen=True)
class MetricFamily(Generic[FamilyCaseT, FamilyGenT]):
    """A group of metrics computed together in one task (e.g. all retrieval metrics).

    Usually built with ``AutomaticFamily`` or ``JuryFamily``; a family with unusual needs can
    pass any ``compute(cases, generations, ctx) -> rows``.
    """

    name: str
    compute: Callable[[list[FamilyCaseT], Mapping[str, FamilyGenT], MetricContext], list[ScoreRow]]
    uses_jury: bool = False
    description: str = ""
    # The metrics its rows name, for the run's spec, when known before scoring (the kit's
    # families declare them): a criterion may not take one of these names.
    metrics: Callable[[RunSpec], list[str]] | None = None


@dataclass
class AggregateResult:
    """The final rows (automatic, ensembles, totals, per judge) and the summary. ``rows`` may be
    a generator: the aggregate step writes them as they come, once."""

    rows: Iterable[ScoreRow]
    summary: Summary


def _no_parameters(data: LoadedDataset) -> JsonObject:
    return {}


@dataclass(frozen=True)
class DatasetFunctions:
    """How a suite reads a dataset, declared once (``Suite.dataset_functions``): read a dataset
    directory without raising on bad rows, shape it into the tables the gate checks, and give
    the values of the rules' ``{"$PARAMETER": name}`` placeholders."""

    load: Callable[[Path], LoadedDataset]
    validation_frames: Callable[[LoadedDataset], dict[str, pd.DataFrame]]
    validation_parameters: Callable[[LoadedDataset], JsonObject] = _no_parameters


@dataclass(frozen=True)
class SummaryFunctions(Generic[CaseT, GenT, SummaryT]):
    """How a suite reduces its scores and writes its report, declared once
    (``Suite.summary_functions``): usually its summary module's functions."""

    aggregate: Callable[[ScoreRows, list[CaseT], RunSpec], AggregateResult]
    report_sections: Callable[[pd.DataFrame, SummaryT, list[CaseT], dict[str, GenT]], list[ReportSection]]
    charts: Callable[[SummaryT], dict[str, bytes]] | None = None  # None: the report has no charts
    metrics: Sequence[str] | None = None  # every metric the summary can report, when fixed


# What Suite[Case, Generation, Summary] names, by position: the attribute each one sets.
_MODEL_ATTRIBUTES = ("case_model", "generation_model", "summary_model")


class Suite(Generic[CaseT, GenT, SummaryT]):
    name: ClassVar[str]
    title: ClassVar[str]
    seed: ClassVar[str]
    description: ClassVar[str]
    # Set from the class's Suite[...] parameters unless the class sets them itself.
    case_model: type[CaseT]
    generation_model: type[GenT]
    summary_model: type[SummaryT]
    # The defaults of load_dataset, validation_frames, validation_parameters, metric_families,
    # metric_names, aggregate, charts and report_sections read these; a suite that overrides
    # those methods need not declare them.
    dataset_functions: ClassVar[DatasetFunctions | None] = None
    families: ClassVar[Sequence[MetricFamily] | None] = None
    # The judge prompts that are only this suite's (its folder's ``prompts.py``); the prompt
    # registry finds them by id through the suite registry. Shared prompts live in assay.judges.prompts.
    prompts: ClassVar[Sequence[Prompt]] = ()
    summary_functions: SummaryFunctions[CaseT, GenT, SummaryT] | None = None
    group_label: ClassVar[str] = "group"  # what CaseView.group names: category, team, scenario
    # Dataset files holding the recorded outputs of the system under test: left out of the
    # dataset fingerprint that decides which runs compare like for like.
    recorded_outputs: ClassVar[tuple[str, ...]] = ("generations",)
    # `assay import SUITE FILE`: an object with ``fields`` (ImportField) and
    # ``records(rows, mapping, file) -> ({file name: records}, problems)``; None: no importer.
    importer: ClassVar[Any] = None
    # Fields a criterion may read (``--criteria``) besides the case's and generation's own:
    # name -> value of (case, generation), e.g. rag_qa's ``contexts`` (the retrieved texts).
    derived_fields: ClassVar[Mapping[str, Callable[[Any, Any], Any]]] = {}
    # A suite whose seed scores a failed call of the system under test (the agent suite: a
    # timeout is a stability of 0) keeps those cases scored; the failed calls are still counted.
    scores_failed_calls: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for attribute, model in zip(_MODEL_ATTRIBUTES, _suite_parameters(cls), strict=False):
            model = getattr(model, "__default__", model)  # a parameter left open: its default, if any
            if isinstance(model, type) and attribute not in cls.__dict__:
                setattr(cls, attribute, model)

    def __init__(self) -> None:
        # A suite has each declaration or overrides every method that reads it: refused when
        # the suite is made, not at the first run step that needs it.
        for declaration, methods in _DECLARED_OR_OVERRIDDEN.items():
            if getattr(self, declaration) is None and not all(_overrides(type(self), m) for m in methods):
                raise TypeError(f"suite {type(self).__name__} declares no {declaration}; "
                                f"declare it or override {', '.join(methods)}")

    # -- where its data and rules live --------------------------------------------------
    @property
    def default_dataset(self) -> Path:
        """The bundled example dataset (``datasets/<name>`` in a checkout)."""
        from assay.paths import datasets_dir

        return datasets_dir() / self.name

    @property
    def rules_dir(self) -> Path:
        """``rules/`` beside the suite's module: package data, present in every install."""
        return Path(inspect.getfile(type(self))).resolve().parent / "rules"

    @property
    def expectations_dir(self) -> Path:
        return self.rules_dir / "expectations"

    # -- reading and validating a dataset -----------------------------------------------
    def load_dataset(self, root: Path) -> LoadedDataset:
        """Read a dataset directory without raising on bad rows (problems are collected)."""
        return _declared(self.dataset_functions, self, "dataset_functions").load(root)

    def validation_frames(self, data: LoadedDataset) -> dict[str, pd.DataFrame]:
        """Tables the GX suites run on, keyed by the expectation file stem (e.g. "cases")."""
        return _declared(self.dataset_functions, self, "dataset_functions").validation_frames(data)

    def validation_parameters(self, data: LoadedDataset) -> JsonObject:
        """Values for ``{"$PARAMETER": name}`` placeholders in the expectation files."""
        return self.dataset_functions.validation_parameters(data) if self.dataset_functions else {}

    def parse_cases(self, data: LoadedDataset, skip_ids: AbstractSet[str] = frozenset()) -> list[CaseT]:
        """Typed cases of the rows that passed the gate (quarantined ids are skipped).

        Rows without a usable id failed the gate and can only reach here when quarantined.
        """
        fields = set(case_model_class(self.case_model).model_fields)
        return [
            self.case_model.model_validate({k: v for k, v in record.items() if k in fields})
            for record in data.records
            if isinstance(record.get("id"), str) and record["id"] and record["id"] not in skip_ids
        ]

    def parse_generations(self, raw: list[JsonObject]) -> dict[str, GenT]:
        """Typed generations keyed by case id."""
        return {g["case_id"]: self.generation_model.model_validate(g) for g in raw}

    def partition_group(self, case: CaseT) -> str:
        """Cases that must be scored in the same partition share a group (default: each case
        its own); a suite whose metrics read several cases together names what joins them."""
        return case.id

    def recorded_generations(self, data: LoadedDataset, cases: list[CaseT]) -> list[JsonObject]:
        """The recorded outputs of the system under test, one per case: by default the rows of
        the dataset's generations file whose ``case_id`` is a case that passed the gate."""
        wanted = {c.id for c in cases}
        return [{k: v for k, v in g.items() if k != "_line"} for g in data.generations if str(g.get("case_id")) in wanted]

    def live_replay(self, cases: list[CaseT], data: LoadedDataset, ctx: ReplayContext) -> list[JsonObject]:
        """Regenerate outputs with a live system instead of reading recorded ones."""
        raise NotImplementedError(f"suite {self.name!r} has no live replay; use --replay recorded")

    # -- scoring --------------------------------------------------------------------------
    def metric_families(self) -> list[MetricFamily]:
        return list(_declared(self.families, self, "families"))

    def metric_names(self, spec: RunSpec) -> list[str] | None:
        """Every metric a run of this spec can report (what ``--assert`` may name, checked before
        the run); None when the suite does not say, and the names are checked after the run."""
        metrics = self.summary_functions.metrics if self.summary_functions else None
        return list(metrics) if metrics is not None else None

    def aggregate(self, rows: ScoreRows, cases: list[CaseT], spec: RunSpec) -> AggregateResult:
        """Reduce per-judge rows to ensemble rows, add totals, and summarise per group.

        ``rows`` reads the metric steps' score files each time it is iterated, part by part
        (``ScoreRows.parts``: a partition's file of one family, whose cases' rows are all in it);
        ``list(rows)`` holds every row, which is fine for thousands of cases, not for 100,000."""
        return _declared(self.summary_functions, self, "summary_functions").aggregate(rows, cases, spec)

    # -- the report -----------------------------------------------------------------------
    def load_summary(self, stored: JsonObject) -> SummaryT:
        """The typed summary of a stored ``summary.json``."""
        return self.summary_model.model_validate(stored)

    def charts(self, summary: SummaryT) -> dict[str, bytes]:
        """PNG charts for the report, by name (none unless the suite draws some)."""
        draw = self.summary_functions.charts if self.summary_functions else None
        return draw(summary) if draw is not None else {}

    def case_view(self, case: CaseT, generation: GenT | None) -> CaseView:
        """How one case reads in the report's explorer: input, output, contexts, group.

        The default lists the case record's fields as input and the generation's as output;
        suites override it to name their fields and show their contexts."""
        return default_case_view(case_record(case), generation)

    def report_sections(
        self, scores: pd.DataFrame, summary: SummaryT, cases: list[CaseT], generations: dict[str, GenT]
    ) -> list[ReportSection]:
        sections = _declared(self.summary_functions, self, "summary_functions").report_sections
        return sections(scores, summary, cases, generations)


# Some suite, whatever its records: what the registry gives.
AnySuite = Suite[Any, Any, Any]

# A declaration, and the methods whose defaults read it (a suite overriding them all needs none).
_DECLARED_OR_OVERRIDDEN = {
    "dataset_functions": ("load_dataset", "validation_frames"),
    "families": ("metric_families",),
    "summary_functions": ("aggregate", "report_sections"),
}

DeclaredT = TypeVar("DeclaredT")


def _declared(value: DeclaredT | None, suite: Suite[Any, Any, Any], declaration: str) -> DeclaredT:
    """The declaration a default reads (``Suite.__init__`` refused a suite without it)."""
    if value is None:
        raise TypeError(f"suite {type(suite).__name__} declares no {declaration}")
    return value


def _overrides(cls: type, method: str) -> bool:
    return getattr(cls, method) is not getattr(Suite, method)


def _suite_parameters(cls: type) -> tuple[Any, ...]:
    """What the class's own ``Suite[...]`` base names (its type parameters, for a bare ``Suite``)."""
    for base in cls.__dict__.get("__orig_bases__", cls.__bases__):
        if base is Suite:
            return (CaseT, GenT, SummaryT)
        if get_origin(base) is Suite:
            return get_args(base)
    return ()
