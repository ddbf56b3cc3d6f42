"""The rag_qa suite's offline rules (``rules.py``) and fitted stage (``stage.py``), handed to the offline jury."""

from pathlib import Path

from assay.judges.offline.suite_rules import SuiteRules
from assay.suites.rag_qa.offline import stage
from assay.suites.rag_qa.offline.rules import RagRules

HERE = Path(__file__).resolve().parent

RULES = SuiteRules(
    rule_set=RagRules,
    prompts={"rag_answer": "rag_answer"},
    package=HERE,
    stages=(stage.STAGE,),
)
