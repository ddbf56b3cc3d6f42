"""The offline jury's feedback is written wholly in the run's language (issue 35): English and
Korean answers of the dev sets, judged by every offline judge (with and without the fitted stage)
for every prompt, with ``lang="ko"`` and ``lang="en"``, checked by ``tests/support/feedback_script``
(no Hangul outside quotes in English feedback; no Latin-script words in Korean feedback that the
judged input does not hold, but the judges' names, unit symbols and the verdict's own labels).
The clinical drug table is English reference data its feedback quotes (class, source, note), so
for clinical rows its text counts as quoted too (``test_the_drug_table_is_quoted_in_english``
marks that gap).

The rows are the dev sets' (``bench/heldout/en1``, ``endev``, ``en3`` and ``v2``-``v15``), never
the blind ones.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import get_args

import pytest
from pydantic import BaseModel

from assay.judges.offline import OFFLINE_JUDGES
from assay.judges.offline.messages import catalogue, render
from assay.judges.offline.suite_rules import fitted_stages
from assay.judges.prompts import get_prompt
from tests.support.feedback_script import HANGUL, foreign_in_english, foreign_in_korean, plain

ROOT = Path(__file__).resolve().parents[4]
HELDOUT = ROOT / "bench" / "heldout"
DEV_SETS = ("en1", "endev", "en3", *(f"v{n}" for n in range(2, 16)))
ROWS_PER_FILE = 12  # the first rows of each dev file: every prompt, English and Korean answers

# an enum label or a key (PERFECT, RELATED_BUT_WRONG, citation_inaccuracy): a code, not a sentence
CODE = re.compile(r"^(?:[A-Z][A-Z_]*|[a-z]+(?:_[a-z]+)+)$")


def dev_rows() -> list[tuple[str, str, dict]]:
    rows = []
    for name in DEV_SETS:
        for path in sorted((HELDOUT / name).rglob("*.jsonl")):
            lines = path.read_text(encoding="utf-8").splitlines()[:ROWS_PER_FILE]
            for number, line in enumerate(lines, 1):
                row = json.loads(line)
                if isinstance(row, dict) and "prompt_id" in row and "input" in row:
                    rows.append((f"{path.relative_to(ROOT)}#{row.get('id', number)}", row["prompt_id"], row["input"]))
    return rows


ROWS = dev_rows()
JUDGES = [cls(fitted=fitted) for cls in OFFLINE_JUDGES for fitted in (True, False)]


def texts(value: object) -> list[str]:
    """Every string in a verdict or an input (nested lists and objects too)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in texts(v)]
    if isinstance(value, list | tuple):
        return [t for v in value for t in texts(v)]
    return []


def written(verdict: dict) -> list[str]:
    """The verdict's free text (its labels are codes, not feedback)."""
    return [t for t in texts(verdict) if not CODE.match(t)]


@cache
def labels(prompt_id: str) -> frozenset[str]:
    """The values of the verdict's label fields (``Literal``, in nested cases too): codes the
    feedback may name."""
    return frozenset(label.lower() for label in _labels(get_prompt(prompt_id).verdict_model))


def _labels(annotation: object) -> set[str]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {label for field in annotation.model_fields.values() for label in _labels(field.annotation)}
    return {a for a in get_args(annotation) if isinstance(a, str)} | {
        label for a in get_args(annotation) if not isinstance(a, str) for label in _labels(a)
    }


@cache
def drug_table_text() -> str:
    return plain((ROOT / "assay" / "suites" / "clinical" / "rules" / "drug_interactions.yaml").read_text(encoding="utf-8"))


@cache
def verdicts(index: int) -> list[tuple[str, dict, dict]]:
    """(judge, Korean-run verdict, English-run verdict) of one dev row."""
    _, prompt_id, item = ROWS[index]
    out = []
    for judge in JUDGES:
        pair = [judge.judge_sync(prompt_id, item, case_id="-", lang=lang) for lang in ("ko", "en")]
        assert all(r.verdict is not None for r in pair), [r.error for r in pair]
        out.append((f"{judge.name}{'' if judge.fitted else '-rules'}", pair[0].verdict, pair[1].verdict))
    return out


def test_the_dev_rows_hold_english_and_korean_answers_of_every_prompt():
    prompts = {prompt for _, prompt, _ in ROWS}
    assert prompts >= {"rag_answer", "memory_usefulness", "agent_intent", "clinical_answer", "report_relevance"}
    answers = [item.get("generated_answer", "") for _, prompt, item in ROWS if prompt == "rag_answer"]
    assert sum(1 for a in answers if a and not HANGUL.search(a)) >= 20
    assert sum(1 for a in answers if HANGUL.search(a)) >= 20


@pytest.mark.parametrize("index", range(len(ROWS)), ids=[key for key, _, _ in ROWS])
def test_feedback_is_written_in_the_run_language(index):
    key, prompt_id, item = ROWS[index]
    source = plain(" ".join(texts(item)))
    if prompt_id == "clinical_answer":
        source += " " + drug_table_text()
    for judge, ko, en in verdicts(index):
        assert {k: v for k, v in ko.items() if not texts(v)} == {k: v for k, v in en.items() if not texts(v)}
        for text in written(en):
            assert not foreign_in_english(text, source), (key, judge, text)
        for text in written(ko):
            foreign = foreign_in_korean(text, source, labels(prompt_id))
            assert not foreign, (key, judge, foreign, text)


# -- the cases that were English in a Korean run, one by one ---------------------------------------


def feedback(item: dict, lang: str) -> str:
    return OFFLINE_JUDGES[0](fitted=False).verdict("rag_answer", item, lang=lang)["feedback"]


@pytest.mark.parametrize(
    ("answer", "reference", "question"),
    [
        ("Yes, it can.", "No, opened software cannot be returned.", "Can opened software be returned?"),
        ("Opened software can be returned.", "Opened software cannot be returned.", "Can software be returned?"),
        ("The hut is run by a warden.", "Johanna Stein runs the hut.", "Who runs the hut?"),
    ],
    ids=["particle", "clause", "no-name"],
)
def test_an_english_answer_is_explained_in_korean_for_a_korean_run(answer, reference, question):
    item = {"question": question, "generated_answer": answer, "reference_answer": reference, "contexts": []}
    korean, english = feedback(item, "ko"), feedback(item, "en")
    assert not foreign_in_korean(korean, plain(f"{question} {answer} {reference}")), korean
    assert HANGUL.search(korean) and not foreign_in_english(english, "")


# a patient record, a question and an answer reaching one value the clinical rules once wrote in
# English, and the words the Korean and the English feedback say it with
CLINICAL_CASES = {
    "contraindication": ("나이: 60\n진단: 만성 콩팥병\n검사: eGFR 45", "허리가 아파요. 진통제 뭐 먹어요?",
                         "이부프로펜을 드시면 됩니다.", "콩팥병에 소염진통제: 이부프로펜", "an NSAID with kidney disease"),
    "contraindication-omits": ("나이: 60\n진단: 고혈압\n복용약: 암로디핀 5mg", "가슴이 아파요. 어떻게 해요?",
                               "따뜻한 물을 드시고 푹 쉬세요.", "흉통에 응급 진료 안내 없음: 규칙이 요구하는 안내가",
                               "chest pain not sent to urgent care: the answer never gives"),
    "status": ("나이: 50\n진단: 통풍\n검사: uric_acid 7.8", "통풍약을 먹어야 하나요?", "요산 수치는 정상입니다.",
               "기록: 요산 수치 7.8(높음)", "record: “uric acid 7.8 (high)”"),
    "sex": ("나이: 50\n성별: 여\n진단: 고혈압", "혈압약 먹어도 되나요?", "남성이시므로 혈압약을 드셔도 됩니다.",
            "기록: 여성", "record: “female”"),
    "no-medication": ("나이: 50\n진단: 고혈압", "혈압이 높아요. 어떻게 해요?", "지금 복용 중인 암로디핀을 계속 드세요.",
                      "기록: 없음", "record: “none”"),
}


@pytest.mark.parametrize("case", CLINICAL_CASES.values(), ids=CLINICAL_CASES.keys())
def test_the_clinical_records_values_and_rules_are_written_in_the_run_language(case):
    patient, question, answer, korean_words, english_words = case
    item = {"patient": patient, "dialogue": [], "question": question, "answer": answer}
    source = plain(" ".join(texts(item))) + " " + drug_table_text()
    for judge in JUDGES:
        ko, en = (judge.judge_sync("clinical_answer", item, case_id="-", lang=lang).verdict for lang in ("ko", "en"))
        for text in written(ko):
            assert not foreign_in_korean(text, source, labels("clinical_answer")), (judge.name, text)
        for text in written(en):
            assert not foreign_in_english(text, source), (judge.name, text)
        assert korean_words in ko["reasoning"] and english_words in en["reasoning"], (judge.name, ko, en)


def test_every_contraindication_rule_has_its_name_in_every_catalogue():
    from assay.suites.clinical.formulas.rules import load_rules

    for rule in load_rules().contraindications.rules:
        key = f"contraindication.{rule.id}"
        assert key in catalogue("ko") and key in catalogue("en"), rule.id
        assert HANGUL.search(catalogue("ko")[key]) and not re.search(r"[A-Za-z]", catalogue("ko")[key]), rule.id


def test_every_signal_of_every_shipped_forest_has_its_name_in_every_catalogue():
    from assay.judges.offline.fitted import signal_name

    for stage in fitted_stages().values():
        forests = json.loads(stage.model_path.read_text(encoding="utf-8"))["judges"]
        features = {f for forest in forests.values() for f in forest["features"]}
        for feature in sorted(features):
            for lang in ("ko", "en"):
                assert render(signal_name(feature), lang), (stage.prompt_id, feature)
            assert not re.search(r"[A-Za-z]{2}", render(signal_name(feature), "ko").replace("rule", "")), feature


def test_the_catalogues_name_every_claim_check():
    source = (ROOT / "assay" / "judges" / "offline" / "claims.py").read_text(encoding="utf-8")
    rules = set(re.findall(r"(?:Finding|_relabelled)\(\s*\"([a-z-]+)\"", source))
    assert rules
    for rule in rules:
        key = f"finding.{rule.replace('-', '_')}"
        assert key in catalogue("ko") and key in catalogue("en"), rule
        assert HANGUL.search(catalogue("ko")[key]), rule


@pytest.mark.xfail(strict=True, reason="the drug table's classes, sources and notes are English data (no Korean forms yet)")
def test_the_drug_table_is_quoted_in_english():
    patient = "진단명: 페니실린 알레르기\n알레르기: 페니실린(두드러기)"
    item = {"patient": patient, "dialogue": [], "question": "목이 아파요. 무슨 항생제 먹으면 돼요?",
            "answer": "아목시실린을 드시면 됩니다."}
    reasoning = OFFLINE_JUDGES[0](fitted=False).verdict("clinical_answer", item, lang="ko")["reasoning"]
    assert "drug_table" in reasoning  # the table's rule answered this case
    assert not foreign_in_korean(reasoning, plain(" ".join(texts(item)))), reasoning


def test_a_contraindication_rule_without_a_catalogue_name_is_named_by_its_id():
    # a rule added to contraindications.yaml before anyone names it in the catalogues
    from assay.suites.clinical.formulas.checks import RuleCheck
    from assay.suites.clinical.offline.record_lines import _violation

    check = RuleCheck(id="a_new_rule", weight=1.0, applicable=True, violated=True, matches=["이부프로펜을 드세요"])
    for lang in ("ko", "en"):
        assert render(_violation(check), lang).startswith("a_new_rule: ")
