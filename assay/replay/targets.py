"""A user's own system called in-process: ``--target module:function``."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import Any


def load_target(target: str) -> Callable[..., Any]:
    """``module:function``; the current directory is searched too, as ``python -m`` would."""
    module_name, _, function = target.partition(":")
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"--target {target!r}: cannot import {module_name!r} ({exc})") from None
    fn = getattr(module, function, None)
    if not callable(fn):
        raise ValueError(f"--target {target!r}: {module_name} has no function {function!r}")
    return fn
