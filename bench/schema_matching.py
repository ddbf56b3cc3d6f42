"""Benchmark report schema matching on the labelled header/field pairs.

    python bench/schema_matching.py [--no-embedding]

Prints accuracy, precision and recall, overall and per team type, for the dev half (used
while tuning the dictionary and threshold) and the held-out half (not looked at while
tuning), for:
  * assay          — exact → synonym → lexical matcher (assay.suites.report.schema_match)
  * assay−phrases  — ablation: without the phrase synonyms (exact → lexical only)
  * assay+MiniLM   — the same plus the bundled English all-MiniLM-L6-v2 on Latin-script headers
  * MiniLM cos≥.65 — the seed's rule with the only bundled model: cosine(header, Korean field
                     name) ≥ 0.65, for comparison
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assay.paths import datasets_dir  # noqa: E402
from assay.suites.report.schema_match import (  # noqa: E402
    header_scores,
    load_embedder,
    normalize_header,
    resolve_team_type,
)

Pair = dict[str, Any]
Predict = Callable[[Pair], bool]


def load_pairs() -> list[Pair]:
    path = datasets_dir() / "report" / "labels" / "schema_pairs.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def stats(rows: list[tuple[bool, bool]]) -> str:
    tp = sum(p and g for p, g in rows)
    fp = sum(p and not g for p, g in rows)
    fn = sum(g and not p for p, g in rows)
    acc = sum(p == g for p, g in rows) / len(rows)
    prec = tp / (tp + fp) if tp + fp else float("nan")
    rec = tp / (tp + fn) if tp + fn else float("nan")
    return f"n={len(rows):3d}  acc={acc:.3f}  prec={prec:.3f}  rec={rec:.3f}"


def report(name: str, pairs: list[Pair], predict: Predict) -> None:
    for split in ("dev", "heldout"):
        subset = [p for p in pairs if p["split"] == split]
        preds = [(predict(p), p["match"], p["team_type"]) for p in subset]
        print(f"{name:15s} {split:8s} all           {stats([(p, g) for p, g, _ in preds])}")
        for team in sorted({t for _, _, t in preds}):
            print(f"{'':15s} {'':8s} {team:13s} {stats([(p, g) for p, g, t in preds if t == team])}")


def assay_predict(embedder=None) -> Predict:
    def predict(pair: Pair) -> bool:
        return header_scores(pair["header"], resolve_team_type(pair["team_type"]), embedder)[pair["field"]][1] is not None

    return predict


def no_phrase_predict() -> Predict:
    import assay.suites.report.schema_match as sm

    def predict(pair: Pair) -> bool:
        original = sm._strong_step
        sm._strong_step = lambda header, field: "exact" if original(header, field) == "exact" else None
        try:
            return assay_predict()(pair)
        finally:
            sm._strong_step = original

    return predict


def minilm_predict(model) -> Predict:
    def predict(pair: Pair) -> bool:
        field = next(f for f in resolve_team_type(pair["team_type"]).fields if f.key == pair["field"])
        a, b = model.encode([normalize_header(pair["header"]), field.name], normalize_embeddings=True)
        return float(a @ b) >= 0.65

    return predict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-embedding", action="store_true", help="skip the MiniLM rows (no torch)")
    args = parser.parse_args()
    pairs = load_pairs()
    print(f"{len(pairs)} labelled pairs: "
          + ", ".join(f"{s} {sum(p['split'] == s for p in pairs)}" for s in ("dev", "heldout")))
    report("assay", pairs, assay_predict())
    report("assay−phrases", pairs, no_phrase_predict())
    if not args.no_embedding:
        embedder = load_embedder("bundled")
        report("assay+MiniLM", pairs, assay_predict(embedder))
        report("MiniLM cos≥.65", pairs, minilm_predict(embedder.model))


if __name__ == "__main__":
    main()
