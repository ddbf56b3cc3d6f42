"""A suite's own judge prompts live in its folder and the suite declares them (issue 38).

The old import paths stay: ``assay.judges.prompts`` and ``assay.judges.prompts.<suite>`` hand out
the suite module's own objects, lazily (importing them imports no suite). The prompt registry
finds a suite's prompts through the suite registry, and moving a prompt changed no prompt's
identity (its hash goes into judge call keys, cached verdicts and lineage)."""

from __future__ import annotations

import dataclasses
import importlib
import subprocess
import sys

import pytest

from assay.judges.prompts import base as registry_module
from assay.judges.prompts import get_prompt
from assay.suites.registry import get_suite, register_suite
from tests.support.module_names import defined_public_names

# old module -> the suite's module it re-exports
MOVED = {f"assay.judges.prompts.{suite}": f"assay.suites.{suite}.prompts" for suite in ("agent", "clinical", "memory", "report")}
OWNERS = {"agent": {"agent_intent"}, "clinical": {"clinical_answer"}, "memory": {"memory_usefulness"},
          "report": {"report_factual_accuracy", "report_coherence", "report_relevance", "report_hallucination"}}

# The package's public names before the move (ddb3f93).
PACKAGE_NAMES = {
    "AGENT_INTENT", "ANSWER_RELEVANCY", "CONTEXT_RELEVANCE", "FAITHFULNESS_CLAIMS", "FAITHFULNESS_VERDICT",
    "CLINICAL_ANSWER", "INTENT_LABELS", "INTENT_SCORES", "LANGS", "MEMORY_USEFULNESS", "PROMPT_IDS", "RAG_ANSWER",
    "REPORT_COHERENCE", "REPORT_FACTUAL_ACCURACY", "REPORT_HALLUCINATION", "REPORT_RELEVANCE", "AgentIntentInput",
    "AgentIntentVerdict", "ClinicalInput", "ClinicalVerdict", "CoherenceVerdict", "FactualAccuracyVerdict",
    "HallucinationCase", "HallucinationVerdict", "MemoryInput", "MemoryVerdict", "Prompt", "RagAnswerInput",
    "RagAnswerVerdict", "RelevanceVerdict", "ReportInput", "ReportSource", "Template", "UnknownPromptError",
    "all_prompts", "fill", "get_prompt", "register", "verdict_for_score",
}

# Every prompt's sha256 before the move (ddb3f93): the hash names the render function, and the
# moved ones keep the name they were hashed under (``Prompt.render_name``).
HASHES_BEFORE = {
    "agent_intent": "64d8f4de6b55dfdf4b435cff959ececf0501ea1d664d8d860159edb389df9980",
    "answer_relevancy": "6124092b935cea9182b0db5adb593967e83b73a762da20fee3fd5e682620c694",
    "clinical_answer": "6873e9795dbeab4773fb3f4c67c2ad04a4e8b3f7b4a94924ef046137dd4ce68b",
    "context_relevance": "d7d9037aa74433fc1dab2b353044573208b837f23ec2976010c7988b25c4aa64",
    "faithfulness_claims": "5424e4e1e72b8507b4482e434e07a4d29b252f12dbef0d139542f4288d691ed6",
    "faithfulness_verdict": "75f7dde26c513665b454fbaddaea7522bdf0b6689a6f85a11f0017cce239802e",
    "memory_usefulness": "282b24d1e37360ab3a2d6e61632bd44a55d8606dd4db252c83c6a7f84aa89df9",
    "rag_answer": "7663f9d0ac13468d19c1c3684d0ecb7c498906730ba805ccf1a4cd0b79ccc53f",
    "report_coherence": "3802016e773fd95ddb73d56c31ae8d43da1db63be377347478d032996a1ba736",
    "report_factual_accuracy": "6bb6dcbfb3c16be38184f2af2b4dc364532634315c0bc5664a6ed7aa6a8c17bc",
    "report_hallucination": "14d046568211fcc27ec35682a98b976ce076dd78a2f348dadf91985692157e10",
    "report_relevance": "06c38cc5ea0453f38b2bf71843b056779c426a8baaa9da4704c4eb5eab490b6b",
}


def _fresh(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_every_name_of_an_old_prompt_module_is_the_suite_modules_own(old, new):
    old_module, new_module = importlib.import_module(old), importlib.import_module(new)
    assert set(old_module.__all__) == defined_public_names(new)
    assert sorted(dir(old_module)) == sorted(old_module.__all__)
    for name in old_module.__all__:
        assert getattr(old_module, name) is getattr(new_module, name), name
    with pytest.raises(AttributeError, match="no attribute 'not_a_prompt'"):
        old_module.not_a_prompt  # noqa: B018


def test_the_package_keeps_every_name_it_had_and_hands_out_the_suites_objects():
    package = importlib.import_module("assay.judges.prompts")
    assert PACKAGE_NAMES <= set(package.__all__) and PACKAGE_NAMES <= set(dir(package))
    namespace: dict[str, object] = {}
    exec("from assay.judges.prompts import *", namespace)  # noqa: S102 - the star import a user may write
    assert PACKAGE_NAMES <= set(namespace)
    for new, names in package.MOVED.items():
        for name in names:
            assert getattr(package, name) is getattr(importlib.import_module(new), name), name
    assert set(package.PROMPT_IDS) == set(HASHES_BEFORE)


@pytest.mark.parametrize("old", ["assay.judges.prompts", *sorted(MOVED)])
def test_importing_an_old_path_imports_no_suite_until_a_name_is_used(old):
    code = (
        f"import sys, {old} as m; suites = lambda: sorted(n for n in sys.modules if n.startswith('assay.suites.'));"
        "before = suites(); m.REPORT_COHERENCE if hasattr(m, 'REPORT_COHERENCE') else getattr(m, m.__all__[0]);"
        "print(before == [], suites() != [])"
    )
    assert _fresh(code) == ["True", "True"]


def test_no_prompt_changed_identity_in_the_move():
    assert {p.id: p.sha256 for p in registry_module.all_prompts()} == HASHES_BEFORE


def test_the_hash_names_the_render_by_render_name_when_given():
    prompt = get_prompt("agent_intent")
    assert prompt.render.__module__ == "assay.suites.agent.prompts"
    assert prompt.render_name == "assay.judges.prompts.agent.render_agent"
    renamed = dataclasses.replace(prompt, render_name="somewhere.else.render_agent")
    unnamed = dataclasses.replace(prompt, render_name="")
    assert len({prompt.sha256, renamed.sha256, unnamed.sha256}) == 3  # the name is part of the identity


@pytest.mark.parametrize("suite", sorted(OWNERS))
def test_each_suite_declares_the_prompts_its_folder_holds(suite):
    declared = get_suite(suite).prompts
    assert {p.id for p in declared} == OWNERS[suite]
    assert {p.render.__module__ for p in declared} == {f"assay.suites.{suite}.prompts"}


def test_a_suites_prompts_are_found_by_id_in_a_fresh_process_and_only_then_loaded():
    code = (
        "import sys; from assay.judges.prompts import get_prompt;"
        "before = 'assay.suites.clinical.prompts' in sys.modules;"
        "print(before, get_prompt('clinical_answer').render.__module__)"
    )
    assert _fresh(code) == ["False", "assay.suites.clinical.prompts"]


def test_looking_a_suite_up_registers_its_prompts_without_loading_the_others():
    code = (
        "import sys; from assay.judges.prompts import base; from assay.suites.registry import get_suite;"
        "get_suite('memory'); print('memory_usefulness' in base._REGISTRY, 'assay.suites.report.prompts' in sys.modules)"
    )
    assert _fresh(code) == ["True", "False"]


class _PluginSuite:
    """What the prompt registry reads of a suite: its ``prompts``."""

    prompts = (dataclasses.replace(get_prompt("rag_answer"), id="plugin_answer"),)


def test_a_plugin_suites_prompt_is_found_and_a_clashing_id_is_refused():
    register_suite("plugin_qa", _PluginSuite)
    try:
        assert get_prompt("plugin_answer") is _PluginSuite.prompts[0]
        with pytest.raises(ValueError, match="'plugin_answer' is already registered"):
            registry_module.declare([dataclasses.replace(_PluginSuite.prompts[0], version="2")])
    finally:
        from assay.suites import registry

        registry._FACTORIES.pop("plugin_qa", None)
        registry_module._REGISTRY.pop("plugin_answer", None)


def test_threads_looking_prompts_up_at_once_all_find_them():
    """The first lookups fill the registry from the suites while other judge threads wait for it."""
    code = (
        "import threading; from assay.judges.prompts import get_prompt\n"
        "ids = ['agent_intent', 'clinical_answer', 'memory_usefulness', 'report_coherence'] * 4\n"
        "start, found = threading.Barrier(len(ids)), []\n"
        "def look(i):\n    start.wait(); found.append(get_prompt(i).id)\n"
        "threads = [threading.Thread(target=look, args=(i,)) for i in ids]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "print(sorted(found) == sorted(ids))\n"
    )
    assert _fresh(code) == ["True"]
