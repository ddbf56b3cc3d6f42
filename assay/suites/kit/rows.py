"""A run's score rows as the aggregate step hands them to a suite: read part by part.

The metric steps write one score file per family (or per family and partition); at 100,000
cases those hold ~1.7 million rows, ~2 KB each as typed ``ScoreRow``s, more than the run may
hold at once. ``ScoreRows`` keeps only where they are: each pass over it reads the files again
(each verified by its hash), one part (file) at a time. A suite that reduces part by part
(``rag_qa``: a case's per-judge rows are all in its partition's file) never holds them all; a
suite with small datasets may simply take ``list(rows)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from assay.schemas import ScoreRow

if TYPE_CHECKING:
    from assay.lineage.store import ArtifactStore

PartReader = Callable[[], Iterable[ScoreRow]]


class ScoreRows:
    """Every per-family score row of a run, in order: families by name, each family's parts in
    partition order, each part's rows as its metric step wrote them. Iterable more than once."""

    def __init__(self, parts: Sequence[PartReader]) -> None:
        self._parts = list(parts)

    @classmethod
    def of(cls, rows: Iterable[ScoreRow]) -> ScoreRows:
        """Rows already in memory (tests, a small batch): one part."""
        held = list(rows)
        return cls([lambda: held])

    @classmethod
    def stored(cls, store: ArtifactStore, shas: Sequence[str]) -> ScoreRows:
        """The rows of JSONL score files in an ``ArtifactStore``, one part per file."""
        return cls([lambda sha=sha: (ScoreRow.model_validate(r) for r in store.iter_jsonl(sha)) for sha in shas])

    def parts(self) -> Iterator[list[ScoreRow]]:
        """One part's rows at a time (a family's file of one partition)."""
        for read in self._parts:
            yield list(read())

    def __iter__(self) -> Iterator[ScoreRow]:
        for read in self._parts:
            yield from read()


def as_score_rows(rows: ScoreRows | Iterable[ScoreRow]) -> ScoreRows:
    return rows if isinstance(rows, ScoreRows) else ScoreRows.of(rows)
