"""A run attested as it finishes (ASSAY_ATTEST_KEY, as a scheduled deployment sets it), verified
with `assay attest --verify`, and a later edit of one artifact named by the verification."""

import json

from assay.lineage.attestation import ATTESTATION, new_key
from tests.support.cli import cli, run_id_of


def test_a_run_attested_on_finishing_verifies_until_an_artifact_is_edited(prefect_server, bundled_rag_qa, tmp_path,
                                                                           monkeypatch):
    private, public = new_key(tmp_path / "keys")
    monkeypatch.setenv("ASSAY_ATTEST_KEY", str(private))
    out = tmp_path / "runs"
    result, output = cli("run", "rag_qa", "--dataset", str(bundled_rag_qa), "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    run_id = run_id_of(output)
    assert (out / run_id / ATTESTATION).is_file() and "attestation not written" not in output

    result, output = cli("attest", "--verify", run_id, "--pub", str(public), "--out", str(out))
    assert result.exit_code == 0 and "attestation VERIFIED" in output, output
    result, output = cli("audit", run_id, "--out", str(out))
    assert result.exit_code == 0, output  # the attestation file is no orphan

    manifest = json.loads((out / run_id / "manifest.json").read_text(encoding="utf-8"))
    scores = out / run_id / manifest["artifacts"]["scores/all.jsonl"]["path"]
    scores.write_bytes(scores.read_bytes().replace(b'"value": 1.0', b'"value": 0.0', 1))
    result, output = cli("attest", "--verify", run_id, "--pub", str(public), "--out", str(out))
    assert result.exit_code == 1 and "attestation FAILED" in output
    differ = [line for line in output.splitlines() if "DIFFERS" in line]
    assert len(differ) == 1 and "scores/all.jsonl" in differ[0], output
