"""Agent formulas (seed 004, `assay.suites.agent.formulas`): every band edge, the formulas, signatures and checks."""

import pytest

from assay.suites.agent import formulas as am


@pytest.mark.parametrize(("ratio", "errored", "expected"), [
    (1.0, False, 5), (0.99, False, 4), (0.75, False, 4), (0.7499, False, 3), (0.5, False, 3), (0.4999, False, 2),
    (0.25, False, 2), (0.2499, False, 1), (0.01, False, 1), (0.0, False, 0), (1.0, True, 0), (None, False, 0),
])
def test_accuracy_bands(ratio, errored, expected):
    assert am.accuracy_score(ratio, errored) == expected


def test_accuracy_rejects_a_ratio_outside_0_1():
    with pytest.raises(ValueError):
        am.accuracy_score(1.5, False)


@pytest.mark.parametrize(("seconds", "cls", "expected"), [
    (0.0, "SINGLE", 5), (5.0, "SINGLE", 5), (5.01, "SINGLE", 4), (8.0, "SINGLE", 4), (10.0, "SINGLE", 3),
    (15.0, "SINGLE", 2), (20.0, "SINGLE", 1), (20.01, "SINGLE", 0), (None, "SINGLE", 0), (float("nan"), "SINGLE", 0),
    (20.0, "MULTI", 5), (20.5, "MULTI", 4), (30.0, "MULTI", 4), (40.0, "MULTI", 3), (50.0, "MULTI", 2),
    (60.0, "MULTI", 1), (60.5, "MULTI", 0), (None, "MULTI", 0), (-1.0, "MULTI", 0),
])
def test_latency_bands(seconds, cls, expected):
    assert am.latency_score(seconds, cls) == expected


def test_stability_needs_no_error_parsed_json_a_message_and_a_list():
    good = {"assistantMessage": "done", "dataUIList": []}
    assert am.stability_score(None, good) == 5
    assert am.stability_score("timeout", good) == 0
    assert am.stability_score(None, None) == 0
    assert am.stability_score(None, {"assistantMessage": "", "dataUIList": []}) == 0
    assert am.stability_score(None, {"assistantMessage": "x"}) == 0


def test_parse_response_says_why():
    assert am.parse_response('{"a": 1}') == ({"a": 1}, None)
    assert am.parse_response('{"a": ')[1].startswith("not JSON")
    assert am.parse_response("[1]")[1] == "not a JSON object but list"
    assert am.parse_response(None)[1] == "empty response"


def test_signatures_take_the_core_keys_and_empty_lists_are_empty():
    a = {"dataUIList": [{"formType": "F", "actionType": "MOVE", "planId": "P", "value": {"nodeId": "N-2", "nodeType": "STAGE", "name": "x"}}],
         "setting": {"s": 1}, "filterType": "STAGE"}
    b = {**a, "dataUIList": [{**a["dataUIList"][0], "value": {"nodeId": "N-2", "nodeType": "STAGE", "name": "other"}}]}
    c = {**a, "dataUIList": [{**a["dataUIList"][0], "value": {"nodeId": "N-3", "nodeType": "STAGE"}}]}
    assert am.signature(a) == am.signature(b)  # non-core fields do not matter
    assert am.signature(a) != am.signature(c)
    assert am.signature({"dataUIList": []}) == am.EMPTY == am.signature(None) == am.signature({"assistantMessage": "x"})
    assert am.signature({"dataUIList": [{"formType": "F"}]}) == '{"formType": "F"}'  # missing keys are left out


def test_consistency_formula_and_fewer_than_two_repeats():
    assert am.consistency_score(["VIEW", "VIEW", "VIEW"], ["s", "s", "s"]) == 5
    assert am.consistency_score(["VIEW", "VIEW", "ADD"], ["s", "t", "u"]) == pytest.approx(((2 / 3) + (1 / 3)) / 2 * 5)
    assert am.consistency_score(["VIEW"], ["s"]) == 0
    assert am.consistency_score([], []) == 0


def test_total_is_the_seeds_weighted_sum_and_unscored_when_any_part_is():
    scores = {"intent": 5, "consistency": 4, "accuracy": 3, "latency": 2, "stability": 5}
    assert am.total_score(scores) == pytest.approx(0.2 * 5 + 0.1 * 4 + 0.3 * 3 + 0.2 * 2 + 0.2 * 5)
    assert am.total_score({**scores, "intent": None}) is None
    assert sum(am.WEIGHTS.values()) == pytest.approx(1.0)


RESPONSE = {
    "assistantMessage": "ok",
    "dataUIList": [{"actionType": "MOVE", "value": {"nodeId": "N-2", "names": ["한소율", "임도현"], "count": "12"}}],
    "setting": {"minCareerYears": 5}, "filterType": "STAGE",
    "aggregates": {"byStage": {"1차면접": 8}, "avg": 4.0},
}


@pytest.mark.parametrize(("path", "op", "value", "passed"), [
    ("dataUIList[0].actionType", "equals", "MOVE", True),
    ("dataUIList[0].value.count", "equals", 12, True),  # numbers by value, text or not
    ("aggregates.byStage.1차면접", "equals", 8, True),
    ("dataUIList[0].value.names", "contains", "한소율", True),
    ("assistantMessage", "contains", "o", True),
    ("filterType", "in", ["STAGE", "NONE"], True),
    ("filterType", "in", ["NONE"], False),
    ("setting.minCareerYears", "ge", 5, True),
    ("aggregates.avg", "le", 3.9, False),
    ("dataUIList[*].actionType", "equals", ["MOVE"], True),
    ("dataUIList[3].actionType", "equals", "MOVE", False),  # index beyond the list
    ("aggregates.missing", "exists", None, False),
    ("dataUIList", "exists", None, True),
    ("setting.nothing", "equals", None, False),  # absent is not equal to null
])
def test_checks(path, op, value, passed):
    result = am.run_check(RESPONSE, path, op, value)
    assert result.passed is passed, result.describe()


def test_a_failed_check_describes_expected_and_actual():
    result = am.run_check(RESPONSE, "dataUIList[0].value.nodeId", "equals", "N-4")
    assert result.describe() == 'dataUIList[0].value.nodeId equals "N-4": got "N-2"'
    assert am.run_check(RESPONSE, "x.y", "equals", 1).describe().endswith("got (missing)")
    with pytest.raises(ValueError, match="unknown check operator"):
        am.run_check(RESPONSE, "x", "regex", 1)
    assert am.pass_ratio([]) is None
