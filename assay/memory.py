"""Giving memory back after a step that read a whole dataset.

CPython frees the objects of a finished step, but glibc's allocator keeps the pages it got for
them (the many small strings and dicts of 100,000 parsed records), so the process stays as
large as its largest step for the rest of the run. ``release`` collects garbage cycles and asks
glibc to return its free pages (``malloc_trim``); elsewhere (no glibc) it only collects.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from functools import cache
from typing import Any


@cache
def _libc() -> Any:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


def release() -> None:
    """Collect garbage, then return the allocator's free memory to the operating system."""
    gc.collect()
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
