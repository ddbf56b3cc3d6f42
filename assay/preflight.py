"""Checks a run can pass before any server starts: every LLM the run will call has its key.

A judge or generator with no ``api_base`` and no ``api_key_env`` needs the provider's own key
variable (litellm knows which: OPENAI_API_KEY for openai/…, ANTHROPIC_API_KEY for anthropic/…).
Without it every call would fail; the run would end incomplete after minutes of retries. One
clear line now is better. Endpoints given with ``--api-base`` are not checked: a local server
may need no key.
"""

from __future__ import annotations

import os

from assay.spec import RunSpec


def missing_keys(model: str) -> list[str]:
    """Credential variables litellm needs for ``model`` that are not set (base URLs left out)."""
    import litellm

    try:
        needed = litellm.validate_environment(model=model).get("missing_keys") or []
    except Exception:  # noqa: BLE001 - an unknown provider: let the call itself say what is wrong
        return []
    return [k for k in needed if k.endswith(("_KEY", "_TOKEN", "_CREDENTIALS")) and not os.environ.get(k)]


def problems(spec: RunSpec) -> list[str]:
    """One line per model the run cannot call for want of a key."""
    out = []
    calls = []
    if spec.jury is not None and not spec.jury.offline:
        calls += [(f"judge {j.judge_name}", j.model, j.api_base, j.api_key_env) for j in spec.jury.judges]
    gen = spec.generator
    if spec.replay == "live" and spec.target is not None:
        for header, source in spec.target.headers.items():
            name = source.rpartition(" ")[2]
            if not os.environ.get(name):
                out.append(f"target header {header} reads its value from {name}, which is not set")
    if spec.replay == "live" and gen.model and spec.target is None:
        calls.append(("generator", gen.model, gen.api_base, gen.api_key_env))
    for who, model, api_base, key_env in calls:
        if key_env:
            if not os.environ.get(key_env):
                out.append(f"{who} ({model}) reads its key from {key_env}, which is not set")
            continue
        if api_base:
            continue
        missing = missing_keys(model)
        if missing:
            out.append(f"{who} ({model}) needs {' or '.join(missing)}, which is not set; set it, "
                       "or give --api-base for an OpenAI-compatible server, or use --offline")
    return out
