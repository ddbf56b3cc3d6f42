"""Reading a YAML configuration file as a mapping, with errors that name the file."""

from __future__ import annotations

from pathlib import Path

from assay.schemas import JsonObject


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
