"""Which jury a run uses: explicit judges, a YAML file, the seed's live jury, or offline.

Precedence (``resolve_jury``):

1. ``offline=True`` -> the offline jury.
2. explicit ``--judge`` models (with optional ``--weight``s and ``--api-base``).
3. the ``judges:`` list of a YAML config file.
4. no judges named: the seed-000 live jury (``DEFAULT_LIVE_JURY``) if an ``api_base`` is
   given or every provider's key variable is set; otherwise the offline jury, with the reason
   recorded so the report can say why.

Run settings (concurrency, retries, budget, language) come from the YAML file when given,
whichever source supplied the judges. Configs hold key variable NAMES, never key values.
Importing this module does not import litellm.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from assay.judges.llm import public_api_base
from assay.schemas import JsonObject
from assay.yaml_files import read_yaml_mapping

# Where litellm looks for each provider's key when no api_key_env is configured; any one of
# the listed variables is enough.
PROVIDER_KEY_ENV: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
}


class JuryConfigError(ValueError):
    """A jury configuration that cannot be used; the message says what to fix."""


class JudgeSpec(BaseModel):
    """One live judge. ``weight`` >= 0 is its share in the jury (renormalised by the ensemble)."""

    name: str | None = None
    model: str
    api_base: str | None = None
    api_key_env: str | None = Field(default=None, description="NAME of the env var holding the key")
    weight: float = Field(default=1.0, ge=0)
    temperature: float = Field(default=0.2, ge=0, le=2)
    max_tokens: int = Field(default=4096, ge=1)

    @property
    def judge_name(self) -> str:
        return self.name or self.model.rsplit("/", 1)[-1]

    @field_validator("api_key_env")
    @classmethod
    def _looks_like_a_name(cls, value: str | None) -> str | None:
        # Guard against a key pasted where its variable name belongs: it would end up in manifests.
        if value is not None and not value.replace("_", "").isalnum():
            raise ValueError("api_key_env must be the NAME of an environment variable, e.g. OPENAI_API_KEY")
        return value


class JuryConfig(BaseModel):
    judges: list[JudgeSpec] = Field(default_factory=list, description="empty when offline")
    offline: bool = False
    offline_weights: list[float] | None = Field(default=None, description="weights for the offline jury")
    concurrency_per_provider: int = Field(default=8, ge=1)
    max_retries: int = Field(default=4, ge=0)
    timeout_s: float = Field(default=60.0, gt=0, allow_inf_nan=False, description="per-request timeout, seconds")
    max_cost_usd: float | None = Field(default=None, ge=0)
    lang: str = "ko"
    reason: str = Field(default="", description="why this jury was chosen, for the report")

    def public_dict(self) -> JsonObject:
        """What manifests record: models, endpoints (without credentials), key variable NAMES."""
        data = self.model_dump(mode="json")
        for spec, public in zip(self.judges, data["judges"], strict=True):
            public["name"] = spec.judge_name
            public["api_base"] = public_api_base(spec.api_base)
        return data


DEFAULT_LIVE_JURY: tuple[JudgeSpec, ...] = (
    JudgeSpec(name="gemini-2.5-flash", model="gemini/gemini-2.5-flash", weight=0.34),
    JudgeSpec(name="claude-haiku-4-5", model="anthropic/claude-haiku-4-5-20251001", weight=0.33),
    JudgeSpec(name="gpt-4o", model="openai/gpt-4o", weight=0.33),
)

_FILE_KEYS = {
    "judges": "judges",
    "concurrency": "concurrency_per_provider",
    "concurrency_per_provider": "concurrency_per_provider",
    "retries": "max_retries",
    "max_retries": "max_retries",
    "timeout_s": "timeout_s",
    "max_cost_usd": "max_cost_usd",
    "lang": "lang",
    "offline": "offline",
}


def missing_key_vars(specs: list[JudgeSpec] | tuple[JudgeSpec, ...]) -> list[str]:
    """Key variables that would be needed but are unset (names only)."""
    missing: list[str] = []
    for spec in specs:
        options = (
            (spec.api_key_env,) if spec.api_key_env else PROVIDER_KEY_ENV.get(spec.model.split("/", 1)[0], ())
        )
        if options and not any(os.environ.get(name) for name in options):
            missing.append(" or ".join(options))
    return missing


def _check_weights(weights: list[float], what: str) -> None:
    if any(w < 0 for w in weights):
        raise JuryConfigError(f"{what}: weights must be >= 0, got {weights}")
    if weights and sum(weights) <= 0:
        raise JuryConfigError(f"{what}: at least one weight must be > 0, got {weights}")


def _unique_names(specs: list[JudgeSpec]) -> list[JudgeSpec]:
    """Give repeated judge names a #2, #3 suffix (the same model on two endpoints)."""
    seen: dict[str, int] = {}
    out = []
    for spec in specs:
        name = spec.judge_name
        seen[name] = seen.get(name, 0) + 1
        out.append(spec if seen[name] == 1 else spec.model_copy(update={"name": f"{name}#{seen[name]}"}))
    return out


def load_config_file(path: Path) -> JsonObject:
    """Read a jury YAML file into JuryConfig field names; errors name the file and the problem."""
    data = read_yaml_mapping(path, "jury config", JuryConfigError)
    return jury_settings(data, f"jury config {path}")


def jury_settings(data: JsonObject, source: str) -> JsonObject:
    """Jury keys of a config mapping as JuryConfig field names; errors name ``source``."""
    fields: JsonObject = {}
    for key, value in data.items():
        if key not in _FILE_KEYS:
            hint = difflib.get_close_matches(str(key), _FILE_KEYS, n=1)
            raise JuryConfigError(
                f"{source}: unknown key {key!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
            )
        fields[_FILE_KEYS[key]] = value
    judges = fields.get("judges")
    if judges is not None:
        if not isinstance(judges, list) or not all(isinstance(j, dict) for j in judges):
            raise JuryConfigError(f"{source}: 'judges' must be a list of mappings with a 'model'")
        try:
            fields["judges"] = [JudgeSpec.model_validate(j) for j in judges]
        except ValidationError as exc:
            raise JuryConfigError(f"{source}: bad judge entry: {exc}") from exc
    return fields


def resolve_jury(
    judges: list[str] | None = None,
    weights: list[float] | None = None,
    api_base: str | None = None,
    offline: bool = False,
    config_file: Path | None = None,
    settings: JsonObject | None = None,
) -> JuryConfig:
    """Decide the jury for a run (see the module docstring for precedence).

    ``settings`` are jury keys already read from a run config (``assay.spec.load_config``).
    """
    source = str(config_file) if config_file else "the run config"
    settings = load_config_file(config_file) if config_file else jury_settings(settings or {}, source)
    file_judges: list[JudgeSpec] = settings.pop("judges", None) or []
    offline = offline or bool(settings.pop("offline", False))
    if weights is not None:
        _check_weights(list(weights), "--weight")

    def build(**fields: Any) -> JuryConfig:
        try:
            return JuryConfig(**{**settings, **fields})
        except ValidationError as exc:
            raise JuryConfigError(f"invalid jury settings: {exc}") from exc

    if offline:
        if judges:
            raise JuryConfigError("--offline and --judge exclude each other: pick one")
        return build(offline=True, offline_weights=weights, reason="offline jury requested")

    if judges:
        if weights is not None and len(weights) != len(judges):
            raise JuryConfigError(
                f"{len(judges)} judges but {len(weights)} weights: give one weight per judge"
            )
        specs = [
            JudgeSpec(model=model, api_base=api_base, weight=weights[i] if weights else 1.0)
            for i, model in enumerate(judges)
        ]
        return build(judges=_unique_names(specs), reason="judges given on the command line")

    if file_judges:
        if weights is not None:
            if len(weights) != len(file_judges):
                raise JuryConfigError(
                    f"{source} names {len(file_judges)} judges but {len(weights)} weights were given"
                )
            file_judges = [
                s.model_copy(update={"weight": w}) for s, w in zip(file_judges, weights, strict=True)
            ]
        if api_base:
            file_judges = [
                s if s.api_base else s.model_copy(update={"api_base": api_base}) for s in file_judges
            ]
        _check_weights([s.weight for s in file_judges], source)
        return build(judges=_unique_names(file_judges), reason=f"judges from {source}")

    defaults = list(DEFAULT_LIVE_JURY)
    if weights is not None and len(weights) != len(defaults):
        raise JuryConfigError(
            f"the default jury has {len(defaults)} judges but {len(weights)} weights were given"
        )
    missing = missing_key_vars(defaults)
    if api_base or not missing:
        specs = [
            s.model_copy(
                update={"api_base": api_base or s.api_base, "weight": weights[i] if weights else s.weight}
            )
            for i, s in enumerate(defaults)
        ]
        why = (
            f"default live jury at {public_api_base(api_base)}"
            if api_base
            else "default live jury (keys found)"
        )
        return build(judges=specs, reason=why)
    return build(
        offline=True,
        offline_weights=weights,
        reason="offline jury: no judges configured and no API keys in the environment (missing "
        + ", ".join(missing)
        + ")",
    )


def build_judges(config: JuryConfig, timeout_s: float = 60) -> list[Any]:
    """Instantiate the configured judges (``timeout_s``: per-request HTTP timeout, seconds)."""
    if config.offline:
        # Imported here: the offline jury lives in its own module and pulls in its own deps.
        from assay.judges.offline import offline_jury

        return offline_jury(config.offline_weights)  # None: the offline jury's default weights
    from assay.judges.llm import LiteLLMJudge

    return [
        LiteLLMJudge(
            model=spec.model,
            api_base=spec.api_base,
            weight=spec.weight,
            temperature=spec.temperature,
            max_tokens=spec.max_tokens,
            api_key_env=spec.api_key_env,
            name=spec.judge_name,
            timeout_s=timeout_s,
        )
        for spec in config.judges
    ]
