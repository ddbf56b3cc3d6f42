"""bench/kiwi_similarity_probe.py: the soft-alignment features read Kiwi's morpheme embeddings,
leave the question's own words out, and rank a paraphrase above an unrelated answer."""

from __future__ import annotations

from bench.kiwi_similarity_probe import soft_alignment

QUESTION = "보험금 청구에 필요한 서류가 뭐예요?"
REFERENCE = "진단서와 영수증을 제출하면 됩니다."


def test_the_reference_itself_is_fully_aligned():
    got = soft_alignment(QUESTION, REFERENCE, REFERENCE)
    assert got == {"soft recall": 1.0, "soft recall 0.6": 1.0, "soft precision": 1.0, "soft novel": 0.0}


def test_a_paraphrase_aligns_better_than_an_unrelated_answer():
    paraphrase = soft_alignment(QUESTION, "진단서랑 영수증을 내시면 돼요.", REFERENCE)
    unrelated = soft_alignment(QUESTION, "주차장은 지하 2층에 있습니다.", REFERENCE)
    assert 0.6 < paraphrase["soft recall"] < 1.0  # 내다 is near 제출, not the same word
    assert unrelated["soft recall"] < paraphrase["soft recall"]
    assert unrelated["soft recall 0.6"] == 0.0 < paraphrase["soft recall 0.6"]


def test_an_empty_answer_aligns_with_nothing():
    assert soft_alignment(QUESTION, "", REFERENCE) == {
        "soft recall": 0.0, "soft recall 0.6": 0.0, "soft precision": 0.0, "soft novel": 1.0,
    }
