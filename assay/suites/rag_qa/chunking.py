"""Seed 003's chunking, without langchain: RecursiveCharacterTextSplitter(500, 200).

The splitter is re-implemented here so a live replay chunks exactly as the seed notebook did
while assay stays free of the langchain dependency tree. Semantics follow
langchain_text_splitters 1.x with its defaults (separators "\\n\\n", "\\n", " ", "";
keep_separator=True, i.e. a separator starts the piece after it; strip_whitespace=True;
length = len, in characters).

Internally every piece is a (start, end) span of the original text, so each chunk is known to
be ``text[start:end]`` and its offset comes for free (langchain recovers it with str.find).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SEPARATORS: tuple[str, ...] = ("\n\n", "\n", " ", "")
DEFAULT_CHUNK_SIZE = 500  # characters, seed 003
DEFAULT_CHUNK_OVERLAP = 200  # characters, seed 003

Span = tuple[int, int]


@dataclass(frozen=True)
class Chunk:
    """One retrievable piece of a knowledge-base document.

    source: KB-relative POSIX path ("company/overview.md"); doc_type: its first folder
    ("company"); index: 0-based position among the chunks of that document; start: character
    offset of ``text`` in the document.
    """

    source: str
    doc_type: str
    text: str
    index: int
    start: int


def split_text(
    text: str, chunk_size: int = DEFAULT_CHUNK_SIZE, chunk_overlap: int = DEFAULT_CHUNK_OVERLAP
) -> list[str]:
    """Split ``text`` into chunks of at most ``chunk_size`` characters, consecutive chunks
    sharing up to ``chunk_overlap`` characters (langchain RecursiveCharacterTextSplitter)."""
    return [text[s:e] for s, e in split_spans(text, chunk_size, chunk_overlap)]


def split_spans(
    text: str, chunk_size: int = DEFAULT_CHUNK_SIZE, chunk_overlap: int = DEFAULT_CHUNK_OVERLAP
) -> list[Span]:
    """Like :func:`split_text`, but return each chunk as a (start, end) character span."""
    # Same argument checks and messages as langchain's TextSplitter.
    if chunk_size <= 0:
        raise ValueError(f"chunk_size must be > 0, got {chunk_size}")
    if chunk_overlap < 0:
        raise ValueError(f"chunk_overlap must be >= 0, got {chunk_overlap}")
    if chunk_overlap > chunk_size:
        raise ValueError(
            f"Got a larger chunk overlap ({chunk_overlap}) than chunk size ({chunk_size}), should be smaller."
        )
    return _split(text, (0, len(text)), SEPARATORS, chunk_size, chunk_overlap)


def _split(text: str, span: Span, separators: tuple[str, ...], size: int, overlap: int) -> list[Span]:
    lo, hi = span
    segment = text[lo:hi]
    # The first separator present in the segment wins; "" (per character) always matches.
    separator, finer = "", ()
    for i, candidate in enumerate(separators):
        if candidate == "" or candidate in segment:
            separator, finer = candidate, separators[i + 1 :] if candidate else ()
            break

    chunks: list[Span] = []
    good: list[Span] = []
    for piece in _pieces(segment, lo, separator):
        if piece[1] - piece[0] < size:
            good.append(piece)
            continue
        # A piece too long to merge: flush what is pending, then split it more finely.
        if good:
            chunks.extend(_merge(text, good, size, overlap))
            good = []
        if finer:
            chunks.extend(_split(text, piece, finer, size, overlap))
        else:
            chunks.append(piece)  # langchain keeps it as is (only when size <= 1)
    if good:
        chunks.extend(_merge(text, good, size, overlap))
    return chunks


def _pieces(segment: str, offset: int, separator: str) -> list[Span]:
    """Split at non-overlapping occurrences of ``separator``, which starts the next piece
    (langchain keep_separator="start"); empty pieces are dropped."""
    if not separator:
        return [(offset + i, offset + i + 1) for i in range(len(segment))]
    cuts = [0]
    at = segment.find(separator)
    while at != -1:
        cuts.append(at)
        at = segment.find(separator, at + len(separator))
    cuts.append(len(segment))
    return [(offset + a, offset + b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]


def _merge(text: str, pieces: list[Span], size: int, overlap: int) -> list[Span]:
    """langchain TextSplitter._merge_splits over contiguous spans (the join separator is ""
    because separators stay inside the pieces)."""
    chunks: list[Span] = []
    window: list[Span] = []
    total = 0
    for piece in pieces:
        length = piece[1] - piece[0]
        if total + length > size:
            if window:
                _emit(text, (window[0][0], window[-1][1]), chunks)
                # Drop pieces from the front until what is left fits the overlap budget and
                # leaves room for the new piece.
                while total > overlap or (total + length > size and total > 0):
                    total -= window[0][1] - window[0][0]
                    window = window[1:]
        window.append(piece)
        total += length
    if window:
        _emit(text, (window[0][0], window[-1][1]), chunks)
    return chunks


def _emit(text: str, span: Span, out: list[Span]) -> None:
    """Append ``span`` with surrounding whitespace trimmed; whitespace-only spans vanish."""
    start, end = span
    raw = text[start:end]
    stripped = raw.strip()
    if stripped:
        start += len(raw) - len(raw.lstrip())
        out.append((start, start + len(stripped)))


def chunk_documents(
    kb_root: Path, chunk_size: int = DEFAULT_CHUNK_SIZE, overlap: int = DEFAULT_CHUNK_OVERLAP
) -> list[Chunk]:
    """Chunk every ``*.md`` file under each top-level folder of ``kb_root``.

    As in seed 003, the folder name is the document type and files directly in ``kb_root`` are
    not documents. Folders and files are visited in sorted order so the chunk list (and any
    index built from it) is reproducible.
    """
    kb_root = Path(kb_root)
    if not kb_root.is_dir():
        raise FileNotFoundError(f"knowledge base folder not found: {kb_root}")
    chunks: list[Chunk] = []
    for folder in sorted(p for p in kb_root.iterdir() if p.is_dir()):
        for path in sorted(folder.rglob("*.md")):
            if not path.is_file():
                continue
            text = path.read_text(encoding="utf-8")
            source = path.relative_to(kb_root).as_posix()
            for index, (start, end) in enumerate(split_spans(text, chunk_size, overlap)):
                chunks.append(Chunk(source, folder.name, text[start:end], index, start))
    return chunks
