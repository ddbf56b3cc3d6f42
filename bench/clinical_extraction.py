"""How well ``evaluate_answer`` finds what the clinical dataset plants, against its hand labels.

    python bench/clinical_extraction.py [DATASET_DIR] [--verbose]

For every recorded answer of ``datasets/clinical`` (or DATASET_DIR) it compares:

- hallucinations: the facts flagged as hallucinated against ``labels.jsonl`` (a flagged fact
  matches a label of the same kind whose text it contains or is contained in);
- violations: the violated rule ids against the labelled ones;
- slot usage: explicit / indirect / absent per required slot against the labelled usage;

and prints precision and recall of the first two and the agreement of the third. The labels
were written with the dataset, so these numbers are in-sample; the unit tests hold unseen
phrasings.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from assay.suites.clinical.formulas.scores import evaluate_answer

ROOT = Path(__file__).resolve().parents[1]


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: list[str]) -> int:
    verbose = "--verbose" in argv
    args = [a for a in argv if not a.startswith("--")]
    root = Path(args[0]) if args else ROOT / "datasets" / "clinical"
    patients = {p["id"]: p["slots_truth"] for p in read(root / "patients.jsonl")}
    answers = {a["case_id"]: a["answer"] for a in read(root / "answers.jsonl")}
    labels = {lab["case_id"]: lab for lab in read(root / "labels.jsonl")}
    h_tp = h_fp = h_fn = v_tp = v_fp = v_fn = s_ok = s_n = 0
    clean = clean_alarms = 0
    for case in read(root / "cases.jsonl"):
        label = labels[case["id"]]
        result = evaluate_answer(answers[case["id"]], case["question"], patients[case["patient_id"]], case["required_slots"])
        found = [(f.kind, f.text) for f in result.hallucinations]
        wanted = [(h["kind"], h["text"]) for h in label["hallucinations"]]
        matched = [w for w in wanted if any(k == w[0] and (t in w[1] or w[1] in t) for k, t in found)]
        extra = [f for f in found if not any(f[0] == k and (f[1] in t or t in f[1]) for k, t in wanted)]
        h_tp, h_fn, h_fp = h_tp + len(matched), h_fn + len(wanted) - len(matched), h_fp + len(extra)
        got, want = {r.id for r in result.violations}, set(label["violations"])
        v_tp, v_fp, v_fn = v_tp + len(got & want), v_fp + len(got - want), v_fn + len(want - got)
        usage = {s.slot: s.usage for s in result.slots}
        for slot, expected in label["slot_usage"].items():
            s_n += 1
            s_ok += usage.get(slot) == expected
        if not wanted and not want:
            clean += 1
            clean_alarms += bool(found or got)
        problems = [f"missed hallucination {w}" for w in wanted if w not in matched]
        problems += [f"false hallucination {e}" for e in extra]
        problems += [f"missed rule {r}" for r in want - got] + [f"false rule {r}" for r in got - want]
        problems += [f"slot {s}: {usage.get(s)} (labelled {e})" for s, e in label["slot_usage"].items() if usage.get(s) != e]
        if verbose and problems:
            print(f"{case['id']}: " + "; ".join(problems))
    print(f"turns: {len(labels)}  clean turns: {clean} (with a false alarm: {clean_alarms})")
    print(f"hallucinations  precision {_ratio(h_tp, h_tp + h_fp)}  recall {_ratio(h_tp, h_tp + h_fn)}  "
          f"(tp {h_tp}, fp {h_fp}, fn {h_fn})")
    print(f"violations      precision {_ratio(v_tp, v_tp + v_fp)}  recall {_ratio(v_tp, v_tp + v_fn)}  "
          f"(tp {v_tp}, fp {v_fp}, fn {v_fn})")
    print(f"slot usage      agreement {_ratio(s_ok, s_n)}  ({s_ok}/{s_n} labelled slots)")
    return 0


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "n/a"


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
