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
