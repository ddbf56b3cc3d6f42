"""Reading a YAML file as a mapping or as a checked model, with errors that name the file and key."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from assay.schemas import JsonObject

Model = TypeVar("Model", bound=BaseModel)


def read_yaml_mapping(path: Path, what: str, error: type[Exception]) -> JsonObject:
    """The top-level mapping of a YAML file ({} when empty); ``error(what …)`` otherwise."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise error(f"{what} {path} is not UTF-8 text (byte {exc.start})") from None
    except yaml.YAMLError as exc:
        raise error(f"{what} {path} is not valid YAML: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise error(f"{what} {path} must be a mapping, got {type(data).__name__}")
    return data


def read_checked_yaml(path: Path, model: type[Model], what: str) -> Model:
    """The YAML file checked against ``model`` (a cue table, a rule table): an unreadable file,
    a missing, unknown or mistyped key is one ``ValueError`` naming the file and every bad key."""
    data = read_yaml_mapping(path, what, ValueError)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"key {'.'.join(map(str, e['loc']))!r}: {e['msg']}" for e in exc.errors())
        raise ValueError(f"{what} {path}: {problems}") from None
