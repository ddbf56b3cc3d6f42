"""What does each offline rule buy? Leave one rule out at a time and measure the jury again.

For every knob (a claim check of ``claims.rag_findings``, a scoring step of a suite's ordered
rule tuple), the offline jury runs with that one rule removed over the labelled sets that are
already dev sets (in-sample, held-out v1 to the newest-but-one vN, ``endev``); never over a blind
set (the newest vN, ``en*`` sets other than ``endev``). Printed per knob and prompt: the summed
change of Spearman's rho over the prompt's fields and sets, the sets it lowers and raises by more
than 0.01, and the summed change of wrong answers caught and correct answers flagged.

    python bench/offline_ablation.py [--prompt rag_answer] [--knob NAME ...]

A knob whose removal lowers nothing is a rule no labelled set needs. Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import jury_agreement as ja  # noqa: E402

from assay.judges.offline import offline_jury  # noqa: E402

CLAIMS = "assay.judges.offline.claims"
CLAIM_CHECKS = (
    "figure_findings", "entity_findings", "swap_findings", "yes_no_findings", "polarity_findings",
    "closed_list_findings", "concessive_findings", "payer_findings", "hedge_findings", "deduction_findings",
    "span_side_findings", "span_reach_findings", "day_swap_findings", "rate_period_findings",
    "weekday_findings", "no_answer_findings", "debunks",
)  # fmt: skip
# (module, tuple attribute, prompt it serves)
RULE_TUPLES = (
    ("assay.suites.rag_qa.offline.rules", "RAG_STEPS", "rag_answer"),
    ("assay.suites.memory.offline.rules", "BASE_READINGS", "memory_usefulness"),
    ("assay.suites.memory.offline.rules", "ADJUSTMENTS", "memory_usefulness"),
    ("assay.suites.agent.offline.rules", "FAILURES", "agent_intent"),
    ("assay.suites.agent.offline.rules", "WRONG_DOINGS", "agent_intent"),
    ("assay.suites.agent.offline.rules", "CAPS", "agent_intent"),
    ("assay.suites.clinical.offline.rules", "CONTRADICTIONS", "clinical_answer"),
    ("assay.suites.clinical.offline.rules", "FORBIDDEN_ADVICE", "clinical_answer"),
)


def element_name(element: object) -> str:
    return getattr(element, "name", None) or getattr(element, "__name__", None) or repr(element)[:40]


def knobs() -> list[tuple[str, str, Callable[[], object]]]:
    """(prompt, knob name, a context manager factory that removes the rule)."""
    out: list[tuple[str, str, Callable[[], object]]] = []
    claims = importlib.import_module(CLAIMS)
    for name in CLAIM_CHECKS:
        out.append(("rag_answer", f"claims.{name}", functools.partial(patched, claims, name, lambda *a, **k: [])))
    for module_name, attr, prompt_id in RULE_TUPLES:
        module = importlib.import_module(module_name)
        rules = getattr(module, attr)
        for index, element in enumerate(rules):
            # (name, check) pairs: the clinical tables and the agent's caps
            label = f"{element[0]}:{element_name(element[1])}" if isinstance(element, tuple) else element_name(element)
            left = rules[:index] + rules[index + 1 :]
            out.append((prompt_id, f"{attr}.{label}", functools.partial(patched, module, attr, left)))
    return out


@contextmanager
def patched(module: object, attr: str, value: object) -> Iterator[None]:
    before = getattr(module, attr)
    setattr(module, attr, value)
    clear_caches()
    try:
        yield
    finally:
        setattr(module, attr, before)
        clear_caches()


def clear_caches() -> None:
    """Memoised verdict pieces would replay the rule removed (or the one put back)."""
    for name, module in list(sys.modules.items()):
        if name.startswith(("assay.judges.offline", "assay.suites")):
            for value in vars(module).values():
                if hasattr(value, "cache_clear"):
                    value.cache_clear()


def dev_sets() -> list[ja.LabelledSet]:
    sets = [ja.in_sample_set(ROOT / "datasets" / "judgments" / "labelled.jsonl")]
    sets += [s for s in ja.heldout_sets() if not s.fresh]
    endev = ROOT / "bench" / "heldout" / "endev"
    if endev.is_dir():
        sets.append(ja.named_set(endev))
    return sets


def score(sets: list[ja.LabelledSet], prompt_id: str, jury: list) -> dict[tuple[str, str], dict]:
    """(set, field) -> the ensemble's stats, over the prompt's rows."""
    out = {}
    for labelled in sets:
        rows = [r for r in labelled.rows if r.prompt_id == prompt_id]
        if not rows:
            continue
        result = ja.measure(rows, jury)
        for (_prompt, field), pairs in result.fields.items():
            if pairs.n >= 5:
                out[(labelled.short, field)] = pairs.stats()
    return out


def delta(base: dict, new: dict) -> tuple[float, list[str], list[str], float, float]:
    drho = dcaught = dflagged = 0.0
    lower, higher = [], []
    for key, stats in base.items():
        after = new[key]
        if stats["rho"] is not None and after["rho"] is not None:
            d = after["rho"] - stats["rho"]
            drho += d
            if d < -0.01:
                lower.append(f"{key[0]}:{key[1][:4]}{d:+.2f}")
            elif d > 0.01:
                higher.append(f"{key[0]}:{key[1][:4]}{d:+.2f}")
        if stats.get("caught") is not None and after.get("caught") is not None:
            dcaught += after["caught"] - stats["caught"]
        if stats.get("flagged") is not None and after.get("flagged") is not None:
            dflagged += after["flagged"] - stats["flagged"]
    return drho, lower, higher, dcaught, dflagged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt", action="append", default=[])
    parser.add_argument("--knob", action="append", default=[])
    args = parser.parse_args(argv)
    sets = dev_sets()
    print("dev sets:", ", ".join(s.short for s in sets), flush=True)
    jury = list(offline_jury())
    baselines: dict[str, dict] = {}
    for prompt_id, name, remove in knobs():
        if (args.prompt and prompt_id not in args.prompt) or (args.knob and not any(k in name for k in args.knob)):
            continue
        if prompt_id not in baselines:
            clear_caches()
            baselines[prompt_id] = score(sets, prompt_id, jury)
        with remove():
            new = score(sets, prompt_id, jury)
        drho, lower, higher, dc, df = delta(baselines[prompt_id], new)
        print(
            f"{prompt_id:18} {name:48} Δrho {drho:+.3f}  caught {dc:+.2f} flagged {df:+.2f}"
            f"  lower {len(lower)} {' '.join(lower[:6])}  higher {len(higher)} {' '.join(higher[:4])}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
