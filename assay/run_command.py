"""The typer side of `assay run`'s options (declared in ``assay/run_flags.py``).

``with_flags`` gives ``assay.cli.run`` its parameters: SUITE, then every flag. A flag's help
and shown default are its field's description and default in ``assay/spec.py``; ``RunCommand``
reads them when `assay run --help` is shown, so the other commands (and ``assay --help``) never
import the spec's models to build a help text they do not print.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, cast

import typer
from typer.core import TyperCommand

from assay.run_flags import ARGUMENT_HELP, FLAGS, by_param, help_text, shown_default


def signature() -> inspect.Signature:
    """``assay run``'s parameters for typer, in the order of ``FLAGS``."""
    params = [inspect.Parameter("suite", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str,
                                default=typer.Argument(..., help=ARGUMENT_HELP))]
    for flag in FLAGS:
        option = typer.Option(flag.default, *flag.names, min=flag.min)  # help: RunCommand, when shown
        params.append(inspect.Parameter(flag.param, inspect.Parameter.KEYWORD_ONLY, default=option,
                                        annotation=flag.type))
    return inspect.Signature(params, return_annotation=None)


def with_flags(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` taking `assay run`'s parameters as keyword arguments (typer reads its signature)."""
    cast(Any, command).__signature__ = signature()
    return command


class RunCommand(TyperCommand):
    """`assay run`: fills in each flag's help and default from its field before showing help."""

    def format_help(self, ctx: Any, formatter: Any) -> None:  # typer's own (vendored) click types
        describe(self.params)
        super().format_help(ctx, formatter)


def describe(params: list[Any]) -> None:
    """Set each flag's help text and shown default (``assay.run_flags.help_text``/``shown_default``)."""
    flags = by_param()
    for param in params:
        flag = flags.get(param.name or "")
        if flag is None:
            continue
        param.help = help_text(flag)
        shown: Any = shown_default(flag)
        if shown is not None:
            param.show_default = shown
