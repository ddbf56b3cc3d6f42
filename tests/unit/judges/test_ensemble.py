"""Jury reducers (seed 000 §3.3) and Krippendorff's alpha."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from assay.judges.ensemble import (
    DEFAULT_WEIGHTS,
    aggregate_hallucination,
    aggregate_scores,
    aggregate_verdict_scores,
    merge_hallucination_cases,
    normalize_claim,
    scaled_threshold,
)
from assay.metrics.agreement import krippendorff_alpha

W = list(DEFAULT_WEIGHTS)

# -- seed 000 §3.3 golden tables ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("scores", "expected", "flag"),
    [
        # §3.3.1 weighted mean: 8·0.34 + 7.5·0.33 + 8.5·0.33 = 8.0
        ([8.0, 7.5, 8.5], 8.0, False),
        ([9.0, 7.0, 8.0], 9 * 0.34 + 7 * 0.33 + 8 * 0.33, False),
        # §3.3.2 range ≥ 3 → median, flagged
        ([9.0, 5.0, 8.0], 8.0, True),
        ([2.0, 9.0, 8.5], 8.5, True),
        # the boundary is inclusive: exactly 3.0 is a disagreement
        ([7.0, 4.0, 6.0], 6.0, True),
        ([7.0, 4.1, 6.0], 7 * 0.34 + 4.1 * 0.33 + 6 * 0.33, False),
        ([10.0, 10.0, 10.0], 10.0, False),
    ],
)
def test_seed_golden_table(scores, expected, flag):
    value, disagreement = aggregate_scores(scores, W)
    assert value == pytest.approx(expected)
    assert disagreement is flag


def test_default_weights_are_the_seeds():
    assert DEFAULT_WEIGHTS == (0.34, 0.33, 0.33)
    assert sum(DEFAULT_WEIGHTS) == pytest.approx(1.0)


def test_equal_weights_by_default():
    assert aggregate_scores([6.0, 7.0, 8.0]) == (pytest.approx(7.0), False)


def test_threshold_scales_to_the_field():
    assert scaled_threshold(3.0, (1.0, 5.0)) == pytest.approx(1.2)
    assert scaled_threshold(3.0, (0.0, 1.0)) == pytest.approx(0.3)
    # 1-5: range 1.2 disagrees, range 1.1 does not
    assert aggregate_scores([5.0, 3.8, 4.0], W, scale=(1.0, 5.0)) == (4.0, True)
    value, flag = aggregate_scores([5.0, 3.9, 4.0], W, scale=(1.0, 5.0))
    assert not flag and value == pytest.approx(5 * 0.34 + 3.9 * 0.33 + 4 * 0.33)
    # 0-1: 0.3 is the threshold
    assert aggregate_scores([1.0, 0.7, 0.9], W, scale=(0.0, 1.0)) == (0.9, True)


def test_dropped_judge_renormalises_weights():
    value, flag = aggregate_scores([8.0, None, 6.0], W)
    expected = (8 * 0.34 + 6 * 0.33) / (0.34 + 0.33)
    assert value == pytest.approx(expected)
    assert not flag
    # the same as passing only the judges that answered
    assert aggregate_scores([8.0, 6.0], [0.34, 0.33]) == (pytest.approx(expected), False)
    # one judge left: its score, no disagreement
    assert aggregate_scores([None, None, 4.0], W) == (4.0, False)


def test_dropped_judges_with_disagreement_use_median_of_the_rest():
    # two judges left, range 4 ≥ 3: the median of two is their mean
    assert aggregate_scores([9.0, None, 5.0], W) == (7.0, True)


@pytest.mark.parametrize(
    ("scores", "weights"),
    [
        ([], None),
        ([None, None, None], W),
        ([8.0, 7.0], W),  # length mismatch
        ([8.0, float("nan"), 7.0], W),
        ([8.0, float("inf"), 7.0], W),
        ([8.0, 7.0, 6.0], [0.5, -0.1, 0.6]),
        ([8.0, 7.5, 7.0], [0.0, 0.0, 0.0]),
    ],
)
def test_invalid_input_raises(scores, weights):
    with pytest.raises(ValueError):
        aggregate_scores(scores, weights)


def test_bad_scale_raises():
    with pytest.raises(ValueError):
        aggregate_scores([1.0, 2.0], scale=(5.0, 5.0))


# -- hallucination --------------------------------------------------------------------------------


def test_hallucination_median_count_min_accuracy():
    assert aggregate_hallucination([2, 5, 3], [0.9, 0.6, 0.8]) == (3.0, 0.6)
    assert aggregate_hallucination([0, 0, 1], [1.0, 1.0, 0.95]) == (0.0, 0.95)
    # seed §1.5: hallucination_score = (1 − (1 − min accuracy)) · 10
    count, accuracy = aggregate_hallucination([1, 4, 2], [0.8, 0.75, 0.9])
    assert (count, (1 - (1 - accuracy)) * 10) == (2.0, 7.5)


def test_hallucination_dropped_judge_and_even_count():
    assert aggregate_hallucination([2, None, 4], [0.5, None, 0.7]) == (3.0, 0.5)
    with pytest.raises(ValueError):
        aggregate_hallucination([], [])
    with pytest.raises(ValueError):
        aggregate_hallucination([None], [None])


class Case(BaseModel):
    type: str
    location: str
    description: str
    severity: int


def test_merge_cases_deduplicates_on_normalised_claim_in_order():
    a = [
        {
            "type": "citation_inaccuracy",
            "location": "1",
            "description": "시장 규모 3,500억 원 [SOURCE:1]",
            "severity": 2,
        },
        {"type": "exaggeration", "location": "2", "description": "급증", "severity": 1},
    ]
    b = [
        Case(type="unfounded_claims", location="x", description="  시장 규모 3,500억 원!  ", severity=2),
        {"claim": "새로운 주장", "reason": "출처 없음"},
    ]
    c = [{"description": "급증.", "type": "exaggeration", "location": "9", "severity": 1}]
    merged = merge_hallucination_cases([a, b, None, c])
    assert [m.get("description", m.get("claim")) for m in merged] == [
        "시장 규모 3,500억 원 [SOURCE:1]",
        "급증",
        "새로운 주장",
    ]
    assert merged[0]["location"] == "1"  # the first occurrence wins


def test_merge_cases_limit():
    lists = [[{"description": f"주장 {i}-{j}"} for j in range(5)] for i in range(4)]
    merged = merge_hallucination_cases(lists)
    assert len(merged) == 10
    assert merged[0]["description"] == "주장 0-0" and merged[-1]["description"] == "주장 1-4"
    assert len(merge_hallucination_cases(lists, limit=3)) == 3
    assert merge_hallucination_cases([]) == []


def test_normalize_claim():
    assert normalize_claim("Market  grew 25%! [SOURCE:2]") == normalize_claim("market grew 25%")


# -- aggregate_verdict_scores ---------------------------------------------------------------------


def test_aggregate_verdict_scores_per_field():
    per_judge = [
        {"citation_accuracy": 0.9, "hallucination_count": 1.0},
        None,  # dropped
        {"citation_accuracy": 0.5, "hallucination_count": 3.0},
    ]
    out = aggregate_verdict_scores(
        per_judge,
        scales={"citation_accuracy": (0.0, 1.0)},
        weights=W,
        reducers={"citation_accuracy": "min", "hallucination_count": "median"},
    )
    assert out == {"citation_accuracy": (0.5, False), "hallucination_count": (2.0, False)}
    jury = aggregate_verdict_scores(
        [{"accuracy": 5}, {"accuracy": 1}, {"accuracy": 4}], {"accuracy": (1.0, 5.0)}, W
    )
    assert jury == {"accuracy": (4.0, True)}
    assert aggregate_verdict_scores([None, None], {"accuracy": (1.0, 5.0)}) == {"accuracy": None}


# -- properties -----------------------------------------------------------------------------------

score = st.floats(min_value=0, max_value=10, allow_nan=False, allow_infinity=False)
weight = st.floats(min_value=0.01, max_value=10, allow_nan=False, allow_infinity=False)


@st.composite
def scored(draw, min_size=1, max_size=6):
    n = draw(st.integers(min_value=min_size, max_value=max_size))
    return draw(st.lists(score, min_size=n, max_size=n)), draw(st.lists(weight, min_size=n, max_size=n))


@given(scored())
def test_result_within_min_and_max(sw):
    scores, weights = sw
    value, _ = aggregate_scores(scores, weights)
    assert min(scores) - 1e-9 <= value <= max(scores) + 1e-9


@given(scored(), st.randoms(use_true_random=False))
def test_permutation_invariance(sw, rnd):
    scores, weights = sw
    order = list(range(len(scores)))
    rnd.shuffle(order)
    a = aggregate_scores(scores, weights)
    b = aggregate_scores([scores[i] for i in order], [weights[i] for i in order])
    assert a[1] == b[1]
    assert a[0] == pytest.approx(b[0], abs=1e-9)


@given(scored(), st.floats(min_value=0.1, max_value=100))
def test_weight_scale_invariance(sw, factor):
    scores, weights = sw
    a = aggregate_scores(scores, weights)
    b = aggregate_scores(scores, [w * factor for w in weights])
    assert a[1] == b[1] and a[0] == pytest.approx(b[0], abs=1e-9)


@given(
    scored(min_size=2),
    st.sampled_from([(1.0, 5.0), (0.0, 1.0), (0.0, 5.0), (0.0, 100.0), (-3.0, 7.0)]),
    st.floats(min_value=0.5, max_value=9.5),
)
def test_flag_is_scale_invariant(sw, scale, threshold):
    scores, weights = sw
    assume(abs((max(scores) - min(scores)) - threshold) > 1e-6)
    lo, hi = scale
    mapped = [lo + s * (hi - lo) / 10 for s in scores]
    v10, f10 = aggregate_scores(scores, weights, threshold)
    v, f = aggregate_scores(mapped, weights, threshold, scale=scale)
    assert f == f10
    assert v == pytest.approx(lo + v10 * (hi - lo) / 10, abs=1e-6)


@given(scored(min_size=2))
def test_flag_means_median(sw):
    scores, weights = sw
    value, flag = aggregate_scores(scores, weights)
    assert flag == (max(scores) - min(scores) >= 3.0 - 1e-9)
    if flag:
        assert value == pytest.approx(statistics.median(scores))


# -- Krippendorff's alpha vs the reference package --------------------------------------------------

krippendorff = pytest.importorskip("krippendorff")
np = pytest.importorskip("numpy")


def _reference(ratings, level):
    data = np.array([[np.nan if v is None else v for v in row] for row in ratings], dtype=float)
    try:
        with np.errstate(all="ignore"):
            value = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    except (ValueError, ZeroDivisionError):
        return None
    return None if value is None or math.isnan(value) else float(value)


KRIPPENDORFF_EXAMPLE = [  # Krippendorff (2011), the example with missing values
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_textbook_example(level):
    ours = krippendorff_alpha(KRIPPENDORFF_EXAMPLE, level)
    assert ours == pytest.approx(_reference(KRIPPENDORFF_EXAMPLE, level), abs=1e-9)
    if level == "nominal":
        assert ours == pytest.approx(0.743, abs=1e-3)
    if level == "interval":
        assert ours == pytest.approx(0.849, abs=1e-3)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_matches_package_on_random_data(level):
    rnd = random.Random(20240611)
    for _ in range(150):
        judges, units = rnd.randint(2, 4), rnd.randint(2, 9)
        ratings = [[rnd.choice([0, 1, 2, 3, 4, 5, 7.5, None]) for _ in range(units)] for _ in range(judges)]
        ours, ref = krippendorff_alpha(ratings, level), _reference(ratings, level)
        if ref is None:
            assert ours is None
        else:
            assert ours == pytest.approx(ref, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(
            st.one_of(st.none(), st.integers(min_value=1, max_value=5).map(float)), min_size=5, max_size=5
        ),
        min_size=2,
        max_size=4,
    )
)
def test_alpha_matches_package_property(ratings):
    ours, ref = krippendorff_alpha(ratings, "interval"), _reference(ratings, "interval")
    if ref is None:
        assert ours is None
    else:
        assert ours == pytest.approx(ref, abs=1e-9)


def test_alpha_edge_cases():
    assert krippendorff_alpha([]) is None
    assert krippendorff_alpha([[1, 2, 3]]) is None  # one judge: nothing pairable
    assert krippendorff_alpha([[3, 3], [3, 3]]) is None  # no variation: undefined
    assert krippendorff_alpha([[1, 2, 3, 4], [1, 2, 3, 4]]) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        krippendorff_alpha([[1, 2]], level="cardinal")  # type: ignore[arg-type]
