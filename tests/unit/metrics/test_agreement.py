"""Agreement statistics (assay.metrics.agreement) against scipy, the krippendorff package and
independent formulas; ``calibrate_scores`` on hand-checked rows; labels files with bad rows."""

from __future__ import annotations

import random
import re

import krippendorff
import numpy as np
import pytest
from scipy.stats import bootstrap, spearmanr

from assay.calibration import (
    CalibrationError,
    CalibrationRecord,
    HumanLabel,
    calibrate_scores,
    calibration_markdown,
    read_labels,
    with_section,
)
from assay.metrics import agreement as ag


def _kappa_reference(a: list[int], b: list[int]) -> float:
    """Quadratic-weighted κ in its squared-difference form: 1 − mean (a_i − b_i)² / mean over
    all i, j of (a_i − b_j)² (the expected disagreement of independent marginals)."""
    observed = sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) / len(a)
    expected = sum((x - y) ** 2 for x in a for y in b) / (len(a) * len(b))
    return 1 - observed / expected


def test_spearman_matches_scipy_with_ties():
    rnd = random.Random(7)
    for _ in range(200):
        n = rnd.randint(3, 25)
        xs = [rnd.choice([1, 2, 3, 4, 5, 2.5]) for _ in range(n)]
        ys = [rnd.choice([1, 2, 3, 4, 5]) for _ in range(n)]
        ours = ag.spearman(xs, ys)
        if len(set(xs)) == 1 or len(set(ys)) == 1:
            assert ours is None
        else:
            assert ours == pytest.approx(spearmanr(xs, ys).statistic, abs=1e-9)


def test_kappa_matches_the_squared_difference_form():
    rnd = random.Random(11)
    for _ in range(200):
        n = rnd.randint(2, 30)
        a = [rnd.randint(1, 5) for _ in range(n)]
        b = [rnd.randint(1, 5) for _ in range(n)]
        ours = ag.cohen_kappa_quadratic(a, b, (1, 5))
        expected = sum((x - y) ** 2 for x in a for y in b)
        if expected == 0:
            assert ours is None
        else:
            assert ours == pytest.approx(_kappa_reference(a, b), abs=1e-9)


def test_kappa_golden_values():
    assert ag.cohen_kappa_quadratic([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], (1, 5)) == pytest.approx(1.0)
    assert ag.cohen_kappa_quadratic([1, 5, 1, 5], [5, 1, 5, 1], (1, 5)) == pytest.approx(-1.0)
    # 2.5 rounds half up to 3; 4.67 rounds to 5
    assert ag.confusion([3, 5], [2.5, 4.67], (1, 5)) == [[0] * 5, [0] * 5, [0, 0, 1, 0, 0], [0] * 5, [0, 0, 0, 0, 1]]


def test_exact_and_within_one():
    human, jury = [1, 2, 3, 4, 5], [1, 3, 5, 4, 4.4]
    assert ag.exact_agreement(human, jury, (1, 5)) == pytest.approx(2 / 5)  # 4.4 rounds to 4, not 5
    assert ag.within_one(human, jury, (1, 5)) == pytest.approx(4 / 5)
    assert ag.exact_agreement([], [], (1, 5)) is None


def test_screen_rates_count_caught_and_flagged_and_mirror_lower_is_better():
    human = [1, 2, 2, 3, 4, 5, 5]
    jury = [2.5, 2.6, 1, 3, 3, 3.01, 5]
    # bad (≤ 2): 1, 2, 2 scored 2.5, 2.6, 1 → two caught; good (≥ 4): 4, 5, 5 scored 3, 3.01, 5 → one flagged
    assert ag.screen_rates(human, jury, (1, 5)) == (2 / 3, 1 / 3, 3, 3)
    # noise on 0-10, lower is better: people's 9 and 10 are the bad ones, the jury's 7 catches one
    noise = ag.screen_rates([10, 9, 1, 0], [7, 6, 6, 1], (0, 10), lower_is_better=True)
    assert noise == (0.5, 0.5, 2, 2)  # 7 ≥ 6.25 caught, 6 not; 6 ≥ 5 flagged, 1 not
    assert ag.screen_rates([3, 3], [1, 5], (1, 5)) == (None, None, 0, 0)


def test_bootstrap_interval_is_fixed_holds_the_estimate_and_matches_scipy():
    rnd = random.Random(5)
    human = [rnd.randint(1, 5) for _ in range(120)]
    jury = [min(5, max(1, h + rnd.choice([-2, -1, 0, 0, 1]))) for h in human]
    ours = ag.bootstrap_interval(ag.spearman, human, jury, resamples=2000)
    assert ours == ag.bootstrap_interval(ag.spearman, human, jury, resamples=2000)  # same labels, same interval
    assert ours[0] < ag.spearman(human, jury) < ours[1]
    ref = bootstrap(
        (human, jury), lambda h, j: spearmanr(h, j).statistic, paired=True, vectorized=False,
        n_resamples=2000, method="percentile", rng=np.random.default_rng(1),
    ).confidence_interval
    assert ours == pytest.approx((ref.low, ref.high), abs=0.03)  # another resampler's draws, the same interval
    # ten times the cases, the same relation: a narrower interval
    wide = ours[1] - ours[0]
    narrow = ag.bootstrap_interval(ag.spearman, human * 10, jury * 10)
    assert narrow[1] - narrow[0] < wide / 2


def test_bootstrap_interval_needs_cases_that_vary():
    assert ag.bootstrap_interval(ag.spearman, [1, 2, 3, 4], [1, 2, 3, 4]) is None  # under five cases
    assert ag.bootstrap_interval(ag.spearman, [1, 2, 3, 4, 5, 1], [3, 3, 3, 3, 3, 3]) is None  # constant jury
    with pytest.raises(ValueError, match="5 scores against 4"):
        ag.bootstrap_interval(ag.spearman, [1, 2, 3, 4, 5], [1, 2, 3, 4])


def test_alpha_matches_the_krippendorff_package():
    rnd = random.Random(3)
    for _ in range(100):
        raters, units = rnd.randint(2, 4), rnd.randint(3, 10)
        ratings = [[rnd.choice([1, 2, 3, 4, 5, None]) for _ in range(units)] for _ in range(raters)]
        data = np.array([[np.nan if v is None else v for v in row] for row in ratings], dtype=float)
        ours = ag.krippendorff_alpha(ratings, "interval")
        try:
            ref = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
        except (ValueError, ZeroDivisionError):
            ref = None
        if ref is None or not np.isfinite(ref):
            assert ours is None
        else:
            assert ours == pytest.approx(ref, abs=1e-9)


def _rows(values: dict[str, float], judges: dict[str, dict[str, float | None]]) -> list[dict]:
    rows = [{"case_id": c, "metric": "accuracy", "value": v, "scale": "1-5", "judge": None} for c, v in values.items()]
    for judge, scores in judges.items():
        rows += [{"case_id": c, "metric": "accuracy", "value": v, "scale": "1-5", "judge": judge} for c, v in scores.items()]
    return rows


def test_calibrate_scores_by_hand():
    rows = _rows({"a": 5, "b": 1, "c": 3}, {"j1": {"a": 5, "b": 1, "c": 4}, "j2": {"a": 4, "b": 2, "c": 3}})
    labels = [HumanLabel(case_id=c, metric="accuracy", score=s) for c, s in (("a", 5), ("b", 1), ("c", 2))]
    (m,) = calibrate_scores(rows, labels)
    assert m.jury is not None and m.jury.n == 3
    assert m.jury.exact == pytest.approx(2 / 3) and m.jury.within_one == pytest.approx(1.0)
    assert m.jury.spearman == pytest.approx(1.0)
    assert [j.predictor for j in m.judges] == ["j1", "j2"]
    assert m.confusion[1][2] == 1  # the case people scored 2 the jury scored 3
    ref = krippendorff.alpha(
        reliability_data=np.array([[5, 1, 4], [4, 2, 3], [5, 1, 2]], dtype=float), level_of_measurement="interval"
    )
    assert m.alpha_all == pytest.approx(ref)


def test_calibration_reports_intervals_and_the_screen():
    scores = {"a": 5, "b": 1, "c": 2, "d": 4, "e": 3, "f": 5, "g": 1}
    people = {"a": 5, "b": 1, "c": 1, "d": 5, "e": 4, "f": 4, "g": 2}
    rows = _rows(scores, {})
    (m,) = calibrate_scores(rows, [HumanLabel(case_id=c, metric="accuracy", score=s) for c, s in people.items()])
    assert (m.jury.caught, m.jury.n_bad) == (1.0, 3)  # b, c, g: all scored ≤ 2.5
    assert (m.jury.flagged, m.jury.n_good) == (0.25, 4)  # e (people 4) scored 3
    low, high = m.jury.spearman_interval
    assert low < m.jury.spearman < high <= 1.0
    assert m.jury.kappa_interval is not None
    text = calibration_markdown(CalibrationRecord(run_id="r", labels_file="l.csv", labels_sha256="0" * 64,
                                                  raters=["human"], metrics=[m]))
    assert f"{m.jury.spearman:.2f} [{low:.2f}, {high:.2f}]" in text
    assert "1.00 (3 of 3)" in text and "0.25 (1 of 4)" in text
    # every gap here is one point: the five are listed by case id; a and b (no gap) are not
    assert [(d.case_id, d.human, d.jury) for d in m.disagreements] == [
        ("c", 1, 2), ("d", 5, 4), ("e", 4, 3), ("f", 4, 5), ("g", 2, 1)]
    assert "Widest gaps for accuracy, the cases to read first: c (people 1, jury 2)" in text
    # a lower-is-better metric is mirrored: people's 9-10 noise is the bad quarter
    noise = [{"case_id": c, "metric": "noise", "value": v, "scale": "0-10", "judge": None}
             for c, v in (("a", 9), ("b", 1), ("c", 4))]
    labels = [HumanLabel(case_id=c, metric="noise", score=s) for c, s in (("a", 10), ("b", 0), ("c", 9))]
    (n,) = calibrate_scores(noise, labels, lower_is_better={"noise"})
    assert n.lower_is_better and (n.jury.caught, n.jury.n_bad) == (0.5, 2)


def test_counts_and_tenths_are_calibrated_on_their_own_categories():
    # hallucination counts: categories 0..the largest count given, no caught/flagged (no good end)
    rows = [{"case_id": c, "metric": "hallucination_count", "value": v, "scale": "count", "judge": None}
            for c, v in (("a", 0), ("b", 2), ("c", 5), ("d", 1))]
    people = [HumanLabel(case_id=c, metric="hallucination_count", score=s) for c, s in (("a", 0), ("b", 3), ("c", 4), ("d", 1))]
    (m,) = calibrate_scores(rows, people)
    assert m.categories == [0, 1, 2, 3, 4, 5] and sum(map(sum, m.confusion)) == 4
    assert (m.jury.exact, m.jury.within_one) == (0.5, 1.0)
    assert m.jury.caught is None and m.jury.flagged is None and m.jury.spearman == pytest.approx(1.0)
    with pytest.raises(CalibrationError, match="-1 is below 0"):
        calibrate_scores(rows, [HumanLabel(case_id="a", metric="hallucination_count", score=-1)])
    # citation accuracy on 0-1: tenths are the categories, as bench/jury_agreement.py steps them
    rows = [{"case_id": c, "metric": "citation_accuracy", "value": v, "scale": "0-1", "judge": None}
            for c, v in (("a", 0.85), ("b", 0.5), ("c", 0.1))]
    people = [HumanLabel(case_id=c, metric="citation_accuracy", score=s) for c, s in (("a", 0.9), ("b", 0.7), ("c", 0.2))]
    (m,) = calibrate_scores(rows, people)
    assert m.categories[:3] == [0.0, 0.1, 0.2] and len(m.categories) == 11
    assert m.jury.exact == pytest.approx(1 / 3)  # 0.85 rounds to 0.9; 0.5 is two tenths off; 0.1 one
    assert [d.case_id for d in m.disagreements] == ["b", "c"]  # 0.2 and 0.1 apart; a is 0.05 off
    assert m.jury.within_one == pytest.approx(2 / 3)


def test_unscored_cases_are_named_not_compared():
    rows = _rows({"a": 5, "b": 1}, {})
    rows.append({"case_id": "c", "metric": "accuracy", "value": None, "scale": "1-5", "judge": None,
                 "unscored_reason": "every judge failed"})
    labels = [HumanLabel(case_id=c, metric="accuracy", score=s) for c, s in (("a", 5), ("b", 1), ("c", 2))]
    (m,) = calibrate_scores(rows, labels)
    assert m.jury.n == 2 and m.unmatched == ["c: every judge failed"]


def test_labels_naming_unknown_cases_metrics_or_bad_scores_fail_clearly(tmp_path):
    rows = _rows({"a": 5}, {})
    with pytest.raises(CalibrationError, match="no metric 'relevance'"):
        calibrate_scores(rows, [HumanLabel(case_id="a", metric="relevance", score=3)])
    with pytest.raises(CalibrationError, match="no case 'zz'"):
        calibrate_scores(rows, [HumanLabel(case_id="zz", metric="accuracy", score=3)])
    with pytest.raises(CalibrationError, match="outside 1-5"):
        calibrate_scores(rows, [HumanLabel(case_id="a", metric="accuracy", score=7)])
    bad = tmp_path / "labels.csv"
    bad.write_text("case_id,metric,score\na,accuracy,4\nb,accuracy,four\n", encoding="utf-8")
    with pytest.raises(CalibrationError, match="line 3: score 'four' is not a number"):
        read_labels(bad)
    bad.write_text("case,metric,score\n", encoding="utf-8")
    with pytest.raises(CalibrationError, match="header lacks case_id"):
        read_labels(bad)
    jsonl = tmp_path / "labels.jsonl"
    jsonl.write_text('{"case_id": "a", "metric": "accuracy", "score": 4, "rater": "kim"}\n{"case_id": "b"\n', encoding="utf-8")
    with pytest.raises(CalibrationError, match="line 2: not valid JSON"):
        read_labels(jsonl)


def test_section_is_replaced_not_repeated():
    first = with_section("# r\n\n## Scores\nx\n", "## Calibration against human labels\n\none\n")
    second = with_section(first, "## Calibration against human labels\n\ntwo\n")
    assert second.count("## Calibration against human labels") == 1 and "two" in second and "one" not in second
    assert "## Scores" in second


def test_labels_with_non_finite_scores_or_deep_nesting_fail_naming_the_line(tmp_path):
    labels = tmp_path / "labels.jsonl"
    for line, why in [('{"case_id": "a", "metric": "accuracy", "score": 1e999}', "line 1: score: not a finite number"),
                      ('{"case_id": "a", "metric": "accuracy", "score": NaN}', "line 1: score: not a finite number"),
                      ("[" * 100_000 + "]" * 100_000, "line 1: value: nested too deep to read")]:
        labels.write_text(line + "\n", encoding="utf-8")
        with pytest.raises(CalibrationError, match=re.escape(why)):
            read_labels(labels)
    csv_labels = tmp_path / "labels.csv"
    csv_labels.write_text("case_id,metric,score\na,accuracy,inf\n", encoding="utf-8")
    with pytest.raises(CalibrationError, match="line 2: score 'inf' is not a finite number"):
        read_labels(csv_labels)
