"""Cost of one offline judge call: this tree's rules against a base git ref, side by side.

    python bench/offline_judge_cost.py [--base main] [--calls 3000] [--rounds 2] [--labelled FILE]

Each side runs in its own fresh Python process (``git archive BASE assay`` unpacked into a
temporary directory for the base, this checkout for the head), judging the bundled rag_qa
answers (``datasets/rag_qa``) with the rag_answer prompt, cycling through the cases and the three
offline judges until ``calls`` judgements are made (each case by the three judges in turn, as a
jury step does). Two modes: *cold* empties every memo cache of ``assay`` at the start of each
pass over the cases, as a run of new texts would (the three judges of one case still share
them); *warm* keeps them. The sides alternate for ``rounds`` rounds so the machine's load
affects them alike. Printed: milliseconds per call (best and mean of the rounds), the first
call's warm-up cost (Kiwi's model load, outside the per-call figure) and the head/base ratio.
``--labelled FILE`` judges the inputs of a labelled rag_answer set instead (e.g.
``bench/heldout/endev/rag_qa/labelled.jsonl``, English answers), labels unread.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORKER = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(1, sys.argv[2])
from pathlib import Path
from assay.judges.offline import offline_jury
from assay.judges.prompts import get_prompt

base = Path(sys.argv[2]) / "datasets" / "rag_qa"
read = lambda name: [json.loads(l) for l in (base / name).read_text(encoding="utf-8").splitlines() if l.strip()]
labelled = sys.argv[5] if len(sys.argv) > 5 else ""
items = []
if labelled:
    items = [json.loads(l)["input"] for l in Path(labelled).read_text(encoding="utf-8").splitlines() if l.strip()]
cases = {c["id"]: c for c in read("cases.jsonl")}
for gen in [] if labelled else read("generations.jsonl"):
    case = cases[gen["case_id"]]
    items.append({
        "question": case["question"], "generated_answer": gen["answer"],
        "reference_answer": case["reference_answer"],
        "contexts": [chunk["text"] for chunk in gen["retrieved"][:10]],
    })
import functools, gc
prompt = get_prompt("rag_answer")
jury = offline_jury()
calls, cold = int(sys.argv[3]), sys.argv[4] == "cold"
started = time.perf_counter()
jury[0].verdict(prompt, items[0])
warmup = time.perf_counter() - started
caches = [f for f in gc.get_objects() if isinstance(f, functools._lru_cache_wrapper)
          and getattr(f, "__module__", "").startswith("assay.")]
started = time.perf_counter()
for i in range(calls):
    if cold and i % (3 * len(items)) == 0:
        for f in caches:
            f.cache_clear()  # every pass over the cases starts cold, as new texts would
    jury[i % 3].verdict(prompt, items[(i // 3) % len(items)])
elapsed = time.perf_counter() - started
print(json.dumps({"per_call_ms": 1000 * elapsed / calls, "warmup_s": warmup, "cases": len(items)}))
"""


def export(ref: str, into: Path) -> Path:
    """The ``assay`` package of ``ref`` unpacked into ``into`` (nothing else of the tree)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "assay"], check=True, capture_output=True)
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def measure(code_root: Path, calls: int, mode: str, labelled: str = "") -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", WORKER, str(code_root), str(ROOT), str(calls), mode, labelled],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="git ref whose rules are the baseline")
    parser.add_argument("--calls", type=int, default=3000, help="rag_answer judgements per round and side")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--labelled", type=Path, help="judge a labelled rag_answer set's inputs instead")
    args = parser.parse_args(argv)
    labelled = str(args.labelled.resolve()) if args.labelled else ""
    with tempfile.TemporaryDirectory() as tmp:
        sides = {f"base ({args.base})": export(args.base, Path(tmp)), "head (this tree)": ROOT}
        results: dict[tuple[str, str], list[dict[str, float]]] = {
            (mode, name): [] for mode in ("cold", "warm") for name in sides
        }
        for _ in range(args.rounds):
            for mode, name in results:
                results[(mode, name)].append(measure(sides[name], args.calls, mode, labelled))
    print(f"rag_answer offline judgements: {args.calls} per round x {args.rounds} rounds, each side in a fresh process"
          + (f", inputs of {args.labelled}" if args.labelled else ", the bundled rag_qa answers"))
    print("cold: every pass over the bundled cases starts with empty memo caches (as a run of new")
    print("texts does; the three judges of one case still share them); warm: caches kept across passes")
    print(f"{'mode':5} {'side':22} {'best ms/call':>13} {'mean ms/call':>13} {'warm-up s':>10}")
    best: dict[tuple[str, str], float] = {}
    for (mode, name), runs in results.items():
        per_call = [r["per_call_ms"] for r in runs]
        best[(mode, name)] = min(per_call)
        print(f"{mode:5} {name:22} {best[(mode, name)]:13.3f} {sum(per_call) / len(per_call):13.3f} {runs[0]['warmup_s']:10.2f}")
    base_name, head_name = list(sides)
    for mode in ("cold", "warm"):
        print(f"{mode}: head / base (best) {best[(mode, head_name)] / best[(mode, base_name)]:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
