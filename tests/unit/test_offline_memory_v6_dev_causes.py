"""Memory rules from reading the v6 memory rows by cause (a fitness and a household assistant,
not the v6 travel and school ones): a person the query asks about whom the memory never names,
while the answering sentences name another; a quoted or reminding verb ("바뀌었다고 했잖아") is
no head word; a later sentence that records the change dates the answer, and the old value kept
beside it is superseded (accuracy 8, noise 2); only the stale value is relevance ≤ 7; "몇 박"
wants a figure with 박. Each cause stands beside a near miss that must not fire."""

from __future__ import annotations

from tests.support.offline_families import memory_verdicts as verdicts


def field(found: list[dict], key: str) -> set[float]:
    return {float(v[key]) for v in found}


def test_a_person_the_memory_never_names():
    memory = "User's driving licence renewal is due 2028-05-02. 어머니 운전면허 2027-09 갱신 예정."
    found = verdicts("남편 운전면허 갱신일 언제였지?", memory, ["운전면허", "어머니"])
    assert max(field(found, "relevance")) <= 5.0 and max(field(found, "completeness")) <= 2.0
    assert min(field(found, "accuracy")) >= 8.0  # the stored facts are true of the others
    # near miss: the asked person is named with the value
    named = verdicts("남편 운전면허 갱신일 언제였지?", "남편 운전면허 갱신일 2029-01-10.", ["운전면허", "남편"])
    assert field(named, "relevance") == {10.0}


def test_a_superseded_value_kept_beside_its_dated_update():
    memory = "2026-02: 요가 강사 윤하늘 선생님. 2026-06-01 업데이트: 강사가 서도희 선생님으로 바뀜."
    found = verdicts("요가 선생님 바뀌었다고 했잖아. 지금 선생님 누구야?", memory, ["요가", "윤하늘", "서도희"])
    assert field(found, "relevance") == {10.0}
    assert field(found, "accuracy") == {8.0}
    assert min(field(found, "noise")) >= 2.0
    # near miss: only the old value, and the query says it changed: stale (relevance ≤ 7)
    stale = verdicts("요가 선생님 바뀌었다고 했잖아. 지금 선생님 누구야?", "요가 강사 윤하늘 선생님.", ["요가", "윤하늘"])
    assert max(field(stale, "relevance")) <= 7.0 and max(field(stale, "accuracy")) <= 3.0


def test_a_count_of_nights_wants_a_figure_with_bak():
    found = verdicts("제주 숙소 몇 박으로 잡았지?", "제주 그린호텔 2박 예약(2027-03-01부터).", ["제주", "그린호텔"])
    assert field(found, "relevance") == {10.0}
    # near miss: the stay without its number of nights is the topic only
    topic = verdicts("제주 숙소 몇 박으로 잡았지?", "제주 그린호텔 예약(2027-03-01부터).", ["제주", "그린호텔"])
    assert max(field(topic, "relevance")) <= 5.0
