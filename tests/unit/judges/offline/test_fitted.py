"""The offline judges' fitted stages (rag_answer, memory_usefulness): the plain-Python forest
reproduces scikit-learn's, its file is checked as it is read, and the jury's verdicts go through
it (the rules' verdict and evidence stay in the feedback)."""

from __future__ import annotations

import json
import random

import pytest

from assay.judges.ensemble import aggregate_scores
from assay.judges.offline import LexicalJudge, fitted, offline_jury, suite_rules
from assay.judges.offline.forest import Forest, ForestFormatError
from assay.judges.prompts import get_prompt
from bench.fit_forest import PARAMS, fit_forest

STAGES = suite_rules.fitted_stages()

RAG = get_prompt("rag_answer")
MEMORY = get_prompt("memory_usefulness")
REF = "주말 요금은 1시간에 12,000원이며, 회원은 10% 할인됩니다."
QUESTION = "주말 요금은 얼마예요?"


def _rows(n: int, seed: int) -> list[tuple[dict[str, float], list[float]]]:
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        x = {"a": rng.random(), "b": rng.random(), "c": float(rng.random() < 0.3)}
        rows.append((x, [1 + 4 * x["a"] * (1 - x["c"]), 1 + 2 * x["b"] + x["c"], 3.0 + x["a"] - x["b"]]))
    return rows


def test_the_plain_python_forest_predicts_what_scikit_learn_does():
    from sklearn.ensemble import RandomForestRegressor

    rows = _rows(300, seed=1)
    forest = Forest.from_json(json.loads(json.dumps(fit_forest(rows, ("x", "y", "z")))))
    names = forest.features
    model = RandomForestRegressor(**PARAMS).fit([[x[k] for k in names] for x, _ in rows], [y for _, y in rows])
    for x, _ in _rows(50, seed=2):
        expected = model.predict([[x[k] for k in names]])[0]
        assert forest.predict(x) == pytest.approx(tuple(expected), abs=1e-4)  # values stored to 5 places
        for output in range(3):
            explained = forest.explain(x, output)
            assert explained.prediction == pytest.approx(tuple(expected), abs=1e-4)
            # the forest's mean and the contributions add up to the explained output's prediction
            total = explained.bias + sum(explained.contributions.values())
            assert total == pytest.approx(explained.prediction[output], abs=1e-9)
            assert set(explained.contributions) <= set(names)


@pytest.mark.parametrize(
    "broken, problem",
    [
        ({"features": ["a"], "outputs": ["y"], "trees": []}, "no trees"),
        ({"features": ["a"], "outputs": ["y"], "trees": [{"feature": [0, -1, -1], "threshold": [0.5, 0, 0],
          "left": [1, -1, -1], "right": [5, -1, -1], "value": [[1], [1], [2]]}]}, "outside the tree"),
        ({"features": ["a"], "outputs": ["y"], "trees": [{"feature": [3, -1, -1], "threshold": [0.5, 0, 0],
          "left": [1, -1, -1], "right": [2, -1, -1], "value": [[1], [1], [2]]}]}, "outside the tree"),
        ({"features": ["a"], "outputs": ["y"], "trees": [{"feature": [-1], "threshold": [0],
          "left": [-1], "right": [-1], "value": [[1, 2]]}]}, "values for 1 outputs"),
        ({"features": ["a"], "outputs": ["y"], "trees": [{"feature": [-1, -1], "threshold": [0],
          "left": [-1], "right": [-1], "value": [[1]]}]}, "differ in length"),
        ({"outputs": ["y"], "trees": []}, "features"),
    ],
)
def test_a_malformed_forest_file_is_refused_with_its_problem(broken, problem):
    with pytest.raises(ForestFormatError, match=problem):
        Forest.from_json(broken)


SAMPLE = {
    "rag_answer": {"question": QUESTION, "generated_answer": "주말엔 한 시간에 12,000원이에요.", "reference_answer": REF},
    "memory_usefulness": {"query": "다음 레슨은 언제야?", "memory": "기타 레슨: 매주 화요일 저녁 7시.", "entities": []},
}


@pytest.mark.parametrize("prompt_id", sorted(STAGES))
def test_the_stored_forests_read_only_features_the_rules_produce(prompt_id):
    stage = STAGES[prompt_id]
    judge = LexicalJudge(fitted=False)
    verdict, signals = getattr(judge.rule_set(stage.prompt_id), stage.rule_verdict)(get_prompt(prompt_id).coerce_input(SAMPLE[prompt_id]))
    signal_names = set(stage.features(verdict, None)) | set(stage.features(verdict, signals))
    for signal in ("lexical", "ngram", "numeric"):
        forest = fitted.forest_for(stage, signal)
        assert forest.outputs == stage.fields
        unknown = {f for f in forest.features if f not in signal_names and not f.startswith("finding ")}
        assert not unknown, f"the {signal} forest reads features the rules no longer produce: {unknown}"


def test_the_jury_scores_rag_answers_through_the_fitted_stage_and_keeps_the_rules_evidence():
    item = {"question": QUESTION, "generated_answer": "주말에는 한 시간에 12,000원이고 회원은 10% 깎아 줘요.",
            "reference_answer": REF}
    rules = [j.verdict(RAG, item) for j in offline_jury(fitted=False)]
    final = [j.verdict(RAG, item) for j in offline_jury()]
    for before, after in zip(rules, final, strict=True):
        assert after["feedback"].startswith(before["feedback"])  # the rules' evidence, then the stage's note
        assert "학습된 판정" in after["feedback"] and "규칙 점수" in after["feedback"]
        assert all(1 <= after[f] <= 5 for f in ("accuracy", "completeness", "relevance"))
    assert min(v["accuracy"] for v in final) >= 4  # a right answer stays right
    wrong = dict(item, generated_answer="주말에는 한 시간에 15,000원이고 회원은 10% 깎아 줘요.")
    assert max(j.verdict(RAG, wrong)["accuracy"] for j in offline_jury()) <= 2.5


def test_the_negation_probe_stays_caught_after_the_fitted_stage():
    probe = f"다음은 사실이 아닙니다: {REF} 위 내용은 모두 틀렸습니다."
    item = {"question": QUESTION, "generated_answer": probe, "reference_answer": REF}
    assert max(j.verdict(RAG, item)["accuracy"] for j in offline_jury()) <= 2


def test_the_jury_scores_memories_through_the_fitted_stage_and_keeps_the_rules_accuracy():
    answering = {"query": "욕실 타일 시공 날짜 언제로 잡았지?", "memory": "욕실 타일 시공: 2027-03-08~03-10, 시공사 바른집.",
                 "entities": ["욕실 타일"]}  # fmt: skip
    unrelated = {"query": "욕실 타일 시공 날짜 언제로 잡았지?", "memory": "고양이 사료: 로얄캐닌 인도어 2kg, 매달 5일 주문.",
                 "entities": ["고양이 사료"]}  # fmt: skip
    for item in (answering, unrelated):
        rules = [j.verdict(MEMORY, item) for j in offline_jury(fitted=False)]
        final = [j.verdict(MEMORY, item) for j in offline_jury()]
        for before, after in zip(rules, final, strict=True):
            assert after["reasoning"].startswith(before["reasoning"]) and "학습된 판정" in after["reasoning"]
            assert after["accuracy"] == before["accuracy"]  # accuracy stays the rules'
            assert all(0 <= after[f] <= 10 for f in ("relevance", "completeness", "noise"))
            assert after["summary"] == ("쿼리에 유용한 메모리" if after["relevance"] >= 7 else after["summary"])
    assert min(j.verdict(MEMORY, answering)["relevance"] for j in offline_jury()) >= 7
    # the jury still catches the unrelated memory (≤ 3.75 of 10, as bench/jury_agreement.py counts
    # it) and calls most of it noise; one judge alone may not (the ngram rules see a shared syllable)
    jury = offline_jury()
    weights = [j.weight for j in jury]

    def ensemble(field: str) -> float:
        return aggregate_scores([float(j.verdict(MEMORY, unrelated)[field]) for j in jury], weights, scale=(0.0, 10.0))[0]

    assert ensemble("relevance") <= 3.75 and ensemble("completeness") <= 3.75
    assert ensemble("noise") >= 5


def test_an_empty_memory_keeps_the_rubrics_scores():
    item = {"query": "욕실 타일 시공 날짜 언제로 잡았지?", "memory": "", "entities": []}
    for judge in offline_jury():
        verdict = judge.verdict(MEMORY, item)
        assert (verdict["relevance"], verdict["completeness"], verdict["accuracy"], verdict["noise"]) == (0, 0, 5, 0)


def test_rules_only_is_another_judge_version_and_the_forests_are_part_of_their_suites_rules():
    assert LexicalJudge().version != LexicalJudge(fitted=False).version
    for stage in STAGES.values():
        owner = suite_rules.owner(stage.prompt_id)
        # a refitted forest changes its suite's call keys, like an edited rule, and no other suite's
        assert owner is not None and stage in owner.stages
        assert stage.model_path.resolve() in owner.sources()
        assert stage.model_path.resolve().is_relative_to(owner.package)
    assert not {p.name for p in LexicalJudge.rule_files} & {stage.model_path.name for stage in STAGES.values()}
    # a family without a fitted stage does not change with it
    agent = get_prompt("agent_intent")
    item = {"query": "P-236 공고에 차윤서 님 추가해 줘", "assistant_message": "P-236 공고에 차윤서 지원자를 추가했습니다.",
            "expected_result": "P-236 공고에 차윤서 지원자 추가"}  # fmt: skip
    assert LexicalJudge().verdict(agent, item) == LexicalJudge(fitted=False).verdict(agent, item)


def test_the_fitted_stages_are_what_the_suites_declare():
    """The core names no suite: the stages come from the suites' ``SuiteRules(stages=...)``, a
    plugin suite's included, and a suite that declares none has none."""
    assert set(STAGES) == {"rag_answer", "memory_usefulness"}
    assert suite_rules.owner("agent_intent").stages == ()
    rag = STAGES["rag_answer"]
    plugin_stage = fitted.Stage("plugin_answer", "plugin", rag.fields, rag.scale, rag.rule_verdict, rag.features,
                                rag.explained, rag.text_key, rag.model_path)  # fmt: skip
    plugin = suite_rules.SuiteRules(suite_rules.RuleSet, {"plugin_answer": "plugin_answer"}, rag.model_path.parent,
                                    stages=(plugin_stage,))  # fmt: skip
    suite_rules.register(plugin)
    try:
        assert suite_rules.fitted_stages()["plugin_answer"] is plugin_stage
        # the plugin's stage reads its own forest file through the same mechanism
        verdict = {"accuracy": 5, "completeness": 5, "relevance": 5, "feedback": "rules"}
        refined = fitted.refine(plugin_stage, "lexical", verdict, None)
        assert refined == fitted.refine(rag, "lexical", verdict, None) and refined["feedback"] != "rules"
    finally:
        suite_rules._ADDED.remove(plugin)
    assert "plugin_answer" not in suite_rules.fitted_stages()


@pytest.mark.parametrize("prompt_id", sorted(STAGES))
def test_the_stored_forests_are_what_todays_rules_and_labels_fit(prompt_id):
    """A rule change that moves the features, or new labels in the fitted sets, leaves the stored
    forests stale: refit them (``python bench/fit_forest.py --prompt P --last-dev N``)."""
    from bench import fit_forest as fit

    stage = STAGES[prompt_id]
    stored = fitted.model_file(stage)
    last_dev = max(int(name[1:]) for name in stored["fitted_on"]["sets"] if name.startswith("v"))
    per_judge = fit.examples(stage, fit.training_sets(stage, last_dev))
    assert len(next(iter(per_judge.values()))) == stored["fitted_on"]["rows"]
    for signal, rows in per_judge.items():
        refit, kept = Forest.from_json(fit.fit_forest(rows, stage.fields)), fitted.forest_for(stage, signal)
        assert refit.features == kept.features, f"the {signal} rules give other features now: refit"
        for x, _ in rows[::5]:
            assert refit.predict(x) == pytest.approx(kept.predict(x), abs=1e-3), f"stale {signal} forest: refit"
