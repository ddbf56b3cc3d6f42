"""Great Expectations' fixed costs, paid once per process instead of once per validation.

A validation needs an in-memory GX context, a pandas data source, one data asset with its
batch definition per table, and an ``ExpectationSuite`` built from each table's expectation
file. Building them is the same work every run (about a fifth of the validate step on a
960-case dataset, more on a small one), and a process that runs many validations (the resident
worker's runs, ``assay.evaluate`` in a notebook, a test session) would repeat it each time.

What is kept holds no data: the frames are handed in per validation (``get_batch``), and
``{"$PARAMETER": ...}`` placeholders stay in the kept suites and are filled per validation
(``expectation_parameters``). A kept suite is keyed by its expectation file's path and its
parsed content, so an edited file is built afresh. One lock: GX's context is not thread-safe,
and a validation holds it from its first GX call to its last.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from assay.schemas import JsonObject

_LOCK = threading.Lock()
_context: Any = None
_sources: dict[str, Any] = {}  # data source name -> GX pandas data source
_batch_definitions: dict[tuple[str, str], Any] = {}  # (source, table) -> "all rows" batch definition
_suites: dict[tuple[str, str, str], Any] = {}  # (file, suite name, canonical file content) -> ExpectationSuite


def import_gx() -> Any:
    # No usage statistics from an offline tool; GX's own loggers only speak on errors.
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
    import great_expectations as gx

    from assay.validation import gx_kwargs

    gx_kwargs.install(gx)  # one configuration per kwargs lookup, not one per key
    # After the import: GX configures its own loggers while importing.
    logging.getLogger("great_expectations").setLevel(logging.ERROR)
    for name in list(logging.root.manager.loggerDict):
        if name.startswith("great_expectations."):
            logging.getLogger(name).setLevel(logging.ERROR)
    return gx


class GxSession:
    """This process's GX objects, used while ``session()`` holds the lock."""

    def __init__(self, gx: Any, source_name: str) -> None:
        self.gx = gx
        self.source_name = source_name

    def batch(self, table: str, frame: Any) -> Any:
        """A batch of ``frame`` through the table's kept asset and batch definition."""
        key = (self.source_name, table)
        if key not in _batch_definitions:
            source = _sources.get(self.source_name)
            if source is None:
                source = _sources[self.source_name] = _context_now(self.gx).data_sources.add_pandas(name=self.source_name)
            _batch_definitions[key] = source.add_dataframe_asset(name=table).add_batch_definition_whole_dataframe("all rows")
        return _batch_definitions[key].get_batch(batch_parameters={"dataframe": frame})

    def suite(self, path: Path, name: str, spec: JsonObject, build: Callable[[JsonObject, Path], list[Any]]) -> Any:
        """The ``ExpectationSuite`` of the expectation file at ``path`` whose content is ``spec``
        (``build(spec, path)`` makes its expectations), kept while its path and content stay the same."""
        key = (str(path), name, json.dumps(spec, sort_keys=True, ensure_ascii=False))
        if key not in _suites:
            _suites[key] = self.gx.ExpectationSuite(name=name, expectations=build(spec, path), meta=spec.get("meta") or {})
        return _suites[key]


@contextmanager
def session(source_name: str) -> Iterator[GxSession]:
    """This process's GX session for the data source ``source_name``, held exclusively."""
    gx = import_gx()
    with _LOCK:
        yield GxSession(gx, source_name)


def kept() -> dict[str, int]:
    """How many of each object this process keeps (for tests)."""
    return {"contexts": int(_context is not None), "sources": len(_sources),
            "batch_definitions": len(_batch_definitions), "suites": len(_suites)}


def forget() -> None:
    """Drop every kept object: the next validation builds them again."""
    global _context
    with _LOCK:
        _context = None
        _sources.clear()
        _batch_definitions.clear()
        _suites.clear()


def _context_now(gx: Any) -> Any:
    global _context
    if _context is None:
        from great_expectations.data_context.types.base import ProgressBarsConfig

        context = gx.get_context(mode="ephemeral")  # in memory, nothing written
        context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
        _context = context
    return _context
