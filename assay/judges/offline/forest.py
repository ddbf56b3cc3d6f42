"""A fitted random forest read from JSON and evaluated in plain Python.

The forest is data, not code: no pickle is ever loaded, and scikit-learn is needed only to fit
one (``bench/fit_forest.py``), never to use it. Each tree is stored as parallel arrays in
scikit-learn's layout (node ``i``: ``feature[i]`` and ``threshold[i]``, children ``left[i]`` and
``right[i]``, ``-1`` at a leaf; ``value[i]`` the mean target of the training rows at the node).
A row goes left when its feature is ``<= threshold``, as in scikit-learn.

Besides the prediction, ``explain`` splits it into the forest's mean and one contribution per
feature: along each tree's path every split moves the node value, and the move is credited to
the split's feature. The contributions add up to the prediction exactly, so a verdict can say
which signals moved the score and by how much.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


class ForestFormatError(ValueError):
    """The forest file does not hold a well-formed forest."""


@dataclass(frozen=True)
class Tree:
    feature: tuple[int, ...]
    threshold: tuple[float, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]
    value: tuple[tuple[float, ...], ...]

    def path(self, row: Sequence[float]) -> list[int]:
        node, out = 0, [0]
        while self.left[node] != -1:
            node = self.left[node] if row[self.feature[node]] <= self.threshold[node] else self.right[node]
            out.append(node)
        return out


@dataclass(frozen=True)
class Explained:
    """A prediction per output; for the explained output, the forest's mean (its bias) and per
    feature the move it made (they add up to that output's prediction)."""

    prediction: tuple[float, ...]
    bias: float
    contributions: dict[str, float]


@dataclass(frozen=True)
class Forest:
    features: tuple[str, ...]
    outputs: tuple[str, ...]
    trees: tuple[Tree, ...]

    @classmethod
    def from_json(cls, data: Mapping) -> Forest:
        """Checks the shape as it reads: every index in range, one value per output."""
        try:
            features = tuple(str(f) for f in data["features"])
            outputs = tuple(str(o) for o in data["outputs"])
            trees = tuple(_tree(t, len(features), len(outputs)) for t in data["trees"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ForestFormatError(f"not a forest: {exc}") from None
        if not trees:
            raise ForestFormatError("not a forest: no trees")
        return cls(features, outputs, trees)

    def row(self, named: Mapping[str, float]) -> list[float]:
        """A feature vector in the forest's order; a feature the row lacks is 0."""
        return [float(named.get(name, 0.0)) for name in self.features]

    def predict(self, named: Mapping[str, float]) -> tuple[float, ...]:
        return self.explain(named).prediction

    def explain(self, named: Mapping[str, float], output: int = 0) -> Explained:
        """The prediction of every output, and the forest's mean and each feature's move for
        ``output`` alone (the feedback names what moved one score; tracking one is cheaper)."""
        row = self.row(named)
        sums = [0.0] * len(self.outputs)
        bias = 0.0
        moves: dict[int, float] = {}
        for tree in self.trees:
            path = tree.path(row)
            for i, v in enumerate(tree.value[path[-1]]):
                sums[i] += v
            values = tree.value
            bias += values[0][output]
            for parent, child in itertools.pairwise(path):
                feature = tree.feature[parent]
                moves[feature] = moves.get(feature, 0.0) + values[child][output] - values[parent][output]
        n = len(self.trees)
        return Explained(
            prediction=tuple(total / n for total in sums),
            bias=bias / n,
            contributions={self.features[f]: move / n for f, move in moves.items()},
        )


def _tree(data: Mapping, n_features: int, n_outputs: int) -> Tree:
    feature = tuple(int(x) for x in data["feature"])
    threshold = tuple(float(x) for x in data["threshold"])
    left = tuple(int(x) for x in data["left"])
    right = tuple(int(x) for x in data["right"])
    value = tuple(tuple(float(v) for v in node) for node in data["value"])
    n = len(feature)
    if not n or any(len(a) != n for a in (threshold, left, right, value)):
        raise ValueError("a tree's arrays differ in length")
    for i in range(n):
        if len(value[i]) != n_outputs:
            raise ValueError(f"node {i} has {len(value[i])} values for {n_outputs} outputs")
        if left[i] == -1:
            continue
        # children come after their parent (scikit-learn's depth-first order), so no cycle
        if not (i < left[i] < n and i < right[i] < n and 0 <= feature[i] < n_features):
            raise ValueError(f"node {i} points outside the tree")
    return Tree(feature, threshold, left, right, value)
