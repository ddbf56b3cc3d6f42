"""A drug's name met across scripts: a Latin name and its Hangul transcription (paroxetine /
파록세틴) share a consonant skeleton and a first vowel one transcription could give."""

from __future__ import annotations

import re
from functools import lru_cache

from assay.judges.offline import text as tx
from assay.suites.clinical.offline.cues import CUES

# Consonant classes shared by a drug's Latin name and its Hangul transcription (paroxetine /
# 파록세틴, sulfamethoxazole / 설파메톡사졸): vowels, h and a silent ㅇ are dropped.
# ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ, and the 28 finals (none, ㄱ, ㄲ, ㄳ, ㄴ … ㅎ)
_INITIAL_CLASS = ["k", "k", "n", "t", "t", "r", "m", "p", "p", "s", "s", "", "s", "s", "s", "k", "t", "p", ""]

_FINALS = ["", "k", "k", "ks", "n", "ns", "n", "t", "r", "rk", "rm", "rp", "rs", "rt", "rp", "r", "m", "p", "ps", "s", "s", "n", "s", "s", "k", "t", "p", ""]  # fmt: skip


@lru_cache(maxsize=8192)
def _skeleton(word: str) -> str:
    """The consonant classes of a word, in either script, with repeats collapsed."""
    out: list[str] = []
    for ch in word.lower():
        code = ord(ch) - 0xAC00
        if 0 <= code < 11172:
            initial, final = code // 588, code % 28
            out.append(_INITIAL_CLASS[initial] + _FINALS[final])
        elif "a" <= ch <= "z":
            out.append(ch)
    text = "".join(out)
    if any("a" <= ch <= "z" for ch in word.lower()):
        for a, b in CUES.latin_classes:
            text = text.replace(a, b)
        text = re.sub(r"[aeiouy]", "", text)
    return re.sub(r"(.)\1+", r"\1", text)


# The medial vowels of Hangul syllables, in code order.
_HANGUL_VOWELS = "ㅏㅐㅑㅒㅓㅔㅕㅖㅗㅘㅙㅚㅛㅜㅝㅞㅟㅠㅡㅢㅣ"


def _first_vowels_agree(latin: str, hangul: str) -> bool:
    """Two names with one consonant skeleton still differ when their first vowels cannot be one
    transcription (paroxetine / 플루옥세틴, fluoxetine's: a ↔ ㅜ)."""
    first_latin = next((ch for ch in latin.lower() if ch in CUES.first_vowels), None)
    vowels = [
        _HANGUL_VOWELS[(ord(ch) - 0xAC00) % 588 // 28] for ch in hangul if 0 <= ord(ch) - 0xAC00 < 11172
    ]
    first_hangul = next((v for v in vowels if v != "ㅡ"), None)
    return first_latin is None or first_hangul is None or first_hangul in CUES.first_vowels[first_latin]


def names_in(name: str, clause: str) -> bool:
    """The name is in the clause as written, or, across scripts, as a word with the same
    consonant skeleton (at least five classes, so short words do not meet by chance) and a first
    vowel one transcription could give."""
    if name in clause:
        return True
    latin = name.isascii()
    key = _skeleton(name)
    if len(key) < 5 or " " in name:
        return False
    words = re.findall(r"[A-Za-z]{6,}" if not latin else r"[가-힣]{3,}", clause)
    for word in words:
        if _skeleton(tx.strip_suffix(word)) == key or _skeleton(word) == key:
            latin_name, hangul_name = (name, word) if latin else (word, name)
            if _first_vowels_agree(latin_name, hangul_name):
                return True
    return False
