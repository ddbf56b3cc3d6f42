"""What does each offline rule buy? Leave one rule out at a time and measure the jury again.

For every knob (a claim check of ``claims.rag_findings`` or one of its exceptions, a scoring step
of a suite's ordered rule tuple, a check a suite's rules call by its module), the offline jury runs with that one rule removed over the labelled sets that are
already dev sets (in-sample, held-out v1 to v15, ``endev``, ``en1``, ``en3``); never over a blind
set (v16, v17, v18, en2: none of their files is opened). Printed per knob and prompt: the summed
change of Spearman's rho over the prompt's fields and sets, the sets it lowers and raises by more
than 0.01, and the summed change of wrong answers caught and correct answers flagged.

    python bench/offline_ablation.py [--prompt rag_answer] [--knob NAME ...]
    python bench/offline_ablation.py --together NAME --together NAME   # removed at once

A knob whose removal lowers nothing is a rule no labelled set needs; ``--together`` checks that
the candidates removed at once still lower nothing, printing each dev figure before → after.
Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
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


# (module, function, what it returns when removed, prompt): checks a suite's rules call by their
# module's name (``rf.denied_allergy``), outside the ordered tuples
FUNCTIONS = (
    ("assay.suites.clinical.offline.record_facts", "denied_allergy", [], "clinical_answer"),
    ("assay.suites.clinical.offline.record_facts", "unrecorded_results", [], "clinical_answer"),
    ("assay.suites.clinical.offline.caution_rules", "leave_beside_caution", [], "clinical_answer"),
    ("assay.suites.clinical.offline.drug_table", "table_violations", (), "clinical_answer"),
    ("assay.suites.clinical.offline.asks", "unanswered_part", "", "clinical_answer"),
    ("assay.suites.clinical.offline.asks", "unmentioned_caution", "", "clinical_answer"),
    ("assay.suites.clinical.offline.asks", "record_silent_on", "", "clinical_answer"),
    ("assay.suites.memory.offline.targets", "confused_target", None, "memory_usefulness"),
    ("assay.suites.memory.offline.targets", "other_person", None, "memory_usefulness"),
    ("assay.suites.memory.offline.targets", "unnamed_person", None, "memory_usefulness"),
    ("assay.suites.memory.offline.rules", "dated_update", False, "memory_usefulness"),
    ("assay.suites.memory.offline.rules", "mention_only", False, "memory_usefulness"),
    ("assay.suites.agent.offline.rules", "_vague", False, "agent_intent"),
    ("assay.suites.agent.offline.rules", "_other_person", "", "agent_intent"),
    ("assay.suites.agent.offline.rules", "_shares_a_word", False, "agent_intent"),
    ("assay.suites.agent.offline.rules", "_other_target", [], "agent_intent"),
    # the claim checks' own exceptions and sub-checks, each a rule of its own
    *((CLAIMS, name, [], "rag_answer") for name in ("_misplaced_figure",)),
    *((CLAIMS, name, (), "rag_answer") for name in ("_conceded",)),
    *(
        (CLAIMS, name, False, "rag_answer")
        for name in (
            "reference_refuses_beside", "_past_the_bound", "_complementary_case", "_left_out_of_list", "_restricted",
            "applied_figure", "_off_topic", "_denies", "_inside", "_premise",
        )
    ),  # fmt: skip
)


@dataclass(frozen=True)
class Knob:
    """One rule: removing it sets ``module.attr`` to ``edit(module.attr)``."""

    prompt_id: str
    name: str
    module: object
    attr: str
    edit: Callable[[object], object]


def element_name(element: object) -> str:
    return getattr(element, "name", None) or getattr(element, "__name__", None) or repr(element)[:40]


def returning(value: object) -> Callable[[object], object]:
    return lambda _function: lambda *args, **kwargs: value


def without(element: object) -> Callable[[object], object]:
    return lambda rules: tuple(r for r in rules if r is not element)  # type: ignore[attr-defined]


def knobs() -> list[Knob]:
    out: list[Knob] = []
    claims = importlib.import_module(CLAIMS)
    for name in CLAIM_CHECKS:
        out.append(Knob("rag_answer", f"claims.{name}", claims, name, returning([])))
    for module_name, attr, prompt_id in RULE_TUPLES:
        module = importlib.import_module(module_name)
        for index, element in enumerate(getattr(module, attr)):
            # (name, check) pairs: the clinical tables and the agent's caps
            label = f"{element[0]}:{element_name(element[1])}" if isinstance(element, tuple) else element_name(element)
            label = label.replace("<lambda>", f"<lambda#{index}>")  # unnamed steps told apart by place
            out.append(Knob(prompt_id, f"{attr}.{label}", module, attr, without(element)))
    for module_name, name, empty, prompt_id in FUNCTIONS:
        module = importlib.import_module(module_name)
        out.append(Knob(prompt_id, f"{module_name.rsplit('.', 1)[1]}.{name}", module, name, returning(empty)))
    return out


@contextmanager
def removed(chosen: list[Knob]) -> Iterator[None]:
    """The jury with every chosen rule removed at once (several may edit one tuple)."""
    saved = {}
    for knob in chosen:
        saved.setdefault((id(knob.module), knob.attr), (knob.module, knob.attr, getattr(knob.module, knob.attr)))
        setattr(knob.module, knob.attr, knob.edit(getattr(knob.module, knob.attr)))
    clear_caches()
    try:
        yield
    finally:
        for module, attr, value in saved.values():
            setattr(module, attr, value)
        clear_caches()


def clear_caches() -> None:
    """Memoised verdict pieces would replay the rule removed (or the one put back)."""
    for name, module in list(sys.modules.items()):
        if name.startswith(("assay.judges.offline", "assay.suites")):
            for value in vars(module).values():
                if hasattr(value, "cache_clear"):
                    value.cache_clear()


HELDOUT = ROOT / "bench" / "heldout"
# The dev sets of bench/heldout/README.md, named one by one so that no blind set (v16, v17, v18,
# en2) is ever read here: v16 is dev by jury_agreement's newest-is-fresh convention, but unread.
DEV_FOLDERS = (".", *(f"v{n}" for n in range(2, 16)), "endev", "en1", "en3")


def dev_sets() -> list[ja.LabelledSet]:
    sets = [ja.in_sample_set(ROOT / "datasets" / "judgments" / "labelled.jsonl")]
    for name in DEV_FOLDERS:
        labelled = ja.named_set(HELDOUT / name)
        sets.append(replace(labelled, short="v1" if name == "." else name))
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
                out[(labelled.short, field)] = {**pairs.stats(), "n": pairs.n}
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


def summary(prompt_id: str, name: str, base: dict, new: dict) -> str:
    drho, lower, higher, dc, df = delta(base, new)
    return (
        f"{prompt_id:18} {name:48} Δrho {drho:+.3f}  caught {dc:+.2f} flagged {df:+.2f}"
        f"  lower {len(lower)} {' '.join(lower[:6])}  higher {len(higher)} {' '.join(higher[:4])}"
    )


def before_after(base: dict, new: dict) -> list[str]:
    """Per set and field: rho, caught and flagged before → after."""

    def cell(stats: dict, key: str) -> str:
        return "-" if stats.get(key) is None else f"{stats[key]:.2f}"

    lines = []
    for key, stats in base.items():
        figures = "  ".join(f"{k} {cell(stats, k)} → {cell(new[key], k)}" for k in ("rho", "caught", "flagged"))
        lines.append(f"    {key[0]:10} {key[1]:22} n {stats['n']:4}  {figures}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt", action="append", default=[])
    parser.add_argument("--knob", action="append", default=[], help="only the knobs whose name holds this")
    parser.add_argument(
        "--together", action="append", default=[], metavar="NAME",
        help="remove these knobs (exact names) all at once and print each dev figure before → after",
    )  # fmt: skip
    args = parser.parse_args(argv)
    sets = dev_sets()
    print("dev sets:", ", ".join(s.short for s in sets), flush=True)
    jury = list(offline_jury())
    every = knobs()
    if args.together:
        unknown = set(args.together) - {k.name for k in every}
        if unknown:
            parser.error(f"no such knob: {', '.join(sorted(unknown))}")
        chosen = [k for k in every if k.name in args.together]
        for prompt_id in dict.fromkeys(k.prompt_id for k in chosen):
            base = score(sets, prompt_id, jury)
            with removed([k for k in chosen if k.prompt_id == prompt_id]):
                new = score(sets, prompt_id, jury)
            print(summary(prompt_id, "together", base, new), flush=True)
            print("\n".join(before_after(base, new)), flush=True)
        return 0
    baselines: dict[str, dict] = {}
    for knob in every:
        if (args.prompt and knob.prompt_id not in args.prompt) or (args.knob and not any(k in knob.name for k in args.knob)):
            continue
        if knob.prompt_id not in baselines:
            clear_caches()
            baselines[knob.prompt_id] = score(sets, knob.prompt_id, jury)
        try:
            with removed([knob]):
                new = score(sets, knob.prompt_id, jury)
        except Exception as error:  # noqa: BLE001 - a step the rest cannot do without
            print(f"{knob.prompt_id:18} {knob.name:48} needed: the jury fails without it ({error!r:.60})", flush=True)
            continue
        print(summary(knob.prompt_id, knob.name, baselines[knob.prompt_id], new), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
