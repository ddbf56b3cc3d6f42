"""Text for a terminal: what every command prints passes through ``console_safe`` here.

Case ids, answers, judge replies and file names are data, and data may carry terminal control:
OSC 0 sets the window title, OSC 52 writes the clipboard, CSI sequences clear the screen or fake
colours, a carriage return overwrites what a line said, a bidi override reverses what is shown.
A terminal acts on these wherever they appear, so they are made visible at the print boundary:
each C0 control but newline and tab, DEL, each C1 control, and each bidirectional override,
isolate and mark is written as its escape (``\\x1b``, ``\\u202e``) and shown, never acted on.
Log records get the same treatment (``install_console_safe_logging``). Newlines stay: the
boundary cannot tell a command's own line breaks from data's, so tables and lists of data keep
values on one line where they are built.
"""

from __future__ import annotations

import re
from typing import Any

from assay.log_filters import RewritingFilter, install

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def console_safe(text: object) -> str:
    """``text`` with every control character a terminal would act on written as its escape."""
    shown = str(text)
    return _CONTROL.sub(_visible, shown) if _CONTROL.search(shown) else shown


def echo(message: object = "", *, err: bool = False, nl: bool = True) -> None:
    """``typer.echo`` of ``console_safe(message)``: the one way a command prints."""
    import typer

    typer.echo(console_safe(message), err=err, nl=nl)


def secho(message: object = "", **styles: Any) -> None:
    """``typer.secho`` of ``console_safe(message)``; the style is assay's, added after."""
    import typer

    typer.secho(console_safe(message), **styles)


# Each log record's control characters made visible before any handler (a console, with -v) sees it.
_FILTER = RewritingFilter(console_safe)


def install_console_safe_logging(*logger_names: str) -> None:
    """Attach the filter to these loggers, the root logger and their handlers."""
    install(_FILTER, *logger_names)
