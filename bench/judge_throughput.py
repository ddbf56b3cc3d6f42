"""Judge-call throughput: HTTP clients and assay's real jury step, side by side in one run.

    python bench/judge_throughput.py [--cases 480] [--latency 0.05 0.2] [--concurrency 32]

Against a cheap loopback server in its own process (``bench/loopback_server.py``: one asyncio
loop, keep-alive, a cached answer), each row sends the same requests, cases x 3 judges (the
rag_qa answer prompt with its ``response_format``), at most ``concurrency`` in flight:

- ``aiohttp``   bare client: one session, a semaphore, POST and read the JSON (the reference);
- ``httpx``     one AsyncClient;
- ``openai``    the OpenAI SDK's AsyncOpenAI;
- ``litellm``   ``litellm.acompletion``;
- ``jury step`` ``JuryRunner`` with judges from ``build_judges`` and a real call store, as an
  ``assay run --judge openai/… --api-base URL`` builds them (the lean transport);
- ``jury step (litellm)`` the same jury forced through litellm, for comparison.

Printed per row: wall seconds, ``ideal`` = calls x latency / concurrency, ``vs ideal`` =
ideal / wall, ``vs aiohttp`` = aiohttp's wall / wall, and client CPU per call (process time,
all threads). Every figure of one latency comes from the same run, so the machine's load
affects them alike; absolute seconds still move with it, the ratios much less.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import assay  # noqa: E402,F401  (offline switches before litellm)
from assay.judges.llm import response_format_for  # noqa: E402
from assay.judges.prompts.rag import RAG_ANSWER, RagAnswerInput  # noqa: E402

SCRATCH: list[str] = []  # call-store directories to remove once a row is timed
MODELS = ("openai/bench-judge-a", "openai/bench-judge-b", "openai/bench-judge-c")
Body = dict[str, Any]


def items(cases: int) -> list[tuple[str, RagAnswerInput]]:
    return [
        (
            f"c{i:05d}",
            RagAnswerInput(
                question=f"연차 휴가는 며칠인가요? (사례 {i})",
                generated_answer=f"입사 1년 후 15일의 연차가 주어집니다. ({i})",
                reference_answer="1년 이상 근무 시 15일의 유급 연차휴가가 주어진다.",
                contexts=["근로기준법 제60조: 사용자는 1년간 80퍼센트 이상 출근한 근로자에게 15일의 유급휴가를 주어야 한다."],
            ),
        )
        for i in range(cases)
    ]


def bodies(cases: list[tuple[str, RagAnswerInput]]) -> list[Body]:
    params = {"temperature": 0.2, "max_tokens": 4096, "response_format": response_format_for(RAG_ANSWER.verdict_model)}
    return [
        {"model": model.split("/", 1)[1], "messages": RAG_ANSWER.messages(item, "ko"), **params}
        for _, item in cases
        for model in MODELS
    ]


async def bounded(calls: list[Body], concurrency: int, send: Callable[[Body], Awaitable[bool]]) -> int:
    """Send every body with at most ``concurrency`` in flight; returns how many failed."""
    semaphore = asyncio.Semaphore(concurrency)

    async def one(body: Body) -> bool:
        async with semaphore:
            try:
                return await send(body)
            except Exception:
                return False

    results = await asyncio.gather(*(one(b) for b in calls))
    return sum(not ok for ok in results)


def reply_ok(payload: dict[str, Any]) -> bool:
    return bool(json.loads(payload["choices"][0]["message"]["content"]))


async def run_aiohttp(base: str, calls: list[Body], concurrency: int) -> int:
    import aiohttp

    url = base + "/chat/completions"
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:

        async def send(body: Body) -> bool:
            async with session.post(url, json=body, headers={"Authorization": "Bearer no-key"}) as r:
                return r.status == 200 and reply_ok(await r.json())

        return await bounded(calls, concurrency, send)


async def run_httpx(base: str, calls: list[Body], concurrency: int) -> int:
    import httpx

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:

        async def send(body: Body) -> bool:
            r = await client.post(base + "/chat/completions", json=body, headers={"Authorization": "Bearer no-key"})
            return r.status_code == 200 and reply_ok(r.json())

        return await bounded(calls, concurrency, send)


async def run_openai(base: str, calls: list[Body], concurrency: int) -> int:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base, api_key="no-key", max_retries=0)
    try:

        async def send(body: Body) -> bool:
            response = await client.chat.completions.create(**body)
            return bool(json.loads(response.choices[0].message.content or ""))

        return await bounded(calls, concurrency, send)
    finally:
        await client.close()


async def run_litellm(base: str, calls: list[Body], concurrency: int) -> int:
    from assay.judges.transport import litellm_module

    litellm = litellm_module()

    async def send(body: Body) -> bool:
        body = {**body, "model": "openai/" + body["model"]}
        response = await litellm.acompletion(api_base=base, api_key="no-key", max_retries=0, num_retries=0, **body)
        return bool(json.loads(response.choices[0].message.content or ""))

    return await bounded(calls, concurrency, send)


def run_jury(transport: str) -> Callable[[str, list[tuple[str, RagAnswerInput]], int], int]:
    def run(base: str, cases: list[tuple[str, RagAnswerInput]], concurrency: int) -> int:
        from assay.judges.config import JudgeSpec, JuryConfig, build_judges
        from assay.judges.runner import JuryRunner
        from assay.judges.store import CallStore

        config = JuryConfig(judges=[JudgeSpec(model=m, api_base=base) for m in MODELS], concurrency_per_provider=concurrency)
        judges = build_judges(config)
        for judge in judges:  # the bench's one knob: which transport the same judges use
            from assay.judges.transport import transport_for

            judge.transport = transport_for(judge.model, judge.api_base, transport)
        store = CallStore(tempfile.mkdtemp(prefix="assay-bench-calls-"))
        SCRATCH.append(store.root)  # removed after the timing, as a run keeps its store
        runner = JuryRunner(
            judges, store, concurrency_per_provider=config.concurrency_per_provider,
            max_retries=config.max_retries, lang="ko",
        )
        run = runner.run(RAG_ANSWER, cases)
        return sum(stats.failed for stats in run.judge_stats.values())

    return run


def client_rows() -> list[tuple[str, Callable[..., Any], str]]:
    """(label, function, what it takes: 'bodies' or 'cases')."""
    return [
        ("aiohttp (bare)", run_aiohttp, "bodies"),
        ("httpx", run_httpx, "bodies"),
        ("openai SDK", run_openai, "bodies"),
        ("litellm", run_litellm, "bodies"),
        ("jury step (lean transport)", run_jury("auto"), "cases"),
        ("jury step (litellm transport)", run_jury("litellm"), "cases"),
    ]


def measure(fn: Callable[..., Any], kind: str, base: str, cases: list, calls: list[Body], concurrency: int) -> tuple[float, float, int]:
    work = calls if kind == "bodies" else cases
    call = (lambda w: asyncio.run(fn(base, w, concurrency))) if asyncio.iscoroutinefunction(fn) else (lambda w: fn(base, w, concurrency))
    warm = work[: max(1, concurrency // 3)]
    call(warm)  # imports, connection set-up, litellm's client cache: not what we measure
    started, cpu = time.perf_counter(), time.process_time()
    failed = call(work)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    while SCRATCH:
        shutil.rmtree(SCRATCH.pop(), ignore_errors=True)
    return wall, cpu, failed


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "loopback_server.py"), "--latency", str(latency)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=480, help="cases; each is judged by 3 judges")
    parser.add_argument("--latency", type=float, nargs="+", default=[0.05, 0.2], help="server latency, s")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--only", nargs="*", help="run only the rows whose label starts with one of these")
    args = parser.parse_args()
    cases = items(args.cases)
    calls = bodies(cases)
    rows = [r for r in client_rows() if not args.only or any(r[0].startswith(o) for o in args.only)]
    load = os.getloadavg()
    print(f"{len(calls)} calls per row ({args.cases} cases x {len(MODELS)} judges), concurrency {args.concurrency}; "
          f"loopback aiohttp.web server in its own process; {os.cpu_count()} cores, load average {load[0]:.1f}")
    for latency in args.latency:
        ideal = len(calls) * latency / args.concurrency
        process, base = start_server(latency)
        try:
            print(f"\nlatency {latency * 1000:.0f} ms, ideal {ideal:.2f} s")
            print(f"{'client':32s} {'wall s':>7s} {'vs ideal':>8s} {'vs aiohttp':>10s} {'cpu ms/call':>11s} {'failed':>6s}")
            reference: float | None = None
            for label, fn, kind in rows:
                wall, cpu, failed = measure(fn, kind, base, cases, calls, args.concurrency)
                reference = reference or wall
                print(f"{label:32s} {wall:7.2f} {ideal / wall:8.2f} {reference / wall:10.2f} "
                      f"{cpu / len(calls) * 1000:11.2f} {failed:6d}", flush=True)
        finally:
            process.terminate()
            process.wait()
    print(f"\nload average after: {os.getloadavg()[0]:.1f}. Targets: jury step >= 0.8 of aiohttp at 50 ms, >= 0.9 of ideal at 200 ms.")


if __name__ == "__main__":
    main()
