"""The aggregate step's rows read part by part: rag_qa's reduction partition by partition gives
the rows and summary of reducing every row at once, and scores.parquet written in chunks holds
the table of one DataFrame."""

import json

import pandas as pd

from assay import pipeline
from assay.lineage.store import ArtifactStore
from assay.schemas import ScoreRow
from assay.spec import JurySpec, PanelJudge, RunSpec
from assay.suites.kit import (
    RowSpool,
    ScoreRows,
    ensemble,
    group_means,
    jury_summary,
    metric_stats,
    value_index,
)
from assay.suites.rag_qa import summary as rag_summary
from assay.suites.rag_qa.schema import RagCase

JUDGES = ["j1", "j2", "j3"]
SPEC = RunSpec(suite="rag_qa", jury=JurySpec(panel=[PanelJudge(name=j, model=f"m/{j}", weight=1.0 + i) for i, j in enumerate(JUDGES)]))


def case_rows(n: int) -> list[ScoreRow]:
    """A case's retrieval rows and per-judge answer rows, with a disagreement and a failed judge."""
    case_id = f"q{n:03d}"
    rows = [ScoreRow(case_id=case_id, metric=m, family="retrieval", value=(n % 4) / 4, scale="0-1",
                     details={"n_retrieved": 8}) for m in ("reciprocal_rank", "ndcg@10")]
    for metric in ("accuracy", "relevance"):
        for j, judge in enumerate(JUDGES):
            if n % 5 == 0 and judge == "j3":
                rows.append(ScoreRow.unscored(case_id, metric, "answer", "1-5", "timeout", judge=judge))
            else:
                value = 1.0 if n % 7 == 0 and j == 0 else float(3 + (n + j) % 3)  # case 7k: judges disagree
                rows.append(ScoreRow(case_id=case_id, metric=metric, family="answer", value=value, scale="1-5",
                                     judge=judge, details={"feedback": f"{judge} on {case_id}"}))
    return rows


def all_at_once(rows: list[ScoreRow], cases: list[RagCase]) -> tuple[list[ScoreRow], rag_summary.RagSummary]:
    """rag_qa's reduction as it was before it read rows part by part."""
    final = [row for row in rows if row.judge is None] + ensemble(rows, SPEC)
    per_judge = [row for row in rows if row.judge is not None]
    values = value_index(final)
    metrics = ["reciprocal_rank", "ndcg@10", "accuracy", "relevance"]
    labels = {"reciprocal_rank": rag_summary.quality_label, "ndcg@10": rag_summary.quality_label,
              "accuracy": rag_summary.answer_label, "relevance": rag_summary.answer_label}
    summary = rag_summary.RagSummary(
        k=SPEC.k, n_cases=len(cases), metrics=metrics,
        scales={m: ("1-5" if m in ("accuracy", "relevance") else "0-1") for m in metrics},
        overall={m: metric_stats((values.get((c.id, m)) for c in cases), labels[m]) for m in metrics},
        by_category=group_means(values, {c.id: c.category for c in cases}, metrics),
        jury=jury_summary(final + per_judge, SPEC, rag_summary.ANSWER_METRICS),
    )
    return final + per_judge, summary


def test_rag_qa_reduced_part_by_part_equals_all_rows_at_once():
    cases = [RagCase(id=f"q{n:03d}", question="?", reference_answer="!", category=f"c{n % 3}") for n in range(30)]
    by_case = {c.id: case_rows(n) for n, c in enumerate(cases)}
    # Two partitions of 20 and 10 cases; each family's rows of a partition are one part (file).
    parts = [
        [row for c in members for row in by_case[c.id] if row.family == family]
        for family in ("answer", "retrieval") for members in (cases[:20], cases[20:])
    ]
    expected_rows, expected_summary = all_at_once([row for part in parts for row in part], cases)

    result = rag_summary.aggregate(ScoreRows([lambda p=p: p for p in parts]), cases, SPEC)
    assert result.summary == expected_summary
    assert [r.model_dump(mode="json") for r in result.rows] == [r.model_dump(mode="json") for r in expected_rows]
    assert expected_summary.jury.disagreements and expected_summary.jury.missing_judge_scores == {"j3": 12}


def test_scores_parquet_in_chunks_is_the_table_of_one_frame(tmp_path, monkeypatch):
    store = ArtifactStore(str(tmp_path))
    rows = [row.model_dump(mode="json") for n in range(12) for row in case_rows(n)]
    sha = store.put_jsonl(rows)
    monkeypatch.setattr(pipeline, "PARQUET_CHUNK", 7)  # several row groups, some without a judge or a reason
    data, listed = pipeline.scores_parquet(store, sha, {"q001"})
    whole = pipeline.scores_frame_from(store, sha)  # the table as one DataFrame, as publish built it before
    (tmp_path / "t.parquet").write_bytes(data)
    written = pd.read_parquet(tmp_path / "t.parquet")
    pd.testing.assert_frame_equal(written, whole, check_dtype=False)
    assert set(listed["case_id"]) == {"q001"} and len(listed) == len(case_rows(1))
    everything = pipeline.scores_parquet(store, sha, None)[1]
    pd.testing.assert_frame_equal(everything, whole)


def odd_rows() -> list[ScoreRow]:
    """Rows whose JSON is easy to get wrong: NaN, infinities, -0.0, big and tiny numbers, escapes."""
    details = {"nan": float("nan"), "inf": float("-inf"), "zero": -0.0, "big": 10**30, "tiny": 1e-310,
               "sum": 0.1 + 0.2, "text": 'é\n"\\\u2028', "nested": [{"b": 1, "a": [True, None]}]}
    return [
        ScoreRow(case_id="q000", metric="ndcg@10", family="retrieval", value=float("nan"), scale="0-1", details=details),
        ScoreRow(case_id="q000", metric="accuracy", family="answer", value=float("inf"), scale="1-5", judge="j1",
                 details=details),
        ScoreRow.unscored("q000", "accuracy", "answer", "1-5", "키 없음 \"quoted\"", judge="j2"),
    ]


def test_stored_rows_read_back_as_json_loads_and_model_validate_read_them(tmp_path):
    """The aggregate step parses stored rows with pydantic's JSON parser and spools their lines:
    every row must be the one json.loads + model_validate gives, written back byte for byte."""
    store = ArtifactStore(str(tmp_path))
    rows = odd_rows() + case_rows(7)
    sha = store.put_jsonl(row.model_dump(mode="json") for row in rows)
    expected = [ScoreRow.model_validate(record) for record in store.iter_jsonl(sha)]
    stored = ScoreRows.stored(store, [sha])
    spool = RowSpool()
    for part in stored.parts_with_lines():
        for row, line in part:
            spool.add(row, line)
    for got in (list(stored), list(spool.rows())):
        assert store.put_jsonl(r.model_dump(mode="json") for r in got) == sha
        assert [repr(r) for r in got] == [repr(r) for r in expected]  # repr: nan != nan


def test_a_spool_of_rows_never_stored_gives_back_what_the_scores_file_would_hold():
    spool = RowSpool()
    for row in odd_rows():
        spool.add(row)

    def written(rows):  # the scores file's text: NaN in details is already null there
        return [json.dumps(r.model_dump(mode="json"), sort_keys=True) for r in rows]

    assert written(spool.rows()) == written(odd_rows())
    assert "NaN" in written(odd_rows())[0]


def test_rag_qa_aggregate_of_stored_rows_equals_rows_in_memory(tmp_path):
    store = ArtifactStore(str(tmp_path))
    cases = [RagCase(id=f"q{n:03d}", question="?", reference_answer="!", category=f"c{n % 3}") for n in range(30)]
    parts = [[row for n in range(lo, hi) for row in case_rows(n) if row.family == family]
             for family in ("answer", "retrieval") for lo, hi in ((0, 20), (20, 30))]
    shas = [store.put_jsonl(row.model_dump(mode="json") for row in part) for part in parts]
    expected = rag_summary.aggregate(ScoreRows([lambda p=p: p for p in parts]), cases, SPEC)
    result = rag_summary.aggregate(ScoreRows.stored(store, shas), cases, SPEC)
    assert result.summary == expected.summary
    assert [r.model_dump(mode="json") for r in result.rows] == [r.model_dump(mode="json") for r in expected.rows]
