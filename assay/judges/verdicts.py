"""Reading a judge's verdict out of its reply, without letting the judged text choose it.

A reply can quote the answer it judges, and an answer can carry an injected verdict
(``{"accuracy": 5}``) before the judge's own. So the verdict is the LAST JSON object in the
reply that validates against the verdict model; earlier objects are quotes. Validation is
strict: ``true`` is not 1.0 and ``"5"`` is not 5.0. Fields the model does not know (a judge
adding ``reasoning`` or ``confidence``) are dropped, not fatal.
"""

from __future__ import annotations

import json
import typing
from typing import Any

from pydantic import BaseModel, ValidationError

from assay.schemas import JsonObject


class MalformedReply(ValueError):
    """The judge answered, but not with JSON that validates against the verdict model."""


def json_objects(text: str) -> list[Any]:
    """Every JSON object in ``text`` in order of where it starts (fenced, bare, or in prose)."""
    decoder = json.JSONDecoder()
    found = []
    start = text.find("{")
    while start >= 0:
        try:
            value, _end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            found.append(value)
        start = text.find("{", start + 1)
    return found


def known_fields(model: type[BaseModel], value: Any) -> Any:
    """``value`` with keys the model (and its nested models) does not declare removed."""
    if not isinstance(value, dict):
        return value
    out = {}
    for name, info in model.model_fields.items():
        key = info.alias or name
        if key in value:
            out[key] = _known(info.annotation, value[key])
    return out


def _known(annotation: Any, value: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return known_fields(annotation, value)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (list, tuple) and args and isinstance(value, list):
        return [_known(args[0], v) for v in value]
    if args and origin is not None:  # Optional[Model], Annotated[Model, ...]
        for arg in args:
            if isinstance(arg, type) and issubclass(arg, BaseModel):
                return known_fields(arg, value)
    return value


def parse_verdict(text: str | None, verdict_model: type[BaseModel]) -> JsonObject:
    """The last JSON object in ``text`` that strictly validates; raises ``MalformedReply``."""
    if not text:
        raise MalformedReply("empty reply")
    candidates = json_objects(text)
    if not candidates:
        raise MalformedReply(f"no JSON object in reply: {text[:200]!r}")
    last_error: ValidationError | None = None
    for value in reversed(candidates):
        try:
            verdict = verdict_model.model_validate(known_fields(verdict_model, value), strict=True)
        except ValidationError as exc:
            last_error = last_error or exc
            continue
        return verdict.model_dump(mode="json")
    raise MalformedReply(f"reply does not match {verdict_model.__name__}: {last_error}")
