"""Judge-call throughput through JuryRunner + LiteLLMJudge against the loopback server.

    python bench/judge_throughput.py [--calls 2000] [--latency 0.05] [--concurrency 32]

ideal = calls x latency / concurrency (seconds): what a client with zero overhead would take.
ratio = ideal / wall; 1.0 means the client adds nothing. The server runs in this process
(it shares the GIL with the client), no call store, one judge, one provider bucket.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import BaseModel, Field  # noqa: E402

import assay  # noqa: E402,F401  (offline switches before litellm)
from tests.support.openai_server import OpenAICompatServer  # noqa: E402


class Verdict(BaseModel):
    accuracy: int = Field(ge=1, le=5)
    completeness: int = Field(ge=1, le=5)
    relevance: int = Field(ge=1, le=5)
    reason: str


class Item(BaseModel):
    question: str
    answer: str


class BenchPrompt:
    id, version, sha256, verdict_model = "bench.answer", "1", "0" * 64, Verdict

    def messages(self, item: Item, lang: str) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": "질문에 대한 답변을 정확성, 완전성, 관련성(1-5)으로 평가하세요."},
            {"role": "user", "content": f"질문: {item.question}\n답변: {item.answer}"},
        ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05, help="server latency per call, seconds")
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()

    from assay.judges.llm import LiteLLMJudge
    from assay.judges.runner import JuryRunner

    items = [(f"c{i}", Item(question=f"질문 {i}", answer=f"답변 {i}")) for i in range(args.calls)]
    with OpenAICompatServer(latency_s=args.latency) as server:
        judge = LiteLLMJudge("openai/bench-judge", api_base=server.base_url)
        runner = JuryRunner([judge], store=None, concurrency_per_provider=args.concurrency, max_retries=0)
        runner.run(BenchPrompt(), items[:4])  # warm-up: litellm's lazy imports and client cache
        server.reset_counts()
        started, cpu = time.perf_counter(), time.process_time()
        run = runner.run(BenchPrompt(), items)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        served = server.count(status=200)

    failed = run.judge_stats[judge.name].failed
    ideal = args.calls * args.latency / args.concurrency
    print(f"calls        {args.calls} (served {served}, failed {failed})")
    print(f"latency      {args.latency:.3f} s   concurrency {args.concurrency}")
    print(f"wall         {wall:.2f} s   ({args.calls / wall:.0f} calls/s, process CPU {cpu:.2f} s)")
    print(f"ideal        {ideal:.2f} s")
    print(f"ratio        {ideal / wall:.2f}   (ideal / wall; target >= 0.8)")
    print(f"cpu/call     {cpu / args.calls * 1000:.2f} ms  (client + in-process server)")


if __name__ == "__main__":
    main()
