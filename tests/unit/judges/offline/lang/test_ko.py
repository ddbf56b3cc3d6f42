"""The Korean pack's cue tables: every cue the code reads is in its table (and every cue is read),
typed by its YAML tag; a broken table is refused in one line naming the file (and the line of a
broken pattern); the tables are part of every offline judge's version."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay.judges.offline import claims, lang, lexicon, offline_jury
from assay.judges.offline import text as tx
from assay.judges.offline.base import OfflineJudge
from assay.judges.offline.messages import catalogue, render

# Each table and the module that reads it (``KO.<cue>``, the lexicon's ``TABLE.<cue>``).
TABLES = {"claims": (claims, "KO"), "concepts": (lexicon, "TABLE"), "text": (tx, "KO")}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_cue_the_code_reads_is_in_its_table_and_every_cue_is_read(name):
    module, handle = TABLES[name]
    read = set(re.findall(rf"\b{handle}\.(\w+)", Path(module.__file__).read_text(encoding="utf-8")))
    table = lang.cues("ko", name)
    assert read - {"source"} == set(vars(table)) - {"source"}  # no cue missing, none unused
    for cue in read - {"source"}:
        value = getattr(table, cue)
        assert value, cue  # no empty cue list
        assert isinstance(value, str | re.Pattern | tuple | frozenset | dict), cue


def test_the_tags_type_the_cues():
    ko = claims.KO
    assert isinstance(ko.hedges, re.Pattern) and all(isinstance(p, re.Pattern) for p in ko.set_aside)  # !re
    assert isinstance(ko.conditional_endings, frozenset) and isinstance(ko.entity_suffixes, tuple)  # !set, list
    assert tx.KO.near_intents[0] == frozenset({"ADD", "UPDATE"}) and isinstance(tx.KO.intent_cues["ADD"], tuple)
    assert isinstance(ko.rate_periods, dict) and isinstance(ko.amount, str)


def test_the_cues_read_what_they_say():
    ko = claims.KO
    assert ko.hedges.search("정확히는 잘 모르겠어요") and not ko.hedges.search("그런 것 같아요")
    assert ko.hedges.search("I'm NOT SURE")  # (?i) in the table: any case
    assert ko.weekday_list.search("화·목 저녁") and not ko.weekday_list.search("5월·6월")
    assert claims._RATE_AFTER.search("500원씩 매일").group("day")
    assert tx.strip_suffix("창립자는") == "창립자" and tx.strip_suffix("확인했습니다") == "확인"
    assert tx.intent_of("이 일정 지워 주고 새로 추가해 줘") == "DELETE"  # the first cue by position
    assert frozenset({"MOVE", "UPDATE"}) in tx.NEAR_INTENTS and tx.is_empty_memory("(메모리 없음)")


def test_a_broken_table_is_refused_naming_the_file_and_the_line(tmp_path, monkeypatch):
    (tmp_path / "xx.claims.yaml").write_text("span: !re '\\d+일'\nhedges: !re '확실(하지'\n", encoding="utf-8")
    (tmp_path / "xx.text.yaml").write_text("- a list, not cues\n", encoding="utf-8")
    (tmp_path / "xx.short.yaml").write_text("span: !re '\\d+일'\n", encoding="utf-8")
    monkeypatch.setattr(lang, "HERE", tmp_path)
    with pytest.raises(ValueError, match=r"xx\.claims\.yaml: line 2: not a regular expression"):
        lang.cues.__wrapped__("xx", "claims")
    with pytest.raises(ValueError, match=r"xx\.text\.yaml: not a mapping"):
        lang.cues.__wrapped__("xx", "text")
    with pytest.raises(ValueError, match=r"xx\.nothing\.yaml"):
        lang.cues.__wrapped__("xx", "nothing")
    short = lang.cues.__wrapped__("xx", "short")
    assert short.span.search("3일")
    with pytest.raises(AttributeError, match=r"xx\.short\.yaml: no cue 'hedges'"):
        short.hedges  # noqa: B018


def test_an_opposite_must_be_a_concept_and_a_concept_bilingual(tmp_path, monkeypatch):
    text = (lang.HERE / "ko.concepts.yaml").read_text(encoding="utf-8")
    assert '  - ["before", "after"]\n' in text
    (tmp_path / "xx.concepts.yaml").write_text(text.replace('  - ["before", "after"]', '  - ["before", "sometime"]'))
    (tmp_path / "yy.concepts.yaml").write_text(text + "  lonely:\n    ko: [외로운]\n    en: []\n")
    monkeypatch.setattr(lang, "HERE", tmp_path)
    with pytest.raises(ValueError, match="xx.concepts.yaml: opposites: sometime is no concept"):
        lexicon._checked(lang.cues.__wrapped__("xx", "concepts"))
    with pytest.raises(ValueError, match="yy.concepts.yaml: concepts.lonely needs Korean and English forms"):
        lexicon._checked(lang.cues.__wrapped__("yy", "concepts"))


def test_tables_are_no_packs_and_the_ko_pack_still_loads():
    assert "ko.claims" not in lang.available() and {"en", "ko"} <= set(lang.available())
    assert lang.pack("ko").code == "ko"


def test_the_tables_and_their_readers_are_part_of_every_offline_judge_version():
    tables = [lang.HERE / f"ko.{name}.yaml" for name in TABLES]
    for path in (*tables, Path(claims.__file__), Path(lexicon.__file__), Path(tx.__file__)):
        assert path.resolve() in OfflineJudge.rule_files
        for judge in offline_jury():
            assert path.resolve() in type(judge).rule_files


def test_every_evidence_the_checks_write_has_its_words_in_the_pack():
    source = Path(claims.__file__).read_text(encoding="utf-8")
    used = set(re.findall(r'_say\(\s*"(\w+)"', source)) | set(re.findall(r'_relabelled\("[\w-]+", \d, "(\w+)"', source))
    used |= {"span_before", "span_after"}  # said as _say(f"span_{side}")
    assert used == {key.removeprefix("claims.") for key in catalogue("ko") if key.startswith("claims.")}
    found = claims.rag_findings("전부 환불받으실 수 있어요.", "등록비 5만 원을 뺀 금액을 돌려받습니다.", "환불되나요?")
    assert render(found[0].note(), "ko") == "공제 무시(정확도 ≤ 1): 참조는 '등록비'을(를) 빼고 지급, 답변은 '전부'"
