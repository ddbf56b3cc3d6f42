"""`assay run`'s options, declared once.

Each ``Flag`` below is one option of ``assay run``: its spelling, the type typer parses, and the
``RunSpec``/``RunOptions`` field(s) it sets. Its help is that field's ``Field(description=...)`` in
``assay/spec.py`` and the default it shows is the field's default (``assay/run_command.py`` reads
them); only a flag that no single field describes (``--target``, ``--config``, the CI gates…)
carries its own help here. From this one list come:

- the typer command's parameters, help and shown defaults (``assay/run_command.py``),
- the values handed to ``assay.spec.build_run_spec``, which validates them into the spec and
  options (``given``), and the Python API's names for the generator's knobs,
- the flag a validation error names (``error_names``, read by ``assay.spec``),
- the options page ``docs/run-options.md`` (``assay.run_command.markdown``; a test keeps it current).

``NOT_FLAGS`` lists every field no flag sets, with the reason (a ``--config`` file sets most of
them); a test fails when a field is added to the spec and to neither list.

Standard library only: ``assay.spec`` reads this module, never the other way round.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _text(value: Path) -> str:
    return str(value)


def _public_url(value: str) -> str | None:
    """Credentials in a URL stay in this process's environment; the spec holds the public URL."""
    from assay.redact import strip_url_credentials

    return strip_url_credentials(value)


def _public_target(value: str) -> str | None:
    return _public_url(value) if "://" in value else value


@dataclass(frozen=True)
class Flag:
    """One option of ``assay run``."""

    param: str  # the Python parameter name; typer spells it --param-name unless ``names`` says otherwise
    type: Any  # what typer parses the value as (validation into the spec's types comes after)
    sets: tuple[str, ...] = ()  # the fields it sets: "k", "generator.timeout_s", "options.runner"; () the command's own
    help: str | None = None  # None: the description of the field it sets first
    context: str = ""  # said before the help ("live replay"), since the field's description assumes it
    key: str = ""  # the name build_run_spec reads; "": the param name
    names: tuple[str, ...] = ()
    convert: Callable[[Any], Any] | None = None  # parsed value -> what build_run_spec takes
    default: Any = None  # None means "not given", so a --config file's value stands
    min: int | None = None  # a bound typer checks (a usage error) rather than the spec

    @property
    def spec_key(self) -> str | None:
        """build_run_spec's name for the value, or None for a flag of the command itself."""
        return (self.key or self.param) if self.sets else None

    @property
    def spelling(self) -> str:
        """How help and errors name it: its first spelling (``-k``), or --param-name."""
        return self.names[0] if self.names else "--" + self.param.replace("_", "-")


# In the order `assay run --help` lists them.
FLAGS: tuple[Flag, ...] = (
    Flag("dataset", Path | None, ("dataset",), convert=_text),
    Flag("out", Path | None, ("options.out",), convert=_text),
    Flag("store", str | None, ("options.store",)),
    Flag("replay", str | None, ("replay",)),
    Flag("generator", str | None, ("generator.model",)),
    Flag("api_base", str | None, ("generator.api_base",), convert=_public_url,  # and each judge's endpoint
         help="OpenAI-compatible base URL for judges and generator"),
    Flag("target", str | None, ("target.url", "target.function"), context="live replay", convert=_public_target,
         help="your own system: an http(s) URL to POST each case to, or module:function in-process"),
    Flag("target_file", Path | None,
         ("target.url", "target.function", "target.body_template", "target.answer_path", "target.contexts_path",
          "target.headers", "target.version", "target.timeout_s", "target.max_retries", "target.retry_base_s",
          "target.retry_max_s"),
         context="live replay",
         help="YAML target spec (url or function, body_template, answer_path, contexts_path, headers)"),
    Flag("repeats", int | None, ("generator.repeats",), context="live replay", key="generator_repeats"),
    Flag("body_template", str | None, ("target.body_template",), context="live replay"),
    Flag("api_key_env", str | None, ("generator.api_key_env",), key="generator_api_key_env"),  # a URL target's Bearer too
    Flag("gen_max_tokens", int | None, ("generator.max_tokens",), context="live replay", key="generator_max_tokens"),
    Flag("gen_timeout", float | None, ("generator.timeout_s", "target.timeout_s"), context="live replay",
         key="generator_timeout_s", names=("--gen-timeout", "--timeout")),
    Flag("gen_retries", int | None, ("generator.max_retries", "target.max_retries"), context="live replay",
         key="generator_max_retries"),
    Flag("chunk_size", int | None, ("generator.chunk_size",), context="live retrieval", key="generator_chunk_size"),
    Flag("chunk_overlap", int | None, ("generator.chunk_overlap",), context="live retrieval",
         key="generator_chunk_overlap"),
    Flag("embedding_model", str | None, ("generator.embedding_model",), context="live retrieval",
         key="generator_embedding_model"),
    Flag("judge", list[str] | None, ("jury.judges",), key="judges", help="judge model (repeatable)"),
    Flag("judge_weight", list[float] | None, ("jury.judges", "jury.offline_weights"), key="judge_weights",
         help="judge weight (repeatable, same order)"),
    Flag("offline", bool, ("jury.offline",), default=False, help="use the offline jury even if keys are present"),
    Flag("config", Path | None, help="YAML run configuration (spec, jury, options); flags win"),
    Flag("criteria", Path | None, ("criteria",), key="criteria_file",
         help="YAML file of your criteria, each judged by the jury (docs/criteria.md)"),
    Flag("k", int | None, ("k",), names=("-k", "--k")),
    Flag("quarantine", bool | None, ("quarantine",), names=("--quarantine",)),
    Flag("allow_symlinks", bool | None, ("allow_symlinks",), names=("--allow-symlinks",)),
    Flag("max_cost", float | None, ("jury.max_cost_usd",)),
    Flag("judge_timeout", float | None, ("jury.timeout_s",)),
    Flag("concurrency", int | None, ("options.concurrency",)),
    Flag("lang", str | None, ("lang", "jury.lang")),
    Flag("runner", str | None, ("options.runner",)),
    Flag("partition_size", int | None, ("options.partition_size",), min=1),
    Flag("compare_with", str | None, ("compare_with",)),
    Flag("fail_on_regression", bool | None, ("fail_on_regression",), names=("--fail-on-regression",)),
    Flag("verbose", bool, default=False, names=("--verbose", "-v"), help="show Prefect's own logs"),
    Flag("assert_", list[str] | None, names=("--assert",),
         help="CI gate METRIC>=VALUE (or <=, >, <) on a metric's mean; exit 5 when missed (repeatable)"),
    Flag("junit", Path | None, names=("--junit",), help="write per-case results as JUnit XML to this file"),
    Flag("max_failed_calls", str | None, ("max_failed_calls",), context="live replay", names=("--max-failed-calls",)),
)

# Every field of the spec and options that no flag sets, and why. A --config file (docs/run-options.md)
# sets each of them that is an input at all.
NOT_FLAGS: dict[str, str] = {
    "suite": "the command's argument, SUITE",
    "generator": "a record: its fields are set one by one",
    "target": "a record: its fields are set one by one",
    "jury": "a record: its fields are set one by one",
    "generator.retry_base_s": "retry back-off tuning: a --config file's generator: section",
    "generator.retry_max_s": "retry back-off tuning: a --config file's generator: section",
    "jury.max_retries": "a --config file's jury: section (or retries:)",
    "jury.reason": "written when the jury is resolved, for the report",
    "jury.panel": "written when the jury is resolved: every judge by name, model, weight",
    "disagreement_threshold": "a property of the jury's scoring: a --config file's disagreement_threshold:",
}

ARGUMENT_HELP = "suite id, see `assay suites`"


def by_param() -> dict[str, Flag]:
    return {flag.param: flag for flag in FLAGS}


def given(values: dict[str, Any]) -> dict[str, Any]:
    """``build_run_spec``'s ``cli`` input from the parsed flags: the values the user gave (an
    unset switch and an empty list are "not given", so a --config file's value stands)."""
    found: dict[str, Any] = {}
    for flag in FLAGS:
        value = values.get(flag.param)
        if flag.spec_key is None or value is None or value is False or value in ([], ()):
            continue
        found[flag.spec_key] = flag.convert(value) if flag.convert else value
    return found


def error_names() -> dict[str, str]:
    """A validation error's location (``generator.timeout_s``, ``concurrency``) -> the flag that
    sets it, so ``assay.spec`` says ``--gen-timeout 0: ...``. A flag whose value is a path is left
    out: whoever reads the file or folder names it (``target file t.yaml: ...``)."""
    names: dict[str, str] = {}
    for flag in FLAGS:
        if flag.type != Path | None:
            for path in flag.sets:
                names.setdefault(path.removeprefix("options."), flag.spelling)
    return names


def generator_knobs() -> frozenset[str]:
    """The GeneratorSpec fields set by name (``max_tokens``), which build_run_spec reads as
    ``generator_max_tokens``: the Python API passes its keyword arguments through this."""
    return frozenset(f.spec_key.removeprefix("generator_") for f in FLAGS
                     if f.spec_key and f.spec_key.startswith("generator_"))
