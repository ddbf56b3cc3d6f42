"""Old import paths that keep working after code moved up a layer.

A suite's formulas moved into its folder (``assay.suites.<name>``) while users import them from
``assay.metrics.<family>``. The metrics layer sits below the suites, so the old module must not
import the suite's when it is imported: ``lazy_reexport`` gives it a module-level ``__getattr__``
that imports the new module on the first use of one of its names, and a ``__dir__``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable


def lazy_reexport(old: str, new: str, names: Iterable[str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for module ``old``: each of ``names`` is ``new``'s own
    object (the same object, imported on first use); any other name raises AttributeError."""
    moved = frozenset(names)

    def __getattr__(name: str) -> object:
        if name in moved:
            return getattr(importlib.import_module(new), name)
        raise AttributeError(f"module {old!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(moved)

    return __getattr__, __dir__
