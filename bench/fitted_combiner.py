"""Would a fitted model combine the offline jury's rag signals better than its rules do?

The offline rag rules turn each judge's signals (coverages N, P, Q, figure conflicts, claim
findings, facts and concepts said: ``RagRules.rag_signals``) into 1-5 scores by hand-set
cut-offs, and the ensemble averages the three judges. Each rules round lifted the labelled set
it read and barely moved the next blind one, so the question is whether the *combination* is
what fails on new data, or the signals themselves.

This bench fits models on the same signals (the three judges' scores, their coverages and
claim checks, one indicator per finding rule) and scores each labelled set with a model fitted
on all the *other* sets (leave one set out): in-sample plus the dev sets. The fresh set is
never read, so this bench cannot spoil it. Per set and field it prints Spearman / caught /
flagged (as ``bench/jury_agreement.py`` defines them) for the rules, the three judges combined
four ways (the jury's weighted mean, median, min, max), and for each model, then the mean over
sets.

Caveat that favours the rules: they were tuned on these same sets, while each model sees its
test set's rows for the first time. A model that still does no better says the signals, not
their combination, limit agreement.

    python bench/fitted_combiner.py [--fields accuracy completeness]

Prints ratios; asserts nothing. Needs scikit-learn (installed with sentence-transformers).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from assay.judges.ensemble import aggregate_scores  # noqa: E402
from assay.judges.offline import claims as cl  # noqa: E402
from assay.judges.offline import offline_jury  # noqa: E402
from assay.judges.offline import text as tx  # noqa: E402
from assay.judges.prompts import RagAnswerInput, get_prompt  # noqa: E402
from assay.metrics.agreement import spearman  # noqa: E402
from bench.jury_agreement import LabelledSet, heldout_sets, in_sample_set  # noqa: E402

FIELDS = ("accuracy", "completeness", "relevance")
# features, labels, and the rules' scores per way of combining the judges (then per field)
Row = tuple[dict[str, float], dict[str, float], dict[str, dict[str, float]]]
# Ways of combining the three judges' rule scores: the jury's weighted mean, and three others.
COMBINE_JUDGES: dict[str, Callable[[list[float], list[float]], float]] = {
    "rules: weighted mean": lambda scores, weights: aggregate_scores(scores, weights, scale=(1.0, 5.0))[0],
    "rules: median": lambda scores, _: statistics.median(scores),
    "rules: min": lambda scores, _: min(scores),
    "rules: max": lambda scores, _: max(scores),
}


def takes_shortcut(item: RagAnswerInput) -> bool:
    """The answers the rules score without reading signals: empty, a refusal, an answer where
    the reference has none, or in another script (``RagRules.rag_answer``'s first branches)."""
    answer, reference = item.generated_answer, item.reference_answer
    return (
        not tx.normalize(answer)
        or cl.refuses(answer, reference, item.question)
        or cl.reference_refuses(reference)
        or cl.cross_language(answer, reference)
    )


def features(item: RagAnswerInput, verdicts: Sequence[dict], judges: Sequence) -> dict[str, float]:
    """One row's named features: each judge's three scores, then (when the rules read signals)
    each judge's coverages, conflict level and claim checks, and a 1 per finding rule found."""
    out = {f"{j.name} {f}": float(v[f]) for j, v in zip(judges, verdicts, strict=True) for f in FIELDS}
    out["shortcut"] = float(takes_shortcut(item))
    if out["shortcut"]:
        return out
    for judge in judges:
        s = judge.rag_signals(item)
        out |= {
            f"{judge.name} N": s.n, f"{judge.name} P": s.p, f"{judge.name} Q": s.q,
            f"{judge.name} conflict 1": float(s.level == 1), f"{judge.name} conflict 2": float(s.level >= 2),
            f"{judge.name} facts": s.facts_in / s.facts_total if s.facts_total else 1.0,
            f"{judge.name} no facts": float(s.facts_total == 0),
            f"{judge.name} meaning": s.meaning if s.meaning_size else 0.0,
            f"{judge.name} agrees": float(s.agrees), f"{judge.name} aside": float(bool(s.aside)),
        }
        out |= {f"finding {f.rule}": 1.0 for f in s.findings}
    return out


def rag_rows(labelled: LabelledSet) -> list[Row]:
    prompt = get_prompt("rag_answer")
    judges = offline_jury()
    weights = [j.weight for j in judges]
    rows = []
    for row in labelled.rows:
        if row.prompt_id != "rag_answer":
            continue
        item = RagAnswerInput.model_validate(row.input)
        verdicts = [judge.verdict(prompt, row.input) for judge in judges]
        rules = {
            name: {f: combine([float(v[f]) for v in verdicts], weights) for f in FIELDS}
            for name, combine in COMBINE_JUDGES.items()
        }
        rows.append((features(item, verdicts, judges), {f: float(row.label[f]) for f in FIELDS}, rules))
    return rows


def agreement(predicted: Sequence[float], labels: Sequence[float]) -> tuple[float | None, float | None, float | None]:
    """Spearman, caught (labelled ≤ 2, scored ≤ 2.5) and flagged (labelled ≥ 4, scored ≤ 3)."""
    wrong = [p for p, y in zip(predicted, labels, strict=True) if y <= 2]
    right = [p for p, y in zip(predicted, labels, strict=True) if y >= 4]
    caught = sum(p <= 2.5 for p in wrong) / len(wrong) if wrong else None
    flagged = sum(p <= 3 for p in right) / len(right) if right else None
    return spearman(list(predicted), list(labels)), caught, flagged


def models() -> dict[str, Callable]:
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor
    from sklearn.linear_model import Ridge

    return {
        "ridge": lambda: Ridge(alpha=3.0),
        "boosted trees": lambda: GradientBoostingRegressor(
            n_estimators=150, max_depth=2, learning_rate=0.05, subsample=0.8, random_state=0
        ),
        "random forest": lambda: RandomForestRegressor(n_estimators=300, min_samples_leaf=5, random_state=0),
    }


def leave_one_set_out(
    sets: dict[str, list[Row]], field: str, make: Callable
) -> dict[str, list[float]]:
    """Each set's predictions from a model fitted on every other set, clipped to 1-5 (a
    feature a row lacks is 0)."""
    names = sorted({k for rows in sets.values() for x, _, _ in rows for k in x})

    def matrix(rows: list[Row]) -> list[list[float]]:
        return [[x.get(k, 0.0) for k in names] for x, _, _ in rows]

    out = {}
    for name, test in sets.items():
        train = [row for other, rows in sets.items() if other != name for row in rows]
        model = make().fit(matrix(train), [y[field] for _, y, _ in train])
        out[name] = [min(5.0, max(1.0, float(p))) for p in model.predict(matrix(test))]
    return out


def _cell(values: tuple[float | None, ...]) -> str:
    return " / ".join("  - " if v is None else f"{v:.2f}" for v in values)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fields", nargs="+", choices=FIELDS, default=["accuracy", "completeness"])
    args = parser.parse_args(argv)

    # Every held-out set but the newest (fresh) one: this bench must never read that one.
    labelled = [in_sample_set(ROOT / "datasets" / "judgments" / "labelled.jsonl"), *heldout_sets()[:-1]]
    sets = {s.short: rows for s in labelled if (rows := rag_rows(s))}
    print(f"rag_answer: {sum(map(len, sets.values()))} labelled rows in {len(sets)} sets (the fresh set is not read); "
          f"{len({k for rows in sets.values() for x, _, _ in rows for k in x})} features")
    print("each cell: Spearman / caught / flagged; a model's cell is from a fit on the other sets")
    makers = models()
    width = max(map(len, [*COMBINE_JUDGES, *makers]))
    for field in args.fields:
        fitted = {name: leave_one_set_out(sets, field, make) for name, make in makers.items()}
        predicted = {
            **{name: {s: [r[name][field] for _, _, r in rows] for s, rows in sets.items()} for name in COMBINE_JUDGES},
            **fitted,
        }
        print(f"\n== {field}: Spearman / caught / flagged")
        print(f"{'predictor':{width}}  " + "  ".join(f"{s:>18}" for s in sets) + f"  {'mean':>18}")
        for name, by_set in predicted.items():
            cells = [agreement(by_set[s], [y[field] for _, y, _ in rows]) for s, rows in sets.items()]
            mean = tuple(
                statistics.mean(v) if (v := [c[i] for c in cells if c[i] is not None]) else None for i in range(3)
            )
            print(f"{name:{width}}  " + "  ".join(f"{_cell(c):>18}" for c in cells) + f"  {_cell(mean):>18}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
