"""The evaluation steps as plain functions over the artifact store.

Each step is ``step(store, suite, inputs)``, ``inputs`` its one frozen record
(``assay.step_inputs``; publish and compare take their pydantic ``PublishInputs`` and
``CompareInputs`` beside the spec or baseline). A step reads its inputs by content hash from
the store, writes what it produces to the store's shared pool and returns a typed
``StepOutput`` naming every artifact with its inputs, so the flow records lineage in one loop. Prefect tasks in ``tasks/`` wrap these one-to-one
(retries, caching, logging); the functions know nothing about Prefect and are tested directly.
"""

from __future__ import annotations

import io
import json
import tempfile
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from assay import artifacts as names
from assay.artifacts import (
    AggregateOutput,
    Artifact,
    CompareInputs,
    CompareOutput,
    FamilyOutput,
    FamilyResult,
    IngestOutput,
    JuryStats,
    PartitionInfo,
    PartitionOutput,
    PublishInputs,
    PublishOutput,
    ReplayOutput,
    ValidationOutput,
)
from assay.compare import RunFacts
from assay.failed_calls import tally as tally_failed_calls
from assay.lineage.snapshots import materialize
from assay.lineage.store import ArtifactStore
from assay.redact import redact_obj
from assay.rendering.case_view import CaseView
from assay.schemas import JsonObject, LoadedDataset, RowProblem, ScoreRow
from assay.spec import RunSpec
from assay.step_inputs import (
    AggregateInputs,
    FamilyInputs,
    FamilyPartitionInputs,
    IngestInputs,
    PartitionInputs,
    ReplayInputs,
    Scoring,
    ValidateInputs,
)
from assay.suites.kit import MetricContext, ProgressFn, ReplayContext, Suite
from assay.suites.kit.criteria import criteria_section, families_of, is_criterion_family, with_criteria
from assay.suites.kit.rows import ScoreRows
from assay.suites.kit.suite import DEFAULT_CONCURRENCY, CaseT, GenT, SummaryT
from assay.validation.containment import contained_copy, refused_paths

if TYPE_CHECKING:  # annotations only: a step imports the jury and pandas when it uses them
    import pandas as pd
    from pydantic import BaseModel

    from assay.judges.runner import JuryRun, JuryRunner


# -- ingest -------------------------------------------------------------------------------
def ingest(store: ArtifactStore, suite: Suite, inputs: IngestInputs) -> IngestOutput:
    """Snapshot every file of the dataset into the store; the snapshot hash keys all later steps.

    Symlinks and paths resolving outside the directory are refused (not read, not stored) and
    listed in the snapshot, so the validation gate fails naming them; ``allow_symlinks`` opts in.
    """
    root = Path(inputs.dataset_dir)
    refused = [] if inputs.allow_symlinks else refused_paths(root)
    with tempfile.TemporaryDirectory(prefix="assay-ingest-") as private:
        source = contained_copy(root, Path(private)) if refused else root
        data = suite.load_dataset(source)
        n_records, n_parse_problems, paths = len(data.records), len(data.parse_problems), sorted(data.files.items())
        del data  # the parsed records go before the files' bytes are read (both are large at 100,000 cases)
        files = {name: store.put(Path(path).read_bytes()) for name, path in paths}
    record: JsonObject = {"suite": suite.name, "files": files}
    if refused:  # only then, so snapshots of clean datasets keep their hashes
        record["refused"] = refused
    snapshot = store.put_json(record)
    file_artifacts = [
        Artifact(name=names.dataset_file(n), sha=sha, media_type=names.media_type_of(n)) for n, sha in files.items()
    ]
    snapshot_artifact = Artifact(
        name=names.DATASET_SNAPSHOT, sha=snapshot, inputs=[a.name for a in file_artifacts]
    )
    return IngestOutput(
        artifacts=[*file_artifacts, snapshot_artifact],
        snapshot=snapshot,
        files=files,
        n_records=n_records,
        n_parse_problems=n_parse_problems + len(refused),
    )


def load_snapshot(
    store: ArtifactStore, suite: Suite[CaseT, GenT, SummaryT], snapshot_sha: str, generations: bool = True
) -> LoadedDataset:
    """Load the dataset from its snapshot, rebuilt in the store and verified by hash on every read.

    Steps read the snapshot rather than the user's directory, so a step's result depends
    only on content it was given by hash. ``generations=False`` leaves the recorded generations
    file out (steps that read the replayed generations, or none, need only the cases; at 100,000
    cases that file is ~700 MB of JSON).
    """
    data = suite.load_dataset(materialize(store, snapshot_sha, frozenset() if generations else frozenset({"generations"})))
    for entry in store.get_json(snapshot_sha).get("refused", []):
        data.parse_problems.append(
            RowProblem(row=entry["path"], file=entry["path"], expectation="contained dataset file",
                       detail=f"{entry['why']}; not read (pass --allow-symlinks to follow links)")
        )
    return data


# -- validate -----------------------------------------------------------------------------
def validate(store: ArtifactStore, suite: Suite, inputs: ValidateInputs) -> ValidationOutput:
    """The GX gate over the snapshot. ``require_generations`` (a recorded replay): a dataset
    without its recorded generations file fails the gate, naming the file."""
    from assay.validation.gate import run_gate

    data = load_snapshot(store, suite, inputs.snapshot)
    if inputs.require_generations and data.generations_missing:
        name = data.generations_file or "generations.jsonl"
        data.parse_problems.append(RowProblem(
            row=name, file=name, expectation="recorded generations present",
            detail=f"--replay recorded scores the outputs stored in {name}, which the dataset lacks; "
                   "add it, or regenerate with --replay live",
        ))
    if not data.records and not data.parse_problems:  # nothing to evaluate: the gate says so, not "no case was scored"
        name = data.files["cases"].name if "cases" in data.files else "the cases file"
        data.parse_problems.append(RowProblem(row=name, file=name, expectation="at least one case",
                                              detail=f"{name} is empty: there is nothing to evaluate"))
    report = run_gate(suite, data)
    gx_results = getattr(report, "gx_results", [])
    payload = report.model_dump(mode="json", exclude={"gx_results"})
    sources = [names.DATASET_SNAPSHOT]
    return ValidationOutput(
        artifacts=[
            Artifact(name=names.VALIDATION_REPORT, sha=store.put_json(payload), inputs=sources),
            Artifact(name=names.GX_RESULTS, sha=store.put_json(gx_results), inputs=sources),
        ],
        success=bool(report.success),
        failed_ids=sorted(report.failed_row_ids),
        text=report.to_text(),
        n_problems=len(report.problems),
    )


def quarantine_record(store: ArtifactStore, validation: ValidationOutput) -> Artifact:
    """The rows set aside by ``--quarantine``: stored and listed, never silently dropped."""
    sha = store.put_json({"quarantined_ids": validation.failed_ids, "report": validation.text})
    return Artifact(name=names.QUARANTINE, sha=sha, inputs=[names.VALIDATION_REPORT])


# -- replay -------------------------------------------------------------------------------
def replay(store: ArtifactStore, suite: Suite, inputs: ReplayInputs) -> ReplayOutput:
    """Recorded: the dataset's generations. Live: regenerate with the suite's live system."""
    spec = inputs.spec
    data = load_snapshot(store, suite, inputs.snapshot)
    cases = suite.parse_cases(data, set(inputs.skip_ids))
    wanted = {c.id for c in cases}
    if spec.replay == "recorded":
        generations = suite.recorded_generations(data, cases)
    else:
        ctx = ReplayContext(
            spec=spec,
            concurrency=inputs.concurrency or DEFAULT_CONCURRENCY,
            # where answered target calls are kept, so a rerun re-sends only failures
            call_store=store.path(".assay", "target-calls") if store.is_local else None,
            progress=inputs.progress,
        )
        generations = suite.live_replay(cases, data, ctx)
    missing = sorted(wanted - {str(g.get("case_id")) for g in generations})
    # A live failure is worth another try on rerun (a recorded one is data): count them so the
    # flow does not reuse this step while any is left.
    failed = 0 if spec.replay == "recorded" else sum(1 for g in generations if _failed(g))
    sha = store.put_jsonl(generations)
    artifacts = [Artifact(name=names.GENERATIONS, sha=sha, inputs=[names.DATASET_SNAPSHOT], media_type=names.JSONL)]
    failed_calls = None
    if spec.replay == "live":  # a recorded error is data the dataset holds; a live one is a call that failed
        failed_calls = tally_failed_calls(generations, called_system(spec), suite.scores_failed_calls)
        artifacts.append(Artifact(name=names.FAILED_CALLS, sha=store.put_json(failed_calls.model_dump(mode="json")),
                                  inputs=[names.GENERATIONS]))
    return ReplayOutput(
        artifacts=artifacts,
        generations=sha,
        n=len(generations),
        missing=missing,
        failed=failed,
        failed_calls=failed_calls,
    )


def called_system(spec: RunSpec) -> str:
    """What a live replay calls, as the failed-calls banner names it."""
    if spec.target is not None:
        return spec.target.identity
    return f"{spec.generator.model}" + (f" at {spec.generator.api_base}" if spec.generator.api_base else "")


def _failed(generation: JsonObject) -> bool:
    calls = generation.get("calls")
    return bool(generation.get("error")) or (isinstance(calls, list) and any(c.get("error") for c in calls))


# -- partitions ---------------------------------------------------------------------------
def partition(store: ArtifactStore, suite: Suite, inputs: PartitionInputs) -> PartitionOutput:
    """Split the cases (with their generations) into partitions of about ``size`` cases.

    A partition holds whole groups (``Suite.partition_group``: a patient's turns, a session's
    queries), in dataset order, and is stored as one artifact of its typed cases and their
    generations; its hash keys its metric tasks, so editing one case recomputes one partition.
    """
    from assay.partitions import partition_cases

    size = inputs.size
    cases = load_cases(store, suite, inputs.snapshot, inputs.skip_ids)
    generations: dict[str, list[JsonObject]] = {}
    for generation in store.iter_jsonl(inputs.generations):
        generations.setdefault(str(generation.get("case_id")), []).append(generation)
    parts: list[PartitionInfo] = []
    artifacts: list[Artifact] = []
    sources = [names.DATASET_SNAPSHOT, names.GENERATIONS]
    for index, members in enumerate(partition_cases(cases, suite.partition_group, size)):
        record = {
            "cases": [case.model_dump(mode="json") for case in members],
            "generations": [g for case in members for g in generations.get(case.id, [])],
        }
        # Not put_json: its sorted keys would reorder the cases' own mappings (a patient's labs),
        # which prompts print in dataset order, so a partition's case must read back unchanged.
        sha = store.put(json.dumps(redact_obj(record), ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        parts.append(PartitionInfo(index=index, sha=sha, n_cases=len(members)))
        artifacts.append(Artifact(name=names.partition(index), sha=sha, inputs=sources))
    index_sha = store.put_json({"partition_size": size, "partitions": [p.model_dump() for p in parts]})
    artifacts.append(Artifact(name=names.PARTITION_INDEX, sha=index_sha, inputs=[a.name for a in artifacts]))
    return PartitionOutput(artifacts=artifacts, partitions=parts, index=index_sha)


def load_cases(
    store: ArtifactStore, suite: Suite[CaseT, GenT, SummaryT], snapshot_sha: str, skip_ids: Sequence[str] = ()
) -> list[CaseT]:
    """The typed cases that passed the gate (quarantined ones skipped), without the generations."""
    return suite.parse_cases(load_snapshot(store, suite, snapshot_sha, generations=False), set(skip_ids))


def load_partition(
    store: ArtifactStore, suite: Suite[CaseT, GenT, SummaryT], partition_sha: str
) -> tuple[list[CaseT], dict[str, GenT]]:
    """A partition's typed cases and generations (by case id), as the metric families take them."""
    record = store.get_json(partition_sha)
    cases = [suite.case_model.model_validate(case) for case in record["cases"]]
    return cases, suite.parse_generations(record["generations"])


# -- metrics ------------------------------------------------------------------------------
def compute_family(store: ArtifactStore, suite: Suite, inputs: FamilyInputs) -> FamilyOutput:
    """One metric family over every case; a jury family also adopts its judge calls as artifacts.

    ``scoring.send=False`` answers remote judges from the call store only (the deep audit's recompute).
    """
    key = (store.root, suite.name, inputs.snapshot, inputs.generations, tuple(sorted(inputs.skip_ids)))

    def parse() -> tuple[list[BaseModel], dict[str, BaseModel]]:
        return (load_cases(store, suite, inputs.snapshot, inputs.skip_ids),
                suite.parse_generations(store.get_jsonl(inputs.generations)))

    with PARSED_INPUTS.use(key, parse) as (cases, generations):
        return _score_family(store, suite, inputs.family, cases, generations, inputs.scoring, None,
                             [names.DATASET_SNAPSHOT, names.GENERATIONS])


Parsed = TypeVar("Parsed")


class SharedInputs:
    """Typed cases and generations parsed once for the metric families that run side by side
    (each its own task on a thread of one process, all reading the same two artifacts), held
    only while one of them uses them. Artifacts are content-addressed, so a key of shas names
    the same bytes; the families read these objects and never change them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[Hashable, _Shared] = {}

    @contextmanager
    def use(self, key: Hashable, parse: Callable[[], Parsed]) -> Iterator[Parsed]:
        with self._lock:
            entry = self._entries.setdefault(key, _Shared())
            entry.users += 1
        try:
            with entry.parsing:  # the first user parses; one that comes meanwhile waits for it
                if entry.value is None:
                    entry.value = parse()
            yield entry.value
        finally:
            with self._lock:
                entry.users -= 1
                if entry.users == 0 and self._entries.get(key) is entry:
                    del self._entries[key]


@dataclass
class _Shared:
    users: int = 0
    value: Any = None
    parsing: threading.Lock = field(default_factory=threading.Lock)


PARSED_INPUTS = SharedInputs()


def compute_family_partition(store: ArtifactStore, suite: Suite, inputs: FamilyPartitionInputs) -> FamilyOutput:
    """One metric family over one partition's cases (a partitioned run's metric task)."""
    cases, generations = load_partition(store, suite, inputs.partition)
    return _score_family(store, suite, inputs.family, cases, generations, inputs.scoring, inputs.index,
                         [names.partition(inputs.index)])


def _score_family(
    store: ArtifactStore,
    suite: Suite,
    family_name: str,
    cases: list[Any],
    generations: dict[str, Any],
    scoring: Scoring,
    partition: int | None,
    inputs: list[str],
) -> FamilyOutput:
    families = families_of(suite, scoring.spec)
    family = next(f for f in families if f.name == family_name)
    ctx = MetricContext(spec=scoring.spec, concurrency=scoring.concurrency or DEFAULT_CONCURRENCY, progress=scoring.progress)
    kept: KeptCalls | None = None
    if family.uses_jury:
        # A cost budget is one runner's; the run's judged families (the suite's jury and each
        # criterion) run side by side, so each gets an equal share and together they stay within it.
        share = sum(f.uses_jury for f in families)
        kept = KeptCalls(store) if partition is None else None
        ctx.jury = build_runner(scoring.spec, scoring.call_store_url, scoring.concurrency, scoring.progress, scoring.send,
                                budget_share=share, on_stored=kept)
    rows = family.compute(cases, generations, ctx)
    scores = store.put_jsonl(r.model_dump(mode="json") for r in rows)
    output = FamilyOutput(family=family_name, scores=scores, n_rows=len(rows), partition=partition)
    if ctx.jury_runs:
        keys = sorted({k for run in ctx.jury_runs for k in run.request_keys})
        records = _call_records(ctx.jury_runs, scoring.call_store_url, keys)
        if partition is None:
            calls = [Artifact(name=names.judge_call(key), sha=kept.sha(key, record) if kept else store.put_json(record))
                     for key, record in records]
            runs_name = names.jury_runs(family_name)
        else:
            bundle = names.partition_judge_calls(family_name, partition)
            calls = [Artifact(name=bundle, sha=store.put_jsonl(r for _, r in records), media_type=names.JSONL)] if records else []
            runs_name = names.partition_jury_runs(family_name, partition)
        runs_sha = store.put_json([run.model_dump(mode="json") for run in ctx.jury_runs])
        output.artifacts.extend(calls)
        output.artifacts.append(Artifact(name=runs_name, sha=runs_sha, inputs=inputs + [a.name for a in calls]))
        output.jury_runs = runs_sha
        output.jury_stats = _jury_stats(ctx.jury_runs)
        output.request_keys = keys
        output.prompts = {run.prompt_id: run.prompt_sha256 for run in ctx.jury_runs if run.prompt_sha256}
        inputs = inputs + [runs_name]
    scores_name = names.family_scores(family_name) if partition is None else names.partition_scores(family_name, partition)
    output.artifacts.append(Artifact(name=scores_name, sha=scores, inputs=inputs, media_type=names.JSONL))
    return output


class KeptCalls:
    """Each judge call's record put in the run's artifact store as soon as the call store holds
    it (on the writer's thread, while later calls are in flight), so the step does not write
    them all after the last reply. The bytes are the same either way: ``put_json`` of the
    record as the call store holds it; a record not kept during the run is put at the end."""

    def __init__(self, store: ArtifactStore) -> None:
        self.store = store
        self.records_and_shas: dict[str, tuple[JsonObject, str]] = {}  # key -> (record kept, its sha)

    def keep(self, key: str, record: JsonObject, encoded: bytes | None = None) -> str:
        """``encoded``: ``canonical_json(record)``, as the call store wrote it, if the caller has it."""
        sha = self.store.put_json(record, encoded)
        self.records_and_shas[key] = (record, sha)
        return sha

    __call__ = keep  # the jury runner's ``on_stored``

    def adopt(self, key: str, record: JsonObject, sha: str) -> None:
        """A record the judge step's second process kept in this store (``keep`` there, which
        returned ``sha``): the same bytes, not encoded and hashed again here."""
        self.records_and_shas[key] = (record, sha)

    def sha(self, key: str, record: JsonObject) -> str:
        kept = self.records_and_shas.get(key)
        return kept[1] if kept is not None and kept[0] is record else self.store.put_json(record)


def _call_records(runs: list[JuryRun], call_store_url: str | None, keys: list[str]) -> list[tuple[str, JsonObject]]:
    """Each judge request + raw response this step used (key order): offline judges' from their
    runs, the rest from the call store. Failed calls have none; their raw text is kept in the
    jury runs instead."""
    held = {key: record for run in runs for key, record in run.call_records.items()}
    calls = None
    if call_store_url and len(held) < len(keys):
        from assay.judges.store import CallStore

        calls = CallStore(call_store_url)
    out = []
    for key in keys:
        record = held.get(key) or (calls.get(key) if calls is not None else None)
        if record is not None:
            out.append((key, record))
    return out


def build_runner(
    spec: RunSpec, call_store_url: str | None, concurrency: int | None, progress: ProgressFn, send: bool = True,
    budget_share: int = 1, on_stored: Callable[[str, JsonObject, bytes], object] | None = None,
) -> JuryRunner:
    from assay.judges.config import build_judges
    from assay.judges.runner import JuryRunner
    from assay.judges.store import CallStore

    config = spec.jury.config(concurrency or 8)
    return JuryRunner(
        build_judges(config, timeout_s=config.timeout_s),
        CallStore(call_store_url) if call_store_url else None,
        concurrency_per_provider=config.concurrency_per_provider,
        max_retries=config.max_retries,
        max_cost_usd=None if config.max_cost_usd is None else config.max_cost_usd / max(1, budget_share),
        lang=config.lang,
        progress=progress,
        send=send,
        on_stored=on_stored,
    )


def _jury_stats(runs: list[JuryRun]) -> JuryStats:
    stats = JuryStats()
    for run in runs:
        for judge in run.judge_stats.values():
            stats.sent += judge.sent
            stats.reused += judge.reused
            stats.failed += judge.failed
            stats.cost_usd += judge.cost_usd
        stats.untrusted += len(run.untrusted_records)
        stats.dropped.update(run.dropped_judges)
        stats.budget_exhausted = stats.budget_exhausted or run.budget_exhausted
    return stats


# -- aggregate ----------------------------------------------------------------------------
def aggregate(store: ArtifactStore, suite: Suite, inputs: AggregateInputs) -> AggregateOutput:
    """Per-judge rows → ensemble rows and totals, plus the suite's summary (``AggregateInputs``
    says which score files, in which order)."""
    spec, family_scores = inputs.spec, inputs.family_scores
    cases = load_cases(store, suite, inputs.snapshot, inputs.skip_ids)
    # The suite reads the score files part by part (ScoreRows) and returns its final rows as an
    # iterable, written here as they come: a 100,000-case run's ~1.7 million rows are never all
    # held at once, neither as typed rows nor as the scores file's text.
    shas = [sha for name in sorted(family_scores) if not is_criterion_family(name) for sha in family_scores[name]]
    result = suite.aggregate(ScoreRows.stored(store, shas), cases, spec)
    if spec.criteria:  # your criteria: the kit adds them, whatever the suite
        ours = [sha for name in sorted(family_scores) if is_criterion_family(name) for sha in family_scores[name]]
        result = with_criteria(result, ScoreRows.stored(store, ours), cases, spec)
    n_rows = 0

    def dumped() -> Iterator[JsonObject]:
        nonlocal n_rows
        for row in result.rows:
            n_rows += 1
            yield row.model_dump(mode="json")

    scores = store.put_jsonl(dumped())
    summary = store.put_json(result.summary.model_dump(mode="json"))
    named = inputs.score_names or {n: [names.family_scores(n)] for n in family_scores}
    sources = [name for n in sorted(named) for name in named[n]]
    return AggregateOutput(
        artifacts=[
            Artifact(name=names.SCORES, sha=scores, inputs=sources, media_type=names.JSONL),
            Artifact(name=names.SUMMARY, sha=summary, inputs=sources),
        ],
        scores=scores,
        summary=summary,
        n_rows=n_rows,
    )


MAX_REASONS = 3  # unscored metrics named one by one; the rest are counted


@dataclass(frozen=True)
class ScoreGaps:
    """What a finished run did not measure. ``incomplete``: why it did not measure what it set
    out to (a metric no case got a score for, a dropped jury, a spent budget), empty when it is
    complete. ``not_applicable``: one line per reason, naming the metrics no case could have a
    score for (no LLM judge offline, no reference in the table): not a failure, but said at the
    top of the report so a reader never takes a missing metric for a measured one."""

    incomplete: list[str]
    not_applicable: list[str]


def incomplete_reasons(store: ArtifactStore, spec: RunSpec, families: list[FamilyResult], scores_sha: str) -> list[str]:
    """``score_gaps(...).incomplete``."""
    return score_gaps(store, spec, families, scores_sha).incomplete


def score_gaps(store: ArtifactStore, spec: RunSpec, families: list[FamilyResult], scores_sha: str) -> ScoreGaps:
    """The run's gaps (``ScoreGaps``), from one pass over its final score rows."""
    reasons = []
    panel = len(spec.jury.panel) if spec.jury else 0
    silent: set[str] = set()  # families whose unscored metrics are explained by their jury
    for family in families:
        stats = family.jury_stats
        if stats is None:
            continue
        if panel and len(stats.dropped) >= panel:
            silent.add(family.family)
            why = "; ".join(f"{judge}: {reason}" for judge, reason in sorted(stats.dropped.items()))
            reasons.append(f"metric family {family.family}: every judge was dropped ({why})")
        if stats.budget_exhausted:
            reasons.append(f"metric family {family.family}: the cost budget stopped the jury before it finished")
    metrics: dict[str, _MetricTally] = {}
    any_row = False
    # One row at a time (a large run has millions), each parsed straight into a ScoreRow.
    for row in store.iter_jsonl(scores_sha, parse=ScoreRow.model_validate_json):
        any_row = True
        if row.judge is None:
            metrics.setdefault(row.metric, _MetricTally(row)).add(row)
    unscored = [
        (metric, tally) for metric, tally in sorted(metrics.items())
        if tally.all_unscored and tally.family not in silent
        and not tally.all_not_applicable  # the dataset has no labels for it: not a failure
    ]
    for metric, tally in unscored[:MAX_REASONS]:
        why = tally.first_reason or "no reason recorded"
        reasons.append(f"{metric} is unscored for all {tally.n} cases (e.g. {why})"[:300])
    if len(unscored) > MAX_REASONS:
        reasons.append(f"and {len(unscored) - MAX_REASONS} more metrics unscored for every case")
    if not any_row:
        reasons.append("no case was scored")
    return ScoreGaps(reasons, not_applicable_lines(metrics))


def not_applicable_lines(metrics: dict[str, _MetricTally]) -> list[str]:
    """``faithfulness, answer_relevancy — needs an LLM judge (…)``: the metrics not applicable
    to any case, in the run's order, grouped by their reason (``e.g.`` when cases differ)."""
    by_reason: dict[str, list[str]] = {}
    for metric, tally in metrics.items():
        if tally.all_not_applicable:
            reason = tally.first_reason or "no reason recorded"
            by_reason.setdefault(reason if tally.one_reason else f"e.g. {reason}", []).append(metric)
    return [f"{', '.join(names_)} — {reason}"[:400] for reason, names_ in by_reason.items()]


class _MetricTally:
    """What ``score_gaps`` needs of one metric's final rows, kept instead of the rows."""

    def __init__(self, first: ScoreRow) -> None:
        self.family = first.family
        self.first_reason = first.unscored_reason
        self.n = 0
        self.all_unscored = True
        self.all_not_applicable = True
        self.one_reason = True

    def add(self, row: ScoreRow) -> None:
        self.n += 1
        self.all_unscored = self.all_unscored and row.value is None
        self.all_not_applicable = self.all_not_applicable and row.is_not_applicable
        self.one_reason = self.one_reason and row.unscored_reason == self.first_reason


# -- publish ------------------------------------------------------------------------------
def publish(store: ArtifactStore, suite: Suite, spec: RunSpec, inputs: PublishInputs) -> PublishOutput:
    """report.md, report.html, scores.parquet and charts, each with the artifacts it was made from."""
    from assay.rendering.beside import drawn_beside

    summary = suite.load_summary(store.get_json(inputs.summary))
    # The charts need only the summary: drawn in a child while this process does the rest.
    with drawn_beside(lambda: suite.charts(summary)) as charts:
        return _published(store, suite, spec, inputs, summary, charts.result)


def _published(store: ArtifactStore, suite: Suite, spec: RunSpec, inputs: PublishInputs, summary: Any,
               charts: Callable[[], dict[str, bytes]]) -> PublishOutput:
    from assay.rendering.publish import judges_line, render_report
    from assay.rendering.render import ReportHeader

    skip = set(inputs.skip_ids)
    cases = load_cases(store, suite, inputs.snapshot, inputs.skip_ids)
    validation = store.get_json(inputs.validation_report)
    jury = spec.jury.model_dump(mode="json") if spec.jury else None
    header = ReportHeader(
        suite=suite.name,
        suite_title=suite.title,
        snapshot=inputs.snapshot,
        n_cases=len(cases),
        quarantined=sorted(skip),
        replay=spec.replay,
        generations=inputs.generations,
        validation="passed" if validation.get("success") else f"{len(validation.get('problems', []))} problems, rows quarantined",
        config_hash=inputs.config_hash,
        judges=judges_line(jury),
        offline_jury=bool((jury or {}).get("offline")),
        incomplete=inputs.incomplete,
        not_measured=inputs.not_measured,
        not_applicable=inputs.not_applicable,
    )
    # A large run's report lists its first REPORT_CASES cases case by case (tables, explorer);
    # the summary, charts and scores.parquet cover every case.
    shown = cases[:REPORT_CASES]
    shown_ids = {c.id for c in shown}
    parquet, listed = scores_parquet(store, inputs.scores, None if len(shown) == len(cases) else shown_ids)
    header = header.model_copy(update={"cases_shown": len(shown)})
    comparison = None
    if inputs.comparison:
        from assay.compare import Comparison, comparison_markdown
        from assay.rendering.sections import ReportSection

        stored = Comparison.model_validate(store.get_json(inputs.comparison))
        comparison = ReportSection("Comparison with the baseline", comparison_markdown(stored))
    # Only the listed cases' generations are parsed (a large run's file holds 100,000).
    generations = suite.parse_generations(
        [g for g in store.iter_jsonl(inputs.generations) if str(g.get("case_id")) in shown_ids]
    )
    report = render_report(
        suite,
        header,
        listed,
        summary,
        shown,
        generations,
        _jury_runs_for_report(store, inputs.jury_runs, shown_ids),
        comparison,
        criteria_section(listed, summary, spec),
        charts,
    )
    sources = [names.SCORES, names.SUMMARY, names.GENERATIONS, names.VALIDATION_REPORT]
    sources += sorted(inputs.jury_runs)
    sources += [names.COMPARISON] if inputs.comparison else []

    def page(name: str, text: str, media_type: str) -> Artifact:
        return Artifact(name=name, sha=store.put(text.encode("utf-8")), inputs=sources, media_type=media_type, path=name)

    files = [
        page(names.REPORT_MD, report.markdown, "text/markdown"),
        page(names.REPORT_HTML, report.html, "text/html"),
        Artifact(name=names.SCORES_PARQUET, sha=store.put(parquet), inputs=[names.SCORES],
                 media_type="application/vnd.apache.parquet", path=names.SCORES_PARQUET),
    ]
    files += [
        Artifact(name=names.chart(c), sha=store.put(png), inputs=[names.SUMMARY], media_type="image/png", path=names.chart(c))
        for c, png in sorted(report.charts.items())
    ]
    return PublishOutput(artifacts=files)


REPORT_CASES = 200  # cases a report lists one by one (~13 KB each in the HTML); the rest: scores.parquet


def _jury_runs_for_report(store: ArtifactStore, jury_runs: dict[str, str], shown: set[str]) -> list[JsonObject]:
    """Every jury run, in full where it judged a listed case; elsewhere only each result's judge
    and usage (what the cost account adds up), so a large run's raw replies stay on disk."""
    out = []
    for name in sorted(jury_runs):
        for run in store.get_json(jury_runs[name]):
            results = run.get("results", {})
            if not any(case_id.partition("#")[0] in shown for case_id in results):
                run["results"] = {
                    case_id: [{"judge": r.get("judge"), "usage": r.get("usage")} for r in rs]
                    for case_id, rs in results.items()
                }
            out.append(run)
    return out


def compare(
    store: ArtifactStore, suite: Suite, baseline_run: str, facts: RunFacts, inputs: CompareInputs
) -> CompareOutput:
    """Per-metric deltas and per-case changes against a baseline run (``assay compare`` as a step)."""
    from assay.compare import compare_to_baseline

    sha, comparison = compare_to_baseline(
        store, baseline_run, facts, suite.recorded_outputs, inputs.scores, inputs.summary,
        case_inputs(store, suite, inputs.snapshot, inputs.skip_ids),
    )
    return CompareOutput(
        artifacts=[Artifact(name=names.COMPARISON, sha=sha, inputs=[names.SCORES, names.SUMMARY])],
        text=comparison.text(),
        regressions=list(comparison.regressions),
        baseline=baseline_run,
        comparison=sha,
    )


def case_views(store: ArtifactStore, suite: Suite, snapshot_sha: str, skip_ids: Sequence[str] = ()) -> dict[str, CaseView]:
    """case id -> the suite's view of its input (no generation), in dataset order."""
    cases = load_cases(store, suite, snapshot_sha, skip_ids)
    return {case.id: suite.case_view(case, None) for case in cases}


def case_inputs(store: ArtifactStore, suite: Suite, snapshot_sha: str, skip_ids: list[str]) -> dict[str, str]:
    """case id -> its first input on one line (a question, a query), through the suite's case view."""
    return {case_id: view.headline() for case_id, view in case_views(store, suite, snapshot_sha, skip_ids).items()}


# -- shared readers -----------------------------------------------------------------------
SCORE_COLUMNS = ["case_id", "metric", "family", "judge", "value", "scale", "unscored_reason"]


def scores_frame_from(store: ArtifactStore, scores_sha: str) -> pd.DataFrame:
    """scores.parquet's table: one row per case × metric (× judge for per-judge rows)."""
    return scores_frame(store.get_jsonl(scores_sha))


def scores_frame(rows: list[JsonObject]) -> pd.DataFrame:
    import pandas as pd

    # No rows still gives the table its columns, so an empty run publishes instead of crashing.
    frame = pd.DataFrame(rows) if rows else pd.DataFrame(columns=SCORE_COLUMNS)
    if "details" in frame:
        frame["details"] = frame["details"].map(lambda d: json.dumps(d, ensure_ascii=False, sort_keys=True))
    return frame


PARQUET_CHUNK = 20_000  # score rows per row group of scores.parquet: a bounded table at a time


def scores_parquet(store: ArtifactStore, scores_sha: str, listed: set[str] | None) -> tuple[bytes, pd.DataFrame]:
    """scores.parquet's bytes, written chunk by chunk from the scores file, and the table of the
    cases the report lists (``listed``: their ids; None: every case). A 100,000-case run's table
    (~1.7 million rows) is never one DataFrame."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    writer = None
    kept: list[JsonObject] = []
    chunk: list[JsonObject] = []

    def flush() -> None:
        nonlocal writer
        frame = scores_frame(chunk)
        # Fixed column types: a chunk whose judge (or reason) column is all empty must not be
        # typed null while another chunk's is text.
        schema = pa.schema([(c, pa.float64() if c == "value" else pa.string()) for c in frame.columns])
        table = pa.Table.from_pandas(frame, schema=schema if writer is None else writer.schema, preserve_index=False)
        writer = writer or pq.ParquetWriter(buffer, table.schema)
        writer.write_table(table)
        chunk.clear()

    for record in store.iter_jsonl(scores_sha):
        chunk.append(record)
        if listed is None or record.get("case_id") in listed:
            kept.append(record)
        if len(chunk) >= PARQUET_CHUNK:
            flush()
    if chunk:
        flush()
    if writer is None:  # no rows: the empty table with its columns
        scores_frame([]).to_parquet(buffer, index=False)
    else:
        writer.close()
    return buffer.getvalue(), scores_frame(kept)
