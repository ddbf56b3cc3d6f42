"""What steps produce: ``Artifact`` records, typed ``StepOutput``s, and every artifact's name.

A step writes its content to the store's shared pool and returns a ``StepOutput`` naming each
artifact (name, sha256, the artifacts it was made from, media type, and a fixed path for
published files). The flow adopts them into the run's lineage in one loop, so no step's
bookkeeping is written by hand and no module repeats an artifact name as a string literal:
``trace``, ``compare``, ``audit`` and the CLI all use the names below.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from assay.failed_calls import FailedCalls
from assay.schemas import JsonObject

# -- artifact names --------------------------------------------------------------------------
DATASET_SNAPSHOT = "dataset/snapshot.json"
VALIDATION_REPORT = "validation/report.json"
GX_RESULTS = "validation/gx_results.json"
QUARANTINE = "validation/quarantine.json"
GENERATIONS = "generations/generations.jsonl"
FAILED_CALLS = "generations/failed_calls.json"  # a live replay's calls that failed (assay.failed_calls)
SCORES = "scores/all.jsonl"
SUMMARY = "summary.json"
REPORT_MD = "report.md"
REPORT_HTML = "report.html"
SCORES_PARQUET = "scores.parquet"
COMPARISON = "comparison.json"
CALIBRATION = "calibration.json"


def dataset_file(logical_name: str) -> str:
    """A dataset file by its logical name ("cases", "generations", "kb/<path>")."""
    return f"dataset/{logical_name}"


def family_scores(family: str) -> str:
    """Per-case (and per-judge) score rows of one metric family."""
    return f"scores/{family}.jsonl"


def jury_runs(family: str) -> str:
    """The jury runs (per-judge results, stats, prompt hashes) of one metric family."""
    return f"judges/{family}/jury_runs.json"


# -- a partitioned run (more cases than one partition holds) ---------------------------------
PARTITION_INDEX = "partitions/index.json"


def partition(index: int) -> str:
    """One partition's input: its typed cases and their generations (its hash keys its tasks)."""
    return f"partitions/part-{index:04d}.json"


def partition_label(index: int) -> str:
    """How a partition's step is named (``metrics:answers:p0003``)."""
    return f"p{index:04d}"


def partition_scores(family: str, index: int) -> str:
    return f"scores/{family}/part-{index:04d}.jsonl"


def partition_jury_runs(family: str, index: int) -> str:
    return f"judges/{family}/jury_runs-part-{index:04d}.json"


def partition_judge_calls(family: str, index: int) -> str:
    """Every judge request + raw response one partition's family used, one record a line
    (a partitioned run lists one file per partition, not one artifact per call)."""
    return f"judges/{family}/calls-part-{index:04d}.jsonl"


def is_judge_calls_bundle(name: str) -> bool:
    return name.startswith("judges/") and "/calls-part-" in name and name.endswith(".jsonl")


JUDGE_CALLS_DIR = "judge_calls/"


def judge_call(request_key: str) -> str:
    """One judge request and its raw response, as reused from or written to the call store."""
    return f"{JUDGE_CALLS_DIR}{request_key}.json"


def chart(name: str) -> str:
    return f"charts/{name}.png"


JSON = "application/json"
JSONL = "application/jsonl"


def media_type_of(name: str) -> str:
    """Media type from a file name's ending (dataset files keep their own kind)."""
    for ending, kind in ((".md", "text/markdown"), (".jsonl", JSONL), (".json", JSON), (".html", "text/html"),
                         (".png", "image/png"), (".parquet", "application/vnd.apache.parquet")):
        if name.endswith(ending):
            return kind
    return JSONL if "/" not in name.removeprefix("dataset/") else "text/plain"


# -- records ---------------------------------------------------------------------------------
class Artifact(BaseModel):
    """One produced artifact. ``path`` is set for published files (report.md …); everything else
    is stored content-addressed under ``objects/``."""

    model_config = ConfigDict(frozen=True)

    name: str
    sha: str = Field(pattern=r"^[0-9a-f]{64}$")
    inputs: list[str] = Field(default_factory=list)
    media_type: str = JSON
    path: str | None = None


class StepOutput(BaseModel):
    """What every step returns: its artifacts plus step-specific facts (subclasses)."""

    artifacts: list[Artifact] = Field(default_factory=list)

    def sha(self, name: str) -> str:
        """The hash of the artifact called ``name`` (KeyError naming what exists otherwise)."""
        for artifact in self.artifacts:
            if artifact.name == name:
                return artifact.sha
        raise KeyError(f"no artifact {name!r} in step output; has {[a.name for a in self.artifacts]}")


class IngestOutput(StepOutput):
    snapshot: str
    files: dict[str, str] = Field(description="logical file name -> sha256")
    n_records: int
    n_parse_problems: int


class ValidationOutput(StepOutput):
    success: bool
    failed_ids: list[str]
    text: str
    n_problems: int


class ReplayOutput(StepOutput):
    generations: str
    n: int
    missing: list[str]
    failed: int = Field(default=0, description="live generations (or agent calls) that failed; a rerun retries them")
    failed_calls: FailedCalls | None = Field(default=None, description="a live replay's failed calls (None: recorded)")


class JuryStats(BaseModel):
    sent: int = 0
    reused: int = 0
    failed: int = 0
    untrusted: int = Field(default=0, description="stored calls that failed their hash check and were re-sent")
    cost_usd: float = 0.0
    dropped: dict[str, str] = Field(default_factory=dict, description="judge -> why it was dropped")
    budget_exhausted: bool = False

    @classmethod
    def combined(cls, parts: list[JuryStats]) -> JuryStats:
        """Several partitions' counts as one: a judge is dropped only if every partition dropped it."""
        dropped = dict(parts[0].dropped)
        for part in parts[1:]:
            dropped = {judge: why for judge, why in dropped.items() if judge in part.dropped}
        return cls(
            sent=sum(p.sent for p in parts), reused=sum(p.reused for p in parts), failed=sum(p.failed for p in parts),
            untrusted=sum(p.untrusted for p in parts), cost_usd=sum(p.cost_usd for p in parts), dropped=dropped,
            budget_exhausted=any(p.budget_exhausted for p in parts),
        )

    def describe(self, panel: int = 0) -> str:
        """One line for the step table. ``panel``: the jury's size; when every judge was dropped
        the run ends incomplete with their reasons, so the line names them without repeating why."""
        parts = [f"judge calls sent {self.sent}, reused {self.reused}, failed {self.failed}"]
        if self.untrusted:
            parts.append(f"{self.untrusted} stored calls failed their hash or key check and were re-sent")
        if self.dropped and panel and len(self.dropped) >= panel:
            parts.append(f"every judge dropped ({', '.join(self.dropped)}): why, in the run's verdict")
        elif self.dropped:
            parts.append("dropped: " + ", ".join(f"{j} ({why})" for j, why in self.dropped.items()))
        if self.budget_exhausted:
            parts.append("budget exhausted")
        return "; ".join(parts)


class FamilyOutput(StepOutput):
    family: str
    scores: str
    n_rows: int
    jury_runs: str | None = None
    jury_stats: JuryStats | None = None
    request_keys: list[str] = Field(default_factory=list, description="call-store keys this step used")
    prompts: dict[str, str] = Field(default_factory=dict, description="prompt id -> sha256")
    partition: int | None = Field(default=None, description="the partition scored; None: every case")


class FamilyResult(BaseModel):
    """A metric family's outcome over the whole run: its one step, or all its partition steps."""

    family: str
    jury_stats: JuryStats | None = None
    jury_runs: dict[str, str] = Field(default_factory=dict, description="jury runs artifact name -> sha")

    @classmethod
    def of(cls, outputs: list[FamilyOutput]) -> FamilyResult:
        """Partition outputs (or one whole-run output) of one family, summed."""
        stats = [o.jury_stats for o in outputs if o.jury_stats is not None]
        return cls(
            family=outputs[0].family,
            jury_stats=JuryStats.combined(stats) if stats else None,
            jury_runs={a.name: a.sha for o in outputs for a in o.artifacts if o.jury_runs and a.sha == o.jury_runs},
        )


class PartitionInfo(BaseModel):
    """One partition of a partitioned run: its artifact and how many cases it holds."""

    index: int
    sha: str
    n_cases: int


class PartitionOutput(StepOutput):
    """The run's cases split into partitions (groups a case depends on kept together)."""

    partitions: list[PartitionInfo]
    index: str = Field(description="sha of partitions/index.json")


class AggregateOutput(StepOutput):
    scores: str
    summary: str
    n_rows: int


class PublishInputs(BaseModel):
    """Content hashes the publish step renders from (hashes only, so its cache key is content)."""

    snapshot: str
    validation_report: str
    generations: str
    scores: str
    summary: str
    jury_runs: dict[str, str] = Field(
        default_factory=dict, description="jury runs artifact name -> sha (a family's, or one per partition)"
    )
    skip_ids: list[str] = Field(default_factory=list)
    config_hash: str
    incomplete: list[str] = Field(default_factory=list, description="why the run is incomplete (shown first)")
    not_measured: str | None = Field(default=None, description="the failed-calls banner (assay.failed_calls), shown first")
    not_applicable: list[str] = Field(
        default_factory=list, description="metrics no case could have a score for, with why (pipeline.ScoreGaps)"
    )
    comparison: str | None = Field(default=None, description="comparison.json sha, when compared with a baseline")


class PublishOutput(StepOutput):
    pass


class CompareInputs(BaseModel):
    """Content hashes the compare step reads besides the baseline run."""

    snapshot: str
    scores: str
    summary: str
    skip_ids: list[str] = Field(default_factory=list)


class CompareOutput(StepOutput):
    text: str
    regressions: list[str]
    baseline: str
    comparison: str = Field(default="", description="comparison.json sha")


def dump(output: StepOutput) -> JsonObject:
    """The JSON form a Prefect task returns (plain data: nothing that names a class to import)."""
    return output.model_dump(mode="json")
