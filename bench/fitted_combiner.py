"""Would fitted models combine the offline jury's signals better than its hand-set rules?

The offline rules turn each judge's signals (for rag answers: coverages N, P, Q, figure
conflicts, claim findings, facts and concepts said, ``RagRules.rag_signals``; for memories:
facets answered, query coverage, stale values, other targets, noise, the memory rules' ``_signals``) into
scores by hand-set cut-offs, and the ensemble averages the three judges. Each rules round lifted
the labelled set it read and barely moved the next blind one. This bench asks whether fitting
the combination does better: it fits models on the same signals (each judge's rule scores and
signals, ``Stage.features`` in the suite's ``offline/stage.py``, with the rules alone) and scores
each labelled set with a model fitted on all the *other* sets (leave one set out): in-sample
plus the dev sets. Per set and field it prints Spearman / caught / flagged (as
``bench/jury_agreement.py`` defines them; caught and flagged only where a low score means a
bad answer, so not for memory noise) for the rules, the three judges combined four ways (the
jury's weighted mean, median, min, max), and each model, then the mean over sets.

On the dev sets the comparison favours the rules, which were tuned on them while each model
sees its test set for the first time. ``--score-fresh`` also fits each model on every set above
and scores the family's fresh set once: there, on sets nobody tuned on, the random forest ranked
answers better than the rules, which is why the jury has a fitted stage
(``assay/judges/offline/fitted.py``, written by ``bench/fit_forest.py``). Without
``--score-fresh`` the fresh set is never read.

    python bench/fitted_combiner.py [--prompt memory_usefulness] [--fields accuracy completeness] [--score-fresh]

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
from assay.judges.offline import offline_jury  # noqa: E402
from assay.judges.offline.fitted import Stage  # noqa: E402
from assay.judges.offline.suite_rules import fitted_stages  # noqa: E402
from assay.judges.prompts import get_prompt  # noqa: E402
from assay.schemas import JsonObject  # noqa: E402
from bench.jury_agreement import LabelledSet, heldout_sets, in_sample_set, summarise  # noqa: E402

STAGES = fitted_stages()  # prompt id -> its suite's fitted stage

# features, labels, and the rules' scores per way of combining the judges (then per field)
Row = tuple[dict[str, float], dict[str, float], dict[str, dict[str, float]]]
Scale = tuple[float, float]
# Ways of combining the three judges' rule scores: the jury's weighted mean, and three others.
COMBINE_JUDGES: dict[str, Callable[[list[float], list[float], Scale], float]] = {
    "rules: weighted mean": lambda scores, weights, scale: aggregate_scores(scores, weights, scale=scale)[0],
    "rules: median": lambda scores, _, __: statistics.median(scores),
    "rules: min": lambda scores, _, __: min(scores),
    "rules: max": lambda scores, _, __: max(scores),
}


def features(item: object, judges: Sequence, stage: Stage = STAGES["rag_answer"]) -> tuple[dict[str, float], list[JsonObject]]:
    """One row's named features, each judge's (``stage.features``: its rule scores, and when
    the rules read signals, those signals) under its name; and the judges' rule verdicts."""
    out: dict[str, float] = {}
    verdicts = []
    for judge in judges:
        verdict, signals = getattr(judge.rule_set(stage.prompt_id), stage.rule_verdict)(item)
        verdicts.append(verdict)
        out |= {f"{judge.name} {k}": v for k, v in stage.features(verdict, signals).items()}
    return out, verdicts


def stage_rows(labelled: LabelledSet, stage: Stage = STAGES["rag_answer"]) -> list[Row]:
    judges = offline_jury(fitted=False)  # the rules alone: the models stand in for the fitted stage
    weights = [j.weight for j in judges]
    model = get_prompt(stage.prompt_id).input_model
    rows = []
    for row in labelled.rows:
        if row.prompt_id != stage.prompt_id:
            continue
        x, verdicts = features(model.model_validate(row.input), judges, stage)
        rules = {
            name: {f: combine([float(v[f]) for v in verdicts], weights, stage.scale) for f in stage.fields}
            for name, combine in COMBINE_JUDGES.items()
        }
        rows.append((x, {f: float(row.label[f]) for f in stage.fields}, rules))
    return rows


def agreement(
    predicted: Sequence[float], labels: Sequence[float], scale: Scale | None = (1.0, 5.0)
) -> tuple[float | None, float | None, float | None]:
    """Spearman, caught and flagged as ``bench/jury_agreement.py`` counts them (on 1-5: caught is
    labelled ≤ 2 and scored ≤ 2.5, flagged is labelled ≥ 4 and scored ≤ 3); with no scale (a
    field where lower is better) only Spearman."""
    got = summarise([(p, y, 1.0) for p, y in zip(predicted, labels, strict=True)], scale)
    return got["rho"], got["caught"], got["flagged"]


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
    sets: dict[str, list[Row]], field: str, make: Callable, scale: Scale = (1.0, 5.0)
) -> dict[str, list[float]]:
    """Each set's predictions from a model fitted on every other set."""
    out = {}
    for name, test in sets.items():
        train = [row for other, rows in sets.items() if other != name for row in rows]
        out[name] = fit_and_predict(make, train, test, field, scale)
    return out


def fit_and_predict(
    make: Callable, train: list[Row], test: list[Row], field: str, scale: Scale = (1.0, 5.0)
) -> list[float]:
    """``test``'s predictions, clipped to the scale, from a model fitted on ``train`` (a feature
    a row lacks is 0)."""
    names = sorted({k for x, _, _ in train for k in x})

    def matrix(rows: list[Row]) -> list[list[float]]:
        return [[x.get(k, 0.0) for k in names] for x, _, _ in rows]

    model = make().fit(matrix(train), [y[field] for _, y, _ in train])
    lo, hi = scale
    return [min(hi, max(lo, float(p))) for p in model.predict(matrix(test))]


def _cell(values: tuple[float | None, ...]) -> str:
    return " / ".join("  - " if v is None else f"{v:.2f}" for v in values)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompt", choices=sorted(STAGES), default="rag_answer")
    parser.add_argument("--fields", nargs="+", help="default: accuracy and completeness (rag), every field (memory)")
    parser.add_argument(
        "--score-fresh", action="store_true",
        help="also fit each model on every other set and score the fresh set with it, once (measure; never tune on it)",
    )
    args = parser.parse_args(argv)
    stage = STAGES[args.prompt]
    fields = args.fields or (["accuracy", "completeness"] if stage.prompt_id == "rag_answer" else list(stage.fields))
    unknown = set(fields) - set(stage.fields)
    if unknown:
        parser.error(f"{stage.prompt_id} has no field(s) {sorted(unknown)}; it has {list(stage.fields)}")

    heldout = heldout_sets()
    fresh = next(s for s in heldout if stage.suite in s.fresh)
    # Every set but the fresh one: only --score-fresh reads that, and never to fit.
    dev = [s for s in heldout if s.version < fresh.version]
    labelled = [in_sample_set(ROOT / "datasets" / "judgments" / "labelled.jsonl"), *dev]
    sets = {s.short: rows for s in labelled if (rows := stage_rows(s, stage))}
    print(f"{stage.prompt_id}: {sum(map(len, sets.values()))} labelled rows in {len(sets)} sets (the fresh set is not read); "
          f"{len({k for rows in sets.values() for x, _, _ in rows for k in x})} features")
    print("each cell: Spearman / caught / flagged; a model's cell is from a fit on the other sets")
    makers = models()
    width = max(map(len, [*COMBINE_JUDGES, *makers]))
    for field in fields:
        scale = _judged_scale(stage, field)
        fitted = {name: leave_one_set_out(sets, field, make, stage.scale) for name, make in makers.items()}
        predicted = {
            **{name: {s: [r[name][field] for _, _, r in rows] for s, rows in sets.items()} for name in COMBINE_JUDGES},
            **fitted,
        }
        print(f"\n== {field}: Spearman / caught / flagged")
        print(f"{'predictor':{width}}  " + "  ".join(f"{s:>18}" for s in sets) + f"  {'mean':>18}")
        for name, by_set in predicted.items():
            cells = [agreement(by_set[s], [y[field] for _, y, _ in rows], scale) for s, rows in sets.items()]
            mean = tuple(
                statistics.mean(v) if (v := [c[i] for c in cells if c[i] is not None]) else None for i in range(3)
            )
            print(f"{name:{width}}  " + "  ".join(f"{_cell(c):>18}" for c in cells) + f"  {_cell(mean):>18}")
    if args.score_fresh:
        score_fresh(stage, sets, stage_rows(fresh, stage), fresh.short, fields, makers)
    return 0


def _judged_scale(stage: Stage, field: str) -> Scale | None:
    """The field's scale for caught and flagged; None where lower is better (memory noise)."""
    return None if field in get_prompt(stage.prompt_id).lower_is_better else stage.scale


def score_fresh(
    stage: Stage, sets: dict[str, list[Row]], fresh: list[Row], name: str, fields: Sequence[str],
    makers: dict[str, Callable],
) -> None:
    """The fresh set scored by the rules and by each model fitted on every other set."""
    train = [row for rows in sets.values() for row in rows]
    print(f"\n== {name} ({len(fresh)} rows), each model fitted on the {len(train)} rows above: "
          "Spearman / caught / flagged")
    width = max(map(len, [*COMBINE_JUDGES, *makers]))
    for field in fields:
        scale = _judged_scale(stage, field)
        labels = [y[field] for _, y, _ in fresh]
        print(f"-- {field}")
        for rule in COMBINE_JUDGES:
            print(f"{rule:{width}}  {_cell(agreement([r[rule][field] for _, _, r in fresh], labels, scale))}")
        for model_name, make in makers.items():
            predicted = fit_and_predict(make, train, fresh, field, stage.scale)
            print(f"{model_name:{width}}  {_cell(agreement(predicted, labels, scale))}")


if __name__ == "__main__":
    raise SystemExit(main())
