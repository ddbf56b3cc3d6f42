"""assay: auditable, rerunnable evaluation pipelines for LLM, RAG and agent systems.

The package is the pure core: importing it never imports Prefect, litellm, torch or
Great Expectations. Those are imported lazily by the modules that need them.
"""

from assay.offline import apply_offline_env

apply_offline_env()

__version__ = "0.1.0"
