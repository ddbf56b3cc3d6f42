"""bench/jury_agreement.py: its statistics on hand-made pairs, its check of labelled rows
(a malformed row stops the bench naming file, line and problem), the held-out versions it
finds, and that every row of every labelled set it reads fits its prompt."""

from __future__ import annotations

import json
import math

import pytest

from bench import jury_agreement as ja
from tests.conftest import ROOT

V2 = ROOT / "bench" / "heldout" / "v2"

RAG_ROW = {
    "id": "r1",
    "prompt_id": "rag_answer",
    "input": {"question": "q?", "generated_answer": "a", "reference_answer": "ref"},
    "label": {"accuracy": 5, "completeness": 4, "relevance": 5},
    "note": "",
}


# -- statistics ---------------------------------------------------------------------------


def test_spearman_on_known_ranks():
    assert ja.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert ja.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # ties share the average rank: x ranks 1, 2.5, 2.5, 4 against 1, 2, 3, 4 -> 3/sqrt(10)
    assert ja.spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(3 / math.sqrt(10))
    assert ja.spearman([3, 3, 3], [1, 2, 3]) is None


def test_summarise_on_a_1_to_5_scale():
    # (prediction, label, step)
    pairs = [(5, 5, 1), (4, 5, 1), (2, 1, 1), (3, 1, 1), (1, 2, 1), (3.4, 4, 1)]
    stats = ja.summarise(pairs, (1.0, 5.0))
    assert stats["exact"] == pytest.approx(1 / 6)  # only 5 against 5; 3.4 against 4 is off by more than half
    assert stats["within1"] == pytest.approx(5 / 6)  # only 3 against 1 is off by 2
    assert stats["mae"] == pytest.approx((0 + 1 + 1 + 2 + 1 + 0.6) / 6)
    assert stats["caught"] == pytest.approx(2 / 3)  # labels ≤ 2: predictions 2 and 1 are ≤ 2.5, 3 is not
    assert stats["flagged"] == 0.0  # labels ≥ 4: predictions 5, 4 and 3.4 are all above 3
    stats = ja.summarise([(5, 5, 1), (4, 5, 1), (3, 4, 1)], (1.0, 5.0))
    assert stats["flagged"] == pytest.approx(1 / 3)  # 3 is at the line
    assert stats["caught"] is None  # no label ≤ 2


def test_summarise_thresholds_follow_the_scale():
    # 0-10: wrong = label ≤ 2.5, caught when ≤ 3.75; right = label ≥ 7.5, flagged when ≤ 5
    stats = ja.summarise([(3.75, 2, 1), (3.8, 0, 1), (5, 8, 1), (5.1, 10, 1)], (0.0, 10.0))
    assert stats["caught"] == pytest.approx(1 / 2)
    assert stats["flagged"] == pytest.approx(1 / 2)
    # 0-5 agent verdicts: RELATED_BUT_WRONG (1) is wrong, GOOD (4) is right
    stats = ja.summarise([(1.875, 1, 1), (2, 0, 1), (2.5, 4, 1), (3, 5, 1)], (0.0, 5.0))
    assert stats["caught"] == pytest.approx(1 / 2)
    assert stats["flagged"] == pytest.approx(1 / 2)
    # counts have no scale: no caught or flagged
    stats = ja.summarise([(0, 0, 1), (3, 2, 1)])
    assert stats["caught"] is None and stats["flagged"] is None
    assert stats["exact"] == pytest.approx(0.5) and stats["within1"] == pytest.approx(1.0)


def test_step_of_scale():
    assert ja.step_of((1.0, 5.0)) == 1.0
    assert ja.step_of((0.0, 1.0)) == pytest.approx(0.1)
    assert ja.step_of(None) == 1.0
    assert ja.summarise([(0.84, 0.8, 0.1), (0.6, 0.8, 0.1)], (0.0, 1.0))["exact"] == pytest.approx(0.5)


class FixedJuror:
    def __init__(self, name: str, verdicts: dict[str, dict]):
        self.name, self.weight, self.verdicts = name, 0.5, verdicts

    def verdict(self, prompt, item):
        return self.verdicts[item["question"] if "question" in item else item["query"]]


def test_measure_pairs_each_judge_and_the_ensemble_with_the_label():
    rows = [
        ja.check_row(RAG_ROW, "t:1"),
        ja.check_row({**RAG_ROW, "id": "r2", "input": {**RAG_ROW["input"], "question": "q2?"},
                      "label": {"accuracy": 1, "completeness": 1, "relevance": 4}}, "t:2"),
        ja.check_row({"id": "a1", "prompt_id": "agent_intent", "input": {"query": "add", "assistant_message": "added"},
                      "label": {"verdict": "PERFECT", "intent_label": "ADD"}}, "t:3"),
    ]
    rag_good = {"feedback": "", "accuracy": 4, "completeness": 4, "relevance": 5}
    rag_bad = {"feedback": "", "accuracy": 2, "completeness": 2, "relevance": 4}
    jury = [
        FixedJuror("one", {"q?": rag_good, "q2?": rag_bad,
                           "add": {"verdict": "PERFECT", "intent_label": "ADD", "reasoning": ""}}),
        FixedJuror("two", {"q?": rag_good, "q2?": rag_bad,
                           "add": {"verdict": "GOOD", "intent_label": "VIEW", "reasoning": ""}}),
    ]
    result = ja.measure(rows, jury)
    accuracy = result.fields[("rag_answer", "accuracy")]
    assert accuracy.n == 2
    assert accuracy.by_predictor["one"] == [(4, 5, 1.0), (2, 1, 1.0)]
    assert accuracy.by_predictor[ja.ENSEMBLE] == [(4, 5, 1.0), (2, 1, 1.0)]  # equal votes
    assert accuracy.stats()["caught"] == 1.0 and accuracy.stats()["flagged"] == 0.0
    verdict = result.fields[("agent_intent", "verdict")]
    assert verdict.by_predictor["two"] == [(4.0, 5.0, 1.0)]
    assert verdict.by_predictor[ja.ENSEMBLE][0][0] == pytest.approx(4.5)  # 5 and 4 at equal weight
    # the intent vote ties 1:1 and goes to the first judge's label
    assert result.intent_matches == {"one": [True], "two": [False], ja.ENSEMBLE: [True]}
    table = "\n".join(ja.set_table(result, judges=True))
    assert "rag_answer.accuracy" in table and "agent_intent.intent_label (n=1)" in table
    side = ja.side_by_side([(ja.LabelledSet("a", "set a", "", rows), result),
                            (ja.LabelledSet("b", "set b", "", rows[:1]), ja.measure(rows[:1], jury))])
    rag_line = next(line for line in side if line.startswith("rag_answer.accuracy"))
    agent_line = next(line for line in side if line.startswith("agent_intent.verdict"))
    assert rag_line.split()[1] == "2" and rag_line.split()[6] == "1"  # n per set
    assert "·" in agent_line  # set b has no agent rows


# -- checking labelled rows ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"prompt_id": "rag_anwser"}, "unknown prompt 'rag_anwser'"),
        ({"input": {"question": "q?", "generated_answer": "a"}}, "input does not fit prompt 'rag_answer': reference_answer"),
        ({"label": {"accuracy": 5, "completeness": 4}}, "label has no 'relevance'"),
        ({"label": {"accuracy": 6, "completeness": 4, "relevance": 5}}, "accuracy=6 is outside 1-5"),
        ({"label": {"accuracy": "5", "completeness": 4, "relevance": 5}}, "accuracy='5' is not a number"),
        ({"id": ""}, "not a labelled row: id"),
        ({"extra": 1}, "not a labelled row: extra"),
    ],
)
def test_a_malformed_row_is_named_with_its_problem(tmp_path, change, message):
    path = tmp_path / "labelled.jsonl"
    path.write_text(json.dumps(RAG_ROW) + "\n" + json.dumps({**RAG_ROW, "id": "r2", **change}) + "\n", encoding="utf-8")
    with pytest.raises(ja.LabelError) as info:
        ja.read_labelled(path)
    assert f"{path}:2" in str(info.value) and message in str(info.value)


def test_agent_and_report_labels_are_checked_against_their_scales():
    agent = {"id": "a", "prompt_id": "agent_intent", "input": {"query": "q", "assistant_message": "m"}}
    with pytest.raises(ja.LabelError, match="verdict='GREAT' is not one of PERFECT"):
        ja.check_row({**agent, "label": {"verdict": "GREAT", "intent_label": "ADD"}}, "x:1")
    with pytest.raises(ja.LabelError, match="intent_label='CREATE' is not one of ADD"):
        ja.check_row({**agent, "label": {"verdict": "GOOD", "intent_label": "CREATE"}}, "x:1")
    report = {"id": "r", "prompt_id": "report_hallucination", "input": {"query": "q", "report": "r"}}
    with pytest.raises(ja.LabelError, match="hallucination_count=1.5 is not a count"):
        ja.check_row({**report, "label": {"hallucination_count": 1.5, "citation_accuracy": 1.0}}, "x:1")
    with pytest.raises(ja.LabelError, match=r"citation_accuracy=1.2 is outside 0-1"):
        ja.check_row({**report, "label": {"hallucination_count": 1, "citation_accuracy": 1.2}}, "x:1")


def test_bad_json_and_repeated_ids_stop_the_read(tmp_path):
    path = tmp_path / "labelled.jsonl"
    path.write_text(json.dumps(RAG_ROW) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ja.LabelError, match=r"labelled.jsonl:2: not JSON"):
        ja.read_labelled(path)
    path.write_text(json.dumps(RAG_ROW) + "\n\n" + json.dumps(RAG_ROW) + "\n", encoding="utf-8")
    with pytest.raises(ja.LabelError, match=r"labelled.jsonl:3: id 'r1' repeats line 1"):
        ja.read_labelled(path)


def test_heldout_versions_only_the_newest_is_fresh(tmp_path):
    for folder in ("rag_qa", "v2/rag_qa", "v3/memory", "v3/rag_qa"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "labelled.jsonl").write_text(json.dumps(RAG_ROW) + "\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("x", encoding="utf-8")
    (tmp_path / "v3" / "memory" / "labelled.jsonl").write_text(
        json.dumps({"id": "m", "prompt_id": "memory_usefulness", "input": {"query": "q", "memory": ""},
                    "label": {"relevance": 0, "completeness": 0, "accuracy": 5, "noise": 0}}) + "\n",
        encoding="utf-8",
    )
    sets = ja.heldout_sets(tmp_path)
    assert [s.title for s in sets] == [
        "dev (held-out v1, used for development)",
        "dev (held-out v2, used for development)",
        "held-out v3 (fresh)",
    ]
    assert [len(s.rows) for s in sets] == [1, 1, 2]
    assert "(memory, rag_qa)" in sets[2].about
    assert [s.fresh for s in sets] == [frozenset(), frozenset(), {"memory", "rag_qa"}]
    # a later version with rag rows only leaves v3 fresh for memory alone
    (tmp_path / "v4" / "rag_qa").mkdir(parents=True)
    (tmp_path / "v4" / "rag_qa" / "labelled.jsonl").write_text(json.dumps(RAG_ROW) + "\n", encoding="utf-8")
    sets = ja.heldout_sets(tmp_path)
    assert [s.title for s in sets[2:]] == ["held-out v3 (fresh for memory; dev for rag_qa)", "held-out v4 (fresh)"]
    assert [s.short for s in sets[2:]] == ["v3 fresh*", "v4 fresh"]
    assert [s.version for s in sets] == [1, 2, 3, 4]


# -- the real labelled sets ----------------------------------------------------------------

V2_MINIMUM = {"rag_qa": 60, "memory": 20, "agent": 16, "clinical": 16, "report": 4}
V2_PROMPTS = {
    "rag_qa": {"rag_answer"},
    "memory": {"memory_usefulness"},
    "agent": {"agent_intent"},
    "clinical": {"clinical_answer"},
    "report": {"report_factual_accuracy", "report_hallucination", "report_coherence", "report_relevance"},
}


@pytest.mark.parametrize("suite", sorted(V2_MINIMUM))
def test_every_v2_row_fits_its_prompt(suite):
    path = V2 / suite / "labelled.jsonl"
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = ja.read_labelled(path)
    assert len(rows) == len(lines) >= V2_MINIMUM[suite]  # nothing dropped
    assert {row.prompt_id for row in rows} == V2_PROMPTS[suite]
    assert all(row.note for row in rows)  # every label says why


def test_v2_rag_rows_hold_both_right_and_wrong_answers():
    rows = ja.read_labelled(V2 / "rag_qa" / "labelled.jsonl")
    right = sum(row.label["accuracy"] >= 4 for row in rows)
    wrong = sum(row.label["accuracy"] <= 2 for row in rows)
    assert right >= len(rows) / 3 and wrong >= len(rows) / 3


def test_every_labelled_set_the_bench_reads_is_valid():
    sets = [ja.in_sample_set(ROOT / "datasets" / "judgments" / "labelled.jsonl"), *ja.heldout_sets()]
    titles = [s.title for s in sets]
    assert titles[1] == "dev (held-out v1, used for development)"
    assert titles[-1].endswith("(fresh)")
    # every suite has exactly one fresh version
    suites = {row.prompt_id for s in sets[1:] for row in s.rows}
    assert sum(len(s.fresh) for s in sets) == len({f for s in sets for f in s.fresh}) and suites
    assert "held-out v2 (fresh)" in titles or "dev (held-out v2, used for development)" in titles
    assert all(s.rows for s in sets)
