"""LLM judges: one request, one typed verdict, sent by litellm or by the lean transport.

``LiteLLMJudge.ajudge`` makes exactly ONE attempt and classifies what went wrong
(``transient``, ``malformed`` or ``permanent``); retries, backoff, concurrency limits, the call
store and the budget live in ``assay.judges.runner.JuryRunner`` so a single policy governs all
judges. How the request travels is a strategy (``assay.judges.transport``): an OpenAI-compatible
endpoint given with ``api_base`` gets one POST over a shared keep-alive session, every other
provider goes through litellm. Request, key, parsing, classification and redaction are the same
either way. litellm is imported lazily: importing this module stays cheap and offline-safe.

Secrets: the API key is read from the environment at call time, passed to the transport for
that call only, and redacted from error texts. It is never stored on the judge or in any result.
"""

from __future__ import annotations

import os
import time
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel

from assay.judges.base import ErrorKind, JudgeRequest, JudgeResult, Usage
from assay.judges.transport import Call, EndpointError, Transport, litellm_module, transport_for
from assay.judges.verdicts import MalformedReply, parse_verdict  # noqa: F401  (re-exported)
from assay.redact import call_endpoint, redact, secret_values
from assay.schemas import JsonObject


class MissingApiKey(RuntimeError):
    """The configured key variable is unset: permanent, retrying cannot help."""


_litellm = litellm_module


# -- request shape ---------------------------------------------------------------------------




@lru_cache(maxsize=256)
def response_format_for(verdict_model: type[BaseModel]) -> JsonObject:
    """The structured-output ``response_format`` for a verdict model (cached per class).

    ``strict`` is False on purpose: OpenAI's strict mode rejects ordinary pydantic schemas
    (optional fields, defaults, min/max on some models); we validate every reply ourselves.
    """
    return {
        "type": "json_schema",
        "json_schema": {
            "name": verdict_model.__name__,
            "schema": verdict_model.model_json_schema(),
            "strict": False,
        },
    }


@lru_cache(maxsize=256)  # a judge asks it for every request it builds
def public_api_base(api_base: str | None) -> str | None:
    """``api_base`` without user:password or query string, so it is safe to hash and store."""
    if not api_base:
        return None
    parts = urlsplit(api_base)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", "")) if parts.scheme else api_base


@lru_cache(maxsize=256)  # asked twice per call (its limit and its gate): a URL parse each time
def provider_of(model: str, api_base: str | None) -> str:
    """Concurrency bucket: the api_base host:port if given, else the model's provider prefix."""
    if api_base:
        parts = urlsplit(api_base)
        if parts.hostname:
            return f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname
    return model.split("/", 1)[0] if "/" in model else model


# -- reply parsing ---------------------------------------------------------------------------


# -- error classification ----------------------------------------------------------------------


def classify_error(exc: BaseException) -> ErrorKind:
    """transient (retry): 408, 429, 5xx, connection errors, timeouts; permanent otherwise."""
    if isinstance(exc, MalformedReply):
        return "malformed"
    if _missing_credentials(exc):  # no key will appear by retrying
        return "permanent"
    if isinstance(exc, EndpointError):  # the lean transport: same rules, no litellm import
        status = exc.status_code
        if status is None:
            return "transient"
        return "transient" if status in (408, 429) or status >= 500 else "permanent"
    if isinstance(exc, TimeoutError) or type(exc).__module__.startswith("aiohttp"):
        return "transient"
    litellm = _litellm()
    if isinstance(exc, (litellm.Timeout, litellm.APIConnectionError, TimeoutError)):
        return "transient"
    if isinstance(
        exc, (litellm.RateLimitError, litellm.InternalServerError, litellm.ServiceUnavailableError)
    ):
        return "transient"
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return "transient" if status in (408, 429) or status >= 500 else "permanent"
    # A litellm/openai API error without a status is a broken transport, worth another try;
    # anything else is a bug on our side and retrying would only repeat it.
    if isinstance(exc, litellm.APIError) or type(exc).__module__.startswith(("openai", "httpx", "aiohttp")):
        return "transient"
    return "permanent"


def _is_timeout(exc: BaseException) -> bool:
    """asyncio's and aiohttp's timeouts are TimeoutError; litellm's (openai's) have their own class."""
    if isinstance(exc, TimeoutError):
        return True
    return "timeout" in type(exc).__name__.lower() and type(exc).__module__.startswith(("litellm", "openai", "httpx", "aiohttp"))


def _missing_credentials(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "missing credentials" in text or "api_key client option must be set" in text or "no api key" in text


def _redact(text: str, secret: str | None) -> str:
    """Providers echo keys and Authorization headers in errors: mask every known secret."""
    return redact(text, [*secret_values(), *([secret] if secret and len(secret) >= 4 else [])])


# -- the judge -------------------------------------------------------------------------------


class LiteLLMJudge:
    """A judge backed by any litellm model; ``weight`` is its share in the jury (>= 0).

    ``timeout_s`` is the per-request HTTP timeout in seconds; ``max_tokens`` bounds the reply.
    ``transport``: ``auto`` (lean for an ``openai/`` model with an http(s) ``api_base``, litellm
    otherwise), ``litellm`` or ``lean``. It changes how a request travels, never what is sent
    or how the answer is read, so it is not part of the call key.
    """

    offline = False

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        weight: float = 1.0,
        temperature: float = 0.2,
        max_tokens: int = 4096,
        api_key_env: str | None = None,
        name: str | None = None,
        timeout_s: float = 60,
        transport: str = "auto",
    ) -> None:
        self.model = model
        self.api_base = api_base
        self.weight = weight
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.api_key_env = api_key_env  # the variable's NAME; the value is read per call
        self.name = name or model.rsplit("/", 1)[-1]
        self.timeout_s = timeout_s
        self.transport: Transport = transport_for(model, api_base, transport)

    def __repr__(self) -> str:
        return f"LiteLLMJudge(name={self.name!r}, model={self.model!r}, api_base={self.api_base!r})"

    @property
    def provider(self) -> str:
        return provider_of(self.model, self.api_base)

    @property
    def version(self) -> str:
        """An LLM judge is its request (model, endpoint, sampling settings): nothing more to key."""
        return "litellm"

    def request(self, prompt: Any, item: BaseModel, lang: str = "ko") -> JudgeRequest:
        """The request this judge would send for ``item``; pure, so it can key the store."""
        params = {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "response_format": response_format_for(prompt.verdict_model),
        }
        return JudgeRequest(self.model, public_api_base(self.api_base), prompt.messages(item, lang), params)

    def prepare_calls(self) -> None:
        """Before a run's first call: start what its calls will need (the lean transport's price
        lookup), so the first reply does not wait for it."""
        prepare = getattr(self.transport, "prepare", None)
        if prepare is not None:
            prepare(self.model)

    def parse(self, raw_text: str | None, prompt: Any) -> JsonObject:
        return parse_verdict(raw_text, prompt.verdict_model)

    def _api_key(self) -> str | None:
        if self.api_key_env:
            value = os.environ.get(self.api_key_env)
            if not value:
                raise MissingApiKey(f"environment variable {self.api_key_env} is not set")
            return value
        # None lets litellm use the provider's default variable (OPENAI_API_KEY, ...). A local
        # OpenAI-compatible endpoint needs no key, but the OpenAI SDK refuses an empty one.
        if self.api_base and self.model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
            return "no-key"
        return None

    async def ajudge(
        self,
        prompt: Any,
        item: BaseModel,
        case_id: str,
        lang: str = "ko",
        request: JudgeRequest | None = None,
    ) -> JudgeResult:
        """One attempt. Never raises for API or parse failures: they become ``error_kind``."""
        request = request or self.request(prompt, item, lang)
        result = JudgeResult(
            judge=self.name, model=self.model, prompt_id=prompt.id, case_id=case_id, attempts=1
        )
        started = time.perf_counter()
        api_key: str | None = None
        try:
            api_key = self._api_key()
            # Credentials given in the endpoint URL are joined here, at call time, and nowhere else.
            api_base, auth_headers = call_endpoint(self.api_base)
            if api_key is None and self.transport.name != "litellm":
                api_key = os.environ.get("OPENAI_API_KEY")  # what litellm's openai/ provider reads
            reply = await self.transport.send(
                Call(self.model, api_base, api_key, auth_headers, request.messages, request.params, self.timeout_s)
            )
        except Exception as exc:
            result.latency_s = time.perf_counter() - started
            result.error = _redact(self._describe(exc), api_key)[:2000]
            result.error_kind = "permanent" if isinstance(exc, MissingApiKey) else classify_error(exc)
            status = getattr(exc, "status_code", None)
            result.status_code = status if isinstance(status, int) else None
            return result
        result.latency_s = time.perf_counter() - started
        result.usage = Usage(
            input_tokens=reply.input_tokens, output_tokens=reply.output_tokens, cost_usd=reply.cost_usd
        )
        result.raw_text = reply.raw_text
        try:
            result.verdict = self.parse(result.raw_text, prompt)
        except MalformedReply as exc:
            result.error, result.error_kind = str(exc)[:2000], "malformed"
        return result

    def _describe(self, exc: Exception) -> str:
        """The error in one line that names this judge's model and endpoint; a timeout (whose own
        text is often empty) also names the limit."""
        where = f"{self.model}" + (f" at {public_api_base(self.api_base)}" if self.api_base else "")
        if _is_timeout(exc):
            return f"{type(exc).__name__}: judge {where} gave no reply within {self.timeout_s:g} s (--judge-timeout)"
        return f"{type(exc).__name__}: {exc}" if str(exc).strip() else f"{type(exc).__name__}: judge {where} failed"

    def estimate_cost_usd(self, request: JudgeRequest, output_tokens: int) -> float:
        """Pre-send cost estimate in USD: counted input tokens + ``output_tokens``; 0 if unpriced."""
        try:
            litellm = _litellm()
            input_tokens = litellm.token_counter(model=self.model, messages=request.messages)
            prompt_cost, completion_cost = litellm.cost_per_token(
                model=self.model, prompt_tokens=input_tokens, completion_tokens=output_tokens
            )
            return float(prompt_cost + completion_cost)
        except Exception:  # no price known for this model (local endpoint): nothing to guard
            return 0.0
