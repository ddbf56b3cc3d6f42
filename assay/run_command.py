"""The typer side of `assay run`'s options (declared in ``assay/run_flags.py``).

``with_flags`` gives ``assay.cli.run`` its parameters: SUITE, then every flag. A flag's help
and shown default are its field's description and default in ``assay/spec.py``; ``RunCommand``
reads them when `assay run --help` is shown, so the other commands (and ``assay --help``) never
import the spec's models to build a help text they do not print. ``markdown`` writes the same
into docs/run-options.md.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, cast

import typer
from typer.core import TyperCommand

from assay.run_flags import ARGUMENT_HELP, FLAGS, NOT_FLAGS, Flag, by_param


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
    """Set each flag's help text and shown default (``help_text``/``shown_default``)."""
    flags = by_param()
    for param in params:
        flag = flags.get(param.name or "")
        if flag is None:
            continue
        param.help = help_text(flag)
        shown: Any = shown_default(flag)
        if shown is not None:
            param.show_default = shown


def field_info(path: str) -> Any:
    """The pydantic ``FieldInfo`` of a dotted path into RunSpec, or into RunOptions (``options.``)."""
    from assay.spec import RunOptions, RunSpec

    model: Any = RunSpec
    head, _, rest = path.partition(".")
    if head == "options":
        model, (head, _, rest) = RunOptions, rest.partition(".")
    while rest:
        model = _record_type(model.model_fields[head].annotation)
        head, _, rest = rest.partition(".")
    return model.model_fields[head]


def _record_type(annotation: Any) -> Any:
    """``GeneratorSpec`` from ``GeneratorSpec`` or ``TargetSpec | None``."""
    from pydantic import BaseModel

    candidates = [annotation, *getattr(annotation, "__args__", ())]
    return next(c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel))


def help_text(flag: Flag) -> str:
    """What ``assay run --help`` says of the flag: its own help, or its field's description."""
    text = flag.help if flag.help is not None else field_info(flag.sets[0]).description
    return f"{flag.context}: {text}" if flag.context else str(text)


def shown_default(flag: Flag) -> str | None:
    """The default a flag that sets a field shows: the field's own (None when it has none to show)."""
    if flag.help is not None or not flag.sets:
        return None
    default = field_info(flag.sets[0]).default
    if default is None or isinstance(default, bool):
        return None
    return f"{default:g}" if isinstance(default, float) else str(default)


def markdown() -> str:
    """docs/run-options.md: every flag, the field it sets, its default and its help."""
    lines = [
        "# `assay run` options",
        "",
        "Generated from `assay/run_flags.py` (`python -m assay.run_command > docs/run-options.md`; a test",
        "checks this page is current). A flag's help is the description of the `RunSpec`/`RunOptions`",
        "field it sets (`assay/spec.py`); `options.` marks a `RunOptions` field, which never changes a",
        "score. A `--config run.yaml` file sets the same fields by name (flags win), and also the fields",
        "listed last, which have no flag.",
        "",
        "| flag | sets | default | meaning |",
        "|---|---|---|---|",
        f"| `SUITE` (argument) | `suite` | | {ARGUMENT_HELP} |",
    ]
    for flag in FLAGS:
        spellings = ", ".join(f"`{n}`" for n in (flag.names or (flag.spelling,)))
        sets = ", ".join(f"`{path}`" for path in flag.sets) or "(the command)"
        lines.append(f"| {spellings} | {sets} | {shown_default(flag) or ''} | {_cell(help_text(flag))} |")
    lines += ["", "Fields without a flag:", "", "| field | why |", "|---|---|"]
    lines += [f"| `{path}` | {_cell(reason)} |" for path, reason in NOT_FLAGS.items()]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


if __name__ == "__main__":  # pragma: no cover - writes the docs page
    print(markdown(), end="")
