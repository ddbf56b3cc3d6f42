"""Checks a run can pass before any server starts: every LLM the run will call has its key,
the target function imports, every ``--assert`` names a metric of the suite, a baseline is of
the same suite and asks the same cases, and the store and the run's output folder take a write.
(A target URL's scheme and host are checked as the spec is built: ``assay.spec.url_problem``.)

A judge or generator with no ``api_base`` and no ``api_key_env`` needs the provider's own key
variable (OPENAI_API_KEY for openai/…, ANTHROPIC_API_KEY for anthropic/…: ``PROVIDER_KEYS`` for
the common providers, litellm for the others).
Without it every call would fail; the run would end incomplete after minutes of retries. One
clear line now is better. Endpoints given with ``--api-base`` are not checked: a local server
may need no key.
"""

from __future__ import annotations

import difflib
import os
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.spec import RunOptions, RunSpec

# The key variable litellm reads for each common provider (None: a local server, no key), so a
# ``provider/model`` of these is checked without importing litellm, which takes seconds; any
# other model asks litellm. tests/unit/test_preflight.py holds this table to litellm's answers.
PROVIDER_KEYS: dict[str, str | None] = {
    "openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY", "deepseek": "DEEPSEEK_API_KEY", "xai": "XAI_API_KEY", "cohere": "COHERE_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY", "openrouter": "OPENROUTER_API_KEY", "fireworks_ai": "FIREWORKS_AI_API_KEY",
    "perplexity": "PERPLEXITYAI_API_KEY", "deepinfra": "DEEPINFRA_API_KEY", "cerebras": "CEREBRAS_API_KEY",
    "ollama": None, "ollama_chat": None, "hosted_vllm": None, "lm_studio": None,
}


def _tabled_provider(model: str) -> str | None:
    """The provider of a ``provider/model`` name that PROVIDER_KEYS lists, else None."""
    provider, _, name = model.partition("/")
    return provider if name and provider in PROVIDER_KEYS else None


def missing_keys(model: str) -> list[str]:
    """Credential variables litellm needs for ``model`` that are not set (base URLs left out)."""
    provider = _tabled_provider(model)
    if provider is not None:
        key = PROVIDER_KEYS[provider]
        return [key] if key and not os.environ.get(key) else []
    import litellm

    try:
        needed = litellm.validate_environment(model=model).get("missing_keys") or []
    except Exception:  # noqa: BLE001 - an unknown provider: let the call itself say what is wrong
        return []
    return [k for k in needed if k.endswith(("_KEY", "_TOKEN", "_CREDENTIALS")) and not os.environ.get(k)]


def unknown_provider(model: str) -> str | None:
    """litellm's complaint when it cannot tell which provider serves ``model``, else None."""
    if _tabled_provider(model) is not None:
        return None
    import litellm

    litellm.suppress_debug_info = True  # its provider-list banner would bury the one line
    try:
        litellm.get_llm_provider(model=model)
    except Exception:  # noqa: BLE001 - litellm raises its own BadRequestError
        return (f"litellm does not know the provider of {model!r}; name it as provider/model "
                "(openai/…, anthropic/…, ollama/…), or openai/<model> with --api-base for an OpenAI-compatible server")
    return None


def problems(spec: RunSpec) -> list[str]:
    """One line per model the run cannot call (an unknown provider or a key that is not set),
    and per input limit set to no number (``ASSAY_MAX_TEXT_CHARS``, ``ASSAY_MAX_JSON_DEPTH``)."""
    from assay.validation.limits import InputLimits, LimitError

    out = []
    try:
        InputLimits.from_env()
    except LimitError as exc:
        out.append(str(exc))
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
        unknown = unknown_provider(model)
        if unknown:
            out.append(f"{who}: {unknown}")
            continue
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


def refusals(spec: RunSpec, options: RunOptions, suite: Any = None, thresholds: Sequence[Any] = ()) -> list[str]:
    """Everything ``assay run`` and ``assay.evaluate`` check before a server starts, one line
    each: the dataset folder, the target, the models' providers and keys, the gates' metrics,
    the store and the baseline. ``suite`` (the suite object) enables the checks that read it.
    (The criteria are checked by the caller first: ``assay.suites.kit.criteria`` sits above this
    layer.)"""
    if spec.dataset and not Path(spec.dataset).is_dir():
        return [f"dataset {spec.dataset}: no such directory"]
    return (target_problems(spec) or problems(spec) or (assert_problems(suite, spec, thresholds) if suite else [])
            or store_problems(options) or baseline_problems(spec, options, suite))


def target_problems(spec: RunSpec) -> list[str]:
    """One line if the target function (``--target module:function``) cannot be imported or
    called: found now, not after the server started and every case failed."""
    if spec.replay != "live" or spec.target is None or spec.target.function is None:
        return []
    from assay.replay.targets import load_function

    try:
        load_function(spec.target.function)
    except ValueError as exc:
        return [f"--{exc}"]
    except Exception as exc:  # noqa: BLE001 - the user's module failed as it was imported
        return [f"--target {spec.target.function!r}: importing it raised {type(exc).__name__}: {exc}"]
    return []


def assert_problems(suite: Any, spec: RunSpec, thresholds: Sequence[Any]) -> list[str]:
    """One line per ``--assert`` naming a metric the suite does not report (with the closest
    name), so a typo is refused now instead of failing the gate after the whole run."""
    known = suite.metric_names(spec)
    if known is None:
        return []
    known = [*known, *(criterion.name for criterion in spec.criteria)]  # each criterion is a metric too
    out = []
    for threshold in thresholds:
        if threshold.metric in known:
            continue
        close = difflib.get_close_matches(threshold.metric, known, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        out.append(f"--assert {str(threshold)!r}: the {spec.suite} suite has no metric {threshold.metric!r} "
                   f"({hint}metrics: {', '.join(known)})")
    return out


def baseline_problems(spec: RunSpec, options: RunOptions, suite: Any = None) -> list[str]:
    """One line if ``--compare-with RUN`` names a run the store does not hold, or a run of
    another suite: found now, instead of a finished run whose comparison step was refused."""
    if not spec.compare_with or spec.compare_with == "latest":
        return []
    from assay.lineage.manifest import load_manifest_record
    from assay.lineage.store import ArtifactStore

    try:
        record = load_manifest_record(ArtifactStore(options.store_url()), spec.compare_with)
    except (FileNotFoundError, ValueError) as exc:
        return [f"--compare-with {spec.compare_with}: {exc}"]
    if record.get("suite") != spec.suite:
        return [f"--compare-with {spec.compare_with}: a {record.get('suite')} run cannot be the baseline of a "
                f"{spec.suite} run (compare runs of one suite)"]
    return _baseline_cases_problems(ArtifactStore(options.store_url()), spec, record, suite)


def _baseline_cases_problems(store: Any, spec: RunSpec, record: dict[str, Any], suite: Any) -> list[str]:
    """One line if the baseline has no scores, or shares no case id with this run's dataset as
    ``suite`` reads it (cases are compared by id: such a comparison would hold nothing)."""
    import json

    from assay import artifacts as names
    from assay.hashing import sha256_bytes

    artifacts = record.get("artifacts") or {}
    if names.SCORES_PARQUET not in artifacts:
        return [f"--compare-with {spec.compare_with}: that run has no scores ({record.get('status')}); "
                "compare with a run that finished"]
    cases = artifacts.get(names.dataset_file("cases"))
    if not cases or not spec.dataset or suite is None:
        return []
    try:
        data = store.read_bytes(store.run_path(spec.compare_with, cases["path"]))
        if sha256_bytes(data) != cases.get("sha256"):
            return []  # not the recorded file: the comparison step's audit says so
        before = {str(json.loads(line).get("id")) for line in data.decode("utf-8").splitlines() if line.strip()}
        now = {str(r.get("id")) for r in suite.load_dataset(Path(spec.dataset)).records}
    except (OSError, ValueError, KeyError, AttributeError):
        return []  # unreadable here: the comparison step says what is wrong
    if now and before and not now & before:
        return [f"--compare-with {spec.compare_with}: it shares no case id with {spec.dataset} "
                "(cases are compared by id); compare runs of the same dataset"]
    return []


def store_problems(options: RunOptions) -> list[str]:
    """One line if the store (or ``--out``, where task results live) cannot take a write.

    A probe file is written and removed in each, the way the run writes: so a read-only,
    full or foreign folder is named now, not as a traceback halfway through the run.
    """
    from assay.lineage.store import ArtifactStore, is_store_fault

    out = []
    roots = [options.store_url()] + ([os.path.abspath(options.out)] if options.store else [])
    for root in roots:
        probe = ""
        made = _missing_local_folders(root)
        try:
            store = ArtifactStore(root)
            probe = store.path(".assay", f"write-probe-{uuid.uuid4().hex[:8]}")
            store.write_bytes(probe, b"probe")
            store.fs.rm_file(probe)
        except OSError as exc:
            if not is_store_fault(exc):
                raise
            reason = str(exc) if str(exc).startswith("cannot write") else f"cannot write {probe or root}: {exc.strerror}"
            out.append(f"store {root}: {reason}")
        finally:
            for folder in made:  # the run makes them itself; a failed check leaves nothing behind
                if os.path.isdir(folder) and not os.listdir(folder):
                    os.rmdir(folder)
    return out


def _missing_local_folders(root: str) -> list[str]:
    """The folders a probe of local ``root`` would create, deepest first (none for a URL)."""
    if "://" in root and not root.startswith("file://"):
        return []
    path = os.path.abspath(root.removeprefix("file://"))
    missing = [p for p in [os.path.join(path, ".assay")] if not os.path.exists(p)]
    while not os.path.exists(path):
        missing.append(path)
        path = os.path.dirname(path)
    return missing
