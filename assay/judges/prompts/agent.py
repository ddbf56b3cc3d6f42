"""Moved to ``assay.suites.agent.prompts`` (the agent suite's own prompts); this path stays importable.

Lazily (``assay.reexport``): importing this module imports no suite; type checkers read the import below.
"""

from typing import TYPE_CHECKING

from assay.reexport import lazy_reexport

if TYPE_CHECKING:
    from assay.suites.agent.prompts import (
        AGENT_INTENT,
        EN_SYSTEM,
        EN_USER,
        INTENT_LABELS,
        INTENT_SCORES,
        KO_SYSTEM,
        KO_USER,
        AgentIntentInput,
        AgentIntentVerdict,
        IntentLabel,
        IntentVerdictLabel,
        render_agent,
        verdict_for_score,
    )

__all__ = [
    "AGENT_INTENT", "AgentIntentInput", "AgentIntentVerdict", "EN_SYSTEM", "EN_USER",
    "INTENT_LABELS", "INTENT_SCORES", "IntentLabel", "IntentVerdictLabel", "KO_SYSTEM", "KO_USER",
    "render_agent", "verdict_for_score",
]
__getattr__, __dir__ = lazy_reexport(__name__, "assay.suites.agent.prompts", __all__)
