"""A small memory dataset (the seed's three scenarios plus noise) for tests that must not
depend on the bundled one."""

from __future__ import annotations

import json
from pathlib import Path


def turns(*texts: str) -> list[dict[str, str]]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "text": t} for i, t in enumerate(texts)]


SESSIONS = [
    {"id": "t1", "scenario": "continuous", "turns": turns(
        "AWS 비용이 월 1.2억이에요", "네, 월 1.2억 원으로 기록할게요.", "예산은 1억이에요", "예산 1억 원, 현재 초과 상태네요.",
        "RI 커버리지는 60%예요", "RI 커버리지 60% 확인했습니다.", "아까 말한 예산 초과 상황 다시 설명해줘")},
    {"id": "t2", "scenario": "update", "turns": turns(
        "예산이 1억이에요", "예산 1억 원 기록했습니다.", "태깅 정책도 논의해요", "네, 태깅 정책 초안을 보겠습니다.",
        "예산이 1.5억으로 늘었어요", "예산을 1.5억 원으로 갱신했습니다.", "현재 예산이 얼마야?")},
    {"id": "t3", "scenario": "topic_switch", "turns": turns(
        "GCP 월 비용은 3천만 원이에요", "GCP 3천만 원 기록.", "이제 거버넌스 얘기해요", "거버넌스 위원회는 매월 열립니다.",
        "승인 절차는 2단계예요", "2단계 승인으로 기록했습니다.", "처음에 말한 GCP 비용이 얼마였지?")},
]
CASES = [
    {"id": "t1-q1", "session_id": "t1", "scenario": "continuous", "query": "아까 말한 예산 초과 상황 다시 설명해줘",
     "expected_facts": [{"fact": "예산 1억 원", "keywords": ["예산", "1억"]}, {"fact": "월 비용 1.2억 원", "keywords": ["1.2억"]}]},
    {"id": "t2-q1", "session_id": "t2", "scenario": "update", "query": "현재 예산이 얼마야?",
     "expected_facts": [{"fact": "현재 예산 1.5억 원", "keywords": ["예산", "1.5억"]}],
     "stale_facts": [{"fact": "예산 1억 원 (변경 전)", "keywords": ["예산", "1억"]}]},
    {"id": "t3-q1", "session_id": "t3", "scenario": "topic_switch", "query": "처음에 말한 GCP 비용이 얼마였지?",
     "expected_facts": [{"fact": "GCP 월 비용 3천만 원", "keywords": ["GCP", "3천만"]}]},
]
MEMORIES = [
    {"session_id": "t1", "memory": "사용자는 AWS 주력, 월 120,000,000원 지출. 예산은 1억 원으로 초과 우려. RI 커버리지 60%.",
     "entities": ["AWS", "RI 커버리지"]},
    {"session_id": "t2", "memory": "사용자 예산은 1억 원. 태깅 정책 초안 논의.", "entities": ["예산"]},
    {"session_id": "t3", "memory": "", "entities": []},
]


def write_memory_dataset(root: Path, cases=CASES, sessions=SESSIONS, memories=MEMORIES) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, rows in (("cases", cases), ("sessions", sessions), ("memories", memories)):
        lines = [json.dumps(r, ensure_ascii=False) for r in rows]
        (root / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root
