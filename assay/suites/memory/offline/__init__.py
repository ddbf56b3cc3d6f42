"""The memory suite's offline rules (``rules.py``) and fitted stage (``stage.py``), handed to the offline jury."""

from pathlib import Path

from assay.judges.offline.suite_rules import SuiteRules
from assay.suites.memory.offline import stage
from assay.suites.memory.offline.rules import MemoryRules

HERE = Path(__file__).resolve().parent

RULES = SuiteRules(
    rule_set=MemoryRules,
    prompts={"memory_usefulness": "memory_usefulness"},
    package=HERE,
    files=(),
    stages=(stage.STAGE,),
)
