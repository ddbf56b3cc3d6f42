"""The bilingual concept lexicon (``lexicon.py`` over ``lang/ko.concepts.yaml``)."""

from __future__ import annotations

from assay.judges.offline import lexicon as lx


def test_lexicon_maps_both_languages_to_one_concept():
    assert lx.concept_of_lemma("떼다") == lx.concept_of_lemma("issuance") == "issue"
    assert lx.concept_of_lemma("refunded") == lx.concept_of_lemma("환불") == "refund"
    assert "free" in lx.phrase_concepts("돈이 들지 않습니다") and "free" in lx.phrase_concepts("there is no cancellation fee")
    assert lx.opposites("before") == {"after"} and "within" in lx.opposites("after")
    for concept, (ko, en) in lx.CONCEPTS.items():
        assert ko and en, concept  # every concept is bilingual


def test_a_korean_stem_a_prefix_and_a_phrase_name_their_concept():
    assert lx.concept_of_lemma("끄다") == lx.concept_of_lemma("끄") == "turn_off"
    assert lx.concept_of_lemma("cancelled") == "cancel"  # cancel* is a prefix
    assert lx.concept_of_lemma("zebra") is None
    assert "turn_off" in lx.phrase_concepts("Please turn off the power")


def test_within_is_a_span_of_time_not_a_place():
    assert "within" in lx.phrase_concepts("30일 안에 신청하세요")
    assert "within" not in lx.phrase_concepts("대여소 안에 두세요")


def test_opposites_form_groups():
    assert lx.opposites("online") == {"visit", "phone", "email", "post"}
    assert lx.opposites("same_day") == {"next_day", "day_before"}
    assert lx.opposites("issue") == frozenset()


def test_english_negations_and_conditions():
    assert lx.NEGATION_EN.findall("You cannot pay, and it is not free") == ["cannot", "not", "free"]
    assert lx.without_conditions("if you do not pay, a fee applies").strip() == ", a fee applies"
    assert lx.english_concepts("the refund is free") == ("refund", "free")
    assert "무료" in lx.NEGATION_KO and "불가" in lx.NEGATION_KO
