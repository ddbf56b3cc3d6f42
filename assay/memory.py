"""Giving memory back after a step that read a whole dataset.

CPython frees the objects of a finished step, but glibc's allocator keeps the pages it got for
them (the many small strings and dicts of 100,000 parsed records), so the process stays as
large as its largest step for the rest of the run. ``release`` collects garbage cycles and asks
glibc to return its free pages (``malloc_trim``); elsewhere (no glibc) it only collects.

Both cost 0.15-0.45 s in a process that has Prefect, Great Expectations and pandas loaded (a
full collection walks every object they hold) whatever the step read, six times a run: most of
a small run's step time. So ``release`` acts only once the process has grown by
``RELEASE_GROWTH_BYTES`` since the last release (or since this module was imported): what a
large step leaves behind is released as before, and what is kept unreleased stays below that
bound. Without procfs (no way to read the resident size cheaply) it always acts.

A process that runs one flow and exits (``assay run``) also calls ``freeze_long_lived`` once its
libraries are imported: every object alive then (~360,000 of Prefect, Great Expectations,
pandas) moves out of the collector's reach, so a release's collection walks only what the run
made since (0.27 s → 0.08 s measured), and the garbage a step leaves is collected as before.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
from functools import cache
from typing import Any

from assay import timeline

RELEASE_GROWTH_BYTES = 64 * 1024 * 1024
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@cache
def _libc() -> Any:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


def resident_bytes() -> int | None:
    """This process's resident set size now (Linux's ``/proc/self/statm``), or None."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


_baseline = resident_bytes()  # the size the next release compares against


def freeze_long_lived() -> None:
    """Keep every object alive now out of all later collections (``gc.freeze``): for a process
    whose imported libraries live until it exits. Once per process: a later call (a second run
    in one process: tests, a resident worker) leaves the frozen set as it is, so nothing that
    became garbage since is kept from the collector. Not for a notebook, whose objects are the
    user's to collect."""
    if gc.get_freeze_count() == 0:
        gc.freeze()


def release() -> bool:
    """Collect garbage, then return the allocator's free memory to the operating system, if
    the process grew by ``RELEASE_GROWTH_BYTES`` since the last time; whether it did."""
    global _baseline
    now = resident_bytes()
    if now is not None and _baseline is not None and now - _baseline < RELEASE_GROWTH_BYTES:
        return False
    with timeline.timed("memory releases (gc + malloc_trim)"):
        gc.collect()
        libc = _libc()
        if libc is not None:
            libc.malloc_trim(0)
    _baseline = resident_bytes()
    return True


def count_from_here() -> None:
    """Measure growth from this process's present size: a process that has just loaded what it
    keeps (the resident worker, ``flows/warm_worker.py``), so its forked runs do not release it."""
    global _baseline
    _baseline = resident_bytes()
