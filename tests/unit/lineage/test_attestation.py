"""in-toto attestations of a run (assay attest), on a real run directory and a generated key;
checked with assay's verifier and, independently, with the in-toto tooling."""

import base64
import json
import os

import pytest

from assay.lineage.attestation import (
    ATTESTATION,
    PREDICATE_TYPE,
    AttestationError,
    attest,
    attest_if_configured,
    new_key,
    verify,
)
from assay.lineage.audit import audit_run
from assay.lineage.manifest import Manifest, RunRecorder, StepRecord, now_iso
from assay.lineage.store import ArtifactStore
from tests.support.cli import cli


def make_run(root, run_id="r1", secret=""):
    store = ArtifactStore(str(root))
    recorder = RunRecorder(store, Manifest(run_id=run_id, suite="rag_qa", created_at=now_iso(),
                                           run_spec={"suite": "rag_qa", "k": 5, "note": secret}))
    recorder.step(StepRecord(name="ingest", status="ran"))
    recorder.step(StepRecord(name="publish", status="ran"))
    recorder.record("dataset/cases", store.put(b'{"id": "q1"}\n'), "ingest", media_type="application/jsonl")
    recorder.record("summary.json", store.put_json({"score": 1}), "publish", inputs=["dataset/cases"])
    recorder.record("report.md", store.put(b"# report\n"), "publish", inputs=["summary.json"], path="report.md")
    recorder.finish("completed")
    return store, run_id


@pytest.fixture
def keys(tmp_path):
    return new_key(tmp_path / "keys")


def test_attest_then_verify_then_an_edited_artifact_is_named(tmp_path, keys):
    private, public = keys
    store, run_id = make_run(tmp_path / "runs")
    attest(store, run_id, private)
    result = verify(store, run_id, public)
    assert result.ok, result.lines()
    assert result.checked == 4 and result.lines()[-1] == "attestation VERIFIED"  # manifest + 3 artifacts
    assert audit_run(store, run_id).ok  # the attestation is not an orphan in the run directory

    (tmp_path / "runs" / run_id / "report.md").write_text("# a better report\n", encoding="utf-8")
    result = verify(store, run_id, public)
    assert not result.ok and result.differ == ["report.md (report.md)"] and not result.missing
    assert "  DIFFERS (sha256 is not the attested one): report.md (report.md)" in result.lines()


def test_a_deleted_and_an_added_file_are_named(tmp_path, keys):
    private, public = keys
    store, run_id = make_run(tmp_path / "runs")
    attest(store, run_id, private)
    summary = store.run_path(run_id, Manifest.model_validate_json(
        open(store.run_path(run_id, "manifest.json"), encoding="utf-8").read()).artifacts["summary.json"].path)
    os.unlink(summary)
    (tmp_path / "runs" / run_id / "extra.txt").write_text("planted", encoding="utf-8")
    result = verify(store, run_id, public)
    assert [m.split(" ")[0] for m in result.missing] == ["summary.json"] and result.unattested == ["extra.txt"]


def test_another_key_or_an_edited_statement_fails_the_signature(tmp_path, keys):
    private, _ = keys
    _, other_public = new_key(tmp_path / "other")
    store, run_id = make_run(tmp_path / "runs")
    attest(store, run_id, private)
    assert "no signature in the envelope verifies" in verify(store, run_id, other_public).problems[0]

    path = store.run_path(run_id, ATTESTATION)
    envelope = json.loads(open(path, encoding="utf-8").readline())
    statement = json.loads(base64.b64decode(envelope["payload"]))
    statement["subject"][1]["digest"]["sha256"] = "0" * 64  # vouch for other content
    envelope["payload"] = base64.b64encode(json.dumps(statement).encode()).decode()
    open(path, "w", encoding="utf-8").write(json.dumps(envelope) + "\n")
    assert "no signature in the envelope verifies" in verify(store, run_id, keys[1]).problems[0]


def test_an_attestation_copied_from_another_run_is_refused(tmp_path, keys):
    private, public = keys
    store, first = make_run(tmp_path / "runs", "r1")
    _, second = make_run(tmp_path / "runs", "r2")
    attest(store, first, private)
    target = store.run_path(second, ATTESTATION)
    open(target, "wb").write(open(store.run_path(first, ATTESTATION), "rb").read())
    assert "the statement attests run 'r1', not 'r2'" in verify(store, second, public).problems


def test_a_run_that_fails_its_audit_is_not_attested(tmp_path, keys):
    private, _ = keys
    store, run_id = make_run(tmp_path / "runs")
    (tmp_path / "runs" / run_id / "report.md").write_text("edited before attesting", encoding="utf-8")
    with pytest.raises(AttestationError, match="fails its audit, so it is not attested: TAMPERED"):
        attest(store, run_id, private)
    assert not os.path.exists(store.run_path(run_id, ATTESTATION))


def test_the_statement_validates_with_the_in_toto_bindings_and_verifies_with_securesystemslib(tmp_path, keys):
    from cryptography.hazmat.primitives import serialization
    from google.protobuf import json_format
    from in_toto_attestation.v1 import statement_pb2
    from in_toto_attestation.v1.statement import Statement
    from securesystemslib.dsse import Envelope
    from securesystemslib.signer import SSlibKey

    private, public = keys
    store, run_id = make_run(tmp_path / "runs")
    attest(store, run_id, private)
    raw = json.loads(open(store.run_path(run_id, ATTESTATION), encoding="utf-8").readline())

    envelope = Envelope.from_dict(raw)
    key = SSlibKey.from_crypto(serialization.load_pem_public_key(public.read_bytes()))
    assert list(envelope.verify([key], 1)) == [key.keyid]  # the in-toto tooling accepts the signature
    statement = json.loads(envelope.payload)
    Statement.copy_from_pb(json_format.ParseDict(statement, statement_pb2.Statement())).validate()

    assert statement["predicateType"] == PREDICATE_TYPE
    predicate = statement["predicate"]
    manifest = json.loads(open(store.run_path(run_id, "manifest.json"), encoding="utf-8").read())
    assert predicate["manifest"]["rootHash"] == manifest["root_hash"] and predicate["runSpec"]["k"] == 5
    assert {"code", "environment", "prefect", "runId"} <= set(predicate)
    names = {s["name"]: s["digest"]["sha256"] for s in statement["subject"]}
    assert names.pop("manifest.json")
    assert names == {name: entry["sha256"] for name, entry in manifest["artifacts"].items()}


def test_no_secret_reaches_the_statement(tmp_path, keys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-attest-secret-0123456789abcdef")
    store, run_id = make_run(tmp_path / "runs", secret="sk-attest-secret-0123456789abcdef")
    attest(store, run_id, keys[0])
    payload = base64.b64decode(json.loads(open(store.run_path(run_id, ATTESTATION), encoding="utf-8").readline())["payload"])
    assert b"sk-attest-secret" not in payload


def test_a_deployment_attests_with_the_key_its_environment_names(tmp_path, keys, monkeypatch):
    store, run_id = make_run(tmp_path / "runs")
    said = []
    assert attest_if_configured(store, run_id, said.append) is None  # not configured: nothing written
    monkeypatch.setenv("ASSAY_ATTEST_KEY", str(tmp_path / "missing.key"))
    assert attest_if_configured(store, run_id, said.append) is None
    assert said and said[0].startswith("attestation not written: cannot read the signing key")
    monkeypatch.setenv("ASSAY_ATTEST_KEY", str(keys[0]))
    assert attest_if_configured(store, run_id, said.append) and verify(store, run_id, keys[1]).ok


def test_cli_new_key_attest_verify(tmp_path):
    store, run_id = make_run(tmp_path / "runs")
    result, output = cli("attest", "--new-key", str(tmp_path / "k"))
    assert result.exit_code == 0, output
    assert oct((tmp_path / "k" / "assay-attest.key").stat().st_mode & 0o777) == "0o600"
    result, output = cli("attest", "--new-key", str(tmp_path / "k"))
    assert result.exit_code == 1 and "exists; not overwriting a key" in output
    run_dir = str(tmp_path / "runs" / run_id)
    result, output = cli("attest", run_dir, "--key", str(tmp_path / "k" / "assay-attest.key"))
    assert result.exit_code == 0 and ATTESTATION in output, output
    result, output = cli("attest", "--verify", run_dir, "--pub", str(tmp_path / "k" / "assay-attest.pub"))
    assert result.exit_code == 0 and "attestation VERIFIED" in output, output
    (tmp_path / "runs" / run_id / "report.md").write_text("x", encoding="utf-8")
    result, output = cli("attest", "--verify", run_dir, "--pub", str(tmp_path / "k" / "assay-attest.pub"))
    assert result.exit_code == 1 and "DIFFERS (sha256 is not the attested one): report.md" in output
    result, output = cli("attest", run_dir, "--key", str(tmp_path / "k" / "assay-attest.pub"))
    assert result.exit_code == 1 and "cannot read the signing key" in output and "Traceback" not in output
