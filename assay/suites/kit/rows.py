"""A run's score rows as the aggregate step hands them to a suite: read part by part.

The metric steps write one score file per family (or per family and partition); at 100,000
cases those hold ~1.7 million rows, ~2 KB each as typed ``ScoreRow``s, more than the run may
hold at once. ``ScoreRows`` keeps only where they are: each pass over it reads the files again
(each verified by its hash), one part (file) at a time. A suite that reduces part by part
(``rag_qa``: a case's per-judge rows are all in its partition's file) never holds them all; a
suite with small datasets may simply take ``list(rows)``. A suite that needs the rows again in
another order sets them aside in a ``RowSpool`` (a temporary file) during its one pass, which
is cheaper to read back than the score files (no hashing, no second JSON parser).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from assay.schemas import ScoreRow

if TYPE_CHECKING:
    from assay.lineage.store import ArtifactStore

PartReader = Callable[[], Iterable[ScoreRow]]
# A part's rows, each with its JSON line as stored (None for rows that were never stored).
_LinedReader = Callable[[], Iterable[tuple[ScoreRow, bytes | None]]]


class ScoreRows:
    """Every per-family score row of a run, in order: families by name, each family's parts in
    partition order, each part's rows as its metric step wrote them. Iterable more than once."""

    def __init__(self, parts: Sequence[PartReader]) -> None:
        self._parts: list[_LinedReader] = [lambda read=read: ((row, None) for row in read()) for read in parts]

    @classmethod
    def of(cls, rows: Iterable[ScoreRow]) -> ScoreRows:
        """Rows already in memory (tests, a small batch): one part."""
        held = list(rows)
        return cls([lambda: held])

    @classmethod
    def stored(cls, store: ArtifactStore, shas: Sequence[str]) -> ScoreRows:
        """The rows of JSONL score files in an ``ArtifactStore``, one part per file."""
        rows = cls([])
        rows._parts = [lambda sha=sha: store.iter_jsonl(sha, parse=_row_and_line) for sha in shas]
        return rows

    def parts(self) -> Iterator[list[ScoreRow]]:
        """One part's rows at a time (a family's file of one partition)."""
        for part in self.parts_with_lines():
            yield [row for row, _ in part]

    def parts_with_lines(self) -> Iterator[list[tuple[ScoreRow, bytes | None]]]:
        """``parts``, each row with its stored JSON line (for a ``RowSpool``)."""
        for read in self._parts:
            yield list(read())

    def __iter__(self) -> Iterator[ScoreRow]:
        for read in self._parts:
            yield from (row for row, _ in read())


def _row_and_line(line: bytes) -> tuple[ScoreRow, bytes]:
    # pydantic's own JSON parser: the same row as json.loads + model_validate (NaN and
    # Infinity included, tests/unit/suites/kit/test_rows.py), at a fraction of the cost.
    return ScoreRow.model_validate_json(line), line


class RowSpool:
    """Score rows set aside in a temporary file as JSON lines, read back once in the order they
    were added: a large run's rows in a second order without holding them or reading the
    score files again. Rows read from the store keep their stored line (the same row when
    read back); others are written with ``json`` (NaN kept, unlike pydantic's ``null``)."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 - closed when read back

    def add(self, row: ScoreRow, line: bytes | None = None) -> None:
        if line is None:
            line = json.dumps(row.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")
        self._file.write(line.rstrip(b"\r\n") + b"\n")

    def rows(self) -> Iterator[ScoreRow]:
        """Every row added, in order; the spool is closed (and its file gone) at the end."""
        with self._file as spooled:
            spooled.seek(0)
            for line in spooled:
                yield ScoreRow.model_validate_json(line)


def as_score_rows(rows: ScoreRows | Iterable[ScoreRow]) -> ScoreRows:
    return rows if isinstance(rows, ScoreRows) else ScoreRows.of(rows)
