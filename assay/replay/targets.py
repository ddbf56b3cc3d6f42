"""Calls to the user's own system under test, for every suite's live replay.

A target (``assay.spec.TargetSpec``) is an HTTP endpoint or a Python callable. A suite maps
each case to the target's input fields (``TargetCall.fields``, e.g. ``{"question": ...}``)
and each ``TargetReply`` back to its generation record; everything between is here, once:

- bounded concurrency (one asyncio loop, one keep-alive HTTP client),
- retries with jittered backoff on timeouts, connection errors and 408/429/5xx,
- a timeout per call and the latency of the call that answered,
- a reply read under the dataset's input limits (``assay.validation.limits``): a non-finite
  number, an over-long text or deep nesting makes that case's call an error, not a crash later,
- header values read from the named environment variables at call time, never stored, and
  redacted from every reply and error (a target that echoes its request headers, a common
  debug behaviour, would otherwise put them in the call store, the generations and the report),
- answered calls kept in a call store keyed by the target and the call's input, so a rerun
  re-sends only the calls that failed,
- an unreachable endpoint stops the replay early: when the first ``UNREACHABLE_AFTER``
  attempts all fail to connect (nothing has answered yet), every call stops and
  ``TargetUnreachable`` names the URL, instead of every case's retries running out.

httpx is imported lazily; importing this module stays cheap.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import math
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from assay.judges.store import CallStore, UntrustedRecord
from assay.redact import call_endpoint, redact, redact_obj, register_secret_env, secret_values
from assay.replay.llm_calls import Progress, backoff_s, run_sync
from assay.schemas import JsonObject
from assay.spec import TargetSpec
from assay.validation.limits import TEXT_ENV, InputLimits, RejectedValue, loads_checked

CALL_KIND = {"http": "target-http", "python": "target-python"}  # names the record kind in the call store
DEFAULT_RETRIES = 3
UNREACHABLE_AFTER = 3  # consecutive failed connections, before anything answered, that end the replay
TRANSIENT_STATUS = {408, 425, 429, 500, 502, 503, 504}
_PLACEHOLDER = re.compile(r'"\{([A-Za-z_][A-Za-z0-9_]*)\}"|\{([A-Za-z_][A-Za-z0-9_]*)\}')



class TargetUnreachable(ValueError):
    """Nothing answers at the target's address: the replay stops (a ValueError: never retried)."""


class _Reachability:
    """Whether the endpoint has answered yet, and how many connections failed before it did."""

    def __init__(self) -> None:
        self.answered = False
        self.failed_connects = 0
        self.last_error = ""
        self.gave_up = asyncio.Event()

    def saw(self, reply: TargetReply, connect_failed: bool) -> None:
        if not connect_failed:
            self.answered = True
            return
        self.last_error = reply.error or ""
        if not self.answered:
            self.failed_connects += 1
            if self.failed_connects >= UNREACHABLE_AFTER:
                self.gave_up.set()


# Functions handed to ``assay.evaluate`` directly, by the qualified name the spec records.
_REGISTERED: dict[str, Callable[..., Any]] = {}


class TargetCall(BaseModel):
    """One call to make: the case's input fields, and which repeat of the case it is."""

    case_id: str
    fields: JsonObject
    repeat: int = 0


class TargetReply(BaseModel):
    """What one call gave: the parsed reply (``data``), its raw text, latency and any error.

    ``data`` is the JSON reply of an endpoint or the value a function returned (JSON-shaped);
    ``answer`` and ``contexts`` are read from it at the target's paths (None when absent).
    """

    case_id: str
    repeat: int = 0
    data: Any = None
    raw: str | None = None
    answer: str | None = None
    contexts: list[Any] | None = None
    latency_s: float | None = Field(default=None, ge=0)
    attempts: int = 0
    status: int | None = None
    error: str | None = None
    reused: bool = False


# -- Python callables -------------------------------------------------------------------------
def register_function(fn: Callable[..., Any]) -> str:
    """Make ``fn`` callable as a target in this process; returns the ``module:qualname`` the
    run spec records. A lambda or closure cannot be imported again by ``assay rerun``."""
    module = getattr(fn, "__module__", None) or "__main__"
    name = f"{module}:{getattr(fn, '__qualname__', getattr(fn, '__name__', 'function'))}"
    _REGISTERED[name] = fn
    return name


def load_function(qualified: str) -> Callable[..., Any]:
    """A registered function, or ``module:function`` imported (the current directory is searched
    too, as ``python -m`` would)."""
    if qualified in _REGISTERED:
        return _REGISTERED[qualified]
    module_name, _, attr = qualified.partition(":")
    if "<" in attr:
        raise ValueError(
            f"target {qualified!r} is a lambda or closure: it can only be called in the process that "
            "passed it to assay.evaluate; give a module-level function to rerun it"
        )
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"target {qualified!r}: cannot import {module_name!r} ({exc})") from None
    for part in attr.split("."):
        obj = getattr(obj, part, None)
    if not callable(obj):
        raise ValueError(f"target {qualified!r}: {module_name} has no function {attr!r}")
    return obj


def _arguments(fn: Callable[..., Any], fields: JsonObject) -> tuple[list[Any], JsonObject]:
    """The case's fields the function's signature names (all of them for ``**kwargs``); a
    one-parameter function whose name matches no field gets the first field positionally."""
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return [next(iter(fields.values()))], {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return [], dict(fields)
    named = {k: v for k, v in fields.items() if k in parameters}
    if named:
        return [], named
    if len(parameters) == 1 and fields:
        return [next(iter(fields.values()))], {}
    raise ValueError(f"the target function takes ({', '.join(parameters)}); the case offers {sorted(fields)}")


# -- HTTP -------------------------------------------------------------------------------------
def fill_body(template: str, fields: JsonObject) -> str:
    """The body template with each ``"{field}"`` replaced by the field as JSON and each bare
    ``{field}`` inside a string by the field's text, JSON-escaped."""

    def value(match: re.Match[str]) -> str:
        quoted, bare = match.group(1), match.group(2)
        name = quoted or bare
        if name not in fields:
            raise ValueError(f"the body template names {{{name}}}, which this suite's cases do not have ({sorted(fields)})")
        item = fields[name]
        if quoted:
            return json.dumps(item, ensure_ascii=False)
        text = item if isinstance(item, str) else json.dumps(item, ensure_ascii=False)
        return json.dumps(text, ensure_ascii=False)[1:-1]

    return _PLACEHOLDER.sub(value, template)


def header_values(spec: TargetSpec) -> dict[str, str]:
    """Header values from the named environment variables ("Bearer NAME" keeps its scheme)."""
    out = {}
    for header, source in spec.headers.items():
        scheme, _, name = source.rpartition(" ")
        value = os.environ.get(name)
        if not value:
            raise ValueError(f"target header {header!r} reads {name}, which is not set")
        out[header] = f"{scheme} {value}" if scheme else value
    return out


def read_path(data: Any, path: str | None) -> Any:
    """The value at a dotted path (``data.answer``, ``choices.0.text``); None when absent."""
    if not path:
        return None
    for part in path.split("."):
        if isinstance(data, dict):
            data = data.get(part)
        elif isinstance(data, list) and part.lstrip("-").isdigit() and -len(data) <= int(part) < len(data):
            data = data[int(part)]
        else:
            return None
    return data


# -- running every call -----------------------------------------------------------------------
def call_target(
    spec: TargetSpec,
    calls: Sequence[TargetCall],
    *,
    default_body: str,
    answer_path: str | None = "answer",
    contexts_path: str | None = "contexts",
    default_retries: int = DEFAULT_RETRIES,
    concurrency: int = 8,
    store_path: str | None = None,
    progress: Progress = lambda message: None,
    extra_headers: dict[str, str] | None = None,
) -> list[TargetReply]:
    """Every call, in order, with at most ``concurrency`` in flight; never raises for one failed
    call (its reply carries ``error``). ``default_body``/paths are the suite's defaults when the
    target names none. Answered calls are read from and written to the store at ``store_path``."""
    if not calls:
        return []
    store = CallStore(store_path) if store_path else None
    settings = _Settings(spec, default_body, answer_path, contexts_path, default_retries, extra_headers or {})
    return run_sync(lambda: _call_all(settings, list(calls), max(1, concurrency), store, progress))


class _Settings:
    def __init__(self, spec: TargetSpec, default_body: str, answer_path: str | None, contexts_path: str | None,
                 default_retries: int, extra_headers: dict[str, str]) -> None:
        self.spec = spec
        self.body = spec.body_template or default_body
        self.answer_path = spec.answer_path or answer_path
        self.contexts_path = spec.contexts_path or contexts_path
        self.max_retries = default_retries if spec.max_retries is None else spec.max_retries
        self.retry_base_s, self.retry_max_s = spec.retry_base_s, spec.retry_max_s
        register_secret_env(*(source.rpartition(" ")[2] for source in spec.headers.values()))
        self.headers = {**extra_headers, **header_values(spec)} if spec.url else {}
        self.secrets = [*secret_values(), *self.headers.values()]
        self.function = load_function(spec.function) if spec.function else None
        self.limits = InputLimits.from_env()  # a reply is input too: the same limits as a dataset row

    def request(self, call: TargetCall) -> str:
        """What identifies a call: the body sent, or the function's arguments."""
        if self.spec.url:
            return fill_body(self.body, call.fields)
        return json.dumps(call.fields, ensure_ascii=False, sort_keys=True, default=str)

    def key(self, call: TargetCall) -> str:
        return CallStore.request_key(CALL_KIND[self.spec.kind], self.spec.identity,
                                     [{"role": "user", "content": self.request(call)}], {"repeat": call.repeat})


async def _call_all(settings: _Settings, calls: list[TargetCall], concurrency: int, store: CallStore | None,
                    progress: Progress) -> list[TargetReply]:
    import httpx

    semaphore = asyncio.Semaphore(concurrency)
    reach = _Reachability()
    total, step = len(calls), max(1, math.ceil(len(calls) / 10))
    stats = {"done": 0, "sent": 0, "reused": 0, "failed": 0}
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=settings.spec.timeout_s, limits=limits) as client:

        async def one(call: TargetCall) -> TargetReply:
            key = settings.key(call)
            reply = await asyncio.to_thread(_stored, store, key, call, progress) if store else None
            if reply is None:
                reply = _scrubbed(await _with_retries(settings, client, call, semaphore, reach), settings.secrets)
                stats["sent"] += 1
                if reply.error is None and store is not None:
                    await asyncio.to_thread(_store, store, key, settings, call, reply)
            else:
                stats["reused"] += 1
            stats["failed"] += reply.error is not None
            stats["done"] += 1
            if stats["done"] % step == 0 or stats["done"] == total:
                progress(f"target calls: {stats['done']}/{total} ({stats['sent']} sent, {stats['reused']} reused, "
                         f"{stats['failed']} failed)")
            return _read_paths(settings, reply)

        replies = list(await asyncio.gather(*(one(call) for call in calls)))
    if reach.gave_up.is_set():
        raise TargetUnreachable(
            f"target {settings.spec.identity} is unreachable: the first {reach.failed_connects} connection attempts "
            f"failed and nothing answered ({reach.last_error}); is it running at that address?"
        )
    return replies


async def _with_retries(settings: _Settings, client: Any, call: TargetCall, semaphore: asyncio.Semaphore,
                        reach: _Reachability) -> TargetReply:
    """One call with retries; the semaphore is not held while backing off. Once ``reach``
    gives up on the endpoint, no call makes another attempt."""
    for attempt in range(settings.max_retries + 1):
        async with semaphore:
            if reach.gave_up.is_set():
                return TargetReply(case_id=call.case_id, repeat=call.repeat, attempts=attempt,
                                   error=f"not sent: {settings.spec.identity} is unreachable")
            if settings.spec.url:
                reply, transient = await _post(settings, client, call)
            else:
                reply, transient = await _invoke(settings, call)
        reach.saw(reply, reply.status is None and reply.error is not None and reply.error.startswith(_CONNECT_FAILED))
        reply.attempts = attempt + 1
        if reply.error is None or not transient or attempt == settings.max_retries or reach.gave_up.is_set():
            if reply.error:
                reply.error = f"{reply.error} (after {attempt + 1} attempt(s))"
            return reply
        try:  # back off, but wake at once when the endpoint is given up on
            await asyncio.wait_for(reach.gave_up.wait(), backoff_s(attempt, settings))  # type: ignore[arg-type]
        except TimeoutError:
            pass
    raise AssertionError("unreachable: the last attempt always returns")


_CONNECT_FAILED = "cannot connect: "


async def _post(settings: _Settings, client: Any, call: TargetCall) -> tuple[TargetReply, bool]:
    import httpx

    url, auth = call_endpoint(str(settings.spec.url))
    headers = {"Content-Type": "application/json", **auth, **settings.headers}
    base = {"case_id": call.case_id, "repeat": call.repeat}
    started = time.perf_counter()
    try:
        response = await client.post(url, content=settings.request(call).encode("utf-8"), headers=headers)
    except httpx.TimeoutException:  # named with the public URL and the limit (--gen-timeout, timeout_s)
        return TargetReply(**base, error=f"timeout: {settings.spec.url} gave no reply within {settings.spec.timeout_s:g} s "
                                         f"(gave up after {time.perf_counter() - started:.1f} s)"), True
    except httpx.ConnectError as exc:  # nothing listens there (or no such host): says so, with the address
        return TargetReply(**base, error=_clean(f"{_CONNECT_FAILED}{type(exc).__name__}: {exc}", settings)), True
    except httpx.HTTPError as exc:
        return TargetReply(**base, error=_clean(f"{type(exc).__name__}: {exc}", settings)), True
    seconds = round(time.perf_counter() - started, 4)
    text = response.text
    if response.status_code >= 400:
        error = _clean(f"HTTP {response.status_code}: {text[:300]}", settings)
        return (TargetReply(**base, raw=_clean(text[:2000], settings), latency_s=seconds, status=response.status_code,
                            error=error), response.status_code in TRANSIENT_STATUS)
    try:
        data = loads_checked(text, settings.limits)
    except json.JSONDecodeError:
        data = text  # a plain-text reply is the answer itself
    except RejectedValue as exc:
        return TargetReply(**base, latency_s=seconds, status=response.status_code,
                           error=_clean(f"the reply breaks an input limit: {exc}", settings)), False
    if isinstance(data, str) and len(data) > settings.limits.max_text_chars:
        return TargetReply(**base, latency_s=seconds, status=response.status_code,
                           error=f"the reply breaks an input limit: {len(data):,} characters of text; the limit is "
                                 f"{settings.limits.max_text_chars:,} ({TEXT_ENV})"), False
    return TargetReply(**base, data=data, raw=text, latency_s=seconds, status=response.status_code), False


async def _invoke(settings: _Settings, call: TargetCall) -> tuple[TargetReply, bool]:
    fn = settings.function
    assert fn is not None
    base = {"case_id": call.case_id, "repeat": call.repeat}
    started = time.perf_counter()
    try:
        args, kwargs = _arguments(fn, call.fields)
        if inspect.iscoroutinefunction(fn):
            value = await asyncio.wait_for(fn(*args, **kwargs), settings.spec.timeout_s)
        else:
            value = await asyncio.wait_for(asyncio.to_thread(fn, *args, **kwargs), settings.spec.timeout_s)
    except TimeoutError:
        return TargetReply(**base, error=f"timeout: {settings.spec.function} gave no reply within {settings.spec.timeout_s:g} s"), True
    except Exception as exc:  # the user's code: its failure is this case's, not the run's
        return TargetReply(**base, error=_clean(f"target raised {type(exc).__name__}: {exc}", settings)), False
    seconds = round(time.perf_counter() - started, 4)
    try:
        data = loads_checked(json.dumps(value, ensure_ascii=False, default=_plain), settings.limits)
    except RejectedValue as exc:
        return TargetReply(**base, latency_s=seconds, error=_clean(f"the target's value breaks an input limit: {exc}",
                                                                   settings)), False
    except (TypeError, ValueError, RecursionError) as exc:  # RecursionError: nested too deep to write
        return TargetReply(**base, latency_s=seconds, error=f"the target returned {type(value).__name__}, "
                                                             f"which is not JSON-shaped: {exc}"), False
    return TargetReply(**base, data=data, raw=json.dumps(data, ensure_ascii=False), latency_s=seconds), False


def _plain(value: Any) -> Any:
    """pydantic models and dataclass-like objects as their fields; anything else is refused."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if hasattr(value, "__dict__"):
        return dict(vars(value))
    raise TypeError(f"cannot record a {type(value).__name__}")


def _read_paths(settings: _Settings, reply: TargetReply) -> TargetReply:
    if reply.error is not None:
        return reply
    data = reply.data
    answer = data if isinstance(data, str) else read_path(data, settings.answer_path)
    contexts = read_path(data, settings.contexts_path)
    return reply.model_copy(update={
        "answer": None if answer is None else (answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)),
        "contexts": contexts if isinstance(contexts, list) else None,
    })


def _scrubbed(reply: TargetReply, secrets: list[str]) -> TargetReply:
    """The reply with every secret value (header values, key variables) masked, before anything
    reads, stores or shows it."""
    return reply.model_copy(update={"data": redact_obj(reply.data, secrets), "raw": redact(reply.raw or "", secrets) or reply.raw,
                                    "error": redact(reply.error or "", secrets) or reply.error})


def _clean(text: str, settings: _Settings) -> str:
    return redact(text, settings.secrets)[:1000]


def _stored(store: CallStore, key: str, call: TargetCall, progress: Progress) -> TargetReply | None:
    try:
        record = store.get(key)
    except UntrustedRecord as exc:
        progress(f"target call of case {call.case_id}: {exc}; set aside as {store.quarantine(key)}, calling again")
        return None
    if record is None:
        return None
    response = record.get("response") or {}
    return TargetReply(case_id=call.case_id, repeat=call.repeat, data=response.get("data"), raw=response.get("raw_text"),
                       latency_s=response.get("latency_s"), status=response.get("status"), attempts=0, reused=True)


def _store(store: CallStore, key: str, settings: _Settings, call: TargetCall, reply: TargetReply) -> None:
    store.put(key, {
        "model": CALL_KIND[settings.spec.kind],
        "api_base": settings.spec.identity,
        "request": {"messages": [{"role": "user", "content": settings.request(call)}], "params": {"repeat": call.repeat}},
        "response": {"data": reply.data, "raw_text": reply.raw, "latency_s": reply.latency_s, "status": reply.status},
    })


def context_record(context: Any) -> JsonObject:
    """A retrieved context as the system gave it: a text, or an object with its text (``text``,
    ``content`` or ``page_content``), its source id and its score."""
    if isinstance(context, dict):
        text = next((context[k] for k in ("text", "content", "page_content") if isinstance(context.get(k), str)), "")
        source = next((context[k] for k in ("source", "id", "doc_id") if isinstance(context.get(k), str)), "")
        score = context.get("score")
        return {"source": source, "text": text, "score": score if isinstance(score, int | float) else None}
    return {"source": "", "text": context if isinstance(context, str) else str(context), "score": None}
