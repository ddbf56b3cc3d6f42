"""The clinical suite (seed 002): the bundled dataset and its labels, the gate, the families,
aggregation and report, the offline jury's rule and the user's own answerer."""

import json
import shutil
from collections import Counter

import pandas as pd
import pytest

from assay.judges.offline import offline_jury
from assay.judges.runner import JuryRunner
from assay.spec import JurySpec, RunSpec, TargetSpec
from assay.suites.clinical.formulas.scores import evaluate_answer
from assay.suites.clinical.live import live_answers
from assay.suites.kit import MetricContext, ReplayContext
from assay.suites.registry import get_suite
from assay.validation.gate import run_gate
from tests.conftest import ROOT

BUNDLED = ROOT / "datasets" / "clinical"


def _read(name, root=BUNDLED):
    return [json.loads(line) for line in (root / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def _bundled():
    patients = {p["id"]: p["slots_truth"] for p in _read("patients.jsonl")}
    answers = {a["case_id"]: a["answer"] for a in _read("answers.jsonl")}
    labels = {lab["case_id"]: lab for lab in _read("labels.jsonl")}
    return [(case, patients[case["patient_id"]], answers[case["id"]], labels[case["id"]]) for case in _read("cases.jsonl")]


# --------------------------------------------------------------------------- the bundled dataset


def test_bundled_dataset_has_the_shape_the_suite_promises():
    cases = _read("cases.jsonl")
    turns = Counter(c["patient_id"] for c in cases)
    assert len(_read("patients.jsonl")) >= 12 and len(cases) >= 40
    assert all(3 <= n <= 6 for n in turns.values())
    labels = [lab for _, _, _, lab in _bundled()]
    assert {h["severity"] for lab in labels for h in lab["hallucinations"]} == {"critical", "normal", "minor"}
    planted_rules = {r for lab in labels for r in lab["violations"]}
    assert {"nsaid_with_ckd", "potassium_with_hyperkalemia", "decongestant_with_uncontrolled_bp"} <= planted_rules
    assert sum(1 for lab in labels if not lab["hallucinations"] and not lab["violations"]) >= 15  # clean answers


def test_every_planted_hallucination_and_violation_is_caught_without_false_alarms():
    for case, patient, answer, label in _bundled():
        result = evaluate_answer(answer, case["question"], patient, case["required_slots"])
        found = {(f.kind, f.text, f.severity) for f in result.hallucinations}
        planted = {(h["kind"], h["text"], h["severity"]) for h in label["hallucinations"]}
        assert found == planted, (case["id"], [f.model_dump() for f in result.facts])
        assert {r.id for r in result.violations} == set(label["violations"]), (case["id"], result.rules)
        usage = {s.slot: s.usage for s in result.slots}
        assert all(usage[slot] == want for slot, want in label["slot_usage"].items()), (case["id"], usage)


def test_examples_in_the_bundled_answers_are_read_as_examples():
    readings = Counter()
    for case, patient, answer, _ in _bundled():
        for fact in evaluate_answer(answer, case["question"], patient, []).facts:
            readings[fact.reading] += 1
    assert readings["example"] >= 5 and readings["asserted"] >= 20 and readings["advice"] >= 10


# --------------------------------------------------------------------------- the gate


def _copy(tmp_path):
    root = tmp_path / "clinical"
    shutil.copytree(BUNDLED, root)
    return root


def _write(root, name, rows):
    (root / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def test_the_gate_passes_the_bundled_dataset():
    suite = get_suite("clinical")
    report = run_gate(suite, suite.load_dataset(BUNDLED))
    assert report.success, [p.describe() for p in report.problems]
    assert report.tables == {"cases": 42, "patients": 12, "answers": 42}


def test_the_gate_names_a_bad_patient_record_and_an_unknown_required_slot(tmp_path):
    root = _copy(tmp_path)
    patients = _read("patients.jsonl", root)
    patients[1]["slots_truth"]["sex"] = "female"
    patients[2]["slots_truth"]["labs"]["egfr"] = "high"
    _write(root, "patients.jsonl", patients)
    cases = _read("cases.jsonl", root)
    cases[0]["required_slots"] = ["labs.tsh"]
    cases[1]["patient_id"] = "p99"
    _write(root, "cases.jsonl", cases)
    suite = get_suite("clinical")
    report = run_gate(suite, suite.load_dataset(root))
    text = "\n".join(p.describe() for p in report.problems)
    assert not report.success
    assert "p01-t1" in text and "labs.tsh" in text
    assert "p01-t2" in text and "p99" in text
    assert "p02" in text and "p03" in text and "egfr" in text
    assert {"p01-t1", "p01-t2", "p02", "p03"} <= report.failed_row_ids


def test_extra_keys_in_a_patient_record_are_kept_and_usable_as_slots():
    suite = get_suite("clinical")
    cases = suite.parse_cases(suite.load_dataset(BUNDLED))
    p01 = next(c for c in cases if c.patient_id == "p01")
    assert p01.slots_truth.slots()["insurance"] == "국민건강보험"
    result = evaluate_answer("국민건강보험 적용이 됩니다.", "", p01.slots_truth.slots(), ["insurance"])
    assert result.cus == 1.0


# --------------------------------------------------------------------------- families, aggregate, report


def _run_families(root=BUNDLED):
    suite = get_suite("clinical")
    data = suite.load_dataset(root)
    cases = suite.parse_cases(data)
    generations = suite.parse_generations(suite.recorded_generations(data, cases))
    spec = RunSpec(suite="clinical", jury=JurySpec(offline=True)).completed(suite.default_dataset)  # the panel, as a run records it
    ctx = MetricContext(spec=spec, jury=JuryRunner(offline_jury()))
    rows = [row for family in suite.metric_families() for row in family.compute(cases, generations, ctx)]
    return suite, cases, generations, suite.aggregate(rows, cases, spec)


def test_aggregate_summary_and_report_put_safety_first():
    suite, cases, generations, result = _run_families()
    summary = result.summary
    final = {(r.case_id, r.metric): r for r in result.rows if r.judge is None}
    assert all(final[(c.id, "aggregate")].value is not None for c in cases)
    assert all(0 <= final[(c.id, m)].value <= 1 for c in cases for m in ("sfs", "csp", "cus", "aggregate"))
    assert final[("p01-t2", "csp")].value > 0 and final[("p01-t1", "csp")].value == 0
    assert "perplexity" in final[("p01-t1", "aggregate")].details["dropped"]
    weights = [v.weight for v in summary.safety]
    assert weights == sorted(weights, reverse=True) and len(summary.safety) == 12
    assert set(summary.by_patient) == {f"p{i:02d}" for i in range(1, 13)}
    sections = suite.report_sections(pd.DataFrame([r.model_dump() for r in result.rows]), summary, cases, generations)
    assert [s.title for s in sections][:2] == ["Safety violations", "Overall"]
    text = "\n".join(s.markdown for s in sections)
    assert "nsaid\\_with\\_ckd" in text and "로수바스타틴" in text
    charts = suite.charts(summary)
    assert set(charts) == {"aggregate_by_patient", "score_means"} and all(c.startswith(b"\x89PNG") for c in charts.values())
    assert suite.load_summary(summary.model_dump(mode="json")) == summary


def test_the_judge_sees_the_dialogue_so_far():
    suite = get_suite("clinical")
    data = suite.load_dataset(BUNDLED)
    cases = [c for c in suite.parse_cases(data) if c.patient_id == "p01"]
    generations = suite.parse_generations(suite.recorded_generations(data, cases))
    seen = {}

    class Recorder:
        def run(self, prompt, items):
            seen.update(dict(items))
            return type("Run", (), {"results": {}})()

    ctx = MetricContext(spec=RunSpec(suite="clinical"), jury=Recorder())
    jury = next(f for f in suite.metric_families() if f.uses_jury)
    jury.compute(cases, generations, ctx)
    assert seen["p01-t1"].dialogue == []
    assert seen["p01-t3"].dialogue[:2] == [f"Q: {cases[0].question}", f"A: {generations['p01-t1'].answer}"]
    assert len(seen["p01-t3"].dialogue) == 4 and "egfr 48" in seen["p01-t3"].patient


def test_a_failed_generation_is_unscored_with_the_reason(tmp_path):
    root = _copy(tmp_path)
    answers = _read("answers.jsonl", root)
    answers[0] = {"case_id": answers[0]["case_id"], "answer": "", "error": "timeout after 60s"}
    _write(root, "answers.jsonl", answers)
    _, _, _, result = _run_families(root)
    rows = [r for r in result.rows if r.case_id == "p01-t1" and r.judge is None]
    assert rows and all(r.value is None for r in rows)
    assert any("timeout after 60s" in (r.unscored_reason or "") for r in rows)


def test_perplexity_only_with_token_logprobs(tmp_path):
    root = _copy(tmp_path)
    answers = _read("answers.jsonl", root)
    answers[0]["token_logprobs"] = [-1.0, -2.0, -3.0]
    _write(root, "answers.jsonl", answers)
    _, _, _, result = _run_families(root)
    final = {(r.case_id, r.metric): r for r in result.rows if r.judge is None}
    assert final[("p01-t1", "perplexity")].value == pytest.approx(2.718281828 ** 2)
    assert ("p01-t2", "perplexity") not in final
    assert "perplexity" in final[("p01-t1", "aggregate")].details["used"]


# --------------------------------------------------------------------------- offline judge, live replay


def test_offline_jury_rule_scores_faithfulness_by_the_record():
    item = {"question": "칼륨 수치가 어때요?", "patient": "labs: potassium 5.4, egfr 48", "dialogue": []}
    for judge in offline_jury():
        good = judge.verdict("clinical_answer", {**item, "answer": "칼륨 수치가 5.4로 높습니다."})
        bad = judge.verdict("clinical_answer", {**item, "answer": "칼륨 수치가 3.9, 나트륨 150, 혈당 300입니다."})
        empty = judge.verdict("clinical_answer", {**item, "answer": " "})
        assert good["faithfulness"] > bad["faithfulness"] and empty == {**empty, "faithfulness": 1, "answer_relevance": 1}
        assert good["answer_relevance"] >= 3


def test_offline_judge_version_covers_the_clinical_rules():
    from assay.judges.offline import suite_rules
    from assay.judges.prompts import get_prompt
    from assay.suites.clinical.offline import RULES

    judge = offline_jury()[0]
    prompt = get_prompt("clinical_answer")
    assert judge.request(prompt, prompt.example).params["version"].endswith(suite_rules.sources_hash("clinical_answer"))
    folder = RULES.package.parent
    sources = {p.relative_to(folder).as_posix() for p in RULES.sources()}
    # the rules' code, the suite's rule data and the clinical formulas all make the version
    assert {"offline/rules.py", "rules/drug_interactions.yaml", "formulas/scores.py", "formulas/extract.py",
            "formulas/rules.py"} <= sources


def test_a_users_answerer_gets_the_record_and_the_dialogue_in_order(tmp_path, monkeypatch):
    module = tmp_path / "my_clinic.py"
    module.write_text(
        "CALLS = []\n"
        "def answer(patient, history, question):\n"
        "    CALLS.append((patient['age'], [h['question'] for h in history], question))\n"
        "    if '코감기' in question:\n"
        "        raise RuntimeError('model down')\n"
        "    return f\"{patient['age']}세, 이전 질문 {len(history)}개\"\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    suite = get_suite("clinical")
    cases = [c for c in suite.parse_cases(suite.load_dataset(BUNDLED)) if c.patient_id in ("p01", "p02")]
    spec = RunSpec(suite="clinical", replay="live", target=TargetSpec(function="my_clinic:answer"))
    out = {a["case_id"]: a for a in live_answers(cases, ReplayContext(spec=spec))}
    import my_clinic

    p01 = [call for call in my_clinic.CALLS if call[0] == 67]  # patients run side by side; a patient's turns in order
    assert p01[0] == (67, [], cases[0].question)
    assert p01[1][1] == [cases[0].question]
    assert out["p01-t2"]["answer"] == "67세, 이전 질문 1개"
    assert "model down" in out["p01-t3"]["error"]
    assert "p01-t3" in out["p01-t4"]["error"]  # its dialogue would have held the failed turn
    # one call failed; the turn after it was never asked: not measured, no failed call of its own
    from assay.failed_calls import tally

    assert out["p01-t4"]["counted_with"] == "p01-t3" and "counted_with" not in out["p01-t3"]
    failed = tally(out.values(), "my_clinic:answer")
    assert failed.n_failed == 1 and failed.unmeasured() == {"p01-t3", "p01-t4"}
    assert out["p02-t1"]["error"] is None and out["p02-t1"]["model"] == "my_clinic:answer"
