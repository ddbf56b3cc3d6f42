"""The offline verdicts' feedback is written in the run's language (``messages.py``): the same
rules and scores in Korean and English, quoted text as written, every catalogue with the same keys."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay.judges.offline import offline_jury
from assay.judges.offline.messages import HERE, InEach, catalogue, load_catalogues, render, say
from assay.judges.prompts import get_prompt
from assay.judges.store import request_key

HANGUL = re.compile(r"[\uac00-\ud7a3]")
# Text quoted from the answer, the reference or the record: between “ ” in English feedback,
# or a JSON string (what was set aside before judging).
QUOTED = re.compile(r"“[^”]*”|\"(?:[^\"\\]|\\.)*\"")
TEXT_FIELDS = ("feedback", "reasoning", "summary", "issues", "strengths", "weaknesses", "missing_info",
               "fulfilled_requirements", "missing_requirements", "hallucinations", "unsupported_claims")


def written(verdict: dict) -> str:
    """Every sentence the verdict explains itself with, in one string."""
    parts = []
    for field in TEXT_FIELDS:
        value = verdict.get(field)
        items = value if isinstance(value, list) else [value] if value is not None else []
        for item in items:
            parts.extend([item["location"], item["description"]] if isinstance(item, dict) else [item])
    return " | ".join(parts)


def unquoted(text: str) -> str:
    return QUOTED.sub(" ", text)


def scores(verdict: dict) -> dict:
    return {k: v for k, v in verdict.items() if k not in TEXT_FIELDS}


def both(prompt_id: str, item: dict, fitted: bool = True) -> list[tuple[dict, dict]]:
    prompt = get_prompt(prompt_id)
    return [(j.verdict(prompt, item, lang="ko"), j.verdict(prompt, item, lang="en")) for j in offline_jury(fitted=fitted)]


def assert_same_scores_in_two_languages(pairs: list[tuple[dict, dict]], ko_says: str, en_says: str) -> None:
    """Each judge: the same scores; the rule's reason in English exactly where it is in Korean
    (in at least one judge); no Korean in the English feedback but what it quotes."""
    for ko, en in pairs:
        assert scores(ko) == scores(en)
        assert (ko_says in written(ko)) == (en_says in written(en)), (written(ko), written(en))
        assert not HANGUL.search(unquoted(written(en))), written(en)
    assert any(en_says in written(en) for _, en in pairs)


# -- rag_answer: a Korean reference, a wrong figure ----------------------------------------------

WRONG_FIGURE = {
    "question": "환불 기간은 며칠인가요?",
    "generated_answer": "환불은 구매 후 14일 이내에 가능합니다.",
    "reference_answer": "환불은 구매 후 7일 이내에 가능합니다.",
    "contexts": [],
}


def test_a_wrong_figure_is_named_in_english_for_an_english_run_and_in_korean_for_a_korean_one():
    pairs = both("rag_answer", WRONG_FIGURE)
    assert_same_scores_in_two_languages(
        pairs, "수치 바꿔치기(정확도 ≤ 1): 답변의 14일 ↔ 참조의 7일",
        "figure-substitution (accuracy ≤ 1): the answer's “14일” ↔ the reference's “7일”",
    )
    for ko, en in pairs:
        assert ko["accuracy"] <= 2
        assert "Fitted verdict" in en["feedback"] and "학습된 판정" in ko["feedback"]


def test_the_rules_alone_say_the_same_in_both_languages():
    assert_same_scores_in_two_languages(both("rag_answer", WRONG_FIGURE, fitted=False), "오답으로 판정", "judged wrong")


def test_an_english_reference_is_explained_in_korean_for_a_korean_run():
    item = {"question": "How long do refunds take?", "generated_answer": "Refunds take 7 days.",
            "reference_answer": "Refunds take 30 days.", "contexts": []}
    for ko, en in both("rag_answer", item):
        assert scores(ko) == scores(en)
        assert "참조와 다른 수치" in ko["feedback"] and "figures that differ from the reference" in en["feedback"]


# -- one rule of each suite --------------------------------------------------------------------


def test_a_memory_rule_reason_follows_the_run_language():
    item = {"query": "헬스장 PT 시간 바꿨다고 했잖아. 지금은 몇 시야?", "memory": "PT 수업: 매주 화요일 저녁 7시 (2026-02 등록).",
            "entities": ["PT"]}
    assert_same_scores_in_two_languages(
        both("memory_usefulness", item, fitted=False), "변경 기록이 없음", "the memory records no change"
    )


def test_an_agent_rule_reason_follows_the_run_language():
    item = {"query": "마감일 6월 30일로 연장해줘", "assistant_message": "마감일을 5월 30일로 연장했습니다.", "expected_result": ""}
    assert_same_scores_in_two_languages(
        both("agent_intent", item), "요청과 다른 값으로 수행", "the same action with another value than the request's"
    )


def test_a_clinical_rule_reason_follows_the_run_language():
    patient = (
        "진단명: 뇌전증\n현재 투약: 발프로산 500mg 1일 2회\n"
        "주의사항: 카바페넴 계열 항생제 금기(메로페넴 병용 시 발프로산 농도 급감)\n알레르기: 페니실린(발진)"
    )
    item = {"patient": patient, "dialogue": [], "question": "폐렴 치료 어떻게 해요?",
            "answer": "폐렴이면 메로페넴 주사로 치료하시면 빨리 낫습니다."}
    assert_same_scores_in_two_languages(
        both("clinical_answer", item), "기록상 금기인 권고", "advice the record contraindicates"
    )


def test_a_report_rule_reason_follows_the_run_language():
    report = (
        "# 택배 물류 보고서\n\n## 1. 현황\n2025년 택배 물동량은 전년보다 4% 늘었다 [SOURCE:1].\n\n"
        "## 2. 분석\n물동량은 전년보다 9% 늘었다 [SOURCE:1].\n"
    )
    item = {"query": "택배 물류 현황과 대응 방향을 정리해 줘", "report": report,
            "sources": [{"number": 1, "title": "물류 동향", "content": "2025년 택배 물동량은 전년보다 4% 늘었다."}]}
    assert_same_scores_in_two_languages(
        both("report_factual_accuracy", item), "출처와 다른 수치", "figures that differ from the sources"
    )


# -- the call key ------------------------------------------------------------------------------


def test_the_offline_call_key_carries_the_feedback_language():
    judge = offline_jury()[0]
    prompt = get_prompt("rag_answer")
    item = prompt.coerce_input(WRONG_FIGURE)
    keys = {}
    for lang in ("ko", "en"):
        request = judge.request(prompt, item, lang)
        assert request.params["lang"] == lang
        keys[lang] = request_key(request.model, request.api_base, request.messages, request.params)
    assert keys["ko"] != keys["en"]


# -- the catalogues ----------------------------------------------------------------------------


def test_every_catalogue_has_every_key_and_every_key_the_code_says_is_in_it():
    ko, en = catalogue("ko"), catalogue("en")
    assert set(ko) == set(en)
    code = Path(__file__).resolve().parents[4] / "assay"
    said = {
        key
        for path in code.rglob("*.py")
        for key in re.findall(r"\bsay\(\s*\"([a-z_]+\.[a-z_]+)\"", path.read_text(encoding="utf-8"))
    }
    assert said and said <= set(ko), sorted(said - set(ko))


def write(folder: Path, code: str, text: str) -> None:
    (folder / f"{code}.messages.yaml").write_text(text, encoding="utf-8")


def test_a_key_missing_from_one_catalogue_is_named_with_its_file(tmp_path):
    write(tmp_path, "ko", "rag:\n  wrong: \"오답: {why}\"\n  empty: \"비어 있음\"\n")
    write(tmp_path, "en", "rag:\n  wrong: \"wrong: {why}\"\n")
    with pytest.raises(ValueError, match=r"en\.messages\.yaml: no message 'rag\.empty' \(it is in ko\.messages\.yaml\)"):
        load_catalogues(tmp_path)
    write(tmp_path, "en", "rag:\n  wrong: \"wrong: {why}\"\n  empty: \"empty\"\n")
    assert set(load_catalogues(tmp_path)["en"]) == {"rag.wrong", "rag.empty"}


def test_a_template_that_is_not_text_is_refused(tmp_path):
    write(tmp_path, "ko", "rag:\n  wrong: [1, 2]\n")
    with pytest.raises(ValueError, match=r"ko\.messages\.yaml: message 'rag\.wrong' must be text"):
        load_catalogues(tmp_path)


def test_the_shipped_catalogues_load_from_the_language_packs_folder():
    assert set(load_catalogues(HERE)) >= {"ko", "en"}


def test_values_are_written_as_they_are_and_messages_inside_them_in_the_same_language():
    message = say("rag.wrong", why=say("rag.no_key_content"))
    assert render(message, "ko") == "오답으로 판정(정확도 1): 참조 답변의 핵심 내용이 없음"
    assert render(message, "en") == "judged wrong (accuracy 1): the reference answer's key content is missing"
    quoted = say("claims.polarity", answer="환불 안 됨", reference="환불 됨")
    assert "“환불 안 됨” ↔ “환불 됨”" in render(quoted, "en")
    with pytest.raises(KeyError, match="no message 'rag.nothing'"):
        render(say("rag.nothing"), "en")


def test_a_name_given_in_each_language_is_written_in_the_run_language():
    pair = say("claims.reversed_condition", pairs=InEach((("ko", "미만"), ("en", "less than"))), answer="a", reference="b")
    assert "(미만)" in render(pair, "ko") and "(less than)" in render(pair, "en")
    with pytest.raises(KeyError, match="no fr form of '미만'"):
        render(InEach((("ko", "미만"), ("en", "less than"))), "fr")
