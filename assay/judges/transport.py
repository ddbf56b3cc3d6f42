"""How a judge's request reaches its model: litellm for any provider, or a lean HTTP client
for OpenAI-compatible endpoints.

Why two: litellm covers every provider, but each call costs several milliseconds of client
CPU (its logging and callbacks, the OpenAI SDK, rich response objects). Against a local
vLLM/SGLang server or a caching gateway that answers in tens of milliseconds, that CPU, not
the network, caps one process far below the configured concurrency. A model named
``openai/…`` with an explicit ``api_base`` speaks the OpenAI chat-completions protocol, so
one JSON POST over a shared keep-alive ``aiohttp`` session does the same job.

A transport makes ONE attempt: it returns a ``Reply`` or raises. The judge classifies the
exception (``assay.judges.llm.classify_error``), redacts its text and parses the verdict, and
the jury runner owns retries, the budget and the call store, so both transports share every
policy. Sessions live per event loop and endpoint; the runner closes them when its run ends
(``close_sessions``). aiohttp and litellm are imported on first use only.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from assay.judges.prices import litellm_module, lookup, prices
from assay.schemas import JsonObject

if TYPE_CHECKING:
    import aiohttp


@dataclass(frozen=True)
class Reply:
    """What one successful call returned: the reply text and what it cost."""

    raw_text: str | None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


class EndpointError(Exception):
    """An error answer from an endpoint (``status_code`` set) or an unreadable body (None).

    Classified like litellm's errors: 408, 429 and 5xx are transient, other statuses permanent,
    a body that is not a chat completion transient (a broken proxy or a truncated answer).
    """

    def __init__(self, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


@dataclass(frozen=True)
class Call:
    """One attempt's inputs, resolved at call time (the key never outlives the call)."""

    model: str
    api_base: str | None
    api_key: str | None
    headers: dict[str, str]
    messages: list[JsonObject]
    params: JsonObject
    timeout_s: float


class Transport(Protocol):
    """Optionally also ``prepare(model)``: called once before a run's first call."""

    name: str

    async def send(self, call: Call) -> Reply: ...


def lean_eligible(model: str, api_base: str | None) -> bool:
    """True when the lean transport speaks the endpoint's protocol exactly: an OpenAI-compatible
    chat-completions server named by ``api_base`` (litellm's ``openai/`` provider). An endpoint
    with a query string (``?api-version=…``) stays with litellm, which knows where it goes."""
    parts = urlsplit(api_base or "")
    return bool(api_base) and model.startswith("openai/") and parts.scheme in ("http", "https") and not parts.query


# -- litellm: every provider -------------------------------------------------------------------


class LiteLLMTransport:
    name = "litellm"

    def prepare(self, model: str) -> None:
        """Nothing to start: litellm prices each response as it builds it."""

    async def send(self, call: Call) -> Reply:
        litellm = litellm_module()
        response = await litellm.acompletion(
            model=call.model,
            messages=call.messages,
            api_base=call.api_base,
            api_key=call.api_key,
            **({"extra_headers": call.headers} if call.headers else {}),
            timeout=call.timeout_s,
            max_retries=0,  # the OpenAI SDK retries twice by default; the runner owns retries
            num_retries=0,
            **call.params,
        )
        usage = getattr(response, "usage", None)
        return Reply(
            raw_text=response.choices[0].message.content if response.choices else None,
            input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost_usd=_litellm_cost(response),
        )


def _litellm_cost(response: Any) -> float:
    """litellm's cost for a response in USD; 0 for models it has no price for (never raises).

    litellm already prices every response while building it (``response_cost``, None when the
    model is unknown); recomputing would double the per-call overhead, so we reuse it.
    """
    hidden = getattr(response, "_hidden_params", None) or {}
    if "response_cost" in hidden:
        cost = hidden["response_cost"]
        return float(cost) if isinstance(cost, (int, float)) else 0.0
    try:
        return float(litellm_module().completion_cost(completion_response=response) or 0.0)
    except Exception:  # unknown/local model: no price, which is fine
        return 0.0


# -- lean: OpenAI-compatible endpoints ---------------------------------------------------------


class OpenAICompatTransport:
    """One POST to ``{api_base}/chat/completions`` over the loop's shared session for that host."""

    name = "openai-compatible"

    def prepare(self, model: str) -> None:
        """Start the model's price lookup, so the first reply does not wait for it."""
        lookup(model)

    async def send(self, call: Call) -> Reply:
        import aiohttp

        assert call.api_base, "the lean transport needs an api_base"
        headers = {"Content-Type": "application/json", **call.headers}
        if call.api_key and "Authorization" not in headers:
            headers["Authorization"] = f"Bearer {call.api_key}"
        url = call.api_base.rstrip("/") + "/chat/completions"
        session = await _session(call.api_base)
        async with session.post(
            url, data=request_body(call), headers=headers,
            timeout=aiohttp.ClientTimeout(total=call.timeout_s),
        ) as response:
            data = await response.read()
            status = response.status
        if status >= 400:
            raise EndpointError(f"HTTP {status}: {_error_message(data)}", status)
        usage, raw_text = read_completion(data)
        input_tokens = int(usage.get("prompt_tokens") or 0)
        output_tokens = int(usage.get("completion_tokens") or 0)
        input_rate, output_rate = await prices(call.model)  # looked up once per model (assay.judges.prices)
        return Reply(raw_text, input_tokens, output_tokens, input_tokens * input_rate + output_tokens * output_rate)


def request_body(call: Call) -> bytes:
    """The chat-completions body: the model's name, the messages, then every param, in that order
    and each as given. Not canonical JSON (sorted keys): a verdict schema's properties must reach
    the model in the order the verdict model declares them, since structured output follows it."""
    body = {"model": call.model.split("/", 1)[1], "messages": call.messages, **call.params}
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def _error_message(data: bytes) -> str:
    """The provider's error message (OpenAI shape) or the start of the body."""
    text = data.decode("utf-8", "replace")
    try:
        payload = json.loads(text)
        message = payload["error"]["message"] if isinstance(payload.get("error"), dict) else payload["error"]
        return str(message)[:1000]
    except (ValueError, KeyError, TypeError, AttributeError):
        return text[:1000]


def read_completion(data: bytes) -> tuple[JsonObject, str | None]:
    """(usage, first choice's content) of a chat completion; EndpointError if it is not one."""
    try:
        payload = json.loads(data)
        choices = payload["choices"]
        usage = payload.get("usage") or {}
        raw_text = choices[0]["message"].get("content") if choices else None
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise EndpointError(f"the endpoint's answer is not a chat completion ({type(exc).__name__}): {data[:200]!r}") from None
    if not isinstance(usage, dict) or not (raw_text is None or isinstance(raw_text, str)):
        raise EndpointError(f"the endpoint's answer is not a chat completion: {data[:200]!r}")
    return usage, raw_text


# Sessions: one per event loop and endpoint (scheme://host:port), reused by every call on that
# loop so connections stay alive. A session cannot cross loops, hence the outer weak map.
_sessions: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, aiohttp.ClientSession]] = weakref.WeakKeyDictionary()
_closers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
_sessions_lock = threading.Lock()


def _after_fork_in_child() -> None:
    """A forked child opens its sessions on its own loops (the inherited ones stay keyed by the
    parent's loops, never run here); a lock another thread held at the fork would never be
    released here."""
    global _sessions_lock
    _sessions_lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


async def _session(api_base: str) -> Any:
    import aiohttp

    parts = urlsplit(api_base)
    endpoint = f"{parts.scheme}://{parts.hostname}:{parts.port or ''}"
    loop = asyncio.get_running_loop()
    with _sessions_lock:
        per_loop = _sessions.setdefault(loop, {})
        session = per_loop.get(endpoint)
        if session is None or session.closed:
            # The runner bounds concurrency per provider; the connector must not add a second,
            # smaller limit (aiohttp's default is 100 in total).
            connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=30)
            session = aiohttp.ClientSession(connector=connector, trust_env=False)
            per_loop[endpoint] = session
        first_on_loop = loop not in _closers
        if first_on_loop:
            _closers[loop] = _closer()
    if first_on_loop:
        await _closers[loop].__anext__()  # registers it with the loop: see _closer
    return session


async def _closer() -> Any:
    """Closes the loop's sessions when ``asyncio.run`` shuts the loop down.

    A started async generator is finalised by the loop's ``shutdown_asyncgens``, so even a
    caller that never calls ``close_sessions`` (one ``ajudge`` under ``asyncio.run``) leaves
    no connection open.
    """
    try:
        yield
    finally:
        await close_sessions()


async def close_sessions() -> None:
    """Close the sessions opened on the running loop (the jury runner calls this when done)."""
    loop = asyncio.get_running_loop()
    with _sessions_lock:
        sessions = list(_sessions.pop(loop, {}).values())
    for session in sessions:
        await session.close()


def transport_for(model: str, api_base: str | None, choice: str = "auto") -> Transport:
    """``auto``: lean for OpenAI-compatible endpoints, litellm for the rest; or force one."""
    if choice not in ("auto", "litellm", "lean"):
        raise ValueError(f"transport must be auto, litellm or lean, not {choice!r}")
    if choice == "lean" and not lean_eligible(model, api_base):
        raise ValueError(f"the lean transport needs an openai/ model and an http(s) api_base, got {model!r}")
    if choice == "lean" or (choice == "auto" and lean_eligible(model, api_base)):
        return OpenAICompatTransport()
    return LiteLLMTransport()
