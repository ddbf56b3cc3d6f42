"""``assay audit --deep``: recompute a run's scores from its own evidence and compare.

Hashes alone cannot catch an edit that changes a score and every hash after it (manifest
included) when the run is unsigned. The deep audit therefore recomputes: every metric family
from the run's dataset snapshot and generations, remote judges answered only from the raw
responses stored in the run (nothing is sent), offline judges re-run; then the aggregate and
the summary. Any stored value its inputs do not give is named. The code that recomputes is
today's: when it differs from the run's recorded code version, differences may be code changes,
and the audit says so.
"""

from __future__ import annotations

import json
import posixpath
import tempfile
from pathlib import Path

import pandas as pd

from assay import artifacts as names
from assay import pipeline
from assay.hashing import sha256_bytes
from assay.judges.store import CallStore
from assay.lineage.audit import AuditResult, audit_run
from assay.lineage.code_version import code_version
from assay.lineage.manifest import Manifest, load_manifest
from assay.lineage.store import ArtifactNotFound, ArtifactStore
from assay.spec import RunSpec
from assay.step_inputs import AggregateInputs, FamilyInputs, FamilyPartitionInputs, PartitionInputs, Scoring
from assay.suites.kit.criteria import families_of
from assay.suites.registry import get_suite

MAX_LISTED = 10  # differing rows named per artifact


def audit_deep(store: ArtifactStore, run_id: str) -> AuditResult:
    result = audit_run(store, run_id)
    manifest = load_manifest(store, run_id)
    if manifest.status not in ("completed", "incomplete"):
        result.notices.append(f"run status {manifest.status}: scores not recomputed")
        return result
    if manifest.code.code_version != code_version():
        result.notices.append("the code changed since this run; a difference below may come from the code")
    with tempfile.TemporaryDirectory(prefix="assay-deep-audit-") as tmp:
        scratch, calls_url = _scratch_from_run(store, run_id, manifest, Path(tmp))
        try:
            families = _recompute(scratch, calls_url, manifest, result)
        except ArtifactNotFound as exc:  # an input left out of the scratch store: tampered or missing above
            name = _name_of(manifest, posixpath.basename(str(exc)))
            result.recomputed.append(f"scores not recomputed: their input {name} is not usable in this run (see above)")
            return result
        _check_parquet(store, run_id, manifest, result)
    result.notices.append(f"--deep: recomputed {families} metric families, the aggregate and the summary from the run's evidence")
    return result


def _scratch_from_run(store: ArtifactStore, run_dir: str, manifest: Manifest, tmp: Path) -> tuple[ArtifactStore, str]:
    """A private store holding the artifacts under ``run_dir`` that match their hashes, and a
    call store of the run's stored judge responses (never the shared pool's or call store's)."""
    scratch = ArtifactStore(str(tmp / "store"))
    calls = CallStore(tmp / "calls")
    for name, entry in manifest.artifacts.items():
        path = store.run_file(run_dir, entry.path)
        if path is None or not store.exists(path):
            continue
        data = store.read_bytes(path)
        if sha256_bytes(data) != entry.sha256:
            continue  # already reported as tampered; never recompute from it
        scratch.put(data)
        if name.startswith(names.JUDGE_CALLS_DIR):
            records = [json.loads(data)]
        elif names.is_judge_calls_bundle(name):
            records = [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]
        else:
            continue
        for record in records:
            calls.put(record["key"], {k: v for k, v in record.items() if k != "key"})
    return scratch, str(tmp / "calls")


def _name_of(manifest: Manifest, sha: str) -> str:
    """The manifest name of the artifact with content ``sha`` (the hash itself if none has it)."""
    return next((name for name, entry in sorted(manifest.artifacts.items()) if entry.sha256 == sha), sha[:16])


def _recompute(scratch: ArtifactStore, calls_url: str, manifest: Manifest, result: AuditResult) -> int:
    suite = get_suite(manifest.suite)
    spec = RunSpec.model_validate(manifest.run_spec)
    arts = manifest.artifacts
    snapshot, generations = arts[names.DATASET_SNAPSHOT].sha256, arts[names.GENERATIONS].sha256
    skip_ids = scratch.get_json(arts[names.QUARANTINE].sha256)["quarantined_ids"] if names.QUARANTINE in arts else []
    families: dict[str, list[str]] = {}
    score_names: dict[str, list[str]] | None = None
    audit_scoring = Scoring(spec, calls_url, send=False)  # remote judges answered from the call store only
    if names.PARTITION_INDEX in arts:  # scored partition by partition: recompute each partition
        score_names = {}
        stored_index = arts[names.PARTITION_INDEX].sha256
        size = scratch.get_json(stored_index)["partition_size"] if scratch.has(stored_index) else None
        if size is None:
            result.recomputed.append(f"{names.PARTITION_INDEX}: the stored file is unusable; partitions not recomputed")
            return 0
        # The partitions are cut again from the snapshot and generations, not taken on trust.
        split = pipeline.partition(scratch, suite, PartitionInputs(snapshot, generations, tuple(skip_ids), size))
        if split.index != stored_index:
            result.recomputed.append(f"{names.PARTITION_INDEX}: recomputed {split.index[:12]}, stored {stored_index[:12]}")
        for family in families_of(suite, spec):
            for part in split.partitions:
                name = names.partition_scores(family.name, part.index)
                if name not in arts:
                    continue
                part_inputs = FamilyPartitionInputs(family.name, part.index, part.sha, audit_scoring)
                output = pipeline.compute_family_partition(scratch, suite, part_inputs)
                _compare_rows(scratch, name, arts[name].sha256, output.scores, result)
                families.setdefault(family.name, []).append(output.scores)
                score_names.setdefault(family.name, []).append(name)
    for family in families_of(suite, spec):
        name = names.family_scores(family.name)
        if name not in arts:
            continue
        inputs = FamilyInputs(family.name, snapshot, generations, tuple(skip_ids), audit_scoring)
        output = pipeline.compute_family(scratch, suite, inputs)
        _compare_rows(scratch, name, arts[name].sha256, output.scores, result)
        families[family.name] = [output.scores]
    aggregate = pipeline.aggregate(scratch, suite, AggregateInputs(snapshot, families, tuple(skip_ids), spec, score_names))
    if names.SCORES in arts:
        _compare_rows(scratch, names.SCORES, arts[names.SCORES].sha256, aggregate.scores, result)
    if names.SUMMARY in arts and arts[names.SUMMARY].sha256 != aggregate.summary:
        stored = scratch.get_json(arts[names.SUMMARY].sha256) if scratch.has(arts[names.SUMMARY].sha256) else {}
        fresh = scratch.get_json(aggregate.summary)
        keys = sorted(k for k in set(stored) | set(fresh) if stored.get(k) != fresh.get(k))
        result.recomputed.append(f"{names.SUMMARY}: differs in {', '.join(keys) or 'its bytes'}")
    return len(families)


def _compare_rows(scratch: ArtifactStore, name: str, stored_sha: str, fresh_sha: str, result: AuditResult) -> None:
    if stored_sha == fresh_sha:
        return
    if not scratch.has(stored_sha):
        result.recomputed.append(f"{name}: the stored file is unusable (see above); recomputed {fresh_sha[:12]}")
        return
    stored = {_row_key(r): r for r in scratch.get_jsonl(stored_sha)}
    fresh = {_row_key(r): r for r in scratch.get_jsonl(fresh_sha)}
    diffs = []
    for key in sorted(set(stored) | set(fresh), key=str):
        a, b = stored.get(key), fresh.get(key)
        if a is None or b is None or (a.get("value"), a.get("unscored_reason")) != (b.get("value"), b.get("unscored_reason")):
            case, metric, judge = key
            who = f" judge {judge}" if judge else ""
            diffs.append(
                f"case {case} {metric}{who}: stored {_value(a)}, recomputed {_value(b)}"
            )
    if not diffs:
        return  # the same values (details such as latencies may differ between runs)
    listed = diffs[:MAX_LISTED] + ([f"… and {len(diffs) - MAX_LISTED} more"] if len(diffs) > MAX_LISTED else [])
    result.recomputed.extend(f"{name}: {d}" for d in listed)


def _row_key(row: dict) -> tuple[str, str, str]:
    return str(row.get("case_id")), str(row.get("metric")), str(row.get("judge") or "")


def _value(row: dict | None) -> str:
    if row is None:
        return "(absent)"
    return "unscored" if row.get("value") is None else f"{row['value']:g}"


def _check_parquet(store: ArtifactStore, run_dir: str, manifest: Manifest, result: AuditResult) -> None:
    """scores.parquet must hold exactly the values of scores/all.jsonl."""
    arts = manifest.artifacts
    if names.SCORES_PARQUET not in arts or names.SCORES not in arts:
        return
    import io

    paths = [store.run_file(run_dir, arts[name].path) for name in (names.SCORES_PARQUET, names.SCORES)]
    if None in paths:
        return  # already reported as misplaced
    parquet = pd.read_parquet(io.BytesIO(store.read_bytes(paths[0])))
    rows = [json.loads(line) for line in store.read_bytes(paths[1]).splitlines() if line.strip()]
    want = {_row_key(r): r.get("value") for r in rows}
    have = {
        (str(r.case_id), str(r.metric), str(r.judge) if isinstance(r.judge, str) else ""): (None if pd.isna(r.value) else float(r.value))
        for r in parquet.itertuples()
    }
    diffs = [k for k in set(want) | set(have) if want.get(k, "absent") != have.get(k, "absent")]
    for case, metric, judge in sorted(diffs)[:MAX_LISTED]:
        result.recomputed.append(
            f"{names.SCORES_PARQUET}: case {case} {metric}{' judge ' + judge if judge else ''} is "
            f"{have.get((case, metric, judge), '(absent)')}, {names.SCORES} says {want.get((case, metric, judge), '(absent)')}"
        )
