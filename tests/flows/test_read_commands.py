"""Every `assay` command on broken input answers in one line, never with a traceback.

The commands are enumerated from the Typer app, so a command added later is covered without
editing this file: each of its required parameters gets every broken value in turn (the
others a good one), each optional file option every broken file, each number option a word.
Broken inputs: a missing run, damaged copies of a real run (a file its manifest lists deleted,
a manifest that is empty, garbage, the wrong JSON type or has fields of the wrong type, objects
gone, an edited scores table), and empty, garbage and wrongly-typed files.
"""

from __future__ import annotations

import json
import shutil
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from assay.cli import app
from tests.support.cli import cli, run_id_of

# Commands that start a run: a rerun is never given a good run (it would run it again), and a
# run only gets broken values its preflight refuses (a number out of range might run the flow).
FLOW_COMMANDS = {"rerun"}
STARTS_RUNS = {"run", "rerun"}
WRITTEN = {("run", "out"), ("run", "junit"), ("import", "out")}  # outputs: written, not read


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def two_runs(prefect_server, bundled_rag_qa, tmp_path_factory) -> tuple[Path, str, str]:
    """A run of the bundled rag_qa data and one of six of its cases under other ids (x001…)."""
    out = tmp_path_factory.mktemp("runs")
    other = tmp_path_factory.mktemp("data") / "other"
    other.mkdir()
    shutil.copytree(bundled_rag_qa / "kb", other / "kb")
    cases = read_jsonl(bundled_rag_qa / "cases.jsonl")[:6]
    gens = {g["case_id"]: g for g in read_jsonl(bundled_rag_qa / "generations.jsonl")}
    write_jsonl(other / "generations.jsonl", [{**gens[c["id"]], "case_id": "x" + c["id"]} for c in cases])
    write_jsonl(other / "cases.jsonl", [{**c, "id": "x" + c["id"]} for c in cases])
    ids = []
    for dataset in (bundled_rag_qa, other):
        result, output = cli("run", "rag_qa", "--offline", "--out", str(out), "--dataset", str(dataset))
        assert result.exit_code == 0, output
        ids.append(run_id_of(output))
    return out, ids[0], ids[1]


def _artifact_path(run_dir: Path, name: str) -> Path:
    return run_dir / json.loads((run_dir / "manifest.json").read_text())["artifacts"][name]["path"]


# Damage that leaves the manifest (and so the recorded spec) intact: `assay rerun` may run such a
# run again, which is right, so this test gives rerun only the others.
MANIFEST_INTACT = {"summary deleted", "objects deleted", "scores edited"}
DAMAGES: dict[str, Callable[[Path], None]] = {
    "summary deleted": lambda d: _artifact_path(d, "summary.json").unlink(),
    "objects deleted": lambda d: shutil.rmtree(d / "objects"),
    "manifest empty": lambda d: (d / "manifest.json").write_bytes(b""),
    "manifest garbage": lambda d: (d / "manifest.json").write_bytes(b"\x00\xff{{not json"),
    "manifest a list": lambda d: (d / "manifest.json").write_text("[1, 2]"),
    "manifest wrong types": lambda d: (d / "manifest.json").write_text('{"run_id": 5, "artifacts": "x", "steps": 3}'),
    "manifest deleted": lambda d: (d / "manifest.json").unlink(),
    "scores edited": lambda d: (d / "scores.parquet").write_bytes(b"PAR1 garbage"),
}


def damaged_copy(out: Path, run_id: str, kind: str, root: Path) -> Path:
    """A copy of the run, damaged so, in a store of its own (same run id, so only the damage differs)."""
    run_dir = root / kind.replace(" ", "-") / run_id
    shutil.copytree(out / run_id, run_dir)
    DAMAGES[kind](run_dir)
    return run_dir


@pytest.fixture(scope="module")
def broken(two_runs, tmp_path_factory) -> dict[str, list[str]]:
    """Broken values: runs (missing or damaged) and files (empty, garbage, wrong types)."""
    out, run_a, _ = two_runs
    root = tmp_path_factory.mktemp("broken")
    runs = [str(root / "no-such-run")] + [str(damaged_copy(out, run_a, kind, root)) for kind in DAMAGES]
    rerunnable = {str(root / kind.replace(" ", "-") / run_a) for kind in MANIFEST_INTACT}
    files = {
        "empty.csv": b"", "empty.json": b"", "garbage.csv": b"\x00\xff\xfe,\"unclosed\n\x01",
        "garbage.jsonl": b"{not json\n\xff\n", "list-of-numbers.json": b"[1, 2, 3]", "object.json": b'{"a": {"b": null}}',
        "wrong-types.jsonl": b'{"question": 5, "answer": [1], "contexts": {"x": 1}}\n[]\n',
        "wrong-types.csv": b"case_id,metric,score\nq001,accuracy,high\n,,\n",
        "list.yaml": b"- 1\n- 2\n", "garbage.yaml": b"k: [unclosed\n\t: x", "garbage.parquet": b"PAR1\x00garbage",
    }
    for name, data in files.items():
        (root / name).write_bytes(data)
    file_values = [str(root / "no-such-file.csv")] + [str(root / name) for name in files]
    return {"run": runs + file_values, "file": file_values,
            "not rerunnable": [v for v in runs + file_values if v not in rerunnable]}


def leaf_commands(group: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command of the app (Typer vendors its own click: duck-typed, not isinstance)."""
    for name, command in sorted(group.commands.items()):
        if hasattr(command, "commands"):
            yield from leaf_commands(command, (*prefix, name))
        else:
            yield (*prefix, name), command


def _annotation(command: Any, param: Any) -> str:
    """The parameter's type as the command's function declares it, e.g. 'pathlib.Path | None'."""
    return str(typing.get_type_hints(command.callback).get(param.name, ""))


def _is_path(command: Any, param: Any) -> bool:
    return "Path" in _annotation(command, param) or param.name in {"labels", "file", "config"}


def _is_number(command: Any, param: Any) -> bool:
    hint = typing.get_type_hints(command.callback).get(param.name)
    return bool({int, float} & set(typing.get_args(hint) or (hint,)))


def _flag(param: Any) -> str:
    return max(param.opts, key=len)


def invocations(two_runs, broken, tmp_path) -> Iterator[tuple[str, list[str]]]:
    """(label, argv) for every command with its inputs broken one at a time."""
    out, run_a, run_b = two_runs
    fresh = iter(tmp_path / f"fresh-{n}" for n in range(10_000))
    labels = tmp_path / "labels.csv"
    labels.write_text("case_id,metric,score\nq001,accuracy,5\nq002,accuracy,4\n", encoding="utf-8")
    good: dict[str, Callable[[], str]] = {
        "suite": lambda: "rag_qa", "run_id": lambda: str(out / run_a), "run_a": lambda: str(out / run_a),
        "run_b": lambda: str(out / run_a), "case": lambda: "q001", "labels": lambda: str(labels),
        "file": lambda: str(labels), "out": lambda: str(next(fresh)),
    }
    for path, command in leaf_commands(typer.main.get_command(app)):
        required = [p for p in command.params if p.required]
        name = " ".join(path)

        def argv(values: dict[str, str], extra: list[str] = (), command=command, path=path, required=required) -> list[str]:
            args = list(path)
            for param in required:
                value = values[param.name]
                args += [value] if param.param_type_name == "argument" else [_flag(param), value]
            return args + list(extra)

        def good_values(command_name: str = name, required=required) -> dict[str, str]:
            return {p.name: (broken["run"][0] if command_name in FLOW_COMMANDS or p.name not in good
                             else good[p.name]()) for p in required}

        if not required:
            yield name, argv({})
        for param in required:
            pool = broken["file"] if _is_path(command, param) else broken["run"]
            if name in FLOW_COMMANDS:
                pool = [v for v in pool if v in broken["not rerunnable"]]
            for value in pool:
                yield f"{name} {param.name}={value}", argv({**good_values(), param.name: value})
        for param in command.params:
            if param.param_type_name != "option" or param.required or param.is_flag:
                continue
            if _is_path(command, param) and (name, param.name) not in WRITTEN:
                # an empty --config is an empty configuration: `run` would run, which is right
                files = [v for v in broken["file"] if name not in STARTS_RUNS or not Path(v).name.startswith("empty")]
                for value in files + ([] if name in STARTS_RUNS else broken["run"][1:2]):
                    yield f"{name} {_flag(param)} {value}", argv(good_values(), [_flag(param), value])
            elif _is_number(command, param):
                for value in ["many"] + ([] if name in STARTS_RUNS else ["0", "-1", "nan", "1e999"]):
                    yield f"{name} {_flag(param)} {value}", argv(good_values(), [_flag(param), value])


def test_every_command_answers_broken_input_without_a_traceback(two_runs, broken, tmp_path, monkeypatch):
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect-home"))  # `server stop` stops nothing of others
    monkeypatch.chdir(tmp_path)  # a default --out (runs/) is this test's
    seen, failures = set(), []
    for label, args in invocations(two_runs, broken, tmp_path):
        seen.add(label.split(" ")[0] if not label.startswith("server") else " ".join(label.split(" ")[:2]))
        result, output = cli(*args)
        crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
        if crashed or "Traceback" in output or result.exit_code not in (0, 1, 2):
            failures.append(f"{label}: exit {result.exit_code}, {type(result.exception).__name__}: "
                            f"{str(result.exception)[:200] or output[-300:]}")
    assert not failures, "\n".join(failures)
    # discovery is not vacuous: the commands the README documents are among those invoked
    assert {"run", "rerun", "audit", "lineage", "compare", "runs", "show", "import", "calibrate", "suites",
            "server status", "server stop"} <= seen


def test_compare_of_runs_that_share_no_case_says_so(two_runs):
    out, run_a, run_b = two_runs
    result, output = cli("compare", run_a, run_b, "--out", str(out))
    assert result.exit_code == 1, output
    assert not isinstance(result.exception, TypeError)
    assert f"runs {run_a} and {run_b} share no case id" in output
    assert "nothing to compare" in output and "e.g. q001" in output and "e.g. xq001" in output


def test_runs_lists_a_damaged_run_as_damaged_and_the_rest_of_the_store(two_runs, tmp_path):
    out, run_a, run_b = two_runs
    store = tmp_path / "store"
    shutil.copytree(out, store, ignore=shutil.ignore_patterns(".assay"))
    _artifact_path(store / run_a, "summary.json").unlink()
    (store / "garbled").mkdir()
    (store / "garbled" / "manifest.json").write_text("[1, 2]")
    result, output = cli("runs", "--out", str(store))
    assert result.exit_code == 0, output
    rows = {line.split()[0]: line for line in output.splitlines()[1:]}
    assert set(rows) == {run_a, run_b, "garbled"}
    assert "completed" in rows[run_b] and "reciprocal_rank" in rows[run_b]
    assert " damaged " in rows[run_a] and "summary.json" in rows[run_a] and "missing" in rows[run_a]
    assert " damaged " in rows["garbled"] and "manifest.json holds a list" in rows["garbled"]


def test_compare_and_show_name_the_missing_file_of_a_damaged_run(two_runs, tmp_path):
    out, run_a, _ = two_runs
    damaged = damaged_copy(out, run_a, "summary deleted", tmp_path)
    for args in (("compare", str(damaged), str(damaged)), ("show", str(damaged))):
        result, output = cli(*args)
        assert result.exit_code == 1, output
        assert f"run {run_a} is damaged: summary.json" in output and "is missing" in output
        assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1, output


def test_the_python_api_names_the_missing_file_of_a_damaged_run(two_runs, tmp_path):
    from assay.api import DamagedRun, Run
    from assay.lineage.manifest import load_manifest
    from assay.lineage.store import ArtifactStore

    out, run_a, _ = two_runs
    damaged = damaged_copy(out, run_a, "summary deleted", tmp_path)
    run = Run(run_dir=damaged, manifest=load_manifest(ArtifactStore(str(damaged.parent)), run_a))
    with pytest.raises(DamagedRun, match=f"run {run_a} is damaged: summary.json .* is missing"):
        run.summary  # noqa: B018 - reading it is the point
