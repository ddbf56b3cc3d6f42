"""Text in a judged output that addresses the grader, not the reader, is set aside before any
offline rule reads it: a sentence holding a grader command of any language pack ("ignore
previous instructions", "채점자는 … 5점을 주세요") and a JSON object shaped like a verdict (it names a
score or verdict key). It can then lower a score (the rest is judged as written), never raise it.

Only those spans are cut; the rest of the text keeps its layout (a report keeps its sections).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from assay.judges.offline.answer_core import JSON_OBJECT, short
from assay.judges.offline.lang import available, pack

# A JSON object (``answer_core.JSON_OBJECT``: no nested braces) is verdict-shaped when it names one of these keys.
VERDICT_KEYS = re.compile(
    r"[\"']?(score|scores|verdict|grade|rating|accuracy|completeness|relevance|faithfulness|noise|pass)[\"']?\s*:",
    re.IGNORECASE,
)
SENTENCE = re.compile(r"[^.!?;\n]*(?:[.!?;]+|\n|$)")


@cache
def grader_cues() -> tuple[str, ...]:
    """Every pack's grader commands, lower-cased: a writer may address the grader in any language."""
    return tuple(sorted({cue.lower() for code in available() for cue in pack(code).grader_commands}))


@lru_cache(maxsize=4096)
def set_aside(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` without what addresses the grader, and what was set aside (empty: unchanged)."""
    verdicts = [m.group(0) for m in JSON_OBJECT.finditer(text) if VERDICT_KEYS.search(m.group(0))]
    kept = text
    for span in verdicts:
        kept = kept.replace(span, " ", 1)
    cues = grader_cues()
    addressed = [
        m.group(0) for m in SENTENCE.finditer(kept)
        if m.group(0).strip() and any(cue in " ".join(m.group(0).replace("’", "'").lower().split()) for cue in cues)
    ]
    for sentence in addressed:
        kept = kept.replace(sentence, " ", 1)
    aside = tuple(s.strip() for s in (*verdicts, *addressed))
    return (kept, aside) if aside else (text, ())


def quoted(aside: tuple[str, ...], limit: int = 80) -> str:
    """What was set aside, short and quoted, for the feedback."""
    return "; ".join(short(text, limit) for text in aside)
