"""`assay rerun` executes a recorded spec that calls code or a URL only when the manifest is
signed with ASSAY_SIGNING_KEY or the user passes --trust-spec; otherwise it refuses in one line,
exit 1, before any server starts (issue 33, item 4). A recorded replay reruns as before."""

import json

import pytest

import assay.cli
from assay.lineage.manifest import Manifest, anchor, now_iso
from assay.spec import build_run_spec
from assay.suites.registry import get_suite
from tests.support.cli import cli

KEY = "rerun-trust-signing-key"


def write_run(out, run_id, given):
    """A finished run's manifest with the spec ``given`` builds, anchored (and signed when a key is
    set) as `assay run` leaves it, or as a writer of the store without the key re-anchors it."""
    spec, options = build_run_spec("rag_qa", default_dataset=get_suite("rag_qa").default_dataset, cli=given)
    manifest = Manifest(run_id=run_id, suite="rag_qa", status="completed", created_at=now_iso(),
                        run_spec=spec.model_dump(mode="json"), options=options.model_dump(mode="json"))
    (out / run_id).mkdir(parents=True)
    record = anchor(manifest.model_dump(mode="json"))
    (out / run_id / "manifest.json").write_text(json.dumps(record), encoding="utf-8")


@pytest.fixture
def executed(monkeypatch):
    """What reached the run: nothing starts a server or a flow in these tests."""
    calls = []
    monkeypatch.setattr(assay.cli, "_execute", lambda spec, *a, **kw: calls.append(spec))
    monkeypatch.setattr(assay.cli, "_preflight", lambda spec, options: None)
    monkeypatch.setattr(assay.cli, "_start_server_early", lambda: pytest.fail("a server was started"))
    return calls


CALLS_OUT = [
    ({"replay": "live", "target": "os:system"}, "calls the Python function os:system"),
    ({"replay": "live", "target": "http://127.0.0.1:9/answer"}, "posts every case to http://127.0.0.1:9/answer"),
    ({"judges": ["openai/a"], "api_base": "http://127.0.0.1:9/v1"}, "sends judge openai/a's key to http://127.0.0.1:9/v1"),
]


@pytest.mark.parametrize(("given", "named"), CALLS_OUT)
def test_an_unsigned_spec_that_calls_code_or_a_url_is_refused_in_one_line(tmp_path, monkeypatch, executed, given, named):
    monkeypatch.delenv("ASSAY_SIGNING_KEY", raising=False)
    write_run(tmp_path, "r1", given)
    result, output = cli("rerun", "r1", "--out", str(tmp_path))
    assert result.exit_code == 1 and not executed
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0] and "--trust-spec" in lines[0] and "not signed" in lines[0], output
    assert "Traceback" not in output

    result, output = cli("rerun", "r1", "--out", str(tmp_path), "--trust-spec")
    assert result.exit_code == 0, output
    assert len(executed) == 1 and named.split()[-1] in output  # what it calls is still said first


def test_a_re_anchored_spec_is_refused_even_where_a_key_is_set_later(tmp_path, monkeypatch, executed):
    monkeypatch.delenv("ASSAY_SIGNING_KEY", raising=False)
    write_run(tmp_path, "forged", {"replay": "live", "target": "os:system"})  # re-anchored without the key
    monkeypatch.setenv("ASSAY_SIGNING_KEY", KEY)
    result, output = cli("rerun", "forged", "--out", str(tmp_path))
    assert result.exit_code == 1 and not executed and "unsigned" in output


def test_a_signed_spec_that_calls_code_reruns_with_the_key(tmp_path, monkeypatch, executed):
    monkeypatch.setenv("ASSAY_SIGNING_KEY", KEY)
    write_run(tmp_path, "signed", {"replay": "live", "target": "os:system"})
    result, output = cli("rerun", "signed", "--out", str(tmp_path))
    assert result.exit_code == 0, output
    assert executed[0].target.function == "os:system"
    monkeypatch.delenv("ASSAY_SIGNING_KEY")  # the signature cannot be verified: refused again
    result, output = cli("rerun", "signed", "--out", str(tmp_path))
    assert result.exit_code == 1 and "not signed" in output


def test_a_recorded_replay_reruns_unsigned(tmp_path, monkeypatch, executed):
    monkeypatch.delenv("ASSAY_SIGNING_KEY", raising=False)
    write_run(tmp_path, "recorded", {"offline": True})
    result, output = cli("rerun", "recorded", "--out", str(tmp_path))
    assert result.exit_code == 0, output
    assert len(executed) == 1
