"""The clinical formulas moved from assay/metrics/ into the suite's formulas/; every name the old
modules offered is still importable from the old path, as the very same object, and importing
an old module alone still loads nothing of the suite (it sits in a lower layer)."""

import importlib
import subprocess
import sys

import pytest

# What each old module offered before the move (its own definitions and the clinical names it
# imported): the names users may import today. Written out, so a name dropped later fails here.
OLD_NAMES = {
    "assay.metrics.clinical": ("scores", [
        "AggregateScore", "AnswerEvaluation", "EPSILON", "Fact", "RuleCheck", "SEVERITY_WEIGHTS", "SlotUse",
        "USAGE_SCORES", "aggregate_score", "context_utilization", "contraindication_penalty",
        "evaluate_answer", "normalize", "slot_factuality",
    ]),
    "assay.metrics.clinical_checks": ("checks", [
        "ALIASES", "Fact", "Mention", "Reader", "Rule", "RuleCheck", "SlotUse", "Usage", "answer_text",
        "as_list", "canonical_slot", "check_rules", "fold", "med_name", "patient_flags", "question_flags",
        "slot_uses",
    ]),
    "assay.metrics.clinical_extract": ("extract", [
        "ClinicalRules", "Cues", "Fact", "Index", "Mention", "Reader", "Reading", "Record", "WINDOW",
        "as_list", "build_index", "extract_facts", "fold", "med_name", "patient_flags", "question_flags",
        "read_record", "reader_for", "sentence_reading",
    ]),
    "assay.metrics.clinical_lexicon": ("lexicon", [
        "ClinicalRules", "Entry", "Index", "Kind", "Mention", "build_index",
    ]),
    "assay.metrics.clinical_rules": ("rules", [
        "AggregateConfig", "ClinicalRules", "Condition", "Contraindications", "Cues", "Drug", "FlagDef",
        "Lexicon", "Measure", "Names", "RULES_DIR", "RULE_FILES", "Range", "Rule", "RulesError", "Scoring",
        "Severity", "Status", "Test", "ViolationIf", "When", "load_rules",
    ]),
}


@pytest.mark.parametrize("old_path", sorted(OLD_NAMES))
def test_every_old_name_is_the_moved_object(old_path):
    new_module, names = OLD_NAMES[old_path]
    old = importlib.import_module(old_path)
    new = importlib.import_module(f"assay.suites.clinical.formulas.{new_module}")
    assert sorted(old.__all__) == sorted(names)
    assert set(names) <= set(dir(old))
    for name in names:
        assert getattr(old, name) is getattr(new, name), f"{old_path}.{name}"


def test_the_old_import_statements_still_work():
    from assay.metrics.clinical import evaluate_answer
    from assay.metrics.clinical_rules import RULES_DIR, load_rules
    from assay.suites.clinical.formulas.scores import evaluate_answer as moved

    assert evaluate_answer is moved
    assert load_rules(RULES_DIR) == load_rules()
    assert RULES_DIR.parent.name == "clinical" and (RULES_DIR / "lexicon.yaml").is_file()


def test_an_unknown_name_is_still_an_attribute_error():
    old = importlib.import_module("assay.metrics.clinical")
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = old.nothing_here
    with pytest.raises(AttributeError):  # private names are not re-exported
        _ = importlib.import_module("assay.metrics.clinical_rules")._bundled


def test_importing_an_old_module_loads_nothing_of_the_suite():
    code = (
        "import sys, assay.metrics.clinical, assay.metrics.clinical_rules;"
        "print(sorted(m for m in sys.modules if m.startswith('assay.suites')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
