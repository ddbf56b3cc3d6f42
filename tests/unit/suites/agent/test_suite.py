"""The agent suite's gate and aggregate: bad rows are named, repeats fold into one query."""

import json

from assay import pipeline
from assay.lineage.store import ArtifactStore
from assay.schemas import ScoreRow
from assay.spec import JurySpec, PanelJudge, RunSpec
from assay.step_inputs import IngestInputs, ValidateInputs
from assay.suites.agent.schema import AgentCase
from assay.suites.agent.summary import aggregate, repeat_labels
from assay.suites.registry import get_suite


def write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows), encoding="utf-8")


def test_the_gate_names_each_bad_row(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    write(data / "cases.jsonl", [
        {"id": "q1", "query": "목록 보여줘", "latency_class": "SINGLE", "expected_intent": "VIEW"},
        {"id": "q2", "query": "추가해줘", "latency_class": "FAST", "expected_intent": "ADD"},
        {"id": "q3", "query": "옮겨줘", "expected_intent": "MOVE", "checks": [{"path": "x", "op": "regex", "value": 1}]},
        "{not json",
    ])
    write(data / "responses.jsonl", [
        {"case_id": "q1", "repeat": 0, "raw": "{}", "responseTimeSec": 1.0, "error": None},
        {"case_id": "q1", "repeat": 0, "raw": "{}", "responseTimeSec": 1.0, "error": None},
        {"case_id": "q9", "repeat": 0, "raw": "{}", "responseTimeSec": -2, "error": None},
    ])
    store = ArtifactStore(str(tmp_path / "store"))
    suite = get_suite("agent")
    snapshot = pipeline.ingest(store, suite, IngestInputs(data)).snapshot
    validation = pipeline.validate(store, suite, ValidateInputs(snapshot))
    text = validation.text
    assert not validation.success
    assert "q2" in text and "latency_class" in text  # not SINGLE or MULTI
    assert "q3" in text and "op" in text  # unknown operator
    assert "line 4" in text  # malformed JSON
    assert "q1#0" in text  # the same query and repeat twice
    assert "q9" in text and "responseTimeSec" in text


def row(case, metric, value, judge=None, **details):
    return ScoreRow(case_id=case, metric=metric, family="x", value=value, scale="0-5", judge=judge, details=details)


def test_repeats_fold_into_consistency_and_total():
    case = AgentCase(id="q", query="목록", latency_class="SINGLE", expected_intent="VIEW")
    rows = [
        row("q", "accuracy", 5.0), row("q", "latency", 5.0),
        row("q", "stability", 5.0, signatures=["s", "s", "t"], repeats=3),
        row("q", "intent", 4.0, judge="a", labels=["VIEW", "VIEW", "ADD"], verdicts=["GOOD"] * 3),
        row("q", "intent", 5.0, judge="b", labels=["VIEW", "ADD", "ADD"], verdicts=["PERFECT"] * 3),
    ]
    panel = [PanelJudge(name="a", model="openai/a", weight=2.0), PanelJudge(name="b", model="openai/b", weight=1.0)]
    spec = RunSpec(suite="agent", jury=JurySpec(panel=panel))
    assert repeat_labels(rows, {"a": 2.0, "b": 1.0}) == ["VIEW", "VIEW", "ADD"]  # weighted vote per repeat
    result = aggregate(rows, [case], spec)
    final = {r.metric: r.value for r in result.rows if r.judge is None}
    assert final["consistency"] == ((2 / 3 + 2 / 3) / 2) * 5
    assert final["total"] == 0.2 * final["intent"] + 0.1 * final["consistency"] + 0.3 * 5 + 0.2 * 5 + 0.2 * 5
    assert result.summary.queries[0].labels == ["VIEW", "VIEW", "ADD"]


def test_the_seeds_own_field_names_are_read(tmp_path):
    """latencyClass, accuracyChecks, query_id, latency_ms and parsed response fields without a
    raw body or repeat numbers: read as the suite's own names."""
    from assay.suites.agent.metrics import call_rows
    from assay.suites.agent.schema import AgentGeneration

    data = tmp_path / "data"
    data.mkdir()
    write(data / "cases.jsonl", [{"query_id": "q1", "query": "목록", "latencyClass": "MULTI", "expectedIntent": "VIEW",
                                  "accuracyChecks": [{"path": "filterType", "op": "equals", "value": "STAGE"}]}])
    body = {"assistantMessage": "목록입니다", "dataUIList": [], "setting": {}, "filterType": "STAGE"}
    write(data / "responses.jsonl", [{"query_id": "q1", "latency_ms": 25000, **body}, {"query_id": "q1", "latency_ms": 41000, **body}])
    suite = get_suite("agent")
    loaded = suite.load_dataset(data)
    store = ArtifactStore(str(tmp_path / "store"))
    snapshot = pipeline.ingest(store, suite, IngestInputs(data)).snapshot
    assert pipeline.validate(store, suite, ValidateInputs(snapshot)).success
    case = suite.parse_cases(loaded, set())[0]
    gen = AgentGeneration.model_validate(suite.recorded_generations(loaded, [case])[0])
    assert case.latency_class == "MULTI" and [c.repeat for c in gen.calls] == [0, 1]
    scores = {r.metric: r.value for r in call_rows(case, gen, None)}
    assert scores == {"accuracy": 5.0, "latency": (4.0 + 2.0) / 2, "stability": 5.0}
