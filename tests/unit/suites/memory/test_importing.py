"""`assay import memory`: a table with one row per evaluation query becomes a memory dataset;
rows that share a session id are queries of one conversation, every problem is named by row and
column, and nothing is written while any is left."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from assay.importing import import_dataset
from assay.suites.registry import get_suite

FACTS = json.dumps([{"fact": "오일 교환 주기 1만 km", "keywords": ["오일", "1만"]}], ensure_ascii=False)
TRANSCRIPT = "user: 엔진오일은 1만 km마다 갈아요\nassistant: 1만 km 주기로 기록했어요\nuser: 타이어는 작년에 바꿨어요"


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def csv_cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def test_rows_of_one_session_share_its_conversation_and_memory(tmp_path):
    source = tmp_path / "memory.csv"
    source.write_text(
        "case_id,session,scenario,question,expected_facts,stale_facts,conversation,memory,entities\n"
        f"car-q1,car,update,오일 언제 갈아?,{csv_cell(FACTS)},{csv_cell(json.dumps(['5천 km']))},"
        f"{csv_cell(TRANSCRIPT)},오일 1만 km 주기. 타이어 작년 교체,\"오일, 타이어\"\n"
        "car-q2,car,,타이어 언제 바꿨지?,\"[\"\"타이어 작년\"\"]\",,,,\n",
        encoding="utf-8")
    result = import_dataset("memory", source, tmp_path / "out", {})
    assert not result.problems, [p.describe() for p in result.problems]
    assert result.mapping["query"] == "question" and result.mapping["session_id"] == "session"
    out = tmp_path / "out"
    cases, sessions, memories = lines(out / "cases.jsonl"), lines(out / "sessions.jsonl"), lines(out / "memories.jsonl")
    assert [c["scenario"] for c in cases] == ["update", "update"]  # the second row takes its session's
    assert cases[0]["stale_facts"] == [{"fact": "5천 km", "keywords": ["5천 km"]}]
    assert cases[1]["expected_facts"] == [{"fact": "타이어 작년", "keywords": ["타이어 작년"]}]
    assert [t["role"] for t in sessions[0]["turns"]] == ["user", "assistant", "user"]
    assert memories == [{"session_id": "car", "memory": "오일 1만 km 주기. 타이어 작년 교체", "entities": ["오일", "타이어"]}]
    suite = get_suite("memory")
    data = suite.load_dataset(out)
    assert not data.parse_problems
    parsed = suite.parse_cases(data)
    assert [c.id for c in parsed] == ["car-q1", "car-q2"] and parsed[0].expected_facts[0].keywords == ["오일", "1만"]


def test_openai_messages_in_parquet_and_a_queries_only_table(tmp_path):
    source = tmp_path / "memory.parquet"
    messages = [{"role": "user", "content": "우리 집 적금은 월 50만 원이야"}, {"role": "assistant", "content": "기록했어요"}]
    pd.DataFrame({"query": ["적금 얼마 넣지?"], "messages": [json.dumps(messages, ensure_ascii=False)]}).to_parquet(source)
    result = import_dataset("memory", source, tmp_path / "out", {})
    assert not result.problems and result.files == {"cases.jsonl": 1, "sessions.jsonl": 1}
    session = lines(tmp_path / "out" / "sessions.jsonl")[0]
    assert session["id"] == "m0001" and session["turns"][0] == {"role": "user", "text": "우리 집 적금은 월 50만 원이야"}
    assert lines(tmp_path / "out" / "cases.jsonl")[0]["scenario"] == "continuous"


def test_every_problem_is_named_by_row_and_column_and_nothing_is_written(tmp_path):
    source = tmp_path / "bad.csv"
    source.write_text(
        "id,session_id,scenario,query,expected_facts,conversation,memory\n"
        f"a,s1,update,q1,{csv_cell(json.dumps([{'fact': '예산'}], ensure_ascii=False))},user: 안녕,메모 A\n"
        "b,s1,noise,q2,,,메모 B\n"
        "c,s2,sideways,q3,[oops,그냥 한 줄,\n"
        "a,s3,,,,\"[{\"\"role\"\": \"\"bot\"\", \"\"text\"\": \"\"hi\"\"}]\",\n"
        "d,s4,,q5,,,\n",
        encoding="utf-8")
    result = import_dataset("memory", source, tmp_path / "out", {})
    described = [p.describe() for p in result.problems]
    expected = [
        ("row 1 [expected_facts]", "fact 1: Field required (at keywords)"),
        ("row 2 [scenario]", "row 1 gave session 's1' another scenario"),
        ("row 2 [memory]", "row 1 gave session 's1' another memory"),
        ("row 3 [expected_facts]", "expected JSON"),
        ("row 3 [conversation]", "transcript line 1 names no role"),
        ("row 3 [scenario]", "'sideways'"),
        ("row 4 [query]", "empty; this field is required"),
        ("row 4 [id]", "id 'a' already used by row 1"),
        ("row 4 [conversation]", "message 1: Input should be 'user', 'assistant' or 'system' (at role)"),
        ("row 5 [conversation]", "session 's4' has no conversation"),
    ]
    assert len(described) == len(expected)  # an unreadable conversation is named once, on its own row
    for where, detail in expected:
        assert any(where in d and detail in d for d in described), (where, detail, described)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
