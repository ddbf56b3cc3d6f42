"""Under ASSAY_SIGNING_KEY a signed run reuses only call records the key authenticated (issue 33,
item 2). A writer of the store without the key rewrites a judge's reply and recomputes every
plain hash in the record, and deletes the cached step results so the judge step runs again:
the signed run sets the forged record aside and asks the judge again. Without a key the same
forgery is reused, as docs/security.md says."""

import json
import shutil
from pathlib import Path

from assay.deep_audit import audit_deep
from assay.hashing import sha256_json
from assay.lineage.manifest import load_manifest
from assay.lineage.store import ArtifactStore
from assay.lineage.trace import RunReader
from tests.support.cli import cli, run_id_of
from tests.support.openai_server import OpenAICompatServer

KEY = "call-store-signing-key-1"


def forge_one_record(out: Path) -> tuple[str, str]:
    """Rewrite one stored judge reply (each number in its verdict one higher) as a store writer
    without the key can, and drop the cached step results; returns the key and forged text."""
    path = sorted((out / ".assay" / "judge-calls").glob("??/*.json"))[0]
    record = json.loads(path.read_text())
    verdict = json.loads(record["response"]["raw_text"])
    forged = json.dumps({k: v + 1 if isinstance(v, (int, float)) and not isinstance(v, bool) else v for k, v in verdict.items()})
    assert forged != record["response"]["raw_text"]
    record["response"]["raw_text"] = forged
    record["response_sha256"] = sha256_json(record["response"])
    path.write_text(json.dumps(record))
    shutil.rmtree(out / ".assay" / "prefect-results")
    return record["key"], forged


def judge_step(out: Path, run_id: str):
    return next(s for s in load_manifest(ArtifactStore(str(out)), run_id).steps if s.name == "metrics:answer")


def test_a_forged_judge_reply_is_set_aside_under_the_key_and_reused_without_it(prefect_server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-value")
    monkeypatch.setenv("ASSAY_SIGNING_KEY", KEY)
    out = tmp_path / "runs"
    with OpenAICompatServer() as server:
        args = ["run", "rag_qa", "--out", str(out), "--api-base", server.base_url, "--judge", "openai/a"]
        result, output = cli(*args)
        assert result.exit_code == 0, output

        key, forged = forge_one_record(out)
        sent = server.count()
        result, output = cli(*args)
        assert result.exit_code == 0, output
        signed = run_id_of(output)
        assert server.count() == sent + 1  # the forged call, and only it, is asked again
        assert "failed their hash" in judge_step(out, signed).detail
        assert list((out / ".assay" / "judge-calls").glob(f"??/{key}.json.untrusted-*"))  # kept as evidence
        record = RunReader(ArtifactStore(str(out)), signed).json(f"judge_calls/{key}.json")
        assert record["response"]["raw_text"] != forged and record["digest"].startswith("hmac-sha256:")
        assert audit_deep(ArtifactStore(str(out)), signed).ok

        monkeypatch.delenv("ASSAY_SIGNING_KEY")  # without a key the plain hashes are all a record can show
        forge_one_record(out)
        sent = server.count()
        result, output = cli(*args)
        assert result.exit_code == 0, output
        assert server.count() == sent  # reused: what a store writer can do without a key
