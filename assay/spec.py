"""What a run is: ``RunSpec`` (everything that changes results) and ``RunOptions`` (how it runs).

One ``RunSpec`` is the flow's parameter, the CLI's target, the manifest's record and a rerun's
input (``RunSpec.model_validate(manifest.run_spec)``). It holds every field that can change a
score — the suite, the dataset, the replay mode with every live-generation knob
(``GeneratorSpec``), the resolved jury (``JurySpec``), k, language — and nothing that does not.
Concurrency, progress output, the runner and where results are written live in ``RunOptions``,
so they never enter a cache key: rerunning with ``--concurrency 4`` reuses every step.

Both are settable from the command line and from a ``--config`` YAML file (see
``load_config``); command-line values win over the file's.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from assay.judges.config import JudgeSpec, JuryConfig
from assay.judges.criteria import CriteriaError, Criterion, load_criteria_file, parse_criteria
from assay.partitions import DEFAULT_PARTITION_SIZE
from assay.redact import public_url
from assay.run_flags import error_names
from assay.schemas import JsonObject
from assay.yaml_files import read_yaml_mapping

ReplayMode = Literal["recorded", "live"]
Lang = Literal["ko", "en"]


class SpecError(ValueError):
    """A run specification that cannot be used; the message says what to fix."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GeneratorSpec(_Strict):
    """The system under test for ``--replay live``: a litellm model and every knob of the call.

    ``api_base`` is stored without credentials (they reach the client at call time only);
    ``api_key_env`` is the NAME of the variable holding the key, never the key.
    """

    model: str | None = Field(default=None, description="litellm model for --replay live, e.g. openai/gpt-4o-mini")
    repeats: int = Field(default=3, ge=1, le=100, description="calls per query (the agent suite's consistency)")
    api_base: str | None = None
    api_key_env: str | None = Field(default=None, description="NAME of the env var holding the generator's key")
    max_tokens: int | None = Field(default=None, ge=1, description="answer length cap (provider default)")
    timeout_s: float = Field(default=60.0, gt=0, description="per-request (per agent call) timeout, seconds")
    max_retries: int = Field(default=4, ge=0, description="retries on transient errors (429, 5xx, timeouts)")
    retry_base_s: float = Field(default=1.0, gt=0)
    retry_max_s: float = Field(default=30.0, gt=0)
    # seed 003's chunking: 500 characters, 200 of them overlapping
    chunk_size: int = Field(default=500, ge=1, description="characters per chunk")
    chunk_overlap: int = Field(default=200, ge=0, description="overlap in characters")
    embedding_model: str | None = Field(default=None, description="local sentence-transformers model")

    @field_validator("api_base")
    @classmethod
    def _no_credentials(cls, value: str | None) -> str | None:
        return public_url(value)

    @field_validator("api_key_env")
    @classmethod
    def _a_name(cls, value: str | None) -> str | None:
        if value is not None and not value.replace("_", "").isalnum():
            raise ValueError("api_key_env must be the NAME of an environment variable, e.g. OPENAI_API_KEY")
        return value

    @model_validator(mode="after")
    def _overlap_below_size(self) -> GeneratorSpec:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(f"chunk_overlap ({self.chunk_overlap}) must be smaller than chunk_size ({self.chunk_size})")
        return self


_ENV_NAME = re.compile(r"^(?:[A-Za-z]+ )?[A-Za-z_][A-Za-z0-9_]*$")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class TargetSpec(_Strict):
    """The system under test for ``--replay live``, when it is yours: an HTTP endpoint or a
    Python callable. Recorded in the run spec (never a header's value), so a rerun calls the
    same system and re-sends only the calls that failed.

    - ``url``: POST ``body_template`` (JSON; ``"{field}"`` is replaced by the case's field) and
      read the answer and retrieved contexts at ``answer_path`` / ``contexts_path`` (dotted
      paths into the JSON reply, list indexes as numbers). ``headers`` maps a header to the
      NAME of the environment variable holding its value, optionally after a scheme word:
      ``{"Authorization": "Bearer MY_TOKEN"}``.
    - ``function``: ``module:function`` called in-process (sync or async) with the case's
      fields as keyword arguments (those its signature names). A function handed to
      ``assay.evaluate`` directly is recorded by its qualified name; a lambda or closure
      cannot be imported again, so ``assay rerun`` cannot call it.
    """

    url: str | None = Field(default=None, description="http(s) endpoint to POST each case to")
    function: str | None = Field(default=None, description="module:function called in-process")
    body_template: str | None = Field(
        default=None, description='JSON body for a URL target, "{field}" filled from the case, e.g. {"question": "{question}"}')
    answer_path: str | None = Field(default=None, description="dotted path of the answer in the reply")
    contexts_path: str | None = Field(default=None, description="dotted path of the retrieved contexts")
    headers: dict[str, str] = Field(default_factory=dict, description="header -> env var NAME (value never stored)")
    version: str | None = Field(
        default=None, max_length=200,
        description="your label for this build of the system: answers are kept per target and version, so a "
        "changed system at the same address is called afresh when the version changes",
    )
    timeout_s: float = Field(default=60.0, gt=0, description="per-call timeout, seconds")
    max_retries: int | None = Field(
        default=None, ge=0,
        description="retries on timeouts, connection errors, 408/429/5xx; None: the suite's default "
        "(3; the agent suite's 0, where a failed call is itself a measurement)",
    )
    retry_base_s: float = Field(default=0.5, gt=0)
    retry_max_s: float = Field(default=10.0, gt=0)

    @field_validator("url")
    @classmethod
    def _public(cls, value: str | None) -> str | None:
        if value is not None:
            problem = url_problem(value)
            if problem:
                raise ValueError(problem)
        return public_url(value)  # credentials in the URL reach the call only

    @field_validator("function")
    @classmethod
    def _qualified(cls, value: str | None) -> str | None:
        if value is not None:
            module, _, name = value.partition(":")
            if not module or not name or not all(p.isidentifier() for p in module.split(".")):
                raise ValueError("a target function must be 'module:function' (e.g. mypkg.rag:answer)")
        return value

    @field_validator("headers")
    @classmethod
    def _env_names(cls, value: dict[str, str]) -> dict[str, str]:
        for header, source in value.items():
            if not _ENV_NAME.match(source):
                raise ValueError(
                    f"header {header!r}: give the NAME of the environment variable holding its value "
                    f"(optionally after a scheme, e.g. 'Bearer MY_TOKEN'), never the value itself"
                )
        return value

    @field_validator("body_template")
    @classmethod
    def _json_template(cls, value: str | None) -> str | None:
        if value is not None:
            if not _PLACEHOLDER.search(value):
                raise ValueError('the body template names no case field, e.g. {"question": "{question}"}')
            try:
                json.loads(_PLACEHOLDER.sub("x", value))
            except json.JSONDecodeError as exc:
                raise ValueError(f"the body template is not JSON once its fields are filled in: {exc.msg}") from None
        return value

    @model_validator(mode="after")
    def _one_system(self) -> TargetSpec:
        if (self.url is None) == (self.function is None):
            raise ValueError("a target is either a url or a function (module:function), not both or neither")
        return self

    @property
    def kind(self) -> Literal["http", "python"]:
        return "http" if self.url else "python"

    @property
    def identity(self) -> str:
        """What the target is, for records and call-store keys."""
        return str(self.url or self.function) + (f"@{self.version}" if self.version else "")

    def body_fields(self) -> list[str]:
        return _PLACEHOLDER.findall(self.body_template or "")


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a target's address (a scheme other than http(s), no host, a bad
    port), or None: checked before the run, so a typo is one line, not minutes of retries."""
    from urllib.parse import urlsplit

    if not url.startswith(("http://", "https://")):
        scheme = url.partition("://")[0]
        return f"a target url must start with http:// or https:// (not {scheme}://)"
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port  # .port raises on a port that is not a number in range
    except ValueError as exc:
        return f"a target url needs a valid host and port: {exc}"
    if not host or not _HOST.match(host):
        return f"a target url needs a host name or address after {parts.scheme}:// (got {parts.netloc!r})"
    return None if port is None or port > 0 else "a target url's port must be 1-65535"


_HOST = re.compile(r"^(?:\[[0-9A-Fa-f:.]+\]|[0-9A-Fa-f:]+:[0-9A-Fa-f:.]*|[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?)$")


def parse_target(value: str) -> TargetSpec:
    """``--target``: an http(s) URL or ``module:function``."""
    if "://" in value:  # meant as a URL: say what is wrong with it, never try it as a module
        problem = url_problem(value)
        if problem:
            raise SpecError(f"--target {value!r}: {problem}")
        return TargetSpec(url=value)
    try:
        return TargetSpec(function=value)
    except ValidationError:
        raise SpecError(f"--target {value!r}: give an http(s) URL or module:function (e.g. mypkg.rag:answer)") from None


def legacy_target(value: str, template: str | None, generator: JsonObject) -> JsonObject:
    """A target from the older ``generator.target`` form (and its body template / key variable)."""
    target: JsonObject = {"url": value} if value.startswith(("http://", "https://")) else {"function": value}
    if template:
        target["body_template"] = template
    if "url" in target and generator.get("api_key_env"):
        target["headers"] = {"Authorization": f"Bearer {generator['api_key_env']}"}
    if "timeout_s" in generator:
        target["timeout_s"] = generator["timeout_s"]
    return target


def target_from_options(
    value: str | None, file: Path | None, settings: JsonObject, generator: JsonObject
) -> JsonObject | None:
    """The target of a run from ``--target``/``--target-file``/the config's ``target:`` and the
    call knobs given as flags (body template, timeout, retries, the key variable as a Bearer header)."""
    if value is None and file is None and not settings:
        return None
    target = dict(settings)
    if file is not None:
        target.update(load_target_file(file).model_dump(exclude_defaults=True))
    if value is not None:
        target.pop("url", None), target.pop("function", None)
        target.update(parse_target(value).model_dump(exclude_defaults=True))
    for knob in ("body_template", "timeout_s", "max_retries"):
        if generator.get(knob) is not None:
            target[knob] = generator[knob]
    if target.get("url") and generator.get("api_key_env") and "Authorization" not in target.get("headers", {}):
        target["headers"] = {**target.get("headers", {}), "Authorization": f"Bearer {generator['api_key_env']}"}
    return target


def replay_with_target(replay: str | None) -> str:
    """A target is never ignored: it implies ``--replay live``; ``--replay recorded`` with a
    target is a contradiction, refused (the recording would be scored and the target not called)."""
    if replay not in (None, "live"):
        raise SpecError(f"--target calls your system, which --replay {replay} would not do; "
                        "drop --replay (a target implies --replay live) or drop --target")
    return "live"


def load_target_file(path: Path) -> TargetSpec:
    """``--target-file target.yaml``: a TargetSpec's fields; errors name the file and field."""
    data = read_yaml_mapping(path, "target", SpecError)
    try:
        return TargetSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(f"target file {path}: {_readable(exc)}") from None


class PanelJudge(_Strict):
    name: str
    model: str
    weight: float


class JurySpec(_Strict):
    """The resolved jury as recorded: models, endpoints without credentials, key variable names.

    The per-provider concurrency is deliberately absent: it is a ``RunOptions`` setting.
    """

    judges: list[JudgeSpec] = Field(default_factory=list, description="empty when offline")
    offline: bool = Field(default=False, description="the offline jury (rules, no model calls)")
    offline_weights: list[float] | None = None
    max_retries: int = Field(default=4, ge=0)
    timeout_s: float = Field(default=60.0, gt=0, allow_inf_nan=False,
                             description="seconds a judge call may take before it is retried")
    max_cost_usd: float | None = Field(default=None, ge=0, description="stop sending judge calls past this many USD")
    lang: Lang = "ko"
    reason: str = Field(default="", description="why this jury was chosen, for the report")
    panel: list[PanelJudge] = Field(default_factory=list, description="every judge by name, model, weight")

    @field_validator("judges")
    @classmethod
    def _public_endpoints(cls, judges: list[JudgeSpec]) -> list[JudgeSpec]:
        return [j.model_copy(update={"api_base": public_url(j.api_base)}) if j.api_base else j for j in judges]

    def weights(self) -> dict[str, float]:
        """Each judge's ensemble weight, by judge name (the panel as recorded)."""
        return {judge.name: judge.weight for judge in self.panel}

    def config(self, concurrency_per_provider: int = 8) -> JuryConfig:
        """The runnable jury configuration (concurrency comes from the run's options)."""
        data = self.model_dump(exclude={"panel"})
        return JuryConfig.model_validate({**data, "concurrency_per_provider": concurrency_per_provider})


def _jury_record(config: JuryConfig) -> JsonObject:
    return {**config.model_dump(mode="json", exclude={"concurrency_per_provider"}), "panel": _panel(config)}


def _panel(config: JuryConfig) -> list[JsonObject]:
    """Every judge of the resolved jury by name, model and weight (the offline ones too)."""
    if config.offline:
        from assay.judges.offline_panel import offline_panel  # names and weights, not the rules

        return offline_panel(config.offline_weights)
    return [{"name": j.judge_name, "model": j.model, "weight": j.weight} for j in config.judges]


class RunSpec(_Strict):
    """Everything that changes a run's results. Recorded in the manifest as ``run_spec``."""

    suite: str
    dataset: str | None = Field(default=None, description="dataset directory (default: the bundled one)")
    replay: ReplayMode = Field(default="recorded", description="recorded (read generations.jsonl) or live (regenerate)")
    generator: GeneratorSpec = Field(default_factory=GeneratorSpec)
    target: TargetSpec | None = Field(default=None, description="your own system for --replay live (url or function)")
    jury: JurySpec | None = Field(default=None, description="None: resolved when the run starts (keys or offline)")
    k: int = Field(default=10, ge=1, description="top-k for retrieval metrics")
    lang: Lang = Field(default="ko", description="language of the judge prompts and of the offline feedback: ko or en")
    disagreement_threshold: float = Field(default=3.0, ge=0, description="jury max−min on 0-10 that flags disagreement")
    quarantine: bool = Field(default=False, description="set rows that fail validation aside instead of stopping")
    allow_symlinks: bool = Field(default=False, description="let dataset files be symlinks (recorded)")
    compare_with: str | None = Field(
        default=None, description="baseline run id, or 'latest', to compare with after publishing")
    fail_on_regression: bool = Field(
        default=False, description="with --compare-with: exit 3 on a significant regression")
    criteria: tuple[Criterion, ...] = Field(default=(), description="your criteria, each judged by the jury")
    max_failed_calls: str | None = Field(
        default=None,
        # None: any failed call leaves the run incomplete (assay/failed_calls.py)
        description="failed calls allowed before the run is incomplete (exit 4): N or a share like 5% (default: 0)",
    )

    @field_validator("max_failed_calls", mode="before")
    @classmethod
    def _allowance(cls, value: Any) -> str | None:
        from assay.failed_calls import Allowance

        return None if value is None else str(Allowance.parse(str(value)))

    @model_validator(mode="before")
    @classmethod
    def _legacy_generator_target(cls, data: Any) -> Any:
        """Specs recorded before targets had their own record kept ``generator.target`` (a URL
        or module:function) with its body template and key variable; read them as a target."""
        if not isinstance(data, dict) or not isinstance(data.get("generator"), dict):
            return data
        generator = dict(data["generator"])
        legacy = generator.pop("target", None)
        template = generator.pop("body_template", None)
        if legacy is None:
            return data if template is None else {**data, "generator": generator}
        target = data.get("target") or legacy_target(legacy, template, generator)
        return {**data, "generator": generator, "target": target}

    @model_validator(mode="after")
    def _live_needs_a_model(self) -> RunSpec:
        if self.replay == "live" and not (self.generator.model or self.target):
            raise ValueError(
                "--replay live needs --generator MODEL (a litellm model, e.g. openai/gpt-4o-mini) "
                "or --target module:function (your own system)"
            )
        return self

    def completed(self, default_dataset: Path) -> RunSpec:
        """The spec with every default made explicit (dataset path, resolved jury and panel).

        A scheduled deployment may leave the dataset and jury open; the manifest records the
        completed spec, so a rerun repeats exactly what ran.
        """
        from assay.judges.config import resolve_jury

        update: JsonObject = {"dataset": str(Path(self.dataset or default_dataset).resolve())}
        jury = self.jury
        if jury is None:
            jury = JurySpec.model_validate(_jury_record(resolve_jury().model_copy(update={"lang": self.lang})))
        if not jury.panel:
            jury = JurySpec.model_validate({**jury.model_dump(mode="json"), "panel": _panel(jury.config())})
        update["jury"] = jury
        return self.model_copy(update=update)

    def secret_env_names(self) -> list[str]:
        """Every environment variable whose value this run sends as a credential: the
        generator's and judges' key variables and the target's header variables."""
        names = [self.generator.api_key_env, *(j.api_key_env for j in (self.jury.judges if self.jury else []))]
        if self.target is not None:
            names += [source.rpartition(" ")[2] for source in self.target.headers.values()]
        return [n for n in names if n]

    def step_view(self) -> RunSpec:
        """The spec as pipeline steps see it (and key their caches on): without the dataset's
        location (its content is keyed by the snapshot hash) and the post-run comparison."""
        return self.model_copy(update={"dataset": "", "compare_with": None, "fail_on_regression": False,
                                       "max_failed_calls": None})


RUNNER_HELP = "threads, dask (a local 2-worker cluster) or dask=ADDRESS (an existing scheduler)"


def check_runner_name(name: str) -> str:
    """``name`` if it names a task runner; otherwise a ValueError that says which names do."""
    if name in ("threads", "dask") or (name.startswith("dask=") and len(name) > len("dask=")):
        return name
    raise ValueError(f"unknown runner {name!r}; use {RUNNER_HELP}")


class RunOptions(_Strict):
    """How a run executes; none of it changes a score, so none of it enters a cache key."""

    out: str = Field(default="runs", description="directory for run directories and caches")
    store: str | None = Field(default=None, description="artifact store URL (fsspec), default: --out")
    concurrency: int | None = Field(
        default=None, ge=1, description="concurrent LLM calls per provider (never changes results)")
    runner: str = Field(default="threads", description="task runner: threads, dask (local cluster) or dask=ADDRESS")
    partition_size: int = Field(
        default=DEFAULT_PARTITION_SIZE, ge=1,
        description="cases per partition: a larger dataset is scored partition by partition (never changes results)",
    )

    @field_validator("runner")
    @classmethod
    def _known_runner(cls, value: str) -> str:
        return check_runner_name(value)

    def store_url(self) -> str:
        return self.store or str(Path(self.out).resolve())


# -- building a spec from the CLI and a YAML file --------------------------------------------------

# Keys a --config file may hold at its top level. A file with only jury keys (the older jury-file
# form: judges, concurrency, retries, max_cost_usd, lang, offline) still works.
_SPEC_KEYS = set(RunSpec.model_fields)
_OPTION_KEYS = set(RunOptions.model_fields)
_JURY_SHORTHAND = {"judges", "offline", "retries", "max_retries", "max_cost_usd", "concurrency_per_provider"}


def load_config(path: Path) -> JsonObject:
    """A ``--config`` YAML file as a mapping; errors name the file and the unknown key."""
    data = read_yaml_mapping(path, "config", SpecError)
    known = _SPEC_KEYS | _OPTION_KEYS | _JURY_SHORTHAND
    for key in data:
        if key not in known:
            hint = difflib.get_close_matches(str(key), sorted(known), n=1)
            raise SpecError(f"config {path}: unknown key {key!r}" + (f" (did you mean {hint[0]!r}?)" if hint else ""))
    return data


def build_run_spec(
    suite: str,
    *,
    default_dataset: Path,
    config_file: Path | None = None,
    cli: JsonObject | None = None,
) -> tuple[RunSpec, RunOptions]:
    """Merge the config file and command-line values (CLI wins) into a validated spec and options.

    ``cli`` holds only the options the user gave (None means "not given"; ``assay.run_flags.given``
    makes it from `assay run`'s flags): dataset, replay,
    generator (the model), api_base, generator knobs under ``generator_*``, target (a URL or
    module:function), target_file, target_spec (TargetSpec fields), body_template, judges,
    judge_weights, offline, k, lang, max_cost, judge_timeout, quarantine, allow_symlinks, compare_with,
    fail_on_regression, out, store, concurrency, runner.
    """
    from assay.judges.config import JuryConfigError, resolve_jury

    file = load_config(config_file) if config_file else {}
    given = {k: v for k, v in (cli or {}).items() if v is not None}
    if file.get("suite") not in (None, suite):
        raise SpecError(f"config {config_file} is for suite {file['suite']!r}, not {suite!r}")

    generator = dict(file.get("generator") or {})
    for key, value in given.items():
        if key.startswith("generator_"):
            generator[key.removeprefix("generator_")] = value
    if "generator" in given:
        generator["model"] = given["generator"]
    if "api_base" in given:
        generator.setdefault("api_base", given["api_base"])
    # -- your own system (--target / --target-file / target:) ---------------------------------
    knobs = {"body_template": given.get("body_template"), "timeout_s": given.get("generator_timeout_s"),
             "max_retries": given.get("generator_max_retries"), "api_key_env": given.get("generator_api_key_env")}
    file_target = file.get("target") or {}
    if isinstance(file_target, str):
        file_target = parse_target(file_target).model_dump(exclude_defaults=True)
    settings = {**file_target, **(given.get("target_spec") or {})}  # the Python API passes a whole spec
    try:
        target = target_from_options(given.get("target"), given.get("target_file"), settings, knobs)
    except ValidationError as exc:
        raise SpecError(_readable(exc)) from None

    jury_file = {k: v for k, v in file.items() if k in _JURY_SHORTHAND}
    jury_file.update(file.get("jury") or {})
    # Concurrency is how a run executes, not what it computes: it goes to the options.
    file_concurrency = jury_file.pop("concurrency", None) or jury_file.pop("concurrency_per_provider", None)
    lang = given.get("lang", file.get("lang", "ko"))
    try:
        config = resolve_jury(
            given.get("judges"), given.get("judge_weights"), given.get("api_base"),
            bool(given.get("offline", False)), config_file=None, settings=jury_file,
        )
    except (JuryConfigError, ValueError) as exc:
        raise SpecError(f"jury: {exc}") from exc
    updates: JsonObject = {"lang": lang}
    if "max_cost" in given:
        updates["max_cost_usd"] = given["max_cost"]
    if "judge_timeout" in given:
        updates["timeout_s"] = given["judge_timeout"]
    config = config.model_copy(update=updates)
    try:
        jury = _jury_record(config)
    except ValueError as exc:  # e.g. offline weights that do not fit the offline jury
        raise SpecError(f"jury: {exc}") from None
    max_cost = config.max_cost_usd
    if max_cost is not None and not (math.isfinite(max_cost) and max_cost >= 0):
        raise SpecError(f"--max-cost must be a finite number of USD >= 0, got {max_cost}")
    if not (math.isfinite(config.timeout_s) and config.timeout_s > 0):
        raise SpecError(f"--judge-timeout must be a finite number of seconds > 0, got {config.timeout_s:g}")

    built = ("generator", "jury", "target", "criteria")
    fields: JsonObject = {k: file[k] for k in _SPEC_KEYS & file.keys() if k not in built}
    fields.update({k: given[k] for k in _SPEC_KEYS & given.keys() if k not in built})
    if target is not None:
        fields["replay"] = replay_with_target(fields.get("replay"))
    fields.update(
        criteria=_criteria(config_file, file, given),
        suite=suite,
        target=target,
        dataset=str(Path(fields.get("dataset") or default_dataset).resolve()),
        lang=lang,
        generator=generator,
        jury=jury,
    )
    options = {k: file[k] for k in _OPTION_KEYS & file.keys()}
    options.update({k: given[k] for k in _OPTION_KEYS & given.keys()})
    if "concurrency" not in options and file_concurrency:
        options["concurrency"] = file_concurrency
    try:
        return RunSpec.model_validate(fields), RunOptions.model_validate(options)
    except ValidationError as exc:
        raise SpecError(_readable(exc)) from None


def _criteria(config_file: Path | None, file: JsonObject, given: JsonObject) -> list[Criterion]:
    """``--criteria FILE`` wins over ``criteria=`` (the Python API) and the config's ``criteria:``."""
    try:
        if given.get("criteria_file") is not None:
            return load_criteria_file(Path(given["criteria_file"]))
        if given.get("criteria") is not None:
            return parse_criteria(list(given["criteria"]), "criteria")
        if "criteria" in file:
            return parse_criteria(file["criteria"], f"config {config_file}")
    except CriteriaError as exc:
        raise SpecError(str(exc)) from None
    return []


def _readable(exc: ValidationError) -> str:
    flags = error_names()  # errors name the flag that sets the field
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        if where in flags:
            parts.append(f"{flags[where]} {error['input']!r}: {message}")
        else:
            parts.append(f"{where}: {message}" if where else message)
    return "; ".join(dict.fromkeys(parts))  # a flag that sets two fields (--lang, --gen-timeout) is said once
