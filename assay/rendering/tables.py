"""Small helpers for markdown tables, number formatting and inert text in reports.

Values in a report come from datasets, generations and judges: untrusted. ``md_text`` is the
one escaping function: it writes ``&``, ``<`` and ``>`` as character references (inert in
every markdown flavour, including viewers that pass raw HTML through; a backslash does not
escape ``<`` in all of them) and backslash-escapes what markdown reads as markup (links,
emphasis, code). ``markdown_table`` runs every header and cell through it, unless the caller
hands it markdown assay wrote itself (``Markdown``: what ``md_text`` returns, or
``md_markup("**overall**")``); a cell never breaks the table. The HTML renderer escapes and
filters again (``sanitize``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

_MARKUP = re.compile(r"([\\`*_\[\]#!~])")  # "|" is the table's to escape; "<", ">" and "&" are references


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


class Markdown(str):
    """Text that is markdown already: escaped by ``md_text`` or written by assay itself."""


def md_markup(text: str) -> Markdown:
    """Markdown that assay wrote (``**overall**``, a composed cell of ``md_text`` parts): a
    table keeps it as it is."""
    return Markdown(text)


def md_text(value: object) -> Markdown:
    """Untrusted text as literal markdown, on one line: ``&``, ``<``, ``>`` as character
    references, markup characters backslash-escaped."""
    text = " ".join(str(value).split()).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return Markdown(_MARKUP.sub(r"\\\1", text))


def _cell(text: object) -> str:
    shown = text if isinstance(text, Markdown) else md_text(text)
    return shown.replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def markdown_table(headers: Sequence[object], rows: Sequence[Sequence[object]]) -> str:
    """A table of escaped cells: every header and cell goes through ``md_text`` unless it is
    ``Markdown`` already (``md_text``'s result, or ``md_markup``), and none breaks the table."""
    if not rows:
        return "_(no rows)_"
    lines = ["| " + " | ".join(_cell(h) for h in headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
