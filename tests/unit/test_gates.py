"""CI gates: thresholds on means (parsed strictly, never passing on an unmeasured metric) and
per-case JUnit XML that CI systems can read."""

from xml.etree import ElementTree as ET

import pytest

from assay.gates import junit_from_rows, missed_thresholds, parse_threshold


@pytest.mark.parametrize(("text", "metric", "op", "value"), [
    ("accuracy>=4", "accuracy", ">=", 4.0), ("ndcg@10 > 0.7", "ndcg@10", ">", 0.7), ("csp<=.2", "csp", "<=", 0.2),
    ("total<1e1", "total", "<", 10.0),
])
def test_thresholds_parse(text, metric, op, value):
    t = parse_threshold(text)
    assert (t.metric, t.op, t.value) == (metric, op, value)


@pytest.mark.parametrize("text", ["accuracy", "accuracy=>4", "accuracy>=four", ">=4", "accuracy==4"])
def test_bad_thresholds_say_how_to_write_one(text):
    with pytest.raises(ValueError, match="METRIC>=VALUE"):
        parse_threshold(text)


def test_missed_thresholds_include_unknown_and_unscored_metrics():
    means = {"accuracy": 4.2, "csp": 0.3, "relevance": None}
    gates = [parse_threshold(t) for t in ("accuracy>=4", "accuracy>4.5", "csp<0.2", "relevance>=1", "recall>0")]
    missed = missed_thresholds(gates, means)
    assert [line.split(":")[0] for line in missed] == ["accuracy>4.5", "csp<0.2", "relevance>=1", "recall>0"]
    assert "unscored for every case" in missed[2] and "no metric 'recall'" in missed[3]
    assert missed_thresholds([parse_threshold("accuracy>=4")], means) == []


def test_junit_has_a_testcase_per_case_failing_on_its_own_threshold():
    rows = [
        {"case_id": "q1", "metric": "accuracy", "judge": None, "value": 5.0},
        {"case_id": "q1", "metric": "accuracy", "judge": "a", "value": 1.0},  # per-judge rows are not cases
        {"case_id": "q2", "metric": "accuracy", "judge": None, "value": 2.0},
        {"case_id": "q3\x01<", "metric": "accuracy", "judge": None, "value": None, "unscored_reason": "judge failed"},
    ]
    xml = junit_from_rows("rag_qa", "run-1", ["accuracy"], {"q1": "direct_fact"}, rows, [parse_threshold("accuracy>=3")])
    root = ET.fromstring(xml.split("\n", 1)[1])
    suite = root.find("testsuite")
    assert suite.get("tests") == "3" and suite.get("failures") == "1" and suite.get("skipped") == "1"
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert set(cases) == {"q1", "q2", "q3\ufffd<"}
    assert cases["q1"].get("classname") == "rag_qa.direct_fact" and cases["q1"].find("failure") is None
    assert cases["q2"].find("failure").get("message") == "accuracy>=3: 2.0000"
    assert "judge failed" in cases["q3\ufffd<"].find("system-out").text


def test_a_case_whose_target_call_failed_is_a_junit_error_not_a_skip():
    """Issue 34: 3 of 16 questions answered HTTP 500; JUnit listed them as skipped, so CI passed."""
    from assay.failed_calls import tally

    generations = [{"case_id": f"q{i:02d}", "error": "HTTP 500: internal error (after 1 attempt(s))" if i in (2, 7, 11) else None}
                   for i in range(16)]
    failed = tally(generations, "http://127.0.0.1:8123/rag/answer")
    rows = [{"case_id": g["case_id"], "metric": "reciprocal_rank", "judge": None,
             "value": None if g["error"] else 1.0, "unscored_reason": f"generation failed: {g['error']}" if g["error"] else None}
            for g in generations]
    xml = junit_from_rows("rag_qa", "run-1", ["reciprocal_rank"], {}, rows, [], failed.cases)
    suite = ET.fromstring(xml.split("\n", 1)[1]).find("testsuite")
    assert (suite.get("tests"), suite.get("errors"), suite.get("skipped"), suite.get("failures")) == ("16", "3", "0", "0")
    errors = {c.get("name"): c.find("error") for c in suite.findall("testcase") if c.find("error") is not None}
    assert set(errors) == {"q02", "q07", "q11"}
    assert errors["q02"].get("type") == "target-call" and "HTTP 500" in errors["q02"].get("message")
    assert all(c.find("skipped") is None for c in suite.findall("testcase"))


def test_an_assert_fails_when_a_case_it_covers_was_not_measured():
    from assay.gates import unmeasured_by_metric

    rows = [{"case_id": "q1", "metric": "reciprocal_rank", "judge": None, "value": 1.0},
            {"case_id": "q2", "metric": "reciprocal_rank", "judge": None, "value": None},
            {"case_id": "q2", "metric": "latency", "judge": None, "value": 0.0},
            {"case_id": "q3", "metric": "reciprocal_rank", "judge": None, "value": None}]  # unscored, not a failed call
    lost = unmeasured_by_metric(rows, {"q2"})
    assert lost == {"reciprocal_rank": 1}
    means = {"reciprocal_rank": 1.0, "latency": 0.0}
    missed = missed_thresholds([parse_threshold("reciprocal_rank>=0.5"), parse_threshold("latency>=0")], means, lost)
    assert missed == ["reciprocal_rank>=0.5: 1 case it covers was not measured (target calls failed), so its mean leaves them out"]
