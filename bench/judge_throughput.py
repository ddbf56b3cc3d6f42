"""Judge-call throughput through JuryRunner + LiteLLMJudge against the loopback server.

    python bench/judge_throughput.py [--calls 2000] [--latency 0.05 0.2 0.5] [--concurrency 32]

ideal = calls x latency / concurrency (seconds): what a client with zero overhead would take.
ratio = ideal / wall; 1.0 means the client adds nothing. The server runs in its own process
(so it does not share the client's GIL); no call store, one judge, one provider bucket.
Every latency in the sweep is measured in this one run, side by side.

The client's CPU per call (litellm + the OpenAI SDK, ~5 ms here) caps throughput at about
1 / cpu_per_call calls per second, so the ratio reaches 1.0 only once latency / concurrency
exceeds that; at realistic judge latencies (0.5 s and up) it does.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import BaseModel, Field  # noqa: E402

import assay  # noqa: E402,F401  (offline switches before litellm)

ROOT = Path(__file__).resolve().parents[1]


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


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.openai_server", "--latency", str(latency)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def measure(calls: int, latency: float, concurrency: int) -> dict[str, float]:
    from assay.judges.llm import LiteLLMJudge
    from assay.judges.runner import JuryRunner

    items = [(f"c{i}", Item(question=f"질문 {i}", answer=f"답변 {i}")) for i in range(calls)]
    process, base_url = start_server(latency)
    try:
        judge = LiteLLMJudge("openai/bench-judge", api_base=base_url)
        runner = JuryRunner([judge], store=None, concurrency_per_provider=concurrency, max_retries=0)
        runner.run(BenchPrompt(), items[:4])  # warm-up: litellm's lazy imports and client cache
        started, cpu = time.perf_counter(), time.process_time()
        run = runner.run(BenchPrompt(), items)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        process.terminate()
        process.wait()
    ideal = calls * latency / concurrency
    return {
        "latency": latency, "wall": wall, "ideal": ideal, "ratio": ideal / wall,
        "cpu_ms": cpu / calls * 1000, "failed": run.judge_stats[judge.name].failed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--latency", type=float, nargs="+", default=[0.05, 0.2, 0.5], help="server latency, s")
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    print(f"{args.calls} judge calls per row, concurrency {args.concurrency}, loopback server in its own process")
    print(f"{'latency s':>9s} {'ideal s':>8s} {'wall s':>8s} {'ratio':>6s} {'client cpu/call ms':>19s} {'failed':>6s}")
    for latency in args.latency:
        row = measure(args.calls, latency, args.concurrency)
        print(
            f"{row['latency']:9.3f} {row['ideal']:8.2f} {row['wall']:8.2f} {row['ratio']:6.2f} "
            f"{row['cpu_ms']:19.2f} {row['failed']:6.0f}"
        )
    print("ratio = ideal / wall (target >= 0.8 at 2,000 calls)")


if __name__ == "__main__":
    main()
