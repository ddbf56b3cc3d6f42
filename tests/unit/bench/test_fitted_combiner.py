"""bench/fitted_combiner.py: each set is scored by a model that never saw it, the features
come from the judges' own signals, and the rules' shortcuts carry no signal features."""

from __future__ import annotations

from assay.judges.offline import offline_jury
from assay.judges.prompts import RagAnswerInput
from bench import fitted_combiner as fc


class RecordingModel:
    """A 'model' that remembers what it was fitted on and predicts each row's first feature."""

    fitted: list[list[list[float]]] = []

    def fit(self, x, y):
        RecordingModel.fitted.append(x)
        return self

    def predict(self, x):
        return [row[0] * 10 for row in x]


def _row(value: float, label: float) -> fc.Row:
    return ({"a": value}, {"accuracy": label}, {})


def test_each_set_is_predicted_by_a_fit_on_the_other_sets_only():
    RecordingModel.fitted = []
    sets = {"one": [_row(0.1, 1), _row(0.2, 2)], "two": [_row(0.3, 3)], "three": [_row(0.9, 5)]}
    predicted = fc.leave_one_set_out(sets, "accuracy", RecordingModel)
    trained_on = [sorted(v for (v,) in fit) for fit in RecordingModel.fitted]
    assert trained_on == [[0.3, 0.9], [0.1, 0.2, 0.9], [0.1, 0.2, 0.3]]
    # predictions are clipped to the 1-5 scale
    assert predicted == {"one": [1.0, 2.0], "two": [3.0], "three": [5.0]}


def test_agreement_counts_caught_and_flagged():
    rho, caught, flagged = fc.agreement([1, 3, 5, 2.5], [1, 2, 5, 4])
    assert caught == 0.5  # of the two labelled ≤ 2, one is scored ≤ 2.5
    assert flagged == 0.5  # of the two labelled ≥ 4, one is scored ≤ 3
    assert rho is not None and 0 < rho < 1


def test_features_read_the_judges_signals_and_skip_them_for_a_refusal():
    judges = offline_jury(fitted=False)
    reference = "주말 요금은 1시간에 12,000원입니다."

    def feats(answer: str) -> dict[str, float]:
        raw = {"question": "주말 요금은 얼마예요?", "generated_answer": answer, "reference_answer": reference}
        return fc.features(RagAnswerInput.model_validate(raw), judges)[0]

    right, wrong = feats("주말에는 한 시간에 12,000원이에요."), feats("주말에는 한 시간에 15,000원이에요.")
    assert right["offline-lexical shortcut"] == 0.0 and right["offline-lexical N"] > 0.5
    assert right["offline-numeric conflict 1"] == 0.0 and wrong["offline-numeric conflict 1"] == 1.0
    assert "offline-ngram finding figure-substitution" in wrong
    assert "offline-ngram finding figure-substitution" not in right
    assert wrong["offline-lexical rule accuracy"] < right["offline-lexical rule accuracy"]
    refusal = feats("문서에서 찾을 수 없습니다.")
    assert refusal["offline-lexical shortcut"] == 1.0 and not any(k.endswith(" N") for k in refusal)
