"""memory_usefulness: the offline jury's rules (seed 001, scale 0-10).

memory_usefulness (0-10): Q = coverage(query without interrogatives, memory + entities),
T = the answer type the query needs (an amount for 얼마/비용/예산…, a date for 언제…) is present\nin a clause that shares a word with the query.

    ============================================  =========  ============  ========
    signal                                        relevance  completeness  accuracy
    ============================================  =========  ============  ========
    memory empty / "(메모리 없음)"                   0          0             0
    Q ≥ .5 and T (or no type needed)              10         9             9
    Q ≥ .5, type needed but absent                6          4             6
    0 < Q < .5 and T                              8          7             9
    0 < Q < .5, T absent                          4          3             6
    Q = 0                                         2          1             5
    two values for one subject, no update cue     −1         −3            4
    two values for one subject with an update cue              −1           8
    ============================================  =========  ============  ========

noise: segments (clauses) that share nothing with the query and carry no needed figure,
plus greetings/system text and resolved/stale items: 0 → 0, 1 → 2, 2 → 4, 3 → 5, 4 → 6,
≥ 5 → 7; +2 when one subject carries conflicting values; capped at 10.
"""

from __future__ import annotations

from typing import ClassVar

from assay.judges.offline import text as tx
from assay.judges.offline.scoring import pct
from assay.judges.prompts import MemoryInput
from assay.schemas import JsonObject

TIME_UNITS = frozenset({"년", "월", "일", "시", "분", "주"})


class MemoryRules:
    """Rules of one prompt family; mixed into ``OfflineJudge``, which supplies the signals
    (``units``, ``conflicts``, ``coverage``…) and the thresholds they use."""

    PROMPT_RULES: ClassVar[dict[str, str]] = {"memory_usefulness": "memory_usefulness"}

    def memory_usefulness(self, item: MemoryInput) -> JsonObject:
        tag = f"[{self.signal}]"
        if tx.is_empty_memory(item.memory) and not item.entities:
            return {
                "relevance": 0, "completeness": 0, "accuracy": 0, "noise": 0,
                "reasoning": f"{tag} 저장된 메모리가 없음.", "helpful_info": [],
                "missing_info": [f"'{item.query}'에 답할 정보"], "summary": "메모리 없음: 쿼리에 쓸 수 없음",
            }  # fmt: skip
        memory = item.memory if not tx.is_empty_memory(item.memory) else ""
        full = "\n".join([memory, *item.entities])
        segs = tx.segments(memory)
        ctx = self.prepare([item.query, *segs, *item.entities])
        core = tx.strip_fillers(item.query)
        u_q = self.units(core, ctx)
        u_m = self.units(full, ctx)
        q = self.coverage(u_q, u_m)
        q = 0.0 if q is None else q
        needs_amount = tx.has_any(item.query, tx.QUESTION_CUE_NUMBER)
        needs_time = tx.has_any(item.query, tx.QUESTION_CUE_TIME)
        # The answer must sit beside the query's subject: a figure in a clause that shares
        # nothing with the query (a "2단계" approval when asked for a cost) does not answer it.
        on_topic = [seg for seg in segs if (self.coverage(u_q, self.units(seg, ctx)) or 0.0) > 0]
        figures = [f for seg in on_topic for f in tx.quantities(seg)]
        if needs_time:
            typed = any(f.unit in TIME_UNITS for f in figures)
        elif needs_amount:
            typed = any(f.unit not in TIME_UNITS for f in figures)
        else:
            typed = q > 0
        needed = needs_amount or needs_time
        if q >= 0.5 and (typed or not needed):
            rel, comp, acc = 10, 9, 9
        elif q >= 0.5:
            rel, comp, acc = 6, 4, 6
        elif q > 0 and typed:
            rel, comp, acc = 8, 7, 9
        elif q > 0:
            rel, comp, acc = 4, 3, 6
        else:
            rel, comp, acc = 2, 1, 5
        conflicts = _value_conflicts(memory)
        updated = bool(conflicts) and tx.has_any(memory, tx.UPDATE_CUES)
        notes = [
            f"쿼리 핵심어 포함률 {pct(q)}",
            "필요한 정보 유형(수치/날짜) " + ("있음" if typed else "없음"),
        ]
        if conflicts and updated:
            comp, acc = max(comp - 1, 0), 8
            notes.append("같은 항목의 값이 갱신됨: " + ", ".join(conflicts))
        elif conflicts:
            rel, comp, acc = max(rel - 1, 0), max(comp - 3, 0), 4
            notes.append("같은 항목에 상충하는 값: " + ", ".join(conflicts))
        irrelevant, helpful = [], []
        boiler = stale = False
        for seg in segs:
            if tx.has_any(seg, tx.GREETING_CUES):
                boiler = True
                irrelevant.append(seg)
                continue
            if tx.has_any(seg, tx.STALE_CUES):
                stale = True
                irrelevant.append(seg)
                continue
            seg_cov = self.coverage(u_q, self.units(seg, ctx)) or 0.0
            has_type = bool(tx.quantities(seg)) and needed
            if seg_cov >= self.SEGMENT_OVERLAP or has_type:
                helpful.append(seg)
            else:
                irrelevant.append(seg)
        noise = (0, 2, 4, 5, 6)[len(irrelevant)] if len(irrelevant) < 5 else 7
        noise = min(noise + (2 if conflicts else 0), 10)
        notes.append(
            f"무관한 조각 {len(irrelevant)}/{len(segs)}"
            + (" (인사말/안내 문구 포함)" if boiler else "")
            + (" (해결되었거나 오래된 정보 포함)" if stale else "")
        )
        missing = (
            [] if (typed or not needed) else ["쿼리가 묻는 " + ("날짜/시점" if needs_time else "금액/수치")]
        )
        if q < 0.5:
            missing.append(f"'{core}'에 관한 직접적인 정보")
        return {
            "relevance": rel,
            "completeness": comp,
            "accuracy": acc,
            "noise": noise,
            "reasoning": f"{tag} " + ". ".join(notes) + ".",
            "helpful_info": helpful[:5],
            "missing_info": missing,
            "summary": "쿼리에 "
            + ("유용한" if rel >= 7 else "부분적으로 관련된" if rel >= 4 else "거의 무관한")
            + " 메모리",
        }


def _value_conflicts(memory: str) -> list[str]:
    """Subjects (the word right before a figure) that carry two different values."""
    seen: dict[str, list[tx.Quantity]] = {}
    for seg in tx.segments(memory):
        figures = tx.quantities(seg)
        if not figures:
            continue
        before = seg[: seg.find(figures[0].text)] if figures[0].text in seg else seg
        words = tx.stems(before)
        if not words:
            continue
        subject = words[-1]
        seen.setdefault(subject, []).append(figures[0])
    out = []
    for subject, values in seen.items():
        distinct: list[tx.Quantity] = []
        for v in values:
            if not any(tx.same_quantity(v, d) for d in distinct):
                distinct.append(v)
        if len(distinct) > 1:
            out.append(f"{subject}: " + " / ".join(v.text for v in distinct))
    return out
