"""The memory suite's offline rules (``rules.py``), handed to the offline jury."""

from pathlib import Path

from assay.judges.offline.suite_rules import SuiteRules
from assay.suites.memory.offline.rules import MemoryRules

HERE = Path(__file__).resolve().parent

RULES = SuiteRules(
    rule_set=MemoryRules,
    prompts={"memory_usefulness": "memory_usefulness"},
    package=HERE,
    files=(),
)
