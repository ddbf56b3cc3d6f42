"""OpenLineage RunEvents for an assay run, built with the official client's models.

One flow-level job run per assay run (namespace ``assay``, job ``<suite>``, run id = the Prefect
flow-run id) and, under it, one job run per step (job ``<suite>.<step>``) whose ``parent`` facet
points at the flow-level run. A step's inputs and outputs are datasets named by their location
in the artifact store (namespace ``file`` and the absolute path for a local store, ``s3://bucket``
and the key for S3 …), with a ``schema`` facet for tables (cases, generations, scores) and an
``assay_artifact`` facet carrying the artifact's name, sha256 and, once the run has finished, the
manifest's root hash. Custom facets are described by ``openlineage_facets.json`` next to this file.

Everything here reads the manifest and the run's files; nothing sends (``openlineage_emit``).
Imported only when OpenLineage is configured or asked for: it loads the ``openlineage`` client.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import attr
from openlineage.client.constants import __version__ as CLIENT_VERSION
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import (
    DatasetFacet,
    JobFacet,
    RunFacet,
    error_message_run,
    job_type_job,
    parent_run,
    processing_engine_run,
    schema_dataset,
    source_code_location_job,
)
from openlineage.client.uuid import generate_static_uuid

from assay.lineage.manifest import MANIFEST, ArtifactEntry, Manifest, StepRecord
from assay.lineage.store import ArtifactStore
from assay.paths import project_root
from assay.redact import public_url, redact

NAMESPACE = "assay"
FACETS_SCHEMA = "urn:assay:openlineage-facets:1"
FACETS_SCHEMA_FILE = Path(__file__).with_name("openlineage_facets.json")
SCHEMA_SAMPLE_ROWS = 50  # a table's columns are read from its first rows, not the whole file
TABLE_TYPES = ("application/jsonl", "application/vnd.apache.parquet")

# How a step or a run ended, as OpenLineage says it.
STEP_STATES = {"ran": RunState.COMPLETE, "reused": RunState.COMPLETE, "failed": RunState.FAIL}
RUN_STATES = {"completed": RunState.COMPLETE, "stopped": RunState.ABORT, "running": RunState.RUNNING}


# -- assay's own facets --------------------------------------------------------------------------
def _schema_url(name: str) -> str:
    return f"{FACETS_SCHEMA}#/$defs/{name}"


@attr.define
class AssayArtifactDatasetFacet(DatasetFacet):
    """An artifact of an assay run: its manifest name, content hash and the manifest's anchor."""

    artifact: str
    sha256: str
    size: int
    mediaType: str  # noqa: N815
    step: str  # the step that produced it
    assayRunId: str  # noqa: N815
    reused: bool = False
    manifestRootHash: str | None = attr.field(default=None)  # noqa: N815

    @staticmethod
    def _get_schema() -> str:
        return _schema_url("AssayArtifactDatasetFacet")


@attr.define
class AssayRunFacet(RunFacet):
    """Which assay run (and Prefect flow run / task run) an OpenLineage run is, and how it ended."""

    assayRunId: str  # noqa: N815
    suite: str
    prefectFlowRunId: str | None = attr.field(default=None)  # noqa: N815
    prefectFlowRunName: str | None = attr.field(default=None)  # noqa: N815
    step: str | None = attr.field(default=None)
    prefectTaskRunId: str | None = attr.field(default=None)  # noqa: N815
    status: str | None = attr.field(default=None)
    detail: str | None = attr.field(default=None)
    manifestRootHash: str | None = attr.field(default=None)  # noqa: N815

    @staticmethod
    def _get_schema() -> str:
        return _schema_url("AssayRunFacet")


@attr.define
class AssayCodeJobFacet(JobFacet):
    """The code that computed the scores: assay's code-and-rules hash and the git state."""

    codeVersion: str  # noqa: N815
    gitCommit: str | None = attr.field(default=None)  # noqa: N815
    gitDirty: bool | None = attr.field(default=None)  # noqa: N815

    @staticmethod
    def _get_schema() -> str:
        return _schema_url("AssayCodeJobFacet")


# -- names and ids -------------------------------------------------------------------------------
def step_job_name(suite: str, step: str) -> str:
    return f"{suite}.{step}"


def run_uuid(manifest: Manifest) -> str:
    """The flow-level run's id: the Prefect flow-run id, so the two systems name one run alike."""
    flow_run_id = manifest.prefect.flow_run_id
    try:
        return str(uuid.UUID(flow_run_id or ""))
    except ValueError:
        return str(generate_static_uuid(_instant(manifest.created_at), manifest.run_id.encode()))


def step_uuid(manifest: Manifest, step: str) -> str:
    """A step's run id, the same whenever it is computed (live or from the manifest later), so a
    backfill names the runs a live emission named."""
    return str(generate_static_uuid(_instant(manifest.created_at), f"{manifest.run_id}/{step}".encode()))


def dataset_id(store: ArtifactStore, run_id: str, rel_path: str) -> tuple[str, str]:
    """(namespace, name) of a run file, following OpenLineage's dataset naming: ``file`` and the
    absolute path on a local disk; ``<scheme>://<bucket>`` and the key elsewhere."""
    path = store.run_path(run_id, rel_path)
    if store.is_local:
        return "file", path
    scheme = store.fs.protocol if isinstance(store.fs.protocol, str) else store.fs.protocol[0]
    bucket, _, key = path.lstrip("/").partition("/")
    return redact(f"{scheme}://{bucket}"), key


def _instant(iso: str | None) -> datetime:
    return datetime.fromisoformat(iso) if iso else datetime.now(UTC)


def _iso(when: datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# -- facets --------------------------------------------------------------------------------------
@cache
def _source_location() -> str:
    """Where assay's code lives: its git remote (credentials removed), else the checkout path."""
    try:
        out = subprocess.run(["git", "remote", "get-url", "origin"], cwd=project_root(),
                             capture_output=True, text=True, timeout=5)
        remote = out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.TimeoutExpired):
        remote = ""
    return public_url(remote) if remote else project_root().as_uri()


def job_facets(manifest: Manifest, job_type: str) -> dict[str, JobFacet]:
    code = manifest.code
    return {
        "jobType": job_type_job.JobTypeJobFacet(processingType="BATCH", integration="ASSAY", jobType=job_type),
        "sourceCodeLocation": source_code_location_job.SourceCodeLocationJobFacet(
            type="git", url=_source_location(), version=code.git_commit or code.code_version),
        "assay_code": AssayCodeJobFacet(codeVersion=code.code_version, gitCommit=code.git_commit,
                                        gitDirty=code.git_dirty),
    }


def _engine(manifest: Manifest) -> processing_engine_run.ProcessingEngineRunFacet:
    version = manifest.environment.packages.get("assay") or "unknown"
    return processing_engine_run.ProcessingEngineRunFacet(version=version, name="assay",
                                                          openlineageAdapterVersion=CLIENT_VERSION)


def _parent(manifest: Manifest) -> parent_run.ParentRunFacet:
    job, run = manifest.suite, run_uuid(manifest)
    return parent_run.ParentRunFacet(
        run=parent_run.Run(runId=run), job=parent_run.Job(namespace=NAMESPACE, name=job),
        root=parent_run.Root(run=parent_run.RootRun(runId=run), job=parent_run.RootJob(namespace=NAMESPACE, name=job)),
    )


def _assay_run(manifest: Manifest, **fields: Any) -> AssayRunFacet:
    if fields.get("detail"):
        fields["detail"] = redact(fields["detail"])
    return AssayRunFacet(assayRunId=manifest.run_id, suite=manifest.suite, prefectFlowRunId=manifest.prefect.flow_run_id,
                         prefectFlowRunName=manifest.prefect.flow_run_name, **fields)


def _error(message: str) -> error_message_run.ErrorMessageRunFacet:
    return error_message_run.ErrorMessageRunFacet(message=redact(message), programmingLanguage="python")


def columns(store: ArtifactStore, run_id: str, entry: ArtifactEntry) -> list[schema_dataset.SchemaDatasetFacetFields]:
    """A table's columns: a JSONL file's keys over its first rows (the type of the first value
    that is not null), a Parquet file's schema. Empty for anything else or a file that cannot be read."""
    path = store.run_path(run_id, entry.path)
    try:
        if entry.media_type == "application/vnd.apache.parquet":
            import pyarrow.parquet as pq

            with store.fs.open(path, "rb") as handle:
                schema = pq.read_schema(handle)
            return [schema_dataset.SchemaDatasetFacetFields(name=f.name, type=str(f.type)) for f in schema]
        if entry.media_type == "application/jsonl":
            return _jsonl_columns(store, path)
    except (OSError, ValueError):
        pass
    return []


def _jsonl_columns(store: ArtifactStore, path: str) -> list[schema_dataset.SchemaDatasetFacetFields]:
    kinds: dict[str, str] = {}
    with store.fs.open(path, "rb") as handle:
        for _, line in zip(range(SCHEMA_SAMPLE_ROWS), handle, strict=False):
            record = json.loads(line) if line.strip() else {}
            for key, value in record.items() if isinstance(record, dict) else ():
                if kinds.get(key, "null") == "null":
                    kinds[key] = _json_type(value)
    return [schema_dataset.SchemaDatasetFacetFields(name=k, type=t) for k, t in kinds.items()]


def _json_type(value: Any) -> str:
    for kind, types in (("boolean", bool), ("integer", int), ("number", float), ("string", str),
                        ("array", list), ("object", dict)):
        if isinstance(value, types):
            return kind
    return "null"


def dataset_facets(store: ArtifactStore, manifest: Manifest, name: str, root_hash: str | None) -> dict[str, DatasetFacet]:
    entry = manifest.artifacts[name]
    facets: dict[str, DatasetFacet] = {"assay_artifact": AssayArtifactDatasetFacet(
        artifact=name, sha256=entry.sha256, size=entry.size, mediaType=entry.media_type, step=entry.producer,
        assayRunId=manifest.run_id, reused=entry.reused, manifestRootHash=root_hash,
    )}
    if entry.media_type in TABLE_TYPES and (fields := columns(store, manifest.run_id, entry)):
        facets["schema"] = schema_dataset.SchemaDatasetFacet(fields=fields)
    return facets


# -- events --------------------------------------------------------------------------------------
def run_started(manifest: Manifest) -> RunEvent:
    """The flow-level run's START."""
    return _stamped(RunEvent(
        eventType=RunState.START, eventTime=_iso(_instant(manifest.created_at)), producer=producer(manifest),
        run=Run(runId=run_uuid(manifest), facets={"processing_engine": _engine(manifest),
                                                  "assay_run": _assay_run(manifest, status="running")}),
        job=Job(namespace=NAMESPACE, name=manifest.suite, facets=job_facets(manifest, "DAG")),
        inputs=[], outputs=[],
    ))


def run_ended(store: ArtifactStore, manifest: Manifest, root_hash: str | None, when: datetime | None = None) -> RunEvent:
    """The flow-level run's COMPLETE, FAIL or ABORT; its output is the manifest, anchored.
    ``when``: now, for a live run; else the recorded end (never before the last step's)."""
    state = RUN_STATES.get(manifest.status, RunState.FAIL)
    facets: dict[str, RunFacet] = {"processing_engine": _engine(manifest), "assay_run": _assay_run(
        manifest, status=manifest.status, detail=manifest.message, manifestRootHash=root_hash)}
    if state is RunState.FAIL:
        facets["errorMessage"] = _error(manifest.message or manifest.status)
    namespace, name = dataset_id(store, manifest.run_id, MANIFEST)
    return _stamped(RunEvent(
        eventType=state, eventTime=_iso(when or end_time(manifest)), producer=producer(manifest),
        run=Run(runId=run_uuid(manifest), facets=facets),
        job=Job(namespace=NAMESPACE, name=manifest.suite, facets=job_facets(manifest, "DAG")),
        inputs=[], outputs=[OutputDataset(namespace=namespace, name=name, facets={})],
    ))


def end_time(manifest: Manifest) -> datetime:
    """When the run ended: its recorded finish (whole seconds), never before its last step ended."""
    ends = [_instant(manifest.finished_at)]
    ends += [step_end_time(s) for s in manifest.steps if s.started_at]
    return max(ends)


def step_end_time(record: StepRecord) -> datetime:
    """When a step ended, as recorded (its start and duration), so live and backfilled events agree."""
    return _instant(record.started_at) + timedelta(seconds=record.duration_s)


def step_started(manifest: Manifest, step: str, when: datetime) -> RunEvent:
    return _stamped(RunEvent(
        eventType=RunState.START, eventTime=_iso(when), producer=producer(manifest),
        run=Run(runId=step_uuid(manifest, step), facets={
            "parent": _parent(manifest), "processing_engine": _engine(manifest),
            "assay_run": _assay_run(manifest, step=step, status="running")}),
        job=Job(namespace=NAMESPACE, name=step_job_name(manifest.suite, step), facets=job_facets(manifest, "TASK")),
        inputs=[], outputs=[],
    ))


def step_ended(store: ArtifactStore, manifest: Manifest, record: StepRecord, when: datetime,
               root_hash: str | None = None, stopped: bool = False) -> RunEvent:
    """A step's COMPLETE (ran or reused), FAIL, or ABORT (a step cut short by a stopped run),
    with its inputs and outputs as datasets."""
    state = RunState.ABORT if stopped and record.status == "failed" else STEP_STATES.get(record.status, RunState.OTHER)
    facets: dict[str, RunFacet] = {
        "parent": _parent(manifest), "processing_engine": _engine(manifest),
        "assay_run": _assay_run(manifest, step=record.name, prefectTaskRunId=record.task_run_id, status=record.status,
                                detail=record.detail or None, manifestRootHash=root_hash),
    }
    if state is RunState.FAIL:
        facets["errorMessage"] = _error(record.detail or "the step failed")
    outputs = [name for name in record.outputs if name in manifest.artifacts]
    inputs = sorted({i for name in outputs for i in manifest.artifacts[name].inputs if i in manifest.artifacts} - set(outputs))

    def dataset(kind: type, name: str) -> Any:
        namespace, path = dataset_id(store, manifest.run_id, manifest.artifacts[name].path)
        return kind(namespace=namespace, name=path, facets=dataset_facets(store, manifest, name, root_hash))

    return _stamped(RunEvent(
        eventType=state, eventTime=_iso(when), producer=producer(manifest),
        run=Run(runId=step_uuid(manifest, record.name), facets=facets),
        job=Job(namespace=NAMESPACE, name=step_job_name(manifest.suite, record.name), facets=job_facets(manifest, "TASK")),
        inputs=[dataset(InputDataset, name) for name in inputs] + _source_dataset(manifest, record),
        outputs=[dataset(OutputDataset, name) for name in outputs],
    ))


def _source_dataset(manifest: Manifest, record: StepRecord) -> list[InputDataset]:
    """The ingest step reads the user's dataset directory: the lineage graph starts there."""
    source = manifest.run_spec.get("dataset")
    if record.name != "ingest" or not isinstance(source, str) or not source:
        return []
    if "://" in source:
        scheme, _, rest = source.partition("://")
        bucket, _, key = rest.partition("/")
        return [InputDataset(namespace=redact(f"{scheme}://{bucket}"), name=key, facets={})]
    return [InputDataset(namespace="file", name=str(Path(source).resolve()), facets={})]


def producer(manifest: Manifest) -> str:
    """Who made the event: the assay version that ran (the same on a backfill)."""
    version = manifest.environment.packages.get("assay") or "unknown"
    return f"urn:assay:{version}"


def _stamped(event: RunEvent) -> RunEvent:
    """Every facet of ``event`` names assay as its producer (the client's models default to the client)."""
    datasets = [*(event.inputs or []), *(event.outputs or [])]
    for facets in [event.run.facets, event.job.facets, *(d.facets for d in datasets)]:
        for facet in (facets or {}).values():
            facet._producer = event.producer
    return event


def events_of_run(store: ArtifactStore, manifest: Manifest, root_hash: str | None) -> list[RunEvent]:
    """Every event of a finished run, from its manifest (``assay lineage RUN --openlineage``):
    the flow-level START, each step's START and end, the flow-level end. Step times come from the
    manifest (each step's start and duration where recorded)."""
    events = [run_started(manifest)]
    started = _instant(manifest.created_at)
    stopped = manifest.status == "stopped"
    for record in manifest.steps:
        begin = _instant(record.started_at) if record.started_at else started
        events.append(step_started(manifest, record.name, begin))
        events.append(step_ended(store, manifest, record, begin + timedelta(seconds=record.duration_s), root_hash,
                                 stopped=stopped))
    if manifest.status != "running":
        events.append(run_ended(store, manifest, root_hash))
    return events


def event_json(event: RunEvent) -> dict[str, Any]:
    """An event as the JSON a backend receives."""
    from openlineage.client.serde import Serde

    return json.loads(Serde.to_json(event))
