"""Knowledge-base chunking and the embedding index moved into rag_qa's folder (only its live
replay uses them); the old ``assay.replay`` paths stay thin lazy re-exports of the same objects,
and importing one imports no suite until a name is used."""

from __future__ import annotations

import pytest

from tests.support.module_names import assert_reexports, imports_before_and_after_first_use

MOVED = {
    "assay.replay.chunking": "assay.suites.rag_qa.chunking",
    "assay.replay.embedding": "assay.suites.rag_qa.embedding",
}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_every_moved_name_is_importable_from_the_old_path_and_is_the_same_object(old, new):
    assert_reexports(old, new)


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_importing_the_old_path_imports_no_suite_until_a_name_is_used(old, new):
    assert imports_before_and_after_first_use(old, new) == ["False", "True"]


def test_the_old_import_statements_still_work():
    from assay.replay.chunking import chunk_documents
    from assay.replay.embedding import EmbeddingIndex
    from assay.suites.rag_qa import chunking, embedding

    assert chunk_documents is chunking.chunk_documents and EmbeddingIndex is embedding.EmbeddingIndex
