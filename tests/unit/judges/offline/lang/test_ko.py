"""The Korean pack's cue tables: every key loads with its type, a broken table is refused in one
line naming the file and the key, and the tables are part of every offline judge's version."""

from __future__ import annotations

import re

import pytest
import yaml

from assay.judges.offline import claims, lang, lexicon, offline_jury
from assay.judges.offline import text as tx
from assay.judges.offline.base import OfflineJudge
from assay.judges.offline.messages import catalogue, render

TABLES = {"claims": claims.ClaimCues, "concepts": lexicon.ConceptTable, "text": tx.TextCues}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_key_of_a_table_loads_with_its_type(name):
    model = TABLES[name]
    raw = yaml.safe_load((lang.HERE / f"ko.{name}.yaml").read_text(encoding="utf-8"))
    assert set(raw) == set(model.model_fields)  # no key missing, none unknown
    table = lang.table("ko", name, model)
    for key, field in model.model_fields.items():
        value = getattr(table, key)
        assert value, key  # no empty cue list
        if "Pattern" in str(field.annotation) and not isinstance(value, tuple):
            assert isinstance(value, re.Pattern), key


def test_the_cues_read_what_they_say():
    ko = claims.KO
    assert ko.hedges.search("정확히는 잘 모르겠어요") and not ko.hedges.search("그런 것 같아요")
    assert ko.hedges.search("I'm NOT SURE")  # (?i) in the table: any case
    assert ko.weekday_list.search("화·목 저녁") and not ko.weekday_list.search("5월·6월")
    assert claims._RATE_AFTER.search("500원씩 매일").group("day")
    assert tx.strip_suffix("창립자는") == "창립자" and tx.strip_suffix("확인했습니다") == "확인"
    assert tx.intent_of("이 일정 지워 주고 새로 추가해 줘") == "DELETE"  # the first cue by position
    assert frozenset({"MOVE", "UPDATE"}) in tx.NEAR_INTENTS and tx.is_empty_memory("(메모리 없음)")


def test_a_broken_table_is_refused_naming_the_file_and_the_key(tmp_path, monkeypatch):
    raw = yaml.safe_load((lang.HERE / "ko.claims.yaml").read_text(encoding="utf-8"))
    raw["hedges"] = "확실(하지"  # not a regular expression
    del raw["weekday_list"]
    (tmp_path / "xx.claims.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    monkeypatch.setattr(lang, "HERE", tmp_path)
    with pytest.raises(ValueError, match=r"xx\.claims\.yaml: .*hedges.*weekday_list"):
        lang.table.__wrapped__("xx", "claims", claims.ClaimCues)
    with pytest.raises(ValueError, match=r"xx\.nothing\.yaml"):
        lang.table.__wrapped__("xx", "nothing", claims.ClaimCues)


def test_an_opposite_must_be_a_concept(tmp_path, monkeypatch):
    raw = yaml.safe_load((lang.HERE / "ko.concepts.yaml").read_text(encoding="utf-8"))
    raw["opposites"].append(["before", "sometime"])
    (tmp_path / "xx.concepts.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    monkeypatch.setattr(lang, "HERE", tmp_path)
    with pytest.raises(ValueError, match="xx.concepts.yaml: .*sometime is no concept"):
        lang.table.__wrapped__("xx", "concepts", lexicon.ConceptTable)


def test_tables_are_no_packs_and_the_ko_pack_still_loads():
    assert "ko.claims" not in lang.available() and {"en", "ko"} <= set(lang.available())
    assert lang.pack("ko").code == "ko"


def test_the_tables_and_their_readers_are_part_of_every_offline_judge_version():
    from pathlib import Path

    tables = [lang.HERE / f"ko.{name}.yaml" for name in TABLES]
    for path in (*tables, Path(claims.__file__), Path(lexicon.__file__), Path(tx.__file__)):
        assert path.resolve() in OfflineJudge.rule_files
        for judge in offline_jury():
            assert path.resolve() in type(judge).rule_files


def test_every_evidence_the_checks_write_has_its_words_in_the_pack():
    from pathlib import Path

    used = set(re.findall(r'_say\(\s*"(\w+)"', Path(claims.__file__).read_text(encoding="utf-8")))
    used |= {"span_before", "span_after"}  # said as _say(f"span_{side}")
    assert used == {key.removeprefix("claims.") for key in catalogue("ko") if key.startswith("claims.")}
    found = claims.rag_findings("전부 환불받으실 수 있어요.", "등록비 5만 원을 뺀 금액을 돌려받습니다.", "환불되나요?")
    assert render(found[0].note(), "ko") == "deduction-ignored(정확도 ≤ 1): 참조는 '등록비'을(를) 빼고 지급, 답변은 '전부'"
