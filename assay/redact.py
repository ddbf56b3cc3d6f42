"""One redaction layer for everything assay persists or logs.

A run directory, the judge call store, Prefect's database and logs are evidence that people
read who must not see credentials. Three kinds of secret are removed:

- credentials inside URLs (``http://user:pass@host/v1`` → ``http://host/v1``; secret query
  parameters such as ``?api_key=…`` → ``?api_key=***``);
- the *values* of every environment variable a provider key can live in: the variables
  litellm reads (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, …), any variable whose name ends
  in ``_API_KEY``/``_TOKEN``/``_SECRET``/``_PASSWORD``, and every name registered at run
  time (a judge's ``api_key_env``, a target's header variables: ``RunSpec.secret_env_names``),
  as written and as JSON writes them (a reply that echoes a header may quote it escaped);
- shapes that are credentials wherever they come from (``Bearer …``, ``sk-…``, ``AIza…``).

Credentials stripped from a URL are not lost: ``strip_url_credentials`` keeps them in this
process's environment (``ASSAY_URL_CREDENTIALS``), and ``with_url_credentials`` puts them
back at call time, so they reach the HTTP client and nothing else.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from assay.hashing import canonical_json
from assay.log_filters import RewritingFilter, install

MASK = "***"

# The provider key variables litellm reads (a subset is enough to name; the suffix rule below
# catches the rest).
PROVIDER_KEY_VARS = (
    "OPENAI_API_KEY", "AZURE_API_KEY", "AZURE_OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY",
    "GOOGLE_API_KEY", "VERTEXAI_CREDENTIALS", "COHERE_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY",
    "TOGETHERAI_API_KEY", "TOGETHER_API_KEY", "DEEPSEEK_API_KEY", "XAI_API_KEY", "OPENROUTER_API_KEY",
    "HUGGINGFACE_API_KEY", "HF_TOKEN", "REPLICATE_API_KEY", "PERPLEXITYAI_API_KEY", "FIREWORKS_API_KEY",
    "FIREWORKS_AI_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
    "DEEPINFRA_API_KEY", "VOYAGE_API_KEY", "CEREBRAS_API_KEY", "NVIDIA_NIM_API_KEY", "SAMBANOVA_API_KEY",
    "DATABRICKS_TOKEN", "WATSONX_APIKEY", "AI21_API_KEY", "ANYSCALE_API_KEY", "CLARIFAI_API_KEY",
    "LITELLM_API_KEY", "LITELLM_MASTER_KEY", "ASSAY_SIGNING_KEY",
)
_SECRET_SUFFIXES = (
    "_API_KEY", "_APIKEY", "_TOKEN", "_SECRET", "_SECRET_KEY", "_PASSWORD", "_ACCESS_KEY_ID", "_SIGNING_KEY",
)
_SECRET_QUERY_PARAMS = {"key", "api_key", "apikey", "api-key", "token", "access_token", "secret", "password", "sig", "signature"}
_CREDENTIALS_ENV = "ASSAY_URL_CREDENTIALS"
# The registered names, in the environment too: a process this one starts (a Dask worker, a
# subprocess flow) redacts the same values. Names only, never values.
_NAMES_ENV = "ASSAY_SECRET_ENV_NAMES"
_MIN_SECRET_LEN = 6  # shorter values ("1", "true") would mask ordinary text

# (pattern, replacement): credential shapes masked wherever they appear.
_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{16,}"), rf"\1 {MASK}"),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{16,}"), MASK),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"), MASK),
    (re.compile(r"(?i)\b(api[_-]?key|x-api-key)(\"?\s*[:=]\s*\"?)([A-Za-z0-9._~+/=-]{12,})"), rf"\1\2{MASK}"),
    (re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]+@"), ""),  # user:password@ inside any URL in free text
)

# Each shape above needs one of these substrings to match: one search rules out most strings
# (hashes, names, numbers) instead of five substitutions each; a manifest holds tens of thousands.
_SHAPE_MARKERS = re.compile(r"Bearer|Basic|sk-|AIza|://|(?i:api)")



def _has_marker(text: str) -> bool:
    """``_SHAPE_MARKERS.search(text)``, answered by substring tests first: the regex takes
    ~35 ns a character on non-ASCII text (a judge prompt's 2 KB of Korean: 70 µs), the tests
    a few µs. Case-insensitive "api" matches only [aA][pP][iIİı], and ``lower`` maps each of
    those to a string starting with "a", "p", "i" or "ı", so a text without "api" or "apı"
    in its lower case has no match."""
    if "Bearer" in text or "Basic" in text or "sk-" in text or "AIza" in text or "://" in text:
        return True
    lowered = text.lower()
    if "api" not in lowered and "ap\u0131" not in lowered:
        return False
    return _SHAPE_MARKERS.search(text) is not None


_registered: set[str] = set()


def register_secret_env(*names: str | None) -> None:
    """Treat the values of these environment variables as secrets from now on (e.g. api_key_env)."""
    _registered.update(n for n in names if n)
    known = _inherited_names()
    if not _registered <= known:
        os.environ[_NAMES_ENV] = ",".join(sorted(known | _registered))


def _inherited_names() -> set[str]:
    return {n for n in os.environ.get(_NAMES_ENV, "").split(",") if n}


def _secret_env_names() -> set[str]:
    names = set(PROVIDER_KEY_VARS) | _registered | _inherited_names()
    names |= {n for n in os.environ if n.upper().endswith(_SECRET_SUFFIXES)}
    return names


def without_secrets(env: dict[str, str]) -> dict[str, str]:
    """``env`` without any variable that holds a key, a token or a header value: the provider key
    variables, names ending in ``_API_KEY``/``_TOKEN``/``_SECRET``/``_PASSWORD``…, every name
    registered (a run's ``api_key_env``, a target's header variables), and the credentials
    assay keeps for URLs and agent headers. For processes that need none of them (the Prefect
    server a run starts, which outlives it)."""
    dropped = _secret_env_names() | {_CREDENTIALS_ENV, "ASSAY_AGENT_HEADERS"}
    return {name: value for name, value in env.items()
            if name not in dropped and not name.upper().endswith(_SECRET_SUFFIXES)}


# (the environment as last read, the registered names then, the values found): every stored
# record asks for the values (twice a judge call), and working them out from the environment
# costs ~0.1 ms; they are worked out again whenever the environment or the names changed.
_values_seen: tuple[dict[Any, Any], frozenset[str], tuple[str, ...]] | None = None


def secret_values() -> list[str]:
    """Current values of every secret-bearing variable, longest first (so overlaps mask fully)."""
    global _values_seen
    # os.environ's own mapping (bytes to bytes): every change made through os.environ is a
    # change of this dict, so comparing it with a copy is exact, and takes ~2 µs.
    environment = getattr(os.environ, "_data", None)
    seen = _values_seen
    if environment is not None and seen is not None and seen[0] == environment and seen[1] == _registered:
        return list(seen[2])
    values = _secret_values_now()
    if environment is not None:
        _values_seen = (dict(environment), frozenset(_registered), tuple(values))
    return values


def _secret_values_now() -> list[str]:
    values = {os.environ.get(n, "") for n in _secret_env_names()}
    values |= _json_header_values(os.environ.get("ASSAY_AGENT_HEADERS", ""))
    for full in _stored_credentials().values():
        parts = urlsplit(full)
        values |= {parts.password or "", f"{parts.username}:{parts.password}" if parts.password else ""}
        if parts.username is not None:  # as sent in a Basic header, which a provider may echo
            userinfo = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            values.add(base64.b64encode(userinfo.encode("utf-8")).decode("ascii"))
    values |= _json_quoted(values)
    return sorted((v for v in values if len(v) >= _MIN_SECRET_LEN), key=len, reverse=True)


def _json_quoted(values: set[str], levels: int = 3) -> set[str]:
    """Each value as it reads inside a JSON string, and inside a JSON string held in another
    (a reply that quotes its request headers as JSON, itself stored as JSON text), by writers
    that keep non-ASCII and by those that escape it."""
    out: set[str] = set()
    layer = {v for v in values if v}
    for _ in range(levels):
        layer = {json.dumps(v, ensure_ascii=ascii)[1:-1] for v in layer for ascii in (False, True)} - values - out
        out |= layer
    return out


def _json_header_values(raw: str) -> set[str]:
    """Values of a JSON object of HTTP headers (an agent's auth headers), as secrets."""
    try:
        headers = json.loads(raw) if raw else {}
    except json.JSONDecodeError:
        return {raw}
    return {v for v in headers.values() if isinstance(v, str)} if isinstance(headers, dict) else set()


def redact(text: str, values: list[str] | None = None) -> str:
    """``text`` with every known secret value and credential shape replaced by ``***``.

    ``values``: the secret values to mask (default: ``secret_values()`` now); pass them when
    redacting many strings at once.
    """
    if not text:
        return text
    for value in secret_values() if values is None else values:
        if value in text:
            text = text.replace(value, MASK)
    if _has_marker(text):
        for shape, replacement in _SHAPES:
            text = shape.sub(replacement, text)
    return text


# Short strings come back again and again in stored records (keys, a verdict schema's texts, a
# prompt's system message): each one's redaction is kept, for the secret values it was made
# with. (values, {text: redacted}), replaced whole when the values change, so a thread that
# holds the old pair never reads another value's answer.
_SHORT = 256
_MOST_KEPT = 20_000
_short_redactions: tuple[list[str], dict[str, str]] = ([], {})


def _redact_short(text: str, values: list[str]) -> str:
    global _short_redactions
    kept_for, kept = _short_redactions
    if kept_for != values or len(kept) >= _MOST_KEPT:
        kept_for, kept = list(values), {}
        _short_redactions = (kept_for, kept)
    found = kept.get(text)
    if found is None:
        found = kept[text] = redact(text, values)
    return found


def redact_obj(value: Any, values: list[str] | None = None) -> Any:
    """Redact every string inside a JSON-like value (dict keys too)."""
    values = secret_values() if values is None else values
    if isinstance(value, str):
        return _redact_short(value, values) if len(value) <= _SHORT else redact(value, values)
    if isinstance(value, dict):
        return {redact_obj(k, values): redact_obj(v, values) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_obj(v, values) for v in value]
    return value


_JSON_ESCAPED = re.compile(r'["\\\x00-\x1f]')


def redacted_json(value: Any, values: list[str] | None = None) -> str:
    """``json.dumps(redact_obj(value))`` (sorted keys, non-ASCII kept), without walking the
    value when nothing in its JSON text could be a secret: no secret value occurs in it and no
    credential shape's marker does (neither can hide behind JSON escaping, as neither holds a
    character JSON escapes; a secret value that does always takes the full walk)."""
    values = secret_values() if values is None else values
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    if _nothing_to_redact(text, values):
        return text
    return json.dumps(redact_obj(value, values), ensure_ascii=False, sort_keys=True, default=str)


def redacted_canonical_json(value: Any, values: list[str] | None = None, encoded: bytes | None = None) -> bytes:
    """``canonical_json(redact_obj(value))``, without the walk when nothing in the canonical
    text could be a secret (the rule of ``redacted_json``). ``encoded``: ``canonical_json(value)``
    when the caller has it already."""
    values = secret_values() if values is None else values
    data = canonical_json(value) if encoded is None else encoded
    if _nothing_to_redact(data.decode("utf-8"), values):
        return data
    redacted = redact_obj(value, values)
    # Equal means every string came back unchanged (other values are returned as they are), so
    # the text already made is the answer: a judge call's record (its "api_base" always holds a
    # marker) is walked, but dumped once.
    return data if redacted == value else canonical_json(redacted)


def _nothing_to_redact(text: str, values: list[str]) -> bool:
    """True when no string inside the JSON ``text`` holds a secret value or a credential shape's
    marker: neither a marker nor a value without JSON-escaped characters can be split by the
    escaping, and a value with such characters is never ruled out here."""
    return (not _has_marker(text) and not any(v in text for v in values)
            and not any(_JSON_ESCAPED.search(v) for v in values))


# -- URLs ------------------------------------------------------------------------------------
def public_url(url: str | None) -> str | None:
    """``url`` without user-info and with secret query parameters masked; safe to store."""
    if not url:
        return url
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return redact(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    query = urlencode(
        [(k, MASK if k.lower() in _SECRET_QUERY_PARAMS else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)],
        safe="*",
    )
    return urlunsplit((parts.scheme, host, parts.path, query, parts.fragment))


def strip_url_credentials(url: str | None) -> str | None:
    """The public form of ``url``; its credentials are kept in this process's environment only.

    ``with_url_credentials(public)`` restores them at call time. Nothing that is persisted
    (manifest, Prefect parameters, artifacts) ever sees the full URL.
    """
    clean = public_url(url)
    if url and clean != url:
        stored = _stored_credentials()
        stored[clean or ""] = url
        os.environ[_CREDENTIALS_ENV] = json.dumps(stored)
    return clean


def with_url_credentials(url: str | None) -> str | None:
    """The full URL (with the credentials given on the command line) for a public URL."""
    if not url:
        return url
    return _stored_credentials().get(url, url)


def call_endpoint(url: str | None) -> tuple[str | None, dict[str, str]]:
    """Where to send a call and the headers it needs, for a public URL: user-info from the
    command line becomes an HTTP Basic ``Authorization`` header (what an HTTP client does with
    it; litellm's async transport cannot), the query string stays on the URL."""
    # Asked once per judge call: worked out again only when the URL or the stored credentials change.
    full, headers = _endpoint(url, os.environ.get(_CREDENTIALS_ENV))
    return full, dict(headers)


@functools.lru_cache(maxsize=64)
def _endpoint(url: str | None, stored: str | None) -> tuple[str | None, dict[str, str]]:
    """``call_endpoint(url)`` with ``stored`` as the stored credentials' variable's value."""
    full = _stored_credentials(stored).get(url, url) if url else url
    if not full:
        return full, {}
    parts = urlsplit(full)
    if parts.username is None:
        return full, {}
    userinfo = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port:
        netloc += f":{parts.port}"
    token = base64.b64encode(userinfo.encode("utf-8")).decode("ascii")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment)), {"Authorization": f"Basic {token}"}


def _stored_credentials(text: str | None = None) -> dict[str, str]:
    """The stored credentials: ``text`` (the variable's value) or the environment's."""
    try:
        stored = json.loads(text if text is not None else os.environ.get(_CREDENTIALS_ENV, "{}"))
    except json.JSONDecodeError:
        return {}
    return stored if isinstance(stored, dict) else {}


# -- logs ------------------------------------------------------------------------------------
# Every log record's message (and its arguments) redacted before any handler sees it.
_FILTER = RewritingFilter(redact)


def install_log_redaction(*logger_names: str) -> None:
    """Attach the redacting filter to the handlers of these loggers and of the root logger."""
    install(_FILTER, *logger_names)
