"""Helpers that shape JSONL records into the scalar tables the GX gate validates."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from assay.schemas import JsonObject

if TYPE_CHECKING:  # the validation step loads pandas; a suite's dataset module does not
    import pandas as pd


def frame(rows: list[JsonObject], file: str, columns: list[str]) -> pd.DataFrame:
    """A table with fixed columns (an empty one still has every column an expectation names).

    Object dtype: pandas does not coerce ids or lengths (None stays None, not NaN), so
    problems show 7, not 7.0. ``attrs["file"]`` names the source file in the report.
    """
    import pandas as pd

    table = pd.DataFrame(rows, columns=columns, dtype=object)
    table["_line"] = table["_line"].astype("int64")
    table.attrs["file"] = file
    return table


def as_id(value: Any) -> str | None:
    """Ids are named in reports, so a non-string id is shown as text (schema_errors flags it)."""
    return value if value is None or isinstance(value, str) else str(value)


def scalar(value: Any) -> Any:
    """Strings (and None) as they are; anything else as text, so the frame stays scalar."""
    return value if value is None or isinstance(value, str) else repr(value)


def text_length(value: Any) -> int | None:
    """Length of text with surrounding whitespace ignored (whitespace-only counts as empty)."""
    return len(value.strip()) if isinstance(value, str) else None


def schema_errors(record: JsonObject, model: type[BaseModel], checked: AbstractSet[str] = frozenset()) -> str | None:
    """Pydantic errors that no dedicated expectation reports, as one line (None when the row
    parses). Errors of a ``checked`` field that is missing or outside its allowed set are left
    to that field's own expectation, so each mistake is reported once."""
    try:
        model.model_validate({k: v for k, v in record.items() if k != "_line"})
        return None
    except ValidationError as exc:
        messages = []
        for err in exc.errors():
            field = str(err["loc"][0]) if err["loc"] else ""
            if field in checked and (record.get(field) is None or err["type"] == "literal_error"):
                continue
            where = ".".join(str(part) for part in err["loc"])
            messages.append(f"{where}: {err['msg']}" if where else str(err["msg"]))
        return "; ".join(messages) or None
