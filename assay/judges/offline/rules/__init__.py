"""Offline judge rules, one module per prompt family (each a mixin of ``OfflineJudge``)."""

from assay.judges.offline.rules.agent import AgentRules
from assay.judges.offline.rules.clinical import ClinicalRules
from assay.judges.offline.rules.memory import MemoryRules
from assay.judges.offline.rules.rag import RagRules
from assay.judges.offline.rules.report import ReportRules

FAMILY_RULES = (RagRules, ReportRules, MemoryRules, AgentRules, ClinicalRules)

__all__ = ["FAMILY_RULES", "AgentRules", "ClinicalRules", "MemoryRules", "RagRules", "ReportRules"]
