"""The clinical suite's offline rules (``rules.py``), handed to the offline jury."""

import importlib.util
from pathlib import Path

from assay.judges.offline.suite_rules import SuiteRules
from assay.suites.clinical.offline.rules import ClinicalRules

HERE = Path(__file__).resolve().parent

RULES = SuiteRules(
    rule_set=ClinicalRules,
    prompts={"clinical_answer": "clinical_answer"},
    package=HERE,
    files=tuple(
        Path(importlib.util.find_spec(f"assay.metrics.{name}").origin).resolve()  # type: ignore[arg-type, union-attr]
        for name in ("clinical", "clinical_rules", "clinical_checks")
    ) + tuple(sorted((HERE.parent / "rules").glob("*.yaml"))),
)
