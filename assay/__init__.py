"""assay: auditable, rerunnable evaluation pipelines for LLM, RAG and agent systems.

The package is the pure core: importing it never imports Prefect, litellm, torch or
Great Expectations. Those are imported lazily by the modules that need them.
"""

from assay.offline import apply_offline_env

apply_offline_env()

__version__ = "0.1.0"


def __getattr__(name: str):  # noqa: ANN202 - lazy: the API pulls in pandas, and Prefect when it runs
    if name in ("evaluate", "load_run", "Run"):
        from assay import api

        return getattr(api, name)
    raise AttributeError(f"module 'assay' has no attribute {name!r}")


__all__ = ["Run", "__version__", "apply_offline_env", "evaluate", "load_run"]
