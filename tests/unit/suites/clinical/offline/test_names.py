"""A drug's name met across scripts (``offline/names.py``)."""

from __future__ import annotations

from assay.suites.clinical.offline import names


def test_a_forbidden_drug_named_in_the_other_script():
    assert names._skeleton("metronidazole") == names._skeleton("메트로니다졸")


def test_two_drugs_with_one_consonant_skeleton_are_told_apart_by_their_first_vowel():
    assert names._skeleton("paroxetine") == names._skeleton("플루옥세틴")  # fluoxetine: the same consonants
    assert names.names_in("paroxetine", "파록세틴을 드셔도 됩니다")
    assert not names.names_in("paroxetine", "플루옥세틴을 드셔도 됩니다")
    assert names.names_in("메트로니다졸", "metronidazole is fine")
