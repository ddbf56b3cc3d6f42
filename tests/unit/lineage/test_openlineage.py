"""OpenLineage events from a manifest, the configuration switch and the sender's bounds."""

import json
import subprocess
import sys
import threading
import time

from assay.lineage.manifest import (
    Manifest,
    PrefectRun,
    RunRecorder,
    StepRecord,
    load_manifest_record,
    now_iso,
)
from assay.lineage.openlineage_emit import EventSender, configured
from assay.lineage.store import ArtifactStore
from tests.support.lineage_receiver import check_event

SECRET = "sk-openlineage-unit-0123456789abcdef"


def make_run(root, status="completed", compare_status="failed"):
    store = ArtifactStore(str(root))
    recorder = RunRecorder(store, Manifest(run_id="r1", suite="rag_qa", created_at=now_iso(),
                                           prefect=PrefectRun(flow_run_id="8b93b5f0-b2aa-47c3-9467-b529a98b8d56")))
    recorder.step(StepRecord(name="ingest", status="ran", outputs=["dataset/cases"], started_at=now_iso(), duration_s=0.5))
    recorder.step(StepRecord(name="compare", status=compare_status, detail=f"RunIntegrityError: key {SECRET} leaked"))
    recorder.record("dataset/cases", store.put(b'{"id": "q1", "question": "why?", "n": null}\n{"n": 2}\n'),
                    "ingest", media_type="application/jsonl")
    recorder.finish(status, "a message")
    return store, Manifest.model_validate(load_manifest_record(store, "r1"))


def events(store, manifest):
    from assay.lineage import openlineage

    return [openlineage.event_json(e) for e in openlineage.events_of_run(store, manifest, manifest.root_hash)]


def test_events_of_a_run_follow_the_spec_and_name_the_failed_step(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    store, manifest = make_run(tmp_path)
    sent = events(store, manifest)
    for event in sent:
        check_event(event)
    assert [(e["job"]["name"], e["eventType"]) for e in sent] == [
        ("rag_qa", "START"), ("rag_qa.ingest", "START"), ("rag_qa.ingest", "COMPLETE"),
        ("rag_qa.compare", "START"), ("rag_qa.compare", "FAIL"), ("rag_qa", "COMPLETE")]
    failed = sent[4]["run"]["facets"]
    assert failed["errorMessage"]["message"] == "RunIntegrityError: key *** leaked"
    assert SECRET not in json.dumps(sent)
    cases = sent[2]["outputs"][0]
    assert [(f["name"], f["type"]) for f in cases["facets"]["schema"]["fields"]] == [
        ("id", "string"), ("question", "string"), ("n", "integer")]  # the first non-null value's type
    assert cases["name"] == str(tmp_path / "r1" / manifest.artifacts["dataset/cases"].path)


def test_a_stopped_run_aborts_its_cut_short_step_and_itself(tmp_path):
    store, manifest = make_run(tmp_path, status="stopped")
    kinds = [(e["job"]["name"], e["eventType"]) for e in events(store, manifest)]
    assert kinds[-2:] == [("rag_qa.compare", "ABORT"), ("rag_qa", "ABORT")]


def test_configured_only_by_the_openlineage_settings(tmp_path, monkeypatch):
    for name in ("OPENLINEAGE_URL", "OPENLINEAGE_CONFIG", "OPENLINEAGE__TRANSPORT__TYPE", "OPENLINEAGE_DISABLED"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert not configured()
    monkeypatch.setenv("OPENLINEAGE_CONFIG", str(tmp_path / "missing.yml"))
    assert not configured()
    (tmp_path / "openlineage.yml").write_text("transport:\n  type: console\n", encoding="utf-8")
    assert configured()
    monkeypatch.setenv("OPENLINEAGE_DISABLED", "true")
    assert not configured()
    monkeypatch.delenv("OPENLINEAGE_DISABLED")
    (tmp_path / "openlineage.yml").unlink()
    monkeypatch.setenv("OPENLINEAGE_URL", "http://127.0.0.1:5000")
    assert configured()


class Refusing:
    def __init__(self):
        self.calls = 0

    def emit(self, event):
        self.calls += 1
        raise ConnectionError(f"refused (Authorization: Bearer {SECRET})")


class Hanging:
    def __init__(self):
        self.release = threading.Event()

    def emit(self, event):
        self.release.wait(30)


def test_a_refusing_backend_is_said_once_and_not_tried_again(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    said, client = [], Refusing()
    sender = EventSender(client, said.append, wait_s=5)
    sender.send("first")
    time.sleep(0.2)
    for _ in range(5):
        sender.send("more")
    sender.close()
    assert client.calls == 1 and len(said) == 1
    assert "sending an event failed (ConnectionError: refused" in said[0] and SECRET not in said[0]


def test_a_backend_that_never_answers_costs_the_bounded_wait():
    said, client = [], Hanging()
    sender = EventSender(client, said.append, wait_s=0.5)
    for _ in range(3):
        sender.send("event")
    started = time.monotonic()
    sender.close()
    elapsed = time.monotonic() - started
    client.release.set()
    assert elapsed < 2 and len(said) == 1 and "did not take every event within 0.5 s (3 of 3 not sent)" in said[0]


def test_the_openlineage_client_is_imported_only_when_configured():
    code = ("import sys, assay.cli, assay.lineage.openlineage_emit, assay.lineage.audit; "
            "print('openlineage' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


class Recording:
    def __init__(self):
        self.events = []

    def emit(self, event):
        from assay.lineage.openlineage import event_json

        self.events.append(event_json(event))


def test_a_live_run_that_is_stopped_aborts_its_open_step_and_itself(tmp_path, monkeypatch):
    from assay.lineage import openlineage_emit

    client = Recording()
    monkeypatch.setenv("OPENLINEAGE_URL", "http://127.0.0.1:9")
    monkeypatch.setattr(openlineage_emit, "new_client", lambda: client)
    store, manifest = make_run(tmp_path, status="running")
    said = []
    live = openlineage_emit.LiveLineage(store, manifest, said.append)
    live.step_started("ingest")
    live.step_ended(manifest.steps[0])
    live.step_started("metrics:answer")  # still running when the stop comes
    manifest.status = "stopped"
    live.run_ended("ab" * 32)
    kinds = [(e["job"]["name"], e["eventType"]) for e in client.events]
    assert kinds == [("rag_qa", "START"), ("rag_qa.ingest", "START"), ("rag_qa.ingest", "COMPLETE"),
                     ("rag_qa.metrics:answer", "START"), ("rag_qa.metrics:answer", "ABORT"), ("rag_qa", "ABORT")]
    for event in client.events:
        check_event(event)
    assert client.events[-1]["run"]["facets"]["assay_run"]["manifestRootHash"] == "ab" * 32 and not said
