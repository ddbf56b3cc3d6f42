"""A run directory is judged by its own files (issue 33, item 1).

`assay audit PATH` and every reader (show, runs, compare, lineage, `load_run`) read the files
under the directory they are given, never a sibling run's found by the manifest's run id: an
unmodified copy or a moved run is a valid run, a forged copy fails naming the forged files,
signed or not."""

import shutil
from pathlib import Path

import pytest

from assay.api import RunIntegrityError, load_run
from assay.deep_audit import audit_deep
from assay.lineage.audit import audit_run
from assay.lineage.store import ArtifactStore
from assay.lineage.trace import RunReader, trace_case
from assay.runs import list_runs, show_run
from tests.support.cli import cli, run_id_of
from tests.support.memory_data import write_memory_dataset

KEY = "copies-signing-key-1"


@pytest.fixture(scope="module")
def finished(prefect_server, tmp_path_factory):
    """One signed and one unsigned run of the same data in one store."""
    root = tmp_path_factory.mktemp("copies")
    data = write_memory_dataset(root / "data")
    out = root / "runs"
    ids = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ASSAY_SIGNING_KEY", KEY)
        result, output = cli("run", "memory", "--dataset", str(data), "--offline", "--out", str(out))
        assert result.exit_code == 0, output
        ids["signed"] = run_id_of(output)
        patch.delenv("ASSAY_SIGNING_KEY")
        result, output = cli("run", "memory", "--dataset", str(data), "--offline", "--out", str(out))
        assert result.exit_code == 0, output
        ids["unsigned"] = run_id_of(output)
    return out, ids


@pytest.fixture(params=["signed", "unsigned"])
def kind(request, monkeypatch):
    if request.param == "signed":
        monkeypatch.setenv("ASSAY_SIGNING_KEY", KEY)
    else:
        monkeypatch.delenv("ASSAY_SIGNING_KEY", raising=False)
    return request.param


@pytest.fixture
def store(finished, tmp_path):
    """A private copy of the whole store (pool, call stores and both runs)."""
    out, _ = finished
    copy = tmp_path / "store"
    shutil.copytree(out, copy)
    return copy


def forge(run_dir: Path) -> list[str]:
    """Overwrite every object and the published report with other bytes; the manifest stays."""
    forged = []
    for path in sorted((run_dir / "objects").rglob("*")):
        if path.is_file():
            path.unlink()  # a hard link to the pool: replace the name, as an editor does
            path.write_bytes(b'{"forged": true}\n')
            forged.append(path.relative_to(run_dir).as_posix())
    (run_dir / "report.html").write_text("<p>forged</p>", encoding="utf-8")
    return [*forged, "report.html"]


def test_an_unmodified_copy_beside_the_run_and_a_moved_run_pass(finished, store, tmp_path, kind):
    _, ids = finished
    run_id = ids[kind]
    shutil.copytree(store / run_id, store / f"copy-{run_id}")
    moved = tmp_path / "elsewhere" / "renamed"  # no pool, no sibling runs, another name
    shutil.copytree(store / run_id, moved)
    shutil.rmtree(store / run_id)  # the original is gone: nothing can be read from it
    for where, name in ((ArtifactStore(str(store)), f"copy-{run_id}"), (ArtifactStore(str(moved.parent)), "renamed")):
        plain, deep = audit_run(where, name), audit_deep(where, name)
        assert plain.ok and deep.ok, "\n".join(plain.lines() + deep.lines())
        assert not plain.missing
        assert any(f"directory {name} holds run {run_id}" in note for note in plain.notices)
        if kind == "signed":
            assert "signature verified" in plain.notices
        assert f"run:       {name}" in show_run(where, name)
        case = RunReader(where, name).jsonl("scores/all.jsonl")[0]["case_id"]
        assert any(line.startswith("score ") for line in trace_case(where, name, case))
    assert load_run(moved).summary is not None
    assert {row.run_id: row.problem for row in list_runs(ArtifactStore(str(moved.parent)))} == {"renamed": ""}


def test_a_forged_copy_beside_the_run_fails_naming_every_forged_file(finished, store, kind):
    _, ids = finished
    run_id = ids[kind]
    copy = store / f"copy-{run_id}"
    shutil.copytree(store / run_id, copy)
    forged = forge(copy)
    where = ArtifactStore(str(store))
    for result in (audit_run(where, copy.name), audit_deep(where, copy.name)):
        assert not result.ok
        named = {line.rsplit("(", 1)[-1].rstrip(")") for line in result.tampered}
        assert named == set(forged), "\n".join(result.lines())
        assert not result.missing
    assert audit_run(where, run_id).ok  # the original is untouched and still passes

    result, output = cli("audit", str(copy), "--deep")
    assert result.exit_code == 1 and "audit FAILED" in output and "report.html" in output
    with pytest.raises(RunIntegrityError):
        load_run(copy)
    with pytest.raises(RunIntegrityError):
        show_run(where, copy.name)
    result, output = cli("compare", str(store / run_id), str(copy))
    assert result.exit_code == 1 and "no longer matches" in output
    rows = {row.run_id: row.problem for row in list_runs(where)}
    assert rows[copy.name].startswith("edited") and rows[run_id] == ""


def test_calibrating_a_copy_amends_the_copy_and_leaves_the_original_alone(finished, store, tmp_path, kind):
    _, ids = finished
    run_id = ids[kind]
    copy = store / f"copy-{run_id}"
    shutil.copytree(store / run_id, copy)
    original = (store / run_id / "manifest.json").read_bytes()
    scores = RunReader(ArtifactStore(str(store)), copy.name).jsonl("scores/all.jsonl")
    metric = next(r["metric"] for r in scores if r.get("judge"))
    labels = tmp_path / "people.csv"
    labels.write_text("case_id,metric,score\n" + "".join(
        f"{r['case_id']},{metric},{round(r['value'])}\n"
        for r in scores if r["metric"] == metric and r.get("judge") is None and r["value"] is not None), encoding="utf-8")
    result, output = cli("calibrate", str(copy), "--labels", str(labels))
    assert result.exit_code == 0, output
    assert (store / run_id / "manifest.json").read_bytes() == original  # nothing written into the original
    assert (copy / "calibration.json").is_file() and not (store / run_id / "calibration.json").exists()
    where = ArtifactStore(str(store))
    assert audit_run(where, copy.name).ok and audit_run(where, run_id).ok
