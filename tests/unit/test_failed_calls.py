"""Failed calls are failures (issue 34, item 1): the tally of a live replay's failed calls, the
banner every surface shows, and the ``--max-failed-calls`` allowance."""

from __future__ import annotations

import pytest

from assay.failed_calls import Allowance, tally

URL = "http://127.0.0.1:8123/rag/answer"


def rag_generations(n: int, failing: set[int]) -> list[dict]:
    return [{"case_id": f"q{i:02d}", "answer": "" if i in failing else "ok",
             "error": "HTTP 500: internal error (after 1 attempt(s))" if i in failing else None} for i in range(n)]


def test_three_of_sixteen_failed_questions_are_three_unmeasured_cases_named_in_one_line():
    failed = tally(rag_generations(16, {2, 7, 11}), URL)
    assert (failed.n_cases, failed.n_calls, failed.n_failed) == (16, 16, 3)
    assert failed.unmeasured() == {"q02", "q07", "q11"}
    assert failed.banner() == (f"3 of 16 cases not measured: 3 target calls failed "
                               f"(first: {URL}, HTTP 500: internal error (after 1 attempt(s)))")


def test_agent_repeats_count_calls_and_the_cases_stay_scored():
    generations = [
        {"case_id": "ok", "calls": [{"repeat": r, "error": None} for r in range(3)]},
        {"case_id": "slow", "calls": [{"repeat": 0, "error": "timeout after 1.0s"}, {"repeat": 1, "error": "timeout after 1.0s"},
                                      {"repeat": 2, "error": None}]},
    ]
    failed = tally(generations, URL, scored_by_suite=True)
    assert (failed.n_cases, failed.n_calls, failed.n_failed) == (2, 6, 2)
    assert failed.unmeasured() == set() and set(failed.cases) == {"slow"}
    assert failed.banner().startswith("1 of 2 cases had failed calls, scored as failures by this suite: 2 of 6 target calls failed")


def test_a_replay_without_failures_is_allowed_without_an_allowance():
    failed = tally(rag_generations(4, set()), URL)
    assert failed.n_failed == 0 and failed.allowed(None)


@pytest.mark.parametrize("allowance, allowed", [
    (None, False), ("0", False), ("2", False), ("3", True), ("10%", False), ("18.75%", True), ("20%", True), ("100%", True),
])
def test_the_allowance_is_a_count_or_a_share_of_the_calls(allowance, allowed):
    failed = tally(rag_generations(16, {2, 7, 11}), URL)  # 3 of 16 = 18.75 %
    assert failed.allowed(allowance) is allowed


@pytest.mark.parametrize("text", ["x", "3.5", "-1", "101%", "5 %%", ""])
def test_a_bad_allowance_is_refused(text):
    with pytest.raises(ValueError):
        Allowance.parse(text)


def test_turns_never_sent_after_a_failed_turn_are_unmeasured_but_not_failed_calls():
    generations = [
        {"case_id": "p01-t1", "error": "HTTP 503: busy (after 4 attempt(s))"},
        {"case_id": "p01-t2", "error": "turn p01-t1 of this patient failed", "counted_with": "p01-t1"},
        {"case_id": "p02-t1", "error": None},
        {"case_id": "p02-t2", "error": None},
    ]
    failed = tally(generations, URL)
    assert (failed.n_cases, failed.n_calls, failed.n_failed) == (4, 3, 1)
    assert failed.unmeasured() == {"p01-t1", "p01-t2"}
    assert failed.banner().startswith("2 of 4 cases not measured: 1 of 3 target calls failed (first: ")
