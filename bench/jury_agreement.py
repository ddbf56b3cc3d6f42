"""How well does the offline jury agree with human labels?

Runs each offline judge and the ensemble (``aggregate_scores`` with the default weights;
median for hallucination counts, min for citation accuracy, as seed 000 §3.3.3) over
``datasets/judgments/labelled.jsonl`` and prints, per prompt field, per prompt id and
overall:

- exact: |prediction − label| ≤ half a step (step 1 on 1-5, 0-5 and 0-10 scales and for
  counts, 0.1 on the 0-1 citation-accuracy scale), i.e. the rounded prediction equals the label;
- within1: |prediction − label| ≤ one step (within 1 point on 1-5 and 0-10, 0.1 on 0-1);
- MAE: mean absolute error, in the field's units for field rows; for the per-prompt and
  overall rows every field is first rescaled to 0-10 (counts are capped at 10);
- rho: Spearman rank correlation with the labels (average ranks for ties; "-" if either
  side is constant).

- caught: of the answers labelled in the bottom quarter of the scale (≤ 2 on 1-5, ≤ 2.5 on
  0-10), the share the predictor scores at most 2.5 on 1-5 (3.75 on 0-10): wrong answers caught;
- flagged: of the answers labelled in the top quarter (≥ 4 on 1-5, ≥ 7.5 on 0-10), the share
  the predictor scores at most 3 on 1-5 (5 on 0-10): correct answers wrongly flagged.
  Neither is computed for fields where lower is better (memory noise) or for counts.

The agent prompt's ``intent_label`` (categorical) is reported as exact agreement only.

Sets: in-sample (``datasets/judgments/labelled.jsonl``, the set the cut-offs were set on; the
bundled rag_qa and memory labels, which the rules have been checked against) and held-out
(``bench/heldout/<suite>/labelled.jsonl``: new domains, labelled by the rubric in
``docs/judges.md`` before the jury first ran on them, never tuned on). A held-out set that rules
were later developed against is printed as DEV (``DEV_SETS``): its figures are no longer
held-out figures.

    python bench/jury_agreement.py [--data PATH] [--details] [--no-heldout]

Prints ratios; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from assay.judges.ensemble import aggregate_scores  # noqa: E402
from assay.judges.offline import offline_jury  # noqa: E402
from assay.judges.prompts import get_prompt  # noqa: E402

ENSEMBLE = "ensemble"
# Held-out sets that rules have since been developed against: reported as dev sets, not held-out.
DEV_SETS = {
    "rag_qa": "the offline meaning rules (figure forms, bilingual lexicon, clause polarity) were developed against it",
}


def ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        avg = (i + j) / 2 + 1
        for k in range(i, j + 1):
            out[order[k]] = avg
        i = j + 1
    return out


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    if len(xs) < 2:
        return None
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def step_of(scale: tuple[float, float] | None) -> float:
    if scale is None:
        return 1.0
    return 0.1 if (scale[1] - scale[0]) <= 1.0 else 1.0


def to_0_10(value: float, scale: tuple[float, float] | None) -> float:
    if scale is None:  # counts
        return min(value, 10.0)
    lo, hi = scale
    return (value - lo) / (hi - lo) * 10.0


LOWER_IS_BETTER = {"noise"}


def summarise(
    pairs: list[tuple[float, float, float]], scale: tuple[float, float] | None = None
) -> dict[str, float | None]:
    """pairs of (prediction, label, step) -> exact, within1, MAE, rho, and with a scale the
    share of wrong answers caught and of correct answers flagged (see the module docstring)."""
    eps = 1e-9
    n = len(pairs)
    exact = sum(abs(p - y) <= s / 2 + eps for p, y, s in pairs) / n
    within = sum(abs(p - y) <= s + eps for p, y, s in pairs) / n
    mae = sum(abs(p - y) for p, y, _ in pairs) / n
    rho = spearman([p for p, _, _ in pairs], [y for _, y, _ in pairs])
    caught = flagged = None
    if scale is not None:
        lo, hi = scale
        at = lambda frac: lo + frac * (hi - lo)  # noqa: E731  (1-5: .25 → 2, .375 → 2.5, .5 → 3)
        wrong = [p for p, y, _ in pairs if y <= at(0.25) + eps]
        right = [p for p, y, _ in pairs if y >= at(0.75) - eps]
        caught = sum(p <= at(0.375) + eps for p in wrong) / len(wrong) if wrong else None
        flagged = sum(p <= at(0.5) + eps for p in right) / len(right) if right else None
    return {"exact": exact, "within1": within, "mae": mae, "rho": rho, "caught": caught, "flagged": flagged}


def fmt(stats: dict[str, float | None]) -> str:
    def f(key: str, width: int) -> str:
        value = stats.get(key)
        return f"{'-':>{width}}" if value is None else f"{value:{width}.2f}"

    return f"{f('exact', 6)} {f('within1', 8)} {f('mae', 6)} {f('rho', 6)} {f('caught', 7)} {f('flagged', 8)}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "datasets" / "judgments" / "labelled.jsonl")
    parser.add_argument("--details", action="store_true", help="print every prediction next to its label")
    parser.add_argument("--no-heldout", action="store_true", help="skip the held-out rag_qa answer labels")
    args = parser.parse_args(argv)

    rows = read_jsonl(args.data)
    print(f"== IN-SAMPLE {args.data.relative_to(ROOT)}: the set the offline judges' cut-offs were set on")
    agreement(rows, args.details)
    print("\n== IN-SAMPLE datasets/rag_qa answer labels: labelled by a different person; the claim")
    print("   checks were written after reading its wrong answers (q013, q014, q016, q019, q028)")
    agreement(rag_qa_rows(), args.details)
    print("\n== IN-SAMPLE datasets/memory labels: written by the dataset's author from the seed rubric")
    agreement(memory_rows(), args.details)
    if not args.no_heldout:
        for suite_dir in sorted((ROOT / "bench" / "heldout").iterdir()):
            data = suite_dir / "labelled.jsonl"
            if not data.is_file():
                continue
            if suite_dir.name in DEV_SETS:
                print(f"\n== DEV {data.relative_to(ROOT)}: was held-out; {DEV_SETS[suite_dir.name]}")
            else:
                print(f"\n== HELD-OUT {data.relative_to(ROOT)}: new domain, labelled before the jury ran, never tuned on")
            agreement(read_jsonl(data), args.details)
    return 0


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def memory_rows() -> list[dict]:
    """The bundled memory queries with their stored memories and hand labels (0-10 each)."""
    base = ROOT / "datasets" / "memory"

    def read(name: str) -> list[dict]:
        return [json.loads(line) for line in (base / name).read_text(encoding="utf-8").splitlines() if line.strip()]

    cases = {c["id"]: c for c in read("cases.jsonl")}
    memories = {m["session_id"]: m for m in read("memories.jsonl")}
    rows = []
    for label in read("labels.jsonl"):
        case = cases[label["case_id"]]
        memory = memories[case["session_id"]]
        rows.append({
            "id": label["case_id"],
            "prompt_id": "memory_usefulness",
            "input": {"query": case["query"], "memory": memory["memory"], "entities": memory["entities"]},
            "label": {
                **{k: label[k] for k in ("relevance", "completeness", "accuracy", "noise")},
                "reasoning": label.get("note", ""), "helpful_info": [], "missing_info": [], "summary": "",
            },
        })
    return rows


def rag_qa_rows() -> list[dict]:
    """The bundled rag_qa answers with their hand labels, as rag_answer judgments."""
    base = ROOT / "datasets" / "rag_qa"

    def read(name: str) -> list[dict]:
        return [json.loads(line) for line in (base / name).read_text(encoding="utf-8").splitlines() if line.strip()]

    cases = {c["id"]: c for c in read("cases.jsonl")}
    generations = {g["case_id"]: g for g in read("generations.jsonl")}
    rows = []
    for label in read("answer_labels.jsonl"):
        case, gen = cases[label["case_id"]], generations[label["case_id"]]
        rows.append({
            "id": label["case_id"],
            "prompt_id": "rag_answer",
            "input": {
                "question": case["question"],
                "generated_answer": gen["answer"],
                "reference_answer": case["reference_answer"],
                "contexts": [chunk["text"] for chunk in gen["retrieved"][:10]],
            },
            "label": {"feedback": label.get("note", ""), **{k: label[k] for k in ("accuracy", "completeness", "relevance")}},
        })
    return rows


def agreement(rows: list[dict], details: bool) -> None:
    jury = offline_jury()
    weights = [j.weight for j in jury]
    predictors = [j.name for j in jury] + [ENSEMBLE]

    # (prompt_id, field) -> predictor -> list of (pred, label, step); plus scale per field
    records: dict[tuple[str, str], dict[str, list[tuple[float, float, float]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    scales: dict[tuple[str, str], tuple[float, float] | None] = {}
    labels_cat: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        prompt = get_prompt(row["prompt_id"])
        label_scores = prompt.scores(row["label"])
        verdicts = [j.verdict(prompt, row["input"]) for j in jury]
        judge_scores = [prompt.scores(v) for v in verdicts]
        if "intent_label" in row["label"]:
            for j, v in zip(jury, verdicts, strict=True):
                labels_cat[j.name].append(v["intent_label"] == row["label"]["intent_label"])
            votes = [v["intent_label"] for v in verdicts]
            mode = max(votes, key=lambda lab: (votes.count(lab), -votes.index(lab)))
            labels_cat[ENSEMBLE].append(mode == row["label"]["intent_label"])
        detail = []
        for field, label in label_scores.items():
            scale = prompt.score_fields.get(field)
            scales[(prompt.id, field)] = scale
            step = step_of(scale)
            values = [s[field] for s in judge_scores]
            how = prompt.reducer(field)
            if how == "median":
                ens = statistics.median(values)
            elif how == "min":
                ens = min(values)
            else:
                ens, _ = aggregate_scores(values, weights, scale=scale or (0.0, 10.0))
            for name, value in zip(predictors, [*values, ens], strict=True):
                records[(prompt.id, field)][name].append((value, label, step))
            detail.append(f"{field}={label:g} ← " + " ".join(f"{v:g}" for v in values) + f" | ens {ens:.2f}")
        if details:
            print(f"{row['id']:8} {prompt.id:24} " + "; ".join(detail))
    if details:
        print()

    header = (
        f"{'':34} {'predictor':16} {'exact':>6} {'within1':>8} {'MAE':>6} {'rho':>6} {'caught':>7} {'flagged':>8}"
    )
    print("Per field (MAE in the field's units)")
    print(header)
    for (pid, field), per in records.items():
        n = len(per[ENSEMBLE])
        for name in predictors:
            scale = None if field in LOWER_IS_BETTER else scales[(pid, field)]
            print(f"{pid + '.' + field:28} n={n:<3} {name:16} {fmt(summarise(per[name], scale))}")
    print()

    print("Per prompt id and overall (every field rescaled to 0-10 for MAE and rho; steps likewise)")
    print(header)
    by_prompt: dict[str, dict[str, list[tuple[float, float, float]]]] = defaultdict(lambda: defaultdict(list))
    overall: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for (pid, field), per in records.items():
        scale = scales[(pid, field)]
        for name in predictors:
            for p, y, s in per[name]:
                rescaled = (
                    to_0_10(p, scale),
                    to_0_10(y, scale),
                    s if scale is None else s / (scale[1] - scale[0]) * 10,
                )
                by_prompt[pid][name].append(rescaled)
                overall[name].append(rescaled)
    for pid, per in by_prompt.items():
        n = sum(1 for r in rows if r["prompt_id"] == pid)
        for name in predictors:
            print(f"{pid:28} n={n:<3} {name:16} {fmt(summarise(per[name]))}")
    for name in predictors:
        print(f"{'OVERALL':28} n={len(rows):<3} {name:16} {fmt(summarise(overall[name]))}")
    print()
    if labels_cat:
        print(
            "agent_intent.intent_label exact agreement: "
            + ", ".join(f"{name} {sum(v) / len(v):.2f}" for name, v in labels_cat.items())
        )


if __name__ == "__main__":
    raise SystemExit(main())
