"""``assay lineage``: trace one case's scores back to its input row, generation, prompts and
raw judge responses, naming every artifact by hash and the step (task run) that made it."""

from __future__ import annotations

import json
from typing import Any

from assay import artifacts as names
from assay.hashing import sha256_bytes
from assay.lineage.manifest import DamagedRun, Manifest, RunIntegrityError, load_manifest
from assay.lineage.store import ArtifactStore
from assay.schemas import JsonObject

__all__ = ["DamagedRun", "RunIntegrityError", "RunReader", "trace_case"]

class RunReader:
    """Read a run's artifacts by manifest name, each checked against its recorded sha256, so
    what ``show``, ``compare``, ``lineage``, ``runs`` and the gates print is what the run wrote.

    ``run_id`` is the run directory's name in ``store`` and every file is read from under it
    (``ArtifactStore.run_file``): a copied or moved run, whose manifest names another run id,
    is read from its own files, never from a sibling's or the shared pool."""

    def __init__(self, store: ArtifactStore, run_id: str) -> None:
        self.store = store
        self.run_id = run_id
        self.manifest: Manifest = load_manifest(store, run_id)
        self._calls: dict[str, tuple[str, JsonObject]] | None = None

    @classmethod
    def anchored(cls, store: ArtifactStore, run_id: str) -> RunReader:
        """A reader of a run whose manifest passes its anchor check (root hash, chain, signature
        with a key): for a run whose numbers decide something, such as a comparison's baseline."""
        from assay.lineage.audit import anchor_check

        anchor = anchor_check(store, run_id)
        if not anchor.ok:
            raise RunIntegrityError(
                f"run {run_id}'s manifest fails its anchor check: {'; '.join(anchor.manifest)}; see `assay audit {run_id}`"
            )
        return cls(store, run_id)

    def bytes(self, name: str) -> bytes:
        entry = self.manifest.artifacts[name]
        path = self.store.run_file(self.run_id, entry.path)
        if path is None:
            raise RunIntegrityError(
                f"{name} of run {self.run_id}: its path {entry.path!r} leads out of the run directory; "
                f"run `assay audit {self.run_id}`"
            )
        try:
            data = self.store.read_bytes(path)
        except FileNotFoundError:
            raise DamagedRun(f"run {self.run_id} is damaged: {name} ({entry.path}) is missing; "
                             f"run `assay audit {self.run_id}`") from None
        if sha256_bytes(data) != entry.sha256:
            raise RunIntegrityError(
                f"{name} of run {self.run_id} no longer matches the sha256 its manifest recorded; "
                f"run `assay audit {self.run_id}`"
            )
        return data

    def jsonl(self, name: str) -> list[JsonObject]:
        return [json.loads(line) for line in self.bytes(name).decode("utf-8").splitlines() if line.strip()]

    def json(self, name: str) -> Any:
        return json.loads(self.bytes(name))

    def judge_call(self, key: str) -> tuple[str, JsonObject] | None:
        """The artifact holding judge call ``key`` and its record: one file per call, or a
        partition's bundle of calls (one record a line)."""
        single = names.judge_call(key)
        if single in self.manifest.artifacts:
            return single, self.json(single)
        if self._calls is None:
            self._calls = {}
            for name in self.manifest.artifacts:
                if names.is_judge_calls_bundle(name):
                    for record in self.jsonl(name):
                        self._calls[str(record.get("key"))] = (name, record)
        return self._calls.get(key)

    def ref(self, name: str) -> str:
        entry = self.manifest.artifacts[name]
        reused = ", reused from cache" if entry.reused else ""
        return f"{name} sha256:{entry.sha256[:16]} (step {entry.producer}, task run {entry.task_run_id}{reused})"


def trace_case(store: ArtifactStore, run_id: str, case_id: str, metric: str | None = None) -> list[str]:
    run = RunReader(store, run_id)
    recorded = run.manifest.artifacts
    finals = [r for r in run.jsonl(names.SCORES) if r["case_id"] == case_id and r.get("judge") is None]
    if not finals:
        known = sorted({r["case_id"] for r in run.jsonl(names.SCORES)})
        raise KeyError(f"case {case_id!r} has no scores in run {run_id} ({len(known)} cases scored, e.g. {known[:5]})")
    if metric:
        finals = [r for r in finals if r["metric"] == metric]
        if not finals:
            raise KeyError(f"case {case_id!r} has no metric {metric!r} in run {run_id}")
    out = [f"run {run_id} ({run.manifest.suite}), case {case_id}", ""]
    out += _input_lines(run, case_id)
    family_rows = {
        name: [r for r in run.jsonl(name) if r["case_id"] == case_id]
        for name in recorded
        if name.startswith("scores/") and name != names.SCORES
    }
    by_metric = {r["metric"]: r for r in run.jsonl(names.SCORES) if r["case_id"] == case_id and r.get("judge") is None}
    for row in finals:
        out.append(f"score {row['metric']} = {_value(row)} (scale {row['scale']})")
        out.append(f"  from {run.ref(names.SCORES)}")
        out += _origin_lines(run, row, by_metric, family_rows, depth=1)
        out.append("")
    return out


def _value(row: JsonObject) -> str:
    return "UNSCORED: " + str(row.get("unscored_reason")) if row["value"] is None else f"{row['value']:.4g}"


def _origin_lines(
    run: RunReader, row: JsonObject, by_metric: JsonObject, family_rows: dict[str, list], depth: int
) -> list[str]:
    """Where a score came from: its family's step and judges, and for a composite score
    (e.g. overall, output_quality) each component, traced the same way."""
    pad = "  " * depth
    lines = []
    family_file = names.family_scores(row["family"])
    if family_file not in run.manifest.artifacts:  # a partitioned run: the partition holding this case
        family_file = next((name for name, rows in family_rows.items()
                            if rows and name.startswith(f"scores/{row['family']}/")), family_file)
    if family_file in run.manifest.artifacts:
        lines.append(f"{pad}from {run.ref(family_file)}")
    for judged in (r for r in family_rows.get(family_file, []) if r["metric"] == row["metric"] and r.get("judge")):
        lines += [pad + line[2:] for line in _judge_lines(run, judged)]
    components = (row.get("details") or {}).get("components") or {}
    for metric in components:
        part = by_metric.get(metric)
        if part is None or depth > 3:
            continue
        lines.append(f"{pad}component {metric} = {_value(part)}")
        lines += _origin_lines(run, part, by_metric, family_rows, depth + 1)
    return lines


def _input_lines(run: RunReader, case_id: str) -> list[str]:
    lines = []
    for name in sorted(run.manifest.artifacts):
        if name.startswith("dataset/") and name.endswith(("cases", "cases.jsonl")):
            for number, record in enumerate(run.jsonl(name), start=1):
                if record.get("id") == case_id:
                    lines.append(f"input row: line {number} of {run.ref(name)}")
                    lines.append("  " + json.dumps(record, ensure_ascii=False)[:300])
    gen_name = names.GENERATIONS
    if gen_name in run.manifest.artifacts:
        for record in run.jsonl(gen_name):
            if record.get("case_id") == case_id:
                lines.append(f"generation: {run.ref(gen_name)}")
                answer = str(next((record[k] for k in ("answer", "report", "response", "output") if k in record), ""))
                lines.append(f"  output: {answer[:200]}{'…' if len(answer) > 200 else ''}")
                sources = [c.get("source") for c in record.get("retrieved", [])]
                if sources:
                    lines.append(f"  retrieved: {', '.join(map(str, sources[:10]))}")
    return lines + [""]


def _judge_lines(run: RunReader, row: JsonObject) -> list[str]:
    key = (row.get("details") or {}).get("request_key")
    value = "failed" if row["value"] is None else f"{row['value']:.4g}"
    lines = [f"    judge {row['judge']}: {value}"]
    found = run.judge_call(key) if key else None
    if found is not None:
        call_name, call = found
        lines.append(f"      request + raw response: {run.ref(call_name)}")
        lines.append(f"      model {call.get('model')}, prompt {call.get('prompt_id')} sha256:{str(call.get('prompt_sha256'))[:16]}")
        raw = str((call.get("response") or {}).get("raw_text", ""))
        lines.append(f"      raw: {raw[:240]}{'…' if len(raw) > 240 else ''}")
    elif row["value"] is None:
        lines.append(f"      {row.get('unscored_reason')} (raw text kept in judges/*/jury_runs.json)")
    return lines + _item_verdicts(row.get("details") or {})


def _item_verdicts(details: JsonObject) -> list[str]:
    """A share's evidence (faithfulness: each claim; context relevance: each chunk), one line each."""
    lines = []
    for unit, verdict in (("claim", "supported"), ("chunk", "relevant")):
        for item in details.get(f"{unit}s") or []:
            said = verdict if item.get(verdict) else f"not {verdict}"
            text = f" {str(item['text'])[:160]!r}" if item.get("text") else ""
            lines.append(f"      {unit} {item.get(unit)}{text}: {said} ({str(item.get('reason', ''))[:160]})")
    return lines
