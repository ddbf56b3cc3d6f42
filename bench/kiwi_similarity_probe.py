"""Does Kiwi's word-embedding similarity tell right rag answers from wrong ones? A probe, not a judge.

kiwipiepy's default model (CoNg, shipped offline in the ``kiwipiepy_model`` package the project
already installs) carries embeddings of Korean morphemes: ``Kiwi.morpheme_similarity`` gives a
cosine in [-1, 1] (요금/수수료 0.61, 환불/반환 0.65). It is the one semantic signal for Korean
that installs here without a hub download, so this script measures whether it adds anything to
the rag_answer fitted stage (``docs/judges.md``, "Kiwi word similarity, measured").

Per labelled rag_answer row, four "soft alignment" features between the reference and the
answer, over content morphemes (nouns, verb and adjective stems, roots, numerals, Latin words)
and leaving out the question's own words, so repeating the question earns nothing:

- ``soft recall``: mean over the reference's morphemes of the best similarity in the answer;
- ``soft recall 0.6``: the share of them with a match of at least 0.6 (near synonyms);
- ``soft precision``: mean over the answer's morphemes of the best similarity in the reference
  and question;
- ``soft novel``: the share of the answer's morphemes with no match of 0.4 (said from nowhere).

It prints each feature's Spearman with the accuracy label, then ``bench/fitted_combiner.py``'s
leave-one-set-out comparison with its random forest: each labelled set scored by a forest fitted
on every other set on the three judges' signals, with and without the four features.

    python bench/kiwi_similarity_probe.py --last-dev 15

Dev sets only: the fresh rag_qa set is refused, as in ``bench/fit_forest.py``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from assay.judges.offline.fitted import Stage  # noqa: E402
from assay.judges.offline.suite_rules import fitted_stages  # noqa: E402
from assay.judges.prompts import get_prompt  # noqa: E402
from bench.fit_forest import training_sets  # noqa: E402
from bench.fitted_combiner import Row, _cell, agreement, leave_one_set_out, models, stage_rows  # noqa: E402
from bench.jury_agreement import LabelledSet  # noqa: E402

STAGES = fitted_stages()  # prompt id -> its suite's fitted stage

CONTENT_TAGS = {"NNG", "NNP", "VV", "VA", "XR", "SL", "NR"}
NEAR_SYNONYM = 0.6
UNMATCHED = 0.4


@cache
def kiwi():  # noqa: ANN201 - kiwipiepy has no stubs
    from kiwipiepy import Kiwi

    return Kiwi()  # the default model type is CoNg, the one with embeddings


def content_morphemes(text: str) -> list:
    return [t for t in kiwi().tokenize(text) if str(t.tag).split("-")[0] in CONTENT_TAGS]


@cache
def _similarity(first: int, second: int) -> float:
    try:
        return max(0.0, float(kiwi().morpheme_similarity(first, second)))
    except (ValueError, RuntimeError):  # a morpheme without an embedding (an unknown word)
        return 0.0


def similarity(a, b) -> float:  # noqa: ANN001 - kiwipiepy Tokens
    return 1.0 if a.form == b.form else _similarity(a.id, b.id)


def best_match(token, pool: Sequence) -> float:  # noqa: ANN001
    return max((similarity(token, other) for other in pool), default=0.0)


def soft_alignment(question: str, answer: str, reference: str) -> dict[str, float]:
    """The four soft-alignment features of one answer (see the module docstring)."""
    asked = {t.form for t in content_morphemes(question)}
    said = content_morphemes(answer)
    expected = content_morphemes(reference)
    if not said or not expected:
        return {"soft recall": 0.0, "soft recall 0.6": 0.0, "soft precision": 0.0, "soft novel": 1.0}
    expected_new = [t for t in expected if t.form not in asked] or expected
    said_new = [t for t in said if t.form not in asked] or said
    recall = [best_match(t, said) for t in expected_new]
    precision = [best_match(t, expected + content_morphemes(question)) for t in said_new]
    return {
        "soft recall": sum(recall) / len(recall),
        "soft recall 0.6": sum(r >= NEAR_SYNONYM for r in recall) / len(recall),
        "soft precision": sum(precision) / len(precision),
        "soft novel": sum(p < UNMATCHED for p in precision) / len(precision),
    }


def with_soft_alignment(labelled: LabelledSet, stage: Stage) -> list[Row]:
    """``bench/fitted_combiner.py``'s rows of one set, each with the four soft features added."""
    model = get_prompt(stage.prompt_id).input_model
    items = [model.model_validate(r.input) for r in labelled.rows if r.prompt_id == stage.prompt_id]
    return [
        (x | soft_alignment(item.question, item.generated_answer, item.reference_answer), y, rules)
        for (x, y, rules), item in zip(stage_rows(labelled, stage), items, strict=True)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--last-dev", type=int, required=True, help="use held-out versions up to this one")
    args = parser.parse_args(argv)

    stage = STAGES["rag_answer"]
    labelled = training_sets(stage, args.last_dev)  # refuses the fresh set
    plain = {s.short: stage_rows(s, stage) for s in labelled}
    soft = {s.short: with_soft_alignment(s, stage) for s in labelled}
    rows = [row for set_rows in soft.values() for row in set_rows]
    labels = [y["accuracy"] for _, y, _ in rows]
    print(f"{len(rows)} labelled rag_answer rows (in-sample and v1-v{args.last_dev})")
    for name in ("soft recall", "soft recall 0.6", "soft precision", "soft novel"):
        rho = agreement([x[name] for x, _, _ in rows], labels, scale=None)[0]
        print(f"  Spearman of {name!r} with the accuracy label: {rho:+.3f}")

    forest = models()["random forest"]
    print("leave one set out, random forest (Spearman / caught / flagged of the accuracy score):")
    predicted = {
        name: leave_one_set_out(table, "accuracy", forest, stage.scale)
        for name, table in (("rules' signals", plain), ("plus soft alignment", soft))
    }
    totals: dict[str, list[tuple]] = {name: [] for name in predicted}
    for set_name, set_rows in plain.items():
        truth = [y["accuracy"] for _, y, _ in set_rows]
        cells = []
        for name, by_set in predicted.items():
            totals[name].append(measured := agreement(by_set[set_name], truth))
            cells.append(f"{name} {_cell(measured)}")
        print(f"  {set_name:>10}  " + "  ".join(cells))
    for name, cells in totals.items():
        means = [statistics.mean(v) for i in range(3) if (v := [c[i] for c in cells if c[i] is not None])]
        print(f"  mean, {name}: " + " / ".join(f"{m:.3f}" for m in means))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
