"""Old import paths that keep working after code moved up a layer.

A suite's formulas moved into its folder (``assay.suites.<name>``) while users import them from
``assay.metrics.<family>``. The metrics layer sits below the suites, so the old module must not
import the suite's when it is imported: ``lazy_reexport`` gives it a module-level ``__getattr__``
that imports the new module on the first use of one of its names, and a ``__dir__``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping


def lazy_reexport(old: str, new: str, names: Iterable[str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for module ``old``: each of ``names`` is ``new``'s own
    object (the same object, imported on first use); any other name raises AttributeError."""
    return lazy_reexports(old, {new: names})


def lazy_reexports(
    old: str, moved: Mapping[str, Iterable[str]]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``lazy_reexport`` from several modules: ``moved`` maps each new module to its names."""
    home = {name: new for new, names in moved.items() for name in names}

    def __getattr__(name: str) -> object:
        if name in home:
            return getattr(importlib.import_module(home[name]), name)
        raise AttributeError(f"module {old!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(home)

    return __getattr__, __dir__
