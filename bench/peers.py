"""assay and its peers, whole command, against one fake judge: wall time, judging span, calls in flight.

    python bench/peers.py [--cases 960] [--latency 0.05 0.2] [--concurrency 32] [--repeat 3]
                          [--peers-python /tmp/peers/bin/python /tmp/inspect/bin/python]
                          [--promptfoo /tmp/pf/node_modules/.bin/promptfoo]

One fake OpenAI-compatible judge (``--serve``: this file in its own process, one asyncio loop,
keep-alive) waits ``--latency`` seconds per call and answers each tool in the format it asks for:
an instance of the ``response_format`` schema (assay, DeepEval), ``GRADE: C`` (Inspect AI's
``model_graded_qa``), ``{"reason", "verdict"}`` (Ragas' ``AspectCritic``, whose schema is in the
prompt) or ``{"reason", "pass", "score"}`` (promptfoo's ``llm-rubric``). It counts the calls in
flight, the most at once, and the first request and last reply of each run (``GET /stats``).

Every tool judges the same ``--cases`` rag_qa cases (copies of the 48 bundled ones, each copy's
question numbered so no two requests are alike), one judge call per case, at most
``--concurrency`` calls in flight, each run as its whole command in a fresh process and a fresh
output directory (no cache to reuse). Runs alternate between the tools, ``--repeat`` rounds, and
the medians are printed side by side:

- ``whole command``: the command's wall seconds (start-up, validation, judging, storing, report);
- ``judging span``: the server's first request to its last reply;
- ``span / ideal``: ideal = cases x latency / concurrency, over the span;
- ``most in flight`` and ``mean in flight`` (sum of the calls' time at the server / span).

assay runs ``assay run rag_qa --judge openai/bench-judge --api-base URL --concurrency N`` with
its own kept local Prefect server (a separate ``PREFECT_HOME``; one untimed warm-up run starts
it). A peer runs only if installed: Inspect AI, Ragas and DeepEval from the ``--peers-python``
virtualenvs (separate from assay's; Inspect AI wants openai >= 3.4, Ragas and DeepEval an older
one), promptfoo from ``--promptfoo``; a missing one is skipped and named.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MODEL = "bench-judge"


# -- the fake judge ------------------------------------------------------------------------
def answer_for(body: dict[str, Any]) -> str:
    """The judge's reply in the format the calling tool expects."""
    fmt = body.get("response_format") or {}
    if (fmt.get("json_schema") or {}).get("schema"):
        sys.path.insert(0, str(ROOT))
        from tests.support.openai_server import schema_filling_responder

        return schema_filling_responder(body)
    text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
    if "GRADE:" in text:
        return "The answer matches the criterion.\n\nGRADE: C"
    if '"verdict"' in text or "verdict" in text:
        return json.dumps({"reason": "ok", "verdict": 1})
    return json.dumps({"reason": "ok", "pass": True, "score": 1.0})


def serve(latency_s: float) -> None:
    from aiohttp import web

    stats: dict[str, Any] = {}

    def reset() -> None:
        # first/last: monotonic, for the span; first_at/last_at: wall clock, to place them among
        # a run's own timeline marks (bench/judge_step.py)
        stats.update(calls=0, in_flight=0, most_in_flight=0, busy_s=0.0, first=None, last=None, first_at=None,
                     last_at=None)

    reset()
    answers: dict[str, bytes] = {}

    async def chat(request: web.Request) -> web.Response:
        started = time.monotonic()
        stats["first"] = stats["first"] or started
        stats["first_at"] = stats["first_at"] or time.time()
        stats["in_flight"] += 1
        stats["most_in_flight"] = max(stats["most_in_flight"], stats["in_flight"])
        try:
            body = await request.json()
            content = answer_for(body)
            payload = answers.get(content)
            if payload is None:
                payload = answers[content] = json.dumps({
                    "id": "chatcmpl-peers", "object": "chat.completion", "created": int(time.time()), "model": MODEL,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 200, "completion_tokens": 20, "total_tokens": 220},
                }).encode()
            await asyncio.sleep(latency_s)
            return web.Response(body=payload, content_type="application/json")
        finally:
            stats["in_flight"] -= 1
            stats["calls"] += 1
            stats["last"] = time.monotonic()
            stats["last_at"] = time.time()
            stats["busy_s"] += stats["last"] - started

    async def read_stats(request: web.Request) -> web.Response:
        out = dict(stats)
        out["span_s"] = (out["last"] - out["first"]) if out["first"] and out["last"] else 0.0
        if request.query.get("reset"):
            reset()
        return web.json_response(out)

    async def models(request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": MODEL, "object": "model"}]})

    async def main() -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", chat)
        app.router.add_get("/v1/models", models)
        app.router.add_get("/stats", read_stats)
        runner = web.AppRunner(app, access_log=None, keepalive_timeout=75)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        print(f"http://127.0.0.1:{port}/v1", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen([sys.executable, __file__, "--serve", "--latency", str(latency)],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def read_stats(base: str) -> dict[str, Any]:
    import urllib.request

    with urllib.request.urlopen(base.removesuffix("/v1") + "/stats?reset=1", timeout=10) as r:
        return json.loads(r.read())


# -- the data --------------------------------------------------------------------------------
def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def build_data(cases: int, scratch: Path) -> tuple[Path, Path]:
    """assay's dataset directory (copies of the bundled rag_qa cases, each question numbered)
    and the same cases as one JSONL of question, answer, reference and contexts for the peers."""
    source = ROOT / "datasets" / "rag_qa"
    dataset = scratch / "rag_qa"
    shutil.copytree(source, dataset)
    base = lines(source / "cases.jsonl")
    generations = {g["case_id"]: g for g in lines(source / "generations.jsonl")}
    chosen = [(k, c) for k in range(-(-cases // len(base))) for c in base][:cases]
    new_cases, new_generations, flat = [], [], []
    for k, case in chosen:
        case_id, question = f"{case['id']}-{k}", f"{case['question']} (#{k})"
        new_cases.append({**case, "id": case_id, "question": question})
        generation = generations[case["id"]]
        new_generations.append({**generation, "case_id": case_id})
        flat.append({"id": case_id, "question": question, "answer": generation["answer"],
                     "reference": case["reference_answer"],
                     "contexts": [r["text"] for r in generation.get("retrieved", [])][:3]})
    write_lines(dataset / "cases.jsonl", new_cases)
    write_lines(dataset / "generations.jsonl", new_generations)
    (dataset / "answer_labels.jsonl").unlink(missing_ok=True)
    flat_file = scratch / "cases.jsonl"
    write_lines(flat_file, flat)
    return dataset, flat_file


# -- the tools -------------------------------------------------------------------------------
INSPECT_TASK = '''
import json, os
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import model_graded_qa
from inspect_ai.solver import solver

ROWS = [json.loads(l) for l in open(os.environ["PEERS_CASES"], encoding="utf-8") if l.strip()]

@solver
def recorded():
    async def solve(state, generate):
        state.output = ModelOutput.from_content("mockllm/model", state.metadata["answer"])
        return state
    return solve

@task
def peers():
    samples = [Sample(id=r["id"], input=r["question"] + "\\n\\n" + "\\n".join(r["contexts"]), target=r["reference"],
                      metadata={"answer": r["answer"]}) for r in ROWS]
    return Task(dataset=samples, solver=recorded(), scorer=model_graded_qa(model="openai-api/bench/''' + MODEL + '''"))
'''

RAGAS_SCRIPT = '''
import json, os, sys
from openai import AsyncOpenAI
from ragas import EvaluationDataset, RunConfig, evaluate
from ragas.llms import llm_factory
from ragas.metrics import AspectCritic

rows = [json.loads(l) for l in open(os.environ["PEERS_CASES"], encoding="utf-8") if l.strip()]
data = EvaluationDataset.from_list([{"user_input": r["question"], "response": r["answer"], "reference": r["reference"],
                                     "retrieved_contexts": r["contexts"]} for r in rows])
llm = llm_factory("''' + MODEL + '''", client=AsyncOpenAI(base_url=os.environ["PEERS_BASE"], api_key="no-key"))
critic = AspectCritic(name="correct", definition="Is the response correct given the reference?", llm=llm)
result = evaluate(data, metrics=[critic], run_config=RunConfig(max_workers=int(sys.argv[1]), max_retries=0),
                  show_progress=False)
print(result)
'''

DEEPEVAL_SCRIPT = '''
import asyncio, json, os, sys
from openai import AsyncOpenAI, OpenAI
from deepeval import evaluate
from deepeval.evaluate.configs import AsyncConfig, CacheConfig, DisplayConfig
from deepeval.metrics import GEval
from deepeval.models import DeepEvalBaseLLM
from deepeval.test_case import LLMTestCase, LLMTestCaseParams

BASE = os.environ["PEERS_BASE"]

class FakeJudge(DeepEvalBaseLLM):
    def __init__(self):
        self.sync, self.client = OpenAI(base_url=BASE, api_key="no-key"), AsyncOpenAI(base_url=BASE, api_key="no-key")
    def load_model(self):
        return self.client
    def _body(self, prompt, schema):
        body = {"model": "''' + MODEL + '''", "messages": [{"role": "user", "content": prompt}]}
        if schema is not None:
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()}}
        return body
    def _parse(self, text, schema):
        return schema.model_validate_json(text) if schema is not None else text
    def generate(self, prompt, schema=None):
        r = self.sync.chat.completions.create(**self._body(prompt, schema))
        return self._parse(r.choices[0].message.content, schema)
    async def a_generate(self, prompt, schema=None):
        r = await self.client.chat.completions.create(**self._body(prompt, schema))
        return self._parse(r.choices[0].message.content, schema)
    def get_model_name(self):
        return "''' + MODEL + '''"

rows = [json.loads(l) for l in open(os.environ["PEERS_CASES"], encoding="utf-8") if l.strip()]
metric = GEval(name="correct", evaluation_steps=["Compare the actual output with the expected output",
                                                 "Penalise any fact that contradicts the expected output"],
               evaluation_params=[LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT,
                                  LLMTestCaseParams.EXPECTED_OUTPUT], model=FakeJudge(), async_mode=True)
cases = [LLMTestCase(input=r["question"], actual_output=r["answer"], expected_output=r["reference"],
                     retrieval_context=r["contexts"]) for r in rows]
evaluate(cases, [metric], async_config=AsyncConfig(max_concurrent=int(sys.argv[1])),
         display_config=DisplayConfig(show_indicator=False, print_results=False),
         # its default (write_cache=True) re-reads and rewrites the whole test run's file after every
         # case: 960 cases took 364 s at 50 ms, the judging span 354 s
         cache_config=CacheConfig(write_cache=False))
'''


def promptfoo_config(flat_file: Path, base: str) -> dict[str, Any]:
    tests = [{"vars": {"answer": r["answer"], "question": r["question"]}} for r in lines(flat_file)]
    return {
        "prompts": ["{{answer}}"],
        "providers": ["echo"],
        "defaultTest": {"assert": [{
            "type": "llm-rubric", "value": "The answer responds to the question: {{question}}",
            "provider": {"id": f"openai:chat:{MODEL}", "config": {"apiBaseUrl": base, "apiKey": "no-key"}},
        }]},
        "tests": tests,
    }


def has_module(python: str | None, module: str) -> bool:
    if not python or not Path(python).exists():
        return False
    found = subprocess.run([python, "-c", f"import importlib.util,sys; sys.exit(importlib.util.find_spec('{module}') is None)"],
                           capture_output=True)
    return found.returncode == 0


class Tools:
    """Each tool's whole command for one run, in a fresh directory under ``scratch``."""

    def __init__(self, args: argparse.Namespace, scratch: Path, dataset: Path, flat_file: Path) -> None:
        self.args, self.scratch, self.dataset, self.flat_file = args, scratch, dataset, flat_file
        self.prefect_home = scratch / "prefect-home"
        self.missing: list[str] = []
        self.names = ["assay"]
        self.python: dict[str, str] = {}  # peer -> the first --peers-python that has it (they may need separate venvs)
        for name, module in (("Inspect AI", "inspect_ai"), ("Ragas", "ragas"), ("DeepEval", "deepeval")):
            found = next((py for py in args.peers_python if has_module(py, module)), None)
            (self.names if found else self.missing).append(name)
            if found:
                self.python[name] = found
        if args.promptfoo and Path(args.promptfoo).exists():
            self.names.append("promptfoo")
        else:
            self.missing.append("promptfoo")

    def command(self, name: str, base: str, run: Path) -> tuple[list[str], dict[str, str]]:
        n = str(self.args.concurrency)
        env = {**os.environ, "PEERS_CASES": str(self.flat_file), "PEERS_BASE": base, "OPENAI_API_KEY": "no-key",
               "OPENAI_BASE_URL": base, "NO_COLOR": "1"}
        run.mkdir(parents=True)
        if name == "assay":
            env.update(PYTHONPATH=str(ROOT), PREFECT_HOME=str(self.prefect_home), ASSAY_SERVER_IDLE_SECONDS="120")
            return [sys.executable, "-m", "assay.cli", "run", "rag_qa", "--dataset", str(self.dataset),
                    "--judge", f"openai/{MODEL}", "--api-base", base, "--concurrency", n, "--out", str(run / "runs")], env
        py = self.python.get(name, "")
        if name == "Inspect AI":
            (run / "peers_task.py").write_text(INSPECT_TASK)
            env.update(BENCH_BASE_URL=base, BENCH_API_KEY="no-key", INSPECT_LOG_DIR=str(run / "logs"),
                       INSPECT_DISPLAY="none")
            inspect = str(Path(py).parent / "inspect")
            return [inspect, "eval", "peers_task.py", "--model", "mockllm/model", "--max-connections", n,
                    "--no-log-samples"], env
        if name == "Ragas":
            (run / "ragas_run.py").write_text(RAGAS_SCRIPT)
            env.update(RAGAS_DO_NOT_TRACK="true")
            return [py, str(run / "ragas_run.py"), n], env
        if name == "DeepEval":
            (run / "deepeval_run.py").write_text(DEEPEVAL_SCRIPT)
            env.update(DEEPEVAL_TELEMETRY_OPT_OUT="YES", HOME=str(run))
            return [py, str(run / "deepeval_run.py"), n], env
        if name == "promptfoo":
            (run / "promptfooconfig.json").write_text(json.dumps(promptfoo_config(self.flat_file, base)))
            env.update(PROMPTFOO_DISABLE_TELEMETRY="1", PROMPTFOO_DISABLE_UPDATE="1", PROMPTFOO_DISABLE_DEBUG_LOG="1",
                       PROMPTFOO_CONFIG_DIR=str(run / ".promptfoo"))
            return [self.args.promptfoo, "eval", "-c", str(run / "promptfooconfig.json"), "--max-concurrency", n,
                    "--no-cache", "--no-write", "--no-table", "-o", str(run / "out.json")], env
        raise ValueError(name)


def one_run(tools: Tools, name: str, base: str, run: Path) -> dict[str, Any]:
    command, env = tools.command(name, base, run)
    read_stats(base)  # reset
    started = time.perf_counter()
    done = subprocess.run(command, cwd=run, env=env, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - started
    stats = read_stats(base)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-5:]
        print(f"  ! {name} exited {done.returncode}: " + " | ".join(tail), flush=True)
    said = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    return {"wall": wall, "rc": done.returncode, "said": said[-1][:160] if said else "", **stats}


def median(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def table(results: dict[str, list[dict[str, Any]]], latency: float, cases: int, concurrency: int) -> str:
    ideal = cases * latency / concurrency
    names = list(results)
    rows = [
        ("whole command, s", lambda rs: f"{median(rs, 'wall'):.1f}"),
        (f"judging span, s (ideal {ideal:.1f})", lambda rs: f"{median(rs, 'span_s'):.2f}"),
        ("span vs ideal", lambda rs: f"{ideal / median(rs, 'span_s'):.2f}" if median(rs, "span_s") else "-"),
        ("most calls in flight", lambda rs: f"{median(rs, 'most_in_flight'):.0f}"),
        ("mean calls in flight", lambda rs: f"{statistics.median(r['busy_s'] / max(r['span_s'], 1e-9) for r in rs):.1f}"),
        ("judge calls received", lambda rs: f"{median(rs, 'calls'):.0f}"),
        ("runs that failed", lambda rs: str(sum(r["rc"] != 0 for r in rs))),
    ]
    out = [f"| {cases} cases, {latency * 1000:.0f} ms judge | " + " | ".join(names) + " |",
           "|---|" + "---|" * len(names)]
    for label, cell in rows:
        out.append(f"| {label} | " + " | ".join(cell(results[n]) for n in names) + " |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=960)
    parser.add_argument("--latency", type=float, nargs="+", default=[0.05, 0.2])
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peers-python", nargs="*", default=os.environ.get("PEERS_PYTHON", "").split(),
                        help="the python of each virtualenv holding peers (Inspect AI needs a newer openai than Ragas)")
    parser.add_argument("--promptfoo", default=os.environ.get("PEERS_PROMPTFOO"), help="the promptfoo executable")
    parser.add_argument("--only", nargs="*", help="only these tools")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.latency[0])
        return
    scratch = Path(tempfile.mkdtemp(prefix="assay-peers-"))
    try:
        dataset, flat_file = build_data(args.cases, scratch)
        tools = Tools(args, scratch, dataset, flat_file)
        if args.only:
            tools.names = [n for n in tools.names if n in args.only]
        print(f"{args.cases} cases, one judge call each, concurrency {args.concurrency}, {args.repeat} alternated rounds; "
              f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
        print(f"tools: {', '.join(tools.names)}; not installed, skipped: {', '.join(tools.missing) or 'none'}", flush=True)
        counter = 0
        for latency in args.latency:
            process, base = start_server(latency)
            try:
                if "assay" in tools.names:  # starts assay's kept local Prefect server; not timed
                    counter += 1
                    one_run(tools, "assay", base, scratch / f"run-{counter}")
                results: dict[str, list[dict[str, Any]]] = {name: [] for name in tools.names}
                for round_ in range(args.repeat):
                    for name in tools.names:
                        counter += 1
                        result = one_run(tools, name, base, scratch / f"run-{counter}")
                        results[name].append(result)
                        print(f"  {latency * 1000:.0f} ms round {round_ + 1} {name}: {result['wall']:.1f} s, span "
                              f"{result['span_s']:.2f} s, most in flight {result['most_in_flight']}, "
                              f"{result['calls']} calls; last line: {result['said']}", flush=True)
                        shutil.rmtree(scratch / f"run-{counter}", ignore_errors=True)
                print("\n" + table(results, latency, args.cases, args.concurrency) + "\n", flush=True)
            finally:
                process.terminate()
                process.wait()
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        if (scratch / "prefect-home").exists():  # the kept local server the assay runs used
            subprocess.run([sys.executable, "-m", "assay.cli", "server", "stop"], capture_output=True, cwd=ROOT,
                           env={**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_HOME": str(scratch / "prefect-home")})
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
