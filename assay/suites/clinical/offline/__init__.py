"""The clinical suite's offline rules (``rules.py``), handed to the offline jury."""

from pathlib import Path

from assay.judges.offline.suite_rules import SuiteRules
from assay.suites.clinical.offline.rules import ClinicalRules

HERE = Path(__file__).resolve().parent

RULES = SuiteRules(
    rule_set=ClinicalRules,
    prompts={"clinical_answer": "clinical_answer"},
    package=HERE,
    # the formulas the rules read answers with make this judge's version too
    files=tuple(sorted((HERE.parent / "formulas").glob("*.py"))) + tuple(sorted((HERE.parent / "rules").glob("*.yaml"))),
)
