"""docs/adding-a-suite.md is executable: every file it shows is written out, the suite is
registered, and the real flow runs it offline, audited, with unscored rows where due. Adding the
suite touches its folder, its registry entry and one deployment in prefect.yaml, nothing else:
the guide writes no file outside the folder but the dataset, and its prompt and offline rule are
found through the suite registry."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from assay.lineage.audit import audit_run
from assay.lineage.store import ArtifactStore
from assay.paths import project_root
from assay.spec import RunOptions, RunSpec
from assay.suites import registry
from tests.support.cli import cli, run_id_of

GUIDE = project_root() / "docs" / "adding-a-suite.md"
FILE_BLOCK = re.compile(r"<!-- file: (?P<path>[^ ]+) -->\n```[a-z]*\n(?P<body>.*?)```", re.DOTALL)
DEPLOYMENT_BLOCK = re.compile(r"<!-- deployment: prefect.yaml -->\n```yaml\n(?P<body>.*?)```", re.DOTALL)


def write_guide_files(root: Path) -> list[str]:
    written = []
    for match in FILE_BLOCK.finditer(GUIDE.read_text(encoding="utf-8")):
        target = root / match["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(match["body"], encoding="utf-8")
        written.append(match["path"])
    return written


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    root = tmp_path_factory.mktemp("guide")
    written = write_guide_files(root)
    assert {"exact_qa/suite.py", "exact_qa/rules/expectations/cases.json", "data/cases.jsonl"} <= set(written)
    sys.path.insert(0, str(root))
    from exact_qa.suite import ExactQASuite

    registry.register_suite("exact_qa", ExactQASuite)
    yield root
    # the guide's suite, its prompt and its offline rules leave the process with the guide
    from assay.judges.offline import suite_rules
    from assay.judges.prompts import base as prompts

    registry._FACTORIES.pop("exact_qa", None)
    prompts._REGISTRY.pop("short_answer", None)
    suite_rules._ADDED[:] = [r for r in suite_rules._ADDED if "short_answer" not in r.prompts]
    for name in [m for m in sys.modules if m == "exact_qa" or m.startswith("exact_qa.")]:
        del sys.modules[name]
    sys.path.remove(str(root))


def test_adding_the_guide_suite_writes_nothing_outside_its_folder(tmp_path):
    written = write_guide_files(tmp_path)
    outside = [path for path in written if not path.startswith(("exact_qa/", "data/"))]
    assert not outside, f"the guide writes files outside the suite's folder and its dataset: {outside}"
    assert "exact_qa/prompts.py" in written  # its own prompt is in its folder


def test_the_guide_suites_prompt_is_found_through_the_suite_registry(tmp_path):
    """Importing the suite registers no prompt; looking the prompt up finds the one the suite declares."""
    write_guide_files(tmp_path)
    code = (
        f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
        "from assay.judges.prompts import base, get_prompt\n"
        "from assay.suites.registry import register_suite\n"
        "from exact_qa.suite import ExactQASuite\n"
        "print('short_answer' in base._REGISTRY)\n"
        "register_suite('exact_qa', ExactQASuite)\n"
        "print(get_prompt('short_answer') is ExactQASuite.prompts[0])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert done.stdout.split() == ["False", "True"], done.stderr


def test_the_guides_deployment_is_a_valid_nightly_run_of_the_suite(template):
    (block,) = DEPLOYMENT_BLOCK.findall(GUIDE.read_text(encoding="utf-8"))
    (deployment,) = yaml.safe_load(block)
    spec = RunSpec.model_validate(deployment["parameters"]["spec"])
    RunOptions.model_validate(deployment["parameters"].get("options", {}))
    assert spec.suite == "exact_qa" and deployment["name"].startswith("exact_qa-")
    project = yaml.safe_load((project_root() / "prefect.yaml").read_text(encoding="utf-8"))
    assert deployment["entrypoint"] in {d["entrypoint"] for d in project["deployments"]}
    assert deployment["work_pool"] == project["deployments"][0]["work_pool"]


def test_the_guide_suite_runs_end_to_end(prefect_server, template, tmp_path):
    out = tmp_path / "runs"
    result, output = cli("run", "exact_qa", "--dataset", str(template / "data"), "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    run_id = run_id_of(output)
    assert audit_run(ArtifactStore(str(out)), run_id).ok
    scores = pd.read_parquet(out / run_id / "scores.parquet")
    final = scores[scores["judge"].isna()].set_index(["case_id", "metric"])["value"]
    # exact match after whitespace and case folding: q1 and q3 match, "Eight legs." does not
    assert [final[(c, "exact_match")] for c in ("q1", "q2", "q3")] == [1.0, 0.0, 1.0]
    assert final.loc[(slice(None), "accuracy")].between(1, 5).all()  # the offline jury judged every case
    # the suite's own offline rule (aliases.yaml): "Eight legs." is no exact match, but correct
    assert [final[(c, "correct")] for c in ("q1", "q2", "q3")] == [1.0, 1.0, 1.0]
    report = (out / run_id / "report.md").read_text(encoding="utf-8")
    assert "## Misses" in report and "q2" in report and "## Jury" in report


def test_the_guide_suites_offline_rule_reads_its_alias_table(template):
    from exact_qa import offline

    from assay.judges.offline import offline_jury

    judge = offline_jury()[0]
    item = {"question": "How many legs does a spider have?", "answer": "Eight legs.", "expected": "8"}
    assert judge.verdict("short_answer", item)["correct"] == 1
    assert judge.verdict("short_answer", {**item, "answer": "Six legs."})["correct"] == 0
    from assay.judges.offline import suite_rules
    from assay.judges.prompts import get_prompt

    def call_version(prompt_id: str, item: dict) -> str:
        return judge.request(get_prompt(prompt_id), item).params["version"]

    rag = {"question": "q", "generated_answer": "a", "reference_answer": "r", "contexts": []}
    before, rag_before = call_version("short_answer", item), call_version("rag_answer", rag)
    table = template / "exact_qa" / "rules" / "aliases.yaml"
    table.write_text(table.read_text(encoding="utf-8") + "spider: [arachnid]\n", encoding="utf-8")
    offline.aliases.cache_clear()
    suite_rules.forget_hashes()
    assert call_version("short_answer", item) != before  # the alias table is part of its call key
    assert call_version("rag_answer", rag) == rag_before  # and of no other suite's


def test_the_guide_suite_names_a_bad_row_at_the_gate(prefect_server, template, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    lines = (template / "data" / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    lines[1] = json.dumps({"id": "q2", "question": None, "expected": "8"})
    (data / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (data / "generations.jsonl").write_text((template / "data" / "generations.jsonl").read_text(), encoding="utf-8")
    result, output = cli("run", "exact_qa", "--dataset", str(data), "--offline", "--out", str(tmp_path / "runs"))
    assert result.exit_code != 0
    assert "q2" in output and "question" in output
