"""Fit an offline fitted stage (rag_answer or memory_usefulness) and write its forests to
the path its suite's ``Stage`` names (``assay/suites/<suite>/offline/<name>_forest.json``).

One random forest per offline judge (lexical, ngram, numeric), each predicting all of the
family's scores together from that judge's rule scores and signals (``Stage.features``, declared in
the suite's ``offline/stage.py``; the rules run alone, without a fitted stage, so the forest
never learns from itself). Training rows: the in-sample labels and the held-out versions up to
``--last-dev``; the family's fresh held-out set (the newest with its suite's rows) is refused,
so a fit can never see the set that measures it.

    python bench/fit_forest.py --prompt rag_answer --last-dev 8           # write the model file
    python bench/fit_forest.py --prompt memory_usefulness --last-dev 9 --check   # refit, compare

The fit is deterministic (fixed seed): ``--check`` says whether the stored file is what this
code fits on these labels. Needs scikit-learn (installed with sentence-transformers); using
the forest does not.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from assay.judges.offline import offline_jury  # noqa: E402
from assay.judges.offline.fitted import Stage  # noqa: E402
from assay.judges.offline.suite_rules import fitted_stages  # noqa: E402
from assay.judges.prompts import get_prompt  # noqa: E402
from bench.jury_agreement import LabelledSet, heldout_sets, in_sample_set  # noqa: E402

STAGES = fitted_stages()  # prompt id -> its suite's fitted stage

PARAMS = {"n_estimators": 100, "min_samples_leaf": 8, "random_state": 0}
Example = tuple[dict[str, float], list[float]]  # features, labels in the stage's field order


def training_sets(stage: Stage, last_dev: int) -> list[LabelledSet]:
    """In-sample plus held-out v1..v``last_dev``; the stage's fresh set (the newest with its
    suite's rows) is refused."""
    heldout = heldout_sets()
    fresh = [s.version for s in heldout if stage.suite in s.fresh]
    if fresh and last_dev >= fresh[0]:
        raise SystemExit(f"--last-dev {last_dev} would fit on v{fresh[0]}, the fresh {stage.suite} set that measures the fit")
    chosen = [s for s in heldout if s.version <= last_dev]
    return [in_sample_set(ROOT / "datasets" / "judgments" / "labelled.jsonl"), *chosen]


def examples(stage: Stage, sets: Sequence[LabelledSet]) -> dict[str, list[Example]]:
    """Per judge signal, one (features, labels) per labelled row of the stage's prompt."""
    judges = offline_jury(fitted=False)
    model = get_prompt(stage.prompt_id).input_model
    out: dict[str, list[Example]] = {j.signal: [] for j in judges}
    for labelled in sets:
        for row in labelled.rows:
            if row.prompt_id != stage.prompt_id:
                continue
            item = model.model_validate(row.input)
            labels = [float(row.label[f]) for f in stage.fields]
            for judge in judges:
                verdict, signals = getattr(judge.rule_set(stage.prompt_id), stage.rule_verdict)(item)
                out[judge.signal].append((stage.features(verdict, signals), labels))
    return out


def fit_forest(rows: list[Example], outputs: Sequence[str]) -> dict:
    """A multi-output random forest on ``rows``, as the JSON ``assay.judges.offline.forest`` reads."""
    from sklearn.ensemble import RandomForestRegressor

    features = sorted({name for x, _ in rows for name in x})
    model = RandomForestRegressor(**PARAMS).fit(
        [[x.get(name, 0.0) for name in features] for x, _ in rows], [y for _, y in rows]
    )
    trees = []
    for estimator in model.estimators_:
        t = estimator.tree_
        trees.append({
            "feature": [int(f) if left != -1 else -1 for f, left in zip(t.feature, t.children_left, strict=True)],
            "threshold": [float(v) if left != -1 else 0.0 for v, left in zip(t.threshold, t.children_left, strict=True)],
            "left": [int(v) for v in t.children_left],
            "right": [int(v) for v in t.children_right],
            "value": [[round(float(v[0]), 5) for v in node] for node in t.value],
        })
    return {"features": features, "outputs": list(outputs), "trees": trees}


def model_document(stage: Stage, sets: Sequence[LabelledSet], per_judge: dict[str, list[Example]]) -> dict:
    import sklearn

    rows = len(next(iter(per_judge.values())))
    return {
        "about": f"Fitted stage of the offline {stage.prompt_id} judges: one random forest per judge. "
        "Written by bench/fit_forest.py; read by assay/judges/offline/forest.py (never unpickled).",
        "fitted_on": {"sets": [f"v{s.version}" if s.version else "in-sample" for s in sets], "rows": rows},
        "params": PARAMS,
        "scikit_learn": sklearn.__version__,
        "judges": {signal: fit_forest(examples_, stage.fields) for signal, examples_ in per_judge.items()},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompt", choices=sorted(STAGES), default="rag_answer", help="the family whose stage to fit")
    parser.add_argument("--last-dev", type=int, required=True, help="fit on held-out versions up to this one")
    parser.add_argument("--out", type=Path, help="default: the stage's model file")
    parser.add_argument("--check", action="store_true", help="compare a refit with --out instead of writing it")
    args = parser.parse_args(argv)

    stage = STAGES[args.prompt]
    out = args.out or stage.model_path
    sets = training_sets(stage, args.last_dev)
    per_judge = examples(stage, sets)
    document = model_document(stage, sets, per_judge)
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"
    rows = document["fitted_on"]["rows"]
    nodes = sum(len(t["feature"]) for f in document["judges"].values() for t in f["trees"])
    print(f"fitted on {rows} labelled {stage.prompt_id} rows from {', '.join(document['fitted_on']['sets'])}; "
          f"{len(document['judges'])} forests, {nodes} nodes")
    if args.check:
        same = out.exists() and out.read_text(encoding="utf-8") == text
        print(f"{out}: {'identical to the refit' if same else 'DIFFERS from the refit'}")
        return 0 if same else 1
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out} ({len(text.encode()) / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
