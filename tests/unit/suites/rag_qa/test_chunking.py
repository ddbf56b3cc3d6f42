"""assay.suites.rag_qa.chunking: langchain RecursiveCharacterTextSplitter semantics, without langchain."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.suites.rag_qa.chunking import Chunk, chunk_documents, split_spans, split_text

# Expected outputs produced by langchain_text_splitters 1.1.3
# RecursiveCharacterTextSplitter(chunk_size=..., chunk_overlap=...).split_text(text).
LANGCHAIN_GOLDEN = [
    ("one two three four five six", 10, 5, ["one two", "two three", "four five", "five six"]),
    (
        "# Title\n\nFirst paragraph is here.\nSecond line.\n\nAnother paragraph that is rather long indeed.",
        30,
        10,
        [
            "# Title",
            "First paragraph is here.",
            "Second line.",
            "Another paragraph that is",
            "that is rather long indeed.",
        ],
    ),
    ("abcdefghij", 4, 1, ["abcd", "defg", "ghij"]),
    (
        "하늘여행사는 2008년 3월 15일에 설립되었습니다.\n\n대표는 김하늘입니다.",
        20,
        8,
        ["하늘여행사는 2008년 3월 15일에", "3월 15일에 설립되었습니다.", "대표는 김하늘입니다."],
    ),
]


@pytest.mark.parametrize(("text", "size", "overlap", "expected"), LANGCHAIN_GOLDEN)
def test_matches_langchain_outputs(text: str, size: int, overlap: int, expected: list[str]) -> None:
    assert split_text(text, size, overlap) == expected


def test_overlap_repeats_the_tail_of_the_previous_chunk() -> None:
    chunks = split_text("one two three four five six", chunk_size=10, chunk_overlap=5)
    # "two" and "five" fit in the 5-character overlap budget, so they start the next chunk.
    assert chunks[0].endswith("two") and chunks[1].startswith("two")
    assert chunks[2].endswith("five") and chunks[3].startswith("five")
    # Without overlap no word repeats (langchain 1.1.3 gives exactly this).
    assert split_text("one two three four five six", chunk_size=10, chunk_overlap=0) == [
        "one two",
        "three",
        "four five",
        "six",
    ]


def test_short_text_is_one_chunk_and_blank_text_none() -> None:
    assert split_text("  short text \n") == ["short text"]
    assert split_text("") == []
    assert split_text(" \n\n \t") == []


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (10, -1), (10, 11)])
def test_rejects_bad_sizes(size: int, overlap: int) -> None:
    with pytest.raises(ValueError):
        split_text("text", size, overlap)


# Texts built from words, spaces, newlines and paragraph breaks exercise every separator level;
# long runs without spaces force the per-character fallback.
_tokens = st.sampled_from(["a", "bb", "한글", "word", " ", "  ", "\n", "\n\n", "\t", "x" * 40])
_texts = st.lists(_tokens, max_size=120).map("".join)


@st.composite
def _sizes(draw: st.DrawFn) -> tuple[int, int]:
    size = draw(st.integers(min_value=2, max_value=80))
    return size, draw(st.integers(min_value=0, max_value=size))


@settings(max_examples=300, deadline=None)
@given(text=_texts, sizes=_sizes())
def test_chunks_are_bounded_ordered_and_cover_the_text(text: str, sizes: tuple[int, int]) -> None:
    size, overlap = sizes
    spans = split_spans(text, size, overlap)
    chunks = split_text(text, size, overlap)

    assert chunks == [text[s:e] for s, e in spans]
    for chunk in chunks:
        assert 0 < len(chunk) <= size
        assert chunk == chunk.strip()
    # In order: neither start nor end moves backwards. (Not strictly: when whitespace is
    # stripped from a merged window, langchain can emit a chunk that is a prefix of the next.)
    for (s0, e0), (s1, e1) in zip(spans, spans[1:], strict=False):
        assert s1 >= s0 and e1 >= e0
        assert max(0, e0 - s1) <= overlap  # consecutive chunks share at most `overlap` chars
    # Coverage: every non-whitespace character lands in some chunk.
    covered = set()
    for s, e in spans:
        covered.update(range(s, e))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_chunk_documents_labels_sources_and_types(tmp_path: Path) -> None:
    _write(tmp_path, "company/overview.md", "Founded in 2008.\n\n" + "History. " * 80)
    _write(tmp_path, "policies/sub/cancellation.md", "Refunds within 7 days.")
    _write(tmp_path, "README.md", "not a document: files at the KB root have no type")
    _write(tmp_path, "company/notes.txt", "not markdown")

    chunks = chunk_documents(tmp_path, chunk_size=500, overlap=200)

    assert {c.source for c in chunks} == {"company/overview.md", "policies/sub/cancellation.md"}
    assert all(isinstance(c, Chunk) for c in chunks)
    overview = [c for c in chunks if c.source == "company/overview.md"]
    assert len(overview) > 1 and [c.index for c in overview] == list(range(len(overview)))
    assert all(c.doc_type == "company" for c in overview)
    text = (tmp_path / "company/overview.md").read_text(encoding="utf-8")
    assert all(text[c.start : c.start + len(c.text)] == c.text for c in overview)
    (policy,) = [c for c in chunks if c.doc_type == "policies"]
    assert policy.text == "Refunds within 7 days." and policy.index == 0
    # Sorted traversal: the same KB always yields the same chunk list.
    assert chunk_documents(tmp_path, 500, 200) == chunks


def test_chunk_documents_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        chunk_documents(tmp_path / "nope", 500, 200)
