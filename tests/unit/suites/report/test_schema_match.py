"""Schema matching for the report suite (seed 000 §1.4.2): Korean headers without a hub model."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assay.paths import datasets_dir
from assay.suites.report import schema_match as sm
from assay.suites.report.formulas import task_success
from assay.suites.report.schema_match import (
    LEXICAL_THRESHOLD,
    header_scores,
    lexical_score,
    load_embedder,
    normalize_header,
    requirement_met,
    resolve_team_type,
    schema_completeness,
)

MARKETING = resolve_team_type("marketing")


def _field(team: str, key: str):
    return next(f for f in resolve_team_type(team).fields if f.key == key)


def test_seed_example_market_analysis():
    """§1.4.2: '시장 현황 및 트렌드 분석' fills 시장 분석, '경쟁사 분석' does not."""
    rate, mapping = schema_completeness("# 보고서\n## 시장 현황 및 트렌드 분석\n내용", "marketing")
    assert mapping["market_analysis"] == "시장 현황 및 트렌드 분석" and rate == pytest.approx(1 / 6)
    rate, mapping = schema_completeness("# 보고서\n## 경쟁사 분석\n내용", "marketing")
    assert mapping["market_analysis"] is None and rate == 0.0


def test_competitor_analysis_does_not_reach_market_analysis_through_the_generic_word():
    market = _field("marketing", "market_analysis")
    assert lexical_score("경쟁사 분석", market) < LEXICAL_THRESHOLD / 2
    assert lexical_score("시장 현황 및 트렌드 분석", market) >= LEXICAL_THRESHOLD
    assert header_scores("경쟁사 분석", MARKETING)["market_analysis"] == (0.0, None)


@pytest.mark.parametrize(
    ("name", "key"),
    [("구매 담당자", "purchasing"), ("구매팀", "purchasing"), ("급식 운영 담당자", "food_service"),
     ("마케팅 담당자", "marketing"), ("Marketing", "marketing"), ("제품 개발 연구원", "product_rnd"),
     ("R&D", "product_rnd"), ("기본", "default"), ("default", "default"), (None, "default"), ("", "default")],
)
def test_team_type_aliases(name, key):
    assert resolve_team_type(name).key == key


def test_unknown_team_type_is_an_error():
    with pytest.raises(ValueError, match="known: purchasing"):
        resolve_team_type("영업팀")


@pytest.mark.parametrize(
    ("raw", "clean"),
    [("## 3. 시장 현황", "시장 현황"), ("### Ⅲ. 시장 분석", "시장 분석"), ("## 가. 가격 동향", "가격 동향"),
     ("## 1.2 리스크 요인", "리스크 요인"), ("## **결론:**", "결론"), ("## (2) 실행 방안", "실행 방안")],
)
def test_numbering_and_emphasis_are_stripped(raw, clean):
    assert normalize_header(raw) == clean


def test_one_header_fills_one_field_and_the_title_fills_none():
    report = "# 급식 메뉴 구성 개선 보고서\n## 메뉴 구성 및 영양 관리\n내용"
    _, mapping = schema_completeness(report, "food_service")
    filled = [k for k, v in mapping.items() if v]
    assert filled in (["menu_management"], ["nutrition"])


def test_english_and_paraphrased_headers():
    report = "# T\n## Market Analysis\n## 핵심 타깃 소비자층\n## 브랜드 포지셔닝 전략\n## 단계별 실행 로드맵\n## KPIs\n## Conclusion\n"
    rate, mapping = schema_completeness(report, "마케팅 담당자")
    assert rate == 1.0
    assert mapping["target_audience"] == "핵심 타깃 소비자층" and mapping["metrics"] == "KPIs"


def test_strong_match_claims_the_header():
    scores = header_scores("시장 진입 전략", MARKETING)
    assert scores["strategy"][1] == "synonym" and scores["market_analysis"][1] is None


def test_requirement_met_uses_morphemes_and_synonyms():
    text = "## 핵심 타깃 소비자\n20~30대 고객을 정의했다.\n## KPI\n전환율 성과를 본다."
    assert requirement_met("타겟 고객 정의", text)
    assert requirement_met("성과 측정 지표", text)
    assert not requirement_met("비용 편익 분석", text)
    result = task_success("가" * 100 + text, [], ["타겟 고객 정의"], requirement_matcher=requirement_met)
    assert result.missing_requirements == []


def test_kiwi_is_loaded_once():
    assert sm._kiwi() is sm._kiwi()


def _labelled(split: str) -> list[dict]:
    path = datasets_dir() / "report" / "labels" / "schema_pairs.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if r["split"] == split]


@pytest.mark.parametrize("split", ["dev", "heldout"])
def test_labelled_accuracy(split):
    rows = _labelled(split)
    correct = sum(
        (header_scores(r["header"], resolve_team_type(r["team_type"]))[r["field"]][1] is not None) == r["match"]
        for r in rows
    )
    assert len(rows) >= 45
    assert correct / len(rows) >= 0.9, f"{split}: {correct}/{len(rows)}"


# --------------------------------------------------------------------------- embeddings (no torch here)


def test_lexical_only_by_default_and_auto_without_local_model(monkeypatch):
    assert load_embedder(None) is None
    monkeypatch.setattr(sm, "local_model_path", lambda name: None)
    assert load_embedder("auto") is None
    with pytest.raises(FileNotFoundError, match="never downloads"):
        load_embedder("no-such-model-anywhere")


class _FakeModel:
    """Maps two texts to the same unit vector, everything else to orthogonal ones."""

    def __init__(self, same: set[str]):
        self.same = same

    def encode(self, text, normalize_embeddings=True):
        if text in self.same:
            return np.array([1.0, 0.0])
        return np.array([0.0, 1.0]) if hash(text) % 2 else np.array([0.0, -1.0])


def test_embedding_step_is_used_only_when_lexical_steps_fail():
    header = "소비자 페인 포인트 정리"  # no lexical route to 타겟 고객
    assert header_scores(header, MARKETING)["target_audience"][1] is None
    embedder = load_embedder(_FakeModel({header, "타겟 고객"}))
    score, step = header_scores(header, MARKETING, embedder)["target_audience"]
    assert step == "embedding" and score == pytest.approx(1.0)


def test_english_only_embedder_ignores_korean_headers():
    embedder = sm.Embedder(_FakeModel({"경쟁사 분석", "market analysis"}), latin_only=True)
    assert embedder.similarity("경쟁사 분석", _field("marketing", "market_analysis")) is None


def test_schema_matching_uses_the_offline_jurys_analyser_not_a_second_one():
    """A report run's schema matching and its offline jury analyse Korean in one process: one
    analyser serves both (a second cost ~3.5 CPU s and 500 MB in every such run)."""
    from assay.judges.offline.text import kiwi

    assert sm.tokens("시장 현황 및 트렌드 분석")  # the matching's own path builds (or finds) it
    assert sm._kiwi() is kiwi()
