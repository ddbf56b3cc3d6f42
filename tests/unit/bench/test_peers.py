"""bench/peers.py: the fake judge answers each tool in its own format, and the bench's cases
are all distinct (a repeated request would be answered once and shrink the judging)."""

from __future__ import annotations

import json

from bench import peers


def test_the_fake_judge_answers_each_tool_in_its_format():
    schema = {"type": "object", "properties": {"score": {"type": "integer", "minimum": 1, "maximum": 5}}}
    assay_body = {"response_format": {"type": "json_schema", "json_schema": {"name": "v", "schema": schema}},
                  "messages": [{"role": "user", "content": "judge"}]}
    assert json.loads(peers.answer_for(assay_body)) == {"score": 3}
    inspect_body = {"messages": [{"role": "user", "content": "... end with GRADE: C or GRADE: I"}]}
    assert peers.answer_for(inspect_body).endswith("GRADE: C")
    ragas_body = {"messages": [{"role": "user", "content": 'output {"reason": str, "verdict": int}'}]}
    assert json.loads(peers.answer_for(ragas_body)) == {"reason": "ok", "verdict": 1}
    promptfoo_body = {"messages": [{"role": "user", "content": "grade the output against the rubric"}]}
    assert json.loads(peers.answer_for(promptfoo_body)) == {"reason": "ok", "pass": True, "score": 1.0}


def test_every_bench_case_is_distinct_and_the_peers_get_the_same_cases(tmp_path):
    dataset, flat_file = peers.build_data(100, tmp_path)
    cases = peers.lines(dataset / "cases.jsonl")
    generations = peers.lines(dataset / "generations.jsonl")
    flat = peers.lines(flat_file)
    assert len(cases) == len(generations) == len(flat) == 100
    assert len({c["question"] for c in cases}) == 100
    assert [c["id"] for c in cases] == [g["case_id"] for g in generations] == [r["id"] for r in flat]
    assert [c["question"] for c in cases] == [r["question"] for r in flat]
