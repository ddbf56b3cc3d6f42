"""``assay import SUITE FILE``: a CSV, JSONL, JSON or Parquet table into a suite's dataset directory.

The suite's importer (``Suite.importer``) lists its fields and the column names Ragas and
DeepEval users already have; ``assay.validation.tables`` reads the table and checks each cell.
With any problem nothing is written, and every problem is named by row and column.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from assay.validation.tables import ImportError_, ImportResult, read_table, resolve_columns, write_jsonl


def import_dataset(suite_name: str, source: Path, out: Path, explicit: Mapping[str, str]) -> ImportResult:
    """Read ``source``, map its columns, check every value and write the suite's dataset to
    ``out``; with problems, nothing is written and ``result.problems`` names each one."""
    from assay.suites.registry import get_suite

    suite = get_suite(suite_name)
    importer = getattr(suite, "importer", None)
    if importer is None:
        raise ImportError_(f"suite {suite_name!r} has no importer yet; write its dataset directory by hand "
                           "(docs/suites/<suite>.md describes the files)")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ImportError_(f"--out {out}: a file, not a directory; give a new directory")
    if out.exists() and any(out.iterdir()):
        raise ImportError_(f"--out {out}: the directory is not empty; give a new one")
    columns, rows, problems = read_table(source)
    try:
        mapping = resolve_columns(columns, importer.fields, explicit)
    except ImportError_:
        if problems:  # the refused rows held the columns: name them, the cause
            return ImportResult(mapping={}, unused=[], problems=problems)
        raise
    files, more = importer.records(rows, mapping, Path(source).name)
    problems += more
    result = ImportResult(mapping=mapping, unused=[c for c in columns if c not in mapping.values()], problems=problems)
    if problems:
        return result
    for name, records in files.items():
        if records:
            write_jsonl(out / name, records)
            result.files[name] = len(records)
    return result
