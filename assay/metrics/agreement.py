"""Agreement between raters: a jury against people, or judges among themselves.

Pure statistics over paired scores, used by ``assay calibrate`` and the jury's agreement figures:

- ``spearman``: rank correlation with average ranks for ties (None if either side is constant);
- ``cohen_kappa_quadratic``: Cohen's κ with quadratic weights over the integer categories of a
  scale (scores are rounded to the nearest category first);
- ``exact_agreement`` / ``within_one``: shares of pairs whose rounded scores are equal / differ by
  at most one category;
- ``confusion``: counts of (human category, jury category);
- ``krippendorff_alpha``: α over any number of raters with missing values (nominal, ordinal,
  interval or ratio distance);
- ``screen_rates``: how well the jury works as a screen: of the answers people scored bad, the
  share it scored bad (caught); of those people scored good, the share it scored at or below the
  scale's midpoint (flagged);
- ``bootstrap_interval``: a percentile bootstrap interval for any of these, cases resampled.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal, NamedTuple

import numpy as np


def _ranks(values: np.ndarray) -> np.ndarray:
    """Average ranks from 1, ties sharing the mean of their positions (vectorised: the bootstrap
    ranks thousands of resamples)."""
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    starts = np.r_[True, ordered[1:] != ordered[:-1]]  # where each run of equal values begins
    first = np.flatnonzero(starts)
    last = np.r_[first[1:], len(values)] - 1
    ranks = np.empty(len(values), dtype=float)
    ranks[order] = ((first + last) / 2 + 1)[np.cumsum(starts) - 1]
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's ρ (Pearson correlation of average ranks); None for < 2 pairs or a constant side."""
    if len(xs) != len(ys):
        raise ValueError(f"{len(xs)} scores against {len(ys)}")
    if len(xs) < 2:
        return None
    rx, ry = _ranks(np.asarray(xs, dtype=float)), _ranks(np.asarray(ys, dtype=float))
    rx, ry = rx - rx.mean(), ry - ry.mean()
    denom = math.sqrt(float((rx * rx).sum() * (ry * ry).sum()))
    return None if denom == 0 else float((rx * ry).sum() / denom)


def categories_of(scale: tuple[float, float]) -> list[int]:
    """The integer categories of a scale: (1, 5) → [1, 2, 3, 4, 5]."""
    lo, hi = scale
    return list(range(int(math.floor(lo)), int(math.ceil(hi)) + 1))


def _to_category(value: float, cats: list[int]) -> int:
    # Round half up (2.5 → 3), clipped to the scale.
    return min(max(int(math.floor(value + 0.5)), cats[0]), cats[-1])


def confusion(human: Sequence[float], jury: Sequence[float], scale: tuple[float, float]) -> list[list[int]]:
    """``table[i][j]``: pairs whose human score rounds to category i and jury score to j."""
    cats = categories_of(scale)
    if len(human) != len(jury):
        raise ValueError(f"{len(human)} scores against {len(jury)}")
    table = np.zeros((len(cats), len(cats)), dtype=int)
    if len(human):
        np.add.at(table, (_categories(human, cats) - cats[0], _categories(jury, cats) - cats[0]), 1)
    return table.tolist()


def _categories(values: Sequence[float], cats: list[int]) -> np.ndarray:
    """``_to_category`` over an array: round half up, clipped to the scale."""
    return np.clip(np.floor(np.asarray(values, dtype=float) + 0.5), cats[0], cats[-1]).astype(int)


def cohen_kappa_quadratic(human: Sequence[float], jury: Sequence[float], scale: tuple[float, float]) -> float | None:
    """Cohen's κ with quadratic weights; None when undefined (no pairs, or no expected disagreement)."""
    if not len(human):
        return None
    observed = np.asarray(confusion(human, jury, scale), dtype=float)
    k = observed.shape[0]
    idx = np.arange(k)
    weights = (idx[:, None] - idx[None, :]) ** 2 / max(1, (k - 1) ** 2)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / observed.sum()
    denom = float((weights * expected).sum())
    return None if denom == 0 else 1.0 - float((weights * observed).sum()) / denom


def exact_agreement(human: Sequence[float], jury: Sequence[float], scale: tuple[float, float]) -> float | None:
    cats = categories_of(scale)
    pairs = list(zip(human, jury, strict=True))
    if not pairs:
        return None
    return sum(_to_category(h, cats) == _to_category(j, cats) for h, j in pairs) / len(pairs)


def within_one(human: Sequence[float], jury: Sequence[float], scale: tuple[float, float]) -> float | None:
    cats = categories_of(scale)
    pairs = list(zip(human, jury, strict=True))
    if not pairs:
        return None
    return sum(abs(_to_category(h, cats) - _to_category(j, cats)) <= 1 for h, j in pairs) / len(pairs)


class Screen(NamedTuple):
    caught: float | None  # share of the bad cases the jury scored bad
    flagged: float | None  # share of the good cases the jury scored at or below the midpoint
    bad: int  # cases people scored bad
    good: int  # cases people scored good


def screen_rates(
    human: Sequence[float], jury: Sequence[float], scale: tuple[float, float], lower_is_better: bool = False
) -> Screen:
    """(caught, flagged) on a scale (lo, hi), after mirroring a lower-is-better metric: of the
    pairs people scored in the bottom quarter (≤ 2 on 1-5), the share the jury scored within the
    bottom 3/8 (≤ 2.5); of those people scored in the top quarter (≥ 4), the share the jury scored
    at or below the midpoint (≤ 3). None where people scored no pair in that quarter."""
    lo, hi = scale
    at = lambda frac: lo + frac * (hi - lo)  # noqa: E731
    eps = 1e-9
    mirror = (lambda v: lo + hi - v) if lower_is_better else (lambda v: v)  # noqa: E731
    pairs = [(mirror(h), mirror(j)) for h, j in zip(human, jury, strict=True)]
    bad = [j for h, j in pairs if h <= at(0.25) + eps]
    good = [j for h, j in pairs if h >= at(0.75) - eps]
    caught = sum(j <= at(0.375) + eps for j in bad) / len(bad) if bad else None
    flagged = sum(j <= at(0.5) + eps for j in good) / len(good) if good else None
    return Screen(caught, flagged, len(bad), len(good))


# Fewer pairs than this give no interval: resamples of 2-4 cases say nothing.
MIN_BOOTSTRAP_PAIRS = 5


def bootstrap_interval(
    statistic: Callable[[list[float], list[float]], float | None],
    human: Sequence[float],
    jury: Sequence[float],
    *,
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of ``statistic(human, jury)``: the pairs (cases) drawn with
    replacement ``resamples`` times, with a fixed seed so the same labels always give the same
    interval. None under ``MIN_BOOTSTRAP_PAIRS`` pairs, or when fewer than half the resamples
    give a value (one side constant in most of them)."""
    if len(human) != len(jury):
        raise ValueError(f"{len(human)} scores against {len(jury)}")
    n = len(human)
    if n < MIN_BOOTSTRAP_PAIRS:
        return None
    h, j = np.asarray(human, dtype=float), np.asarray(jury, dtype=float)
    rng = np.random.default_rng(seed)
    values = []
    for idx in rng.integers(0, n, size=(resamples, n)):
        value = statistic(h[idx].tolist(), j[idx].tolist())
        if value is not None and not math.isnan(value):
            values.append(value)
    if len(values) < resamples / 2:
        return None
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


Level = Literal["nominal", "ordinal", "interval", "ratio"]


def krippendorff_alpha(ratings: Sequence[Sequence[float | None]], level: Level = "interval") -> float | None:
    """Krippendorff's alpha for ``ratings[judge][unit]`` (``None`` or NaN = missing).

    Uses the coincidence matrix over pairable values (units with ≥ 2 ratings). Returns
    ``None`` when alpha is undefined: fewer than 2 pairable values, or no variation at all
    in the pairable values (expected disagreement 0).
    """
    if level not in ("nominal", "ordinal", "interval", "ratio"):
        raise ValueError(f"unknown level {level!r}")
    if not ratings:
        return None
    n_units = max(len(row) for row in ratings)
    units: list[list[float]] = []
    for u in range(n_units):
        vals = []
        for row in ratings:
            if u < len(row) and row[u] is not None:
                v = float(row[u])  # type: ignore[arg-type]
                if not math.isnan(v):
                    vals.append(v)
        if len(vals) >= 2:
            units.append(vals)
    if not units:
        return None
    domain = sorted({v for vals in units for v in vals})
    index = {v: i for i, v in enumerate(domain)}
    k = len(domain)
    coincidence = [[0.0] * k for _ in range(k)]
    for vals in units:
        m = len(vals)
        counts: dict[int, int] = {}
        for v in vals:
            counts[index[v]] = counts.get(index[v], 0) + 1
        for c, nc in counts.items():
            for d, nd in counts.items():
                pairs = nc * (nd - 1) if c == d else nc * nd
                coincidence[c][d] += pairs / (m - 1)
    marginals = [sum(row) for row in coincidence]
    n = sum(marginals)
    if n <= 1:
        return None

    def delta2(c: int, d: int) -> float:
        a, b = domain[c], domain[d]
        if level == "nominal":
            return 0.0 if c == d else 1.0
        if level == "interval":
            return (a - b) ** 2
        if level == "ratio":
            return 0.0 if a + b == 0 else ((a - b) / (a + b)) ** 2
        lo, hi = min(c, d), max(c, d)  # ordinal
        return (sum(marginals[lo : hi + 1]) - (marginals[c] + marginals[d]) / 2.0) ** 2

    observed = 0.0
    expected = 0.0
    for c in range(k):
        for d in range(k):
            if c == d and level != "ordinal":
                continue
            dist = delta2(c, d)
            observed += coincidence[c][d] * dist
            expected += marginals[c] * marginals[d] * dist
    observed /= n
    expected /= n * (n - 1)
    if expected <= 0:
        return None
    return 1.0 - observed / expected


