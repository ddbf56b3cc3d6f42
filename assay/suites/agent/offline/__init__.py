"""The agent suite's offline rules (``rules.py``), handed to the offline jury."""

from pathlib import Path

from assay.judges.offline.suite_rules import SuiteRules
from assay.suites.agent.offline.rules import AgentRules

HERE = Path(__file__).resolve().parent

RULES = SuiteRules(
    rule_set=AgentRules,
    prompts={"agent_intent": "agent_intent"},
    package=HERE,
    files=(),
)
