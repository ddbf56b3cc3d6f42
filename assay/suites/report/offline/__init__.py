"""The report suite's offline rules (``rules.py``), handed to the offline jury."""

from pathlib import Path

from assay.judges.offline.suite_rules import SuiteRules
from assay.suites.report.offline.rules import ReportRules

HERE = Path(__file__).resolve().parent

RULES = SuiteRules(
    rule_set=ReportRules,
    prompts={"report_factual_accuracy": "report_factual_accuracy", "report_coherence": "report_coherence", "report_relevance": "report_relevance", "report_hallucination": "report_hallucination"},
    package=HERE,
    files=(),
)
