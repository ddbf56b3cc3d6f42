"""Small helpers for markdown tables, number formatting and inert text in reports.

Values in a report come from datasets, generations and judges: untrusted. ``md_text``
escapes what markdown would read as markup (links, emphasis, code, raw HTML), and table cells
never break the table; the HTML renderer escapes and filters again (``sanitize``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

_MARKUP = re.compile(r"([\\`*_\[\]<>#!~])")  # "|" is the table's to escape


def fmt(value: object, digits: int = 3) -> str:
    """A score for display: '—' when unscored."""
    if value is None:
        return "—"
    if isinstance(value, float):
        if math.isnan(value):
            return "—"
        return f"{value:.{digits}f}"
    return str(value)


def counted(n: object, singular: str, plural: str | None = None) -> str:
    """"1 type", "3 types", "— types" for an unknown count."""
    if n is None or (isinstance(n, float) and math.isnan(n)):
        return f"— {plural or singular + 's'}"
    number = float(n)  # type: ignore[arg-type]
    shown = f"{number:g}" if isinstance(n, float) else str(n)
    return f"{shown} {singular if number == 1 else (plural or singular + 's')}"


def md_text(value: object) -> str:
    """Untrusted text as literal markdown: markup characters escaped, on one line."""
    return _MARKUP.sub(r"\\\1", " ".join(str(value).split()))


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A table whose cells are escaped for structure; pass data through ``md_text`` first
    when the cell should not be read as markup at all."""
    if not rows:
        return "_(no rows)_"
    lines = ["| " + " | ".join(_cell(h) for h in headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
