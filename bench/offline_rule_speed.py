"""Per-call cost of the offline jury's memory, clinical and agent rules: this tree against the
same rules at an earlier git revision, side by side in one run.

    python bench/offline_rule_speed.py [--rev main] [--repeats 20]

The earlier rules are read with ``git show REV:assay/judges/offline/rules/<family>.py`` and
mixed into subclasses of the three offline judges (the signal code — text helpers, quantities —
is this tree's for both). Inputs are the bundled rows (memory queries, clinical turns, agent
requests from ``datasets/judgments/labelled.jsonl``), each repeated with a numbered suffix so
the per-text caches see new text every call, as a large run does. Rows alternate between the
two rule sets so the machine's load affects both alike. Prints ms per call (all three judges
called once each) and the ratio current / earlier; asserts nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from assay.judges.offline import LexicalJudge, NgramJudge, NumericJudge, offline_jury  # noqa: E402
from assay.judges.prompts import get_prompt  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
import jury_agreement  # noqa: E402

FAMILIES = {"memory": ("memory_usefulness", "MemoryRules"), "clinical": ("clinical_answer", "ClinicalRules"),
            "agent": ("agent_intent", "AgentRules")}


def earlier_rules(rev: str, family: str) -> ModuleType:
    source = subprocess.run(
        ["git", "show", f"{rev}:assay/judges/offline/rules/{family}.py"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    spec = importlib.util.spec_from_loader(f"_earlier_{family}_rules", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    exec(compile(source, f"{rev}:{family}.py", "exec"), module.__dict__)  # noqa: S102  (our own repository's code)
    return module


def earlier_jury(rev: str, family: str) -> list[Any]:
    prompt_id, class_name = FAMILIES[family]
    rules = getattr(earlier_rules(rev, family), class_name)
    method = getattr(rules, prompt_id)
    jury = []
    for base in (LexicalJudge, NgramJudge, NumericJudge):
        extra = {name: value for name, value in vars(rules).items() if name.startswith("_") and callable(value)}
        cls = type(f"Earlier{base.__name__}", (base,), {prompt_id: method, **extra})
        jury.append(cls())
    return jury


def rows_of(family: str) -> list[dict]:
    if family == "memory":
        return [dict(r.input) for r in jury_agreement.memory_rows()]
    if family == "clinical":
        return [dict(r.input) for r in jury_agreement.clinical_rows()]
    labelled = ROOT / "datasets" / "judgments" / "labelled.jsonl"
    rows = [json.loads(line) for line in labelled.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r["input"] for r in rows if r["prompt_id"] == "agent_intent"]


def varied(item: dict, n: int) -> dict:
    """The row with a numbered suffix on its first text field (new text for the caches)."""
    key = next(k for k in ("query", "question") if k in item)
    return {**item, key: f"{item[key]} ({n})"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="main", help="git revision holding the earlier rules (default main)")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args(argv)
    current = offline_jury()
    print(f"{'family':10} {'calls':>6} {'current ms':>11} {'earlier ms':>11} {'ratio':>6}")
    for family, (prompt_id, _) in FAMILIES.items():
        prompt = get_prompt(prompt_id)
        earlier = earlier_jury(args.rev, family)
        rows = rows_of(family)
        for judge in [*current, *earlier]:  # warm the analysers once, outside the timing
            judge.verdict(prompt, rows[0])
        spent = {"current": 0.0, "earlier": 0.0}
        calls = 0
        for n in range(args.repeats):
            for i, row in enumerate(rows):
                item = varied(row, n * len(rows) + i)
                order = [("current", current), ("earlier", earlier)]
                if (n + i) % 2:
                    order.reverse()
                for name, jury in order:
                    started = time.perf_counter()
                    for judge in jury:
                        judge.verdict(prompt, item)
                    spent[name] += time.perf_counter() - started
                calls += 1
        now, before = (spent[k] / calls * 1000 / 3 for k in ("current", "earlier"))
        print(f"{family:10} {calls:>6} {now:>11.3f} {before:>11.3f} {now / before:>6.2f}")
    print("(ms per judge call, mean over the three offline judges)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
