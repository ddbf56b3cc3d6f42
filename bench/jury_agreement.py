"""How well does the offline jury agree with human labels?

Runs each offline judge and the ensemble (``aggregate_scores`` with the default weights;
median for hallucination counts, min for citation accuracy, as seed 000 §3.3.3) over three
kinds of labelled set and prints one table per set, then the sets side by side:

- in-sample: ``datasets/judgments/labelled.jsonl`` (the set the cut-offs were set on) plus the
  bundled rag_qa answer labels and memory labels, which the rules have been checked against;
- dev: the held-out sets that were looked at while the rules were developed
  (``bench/heldout/<suite>/labelled.jsonl`` is v1; an older ``bench/heldout/vN/`` is dev too);
- fresh: per suite, the newest ``bench/heldout/vN/<suite>/labelled.jsonl``, labelled by the rubric in
  ``docs/judges.md`` before the jury first ran on it and never used to change a rule.

Per prompt field and predictor (the ensemble; each judge too with ``--judges``):

- exact: |prediction − label| ≤ half a step (step 1 on 1-5, 0-5 and 0-10 scales and for
  counts, 0.1 on the 0-1 citation-accuracy scale), i.e. the rounded prediction equals the label;
- within1: |prediction − label| ≤ one step (within 1 point on 1-5 and 0-10, 0.1 on 0-1);
- MAE: mean absolute error in the field's units;
- rho: Spearman rank correlation with the labels (average ranks for ties; "-" if either
  side is constant);
- caught: of the answers labelled in the bottom quarter of the scale (≤ 2 on 1-5, ≤ 2.5 on
  0-10, RELATED_BUT_WRONG or FAILED for agent verdicts), the share the predictor scores at
  most 3/8 up the scale (2.5 on 1-5, 3.75 on 0-10): wrong answers caught;
- flagged: of the answers labelled in the top quarter (≥ 4 on 1-5, ≥ 7.5 on 0-10), the share
  the predictor scores at most half-way (3 on 1-5, 5 on 0-10): correct answers wrongly flagged.
  Neither is computed for fields where lower is better (memory noise) or for counts;
- rho 95% (the ensemble's rows of the per-set tables): a percentile bootstrap interval of rho,
  the set's rows resampled 1,000 times with a fixed seed. On a 24-row set it spans about ±0.3:
  what one set says is that loose.

The agent prompt's ``intent_label`` (categorical) is reported as exact agreement only.
Every labelled row is checked against its prompt (known prompt id, input that fits the
prompt's input model, every score field present and on its scale) before anything runs; a
malformed row stops the bench with its file, line and problem instead of dropping out.

    python bench/jury_agreement.py [--data PATH] [--details] [--judges] [--no-heldout] [--rules-only]

The rag_answer scores go through the offline judges' fitted stage (``--rules-only`` leaves it
out); the sets it was fitted on, which the output's first line names, are training data for
those scores.

Prints ratios; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from assay.judges.ensemble import aggregate_scores  # noqa: E402
from assay.judges.offline import offline_jury  # noqa: E402
from assay.judges.offline.fitted import model_file  # noqa: E402
from assay.judges.offline.suite_rules import fitted_stages  # noqa: E402
from assay.judges.prompts import INTENT_LABELS, Prompt, UnknownPromptError, all_prompts, get_prompt  # noqa: E402
from assay.metrics.agreement import bootstrap_interval, screen_rates, spearman  # noqa: E402
from assay.schemas import JsonObject  # noqa: E402

STAGES = fitted_stages()  # prompt id -> its suite's fitted stage

ENSEMBLE = "ensemble"
HELDOUT = ROOT / "bench" / "heldout"


# -- labelled rows -------------------------------------------------------------------------


class LabelledRow(BaseModel):
    """One human-labelled judgment: the prompt's input and the person's scores."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    prompt_id: str
    input: JsonObject
    label: JsonObject
    note: str = ""
    kind: str = ""  # the answer's kind (correct, paraphrase, wrong number, …) where the writer named it


class LabelError(ValueError):
    """A labelled row that does not fit its prompt; the message names the row and the problem."""


def check_row(raw: object, where: str, partial: bool = False) -> LabelledRow:
    """``raw`` as a ``LabelledRow`` whose input fits its prompt and whose label holds every
    score field on the prompt's scale (``partial``: at least one of them); raises
    ``LabelError`` naming ``where`` otherwise."""
    try:
        row = LabelledRow.model_validate(raw)
    except ValidationError as exc:
        raise LabelError(f"{where}: not a labelled row: {_first_error(exc)}") from None
    where = f"{where} (id {row.id})"
    try:
        prompt = get_prompt(row.prompt_id)
    except UnknownPromptError as exc:
        raise LabelError(f"{where}: {exc}") from None
    try:
        prompt.input_model.model_validate(row.input)
    except ValidationError as exc:
        raise LabelError(f"{where}: input does not fit prompt {prompt.id!r}: {_first_error(exc)}") from None
    scored = [*prompt.score_fields, *prompt.count_fields]
    if partial and not any(name in row.label for name in scored):
        raise LabelError(f"{where}: label has none of {', '.join(scored)}")
    for name in scored:
        if partial and name not in row.label:
            continue
        if name not in row.label:
            raise LabelError(f"{where}: label has no {name!r} (prompt {prompt.id!r} scores it)")
        value = row.label[name]
        if name in prompt.label_maps:
            allowed = prompt.label_maps[name]
            if value not in allowed:
                raise LabelError(f"{where}: label {name}={value!r} is not one of {', '.join(allowed)}")
            value = allowed[value]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise LabelError(f"{where}: label {name}={value!r} is not a number")
        scale = prompt.score_fields.get(name)
        if scale is not None and not scale[0] <= value <= scale[1]:
            raise LabelError(f"{where}: label {name}={value!r} is outside {scale[0]:g}-{scale[1]:g}")
        if name in prompt.count_fields and (value < 0 or value != int(value)):
            raise LabelError(f"{where}: label {name}={value!r} is not a count")
    intent = row.label.get("intent_label")
    if intent is not None and intent not in INTENT_LABELS:
        raise LabelError(f"{where}: label intent_label={intent!r} is not one of {', '.join(INTENT_LABELS)}")
    return row


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(part) for part in err["loc"]) or "row"
    return f"{loc}: {err['msg']}"


def read_labelled(path: Path) -> list[LabelledRow]:
    """Every row of a labelled JSONL file, checked (``check_row``); ids must be unique."""
    rows: list[LabelledRow] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{_shown(path)}:{number}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LabelError(f"{where}: not JSON: {exc.msg}") from None
        row = check_row(raw, where)
        if row.id in seen:
            raise LabelError(f"{where}: id {row.id!r} repeats line {seen[row.id]}")
        seen[row.id] = number
        rows.append(row)
    return rows


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


# -- the labelled sets ---------------------------------------------------------------------


@dataclass(frozen=True)
class LabelledSet:
    title: str  # the table's heading
    short: str  # the column heading side by side
    about: str
    rows: list[LabelledRow]
    version: int = 0  # the held-out version; 0 for in-sample
    fresh: frozenset[str] = frozenset()  # the suites this version is the newest blind set of


def in_sample_set(data: Path) -> LabelledSet:
    rows = [*read_labelled(data), *rag_qa_rows(), *memory_rows(), *clinical_rows()]
    return LabelledSet(
        "in-sample",
        "in-sample",
        f"{_shown(data)}, the bundled rag_qa answer, memory and clinical labels (clinical faithfulness "
        "read off the hand-labelled contradictions and violated rules); the rules were set and checked on these",
        rows,
    )


def heldout_sets(base: Path = HELDOUT) -> list[LabelledSet]:
    """The held-out versions under ``base``, oldest first: v1 is ``<suite>/labelled.jsonl``,
    vN is ``vN/<suite>/labelled.jsonl``. The newest version is fresh; when it holds only some
    suites (rows of one suite added after a full version), the version before it stays fresh for
    the suites the newest lacks, and its title says which. Every other version has been looked at
    while the rules were developed, so it is reported as dev."""
    versions: list[tuple[int, Path, list[Path]]] = []
    v1 = sorted(base.glob("*/labelled.jsonl"))
    if v1:
        versions.append((1, base, v1))
    for folder in base.glob("v*"):
        if folder.is_dir() and folder.name[1:].isdigit():
            versions.append((int(folder.name[1:]), folder, sorted(folder.glob("*/labelled.jsonl"))))
    versions.sort()
    newest = {f.parent.name for f in versions[-1][2]} if versions else set()
    out = []
    for index, (version, folder, files) in enumerate(versions):
        suites = [f.parent.name for f in files]
        if index == len(versions) - 1:
            fresh = frozenset(suites)
        elif index == len(versions) - 2:
            fresh = frozenset(s for s in suites if s not in newest)
        else:
            fresh = frozenset()
        if fresh and len(fresh) == len(suites):
            title, short, tail = f"held-out v{version} (fresh)", f"v{version} fresh", "; never tuned on"
        elif fresh:
            dev = ", ".join(s for s in suites if s not in fresh)
            title = f"held-out v{version} (fresh for {', '.join(sorted(fresh))}; dev for {dev})"
            short = f"v{version} fresh*"
            tail = f"; {', '.join(sorted(fresh))} never tuned on; {dev} looked at while the rules were changed"
        else:
            title = f"dev (held-out v{version}, used for development)"
            short, tail = f"dev v{version}", "; looked at while the rules were changed"
        out.append(
            LabelledSet(
                title,
                short,
                f"{_shown(folder)}/<suite>/labelled.jsonl ({', '.join(suites)}); labelled before the jury ran" + tail,
                [row for f in files for row in read_labelled(f)],
                version,
                fresh,
            )
        )
    return out


def named_set(folder: Path) -> LabelledSet:
    """One labelled folder measured on its own (``--only``): a blind set outside the vN series,
    such as ``en1``, the English set."""
    files = sorted(folder.glob("*/labelled.jsonl"))
    if not files:
        raise LabelError(f"{_shown(folder)}: no <suite>/labelled.jsonl under it")
    suites = [f.parent.name for f in files]
    return LabelledSet(
        f"held-out {folder.name}",
        folder.name,
        f"{_shown(folder)}/<suite>/labelled.jsonl ({', '.join(suites)}); labelled before the jury ran",
        [row for f in files for row in read_labelled(f)],
        0,
        frozenset(suites),
    )


def bundled(suite: str, name: str) -> list[dict]:
    """The rows of ``datasets/<suite>/<name>``, a bundled JSONL file."""
    path = ROOT / "datasets" / suite / name
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def memory_rows() -> list[LabelledRow]:
    """The bundled memory queries with their stored memories and hand labels (0-10 each)."""
    def read(name: str) -> list[dict]:
        return bundled("memory", name)

    cases = {c["id"]: c for c in read("cases.jsonl")}
    memories = {m["session_id"]: m for m in read("memories.jsonl")}
    rows = []
    for label in read("labels.jsonl"):
        case = cases[label["case_id"]]
        memory = memories[case["session_id"]]
        raw = {
            "id": label["case_id"],
            "prompt_id": "memory_usefulness",
            "input": {"query": case["query"], "memory": memory["memory"], "entities": memory["entities"]},
            "label": {k: label[k] for k in ("relevance", "completeness", "accuracy", "noise")},
            "note": label.get("note", ""),
        }
        rows.append(check_row(raw, f"datasets/memory/labels.jsonl case {label['case_id']}"))
    return rows


def clinical_rows() -> list[LabelledRow]:
    """The bundled clinical turns with a faithfulness label read off their hand labels, by the
    prompt's rubric: forbidden advice or a critical contradiction of the record 2 (1 with both),
    a normal-severity contradiction 3, only minor ones 4, a clean answer 5. The dialogue is the
    patient's earlier turns with the recorded answers, as the suite builds it."""
    def read(name: str) -> list[dict]:
        return bundled("clinical", name)

    from assay.suites.clinical.metrics import patient_text
    from assay.suites.clinical.schema import ClinicalCase

    patients = {p["id"]: p for p in read("patients.jsonl")}
    answers = {a["case_id"]: a["answer"] for a in read("answers.jsonl")}
    labels = {lab["case_id"]: lab for lab in read("labels.jsonl")}
    rows, earlier = [], defaultdict(list)
    for raw in sorted(read("cases.jsonl"), key=lambda c: (c["patient_id"], c["turn"])):
        case = ClinicalCase.model_validate({**raw, "slots_truth": patients[raw["patient_id"]]["slots_truth"]})
        label = labels[case.id]
        severities = {h["severity"] for h in label["hallucinations"]}
        critical = "critical" in severities
        if critical and label["violations"]:
            faithfulness = 1
        elif critical or label["violations"]:
            faithfulness = 2
        elif "normal" in severities:
            faithfulness = 3
        else:
            faithfulness = 4 if severities else 5
        answer = answers[case.id]
        raw = {
            "id": case.id,
            "prompt_id": "clinical_answer",
            "input": {"question": case.question, "answer": answer, "patient": patient_text(case),
                      "dialogue": list(earlier[case.patient_id])},
            "label": {"faithfulness": faithfulness},
            "note": label.get("note", ""),
        }
        rows.append(check_row(raw, f"datasets/clinical/labels.jsonl case {case.id}", partial=True))
        earlier[case.patient_id] += [f"Q: {case.question}", f"A: {answer}"]
    return rows


def clinical_relevance(rows: list[LabelledRow]) -> None:
    """The bundled clinical answers have no relevance labels; every one of them addresses its
    question (some badly), so print how the jury scores their relevance."""
    prompt = get_prompt("clinical_answer")
    jury = offline_jury()
    for judge in jury:
        values = [judge.verdict(prompt, row.input)["answer_relevance"] for row in rows]
        low = sum(v <= 3 for v in values)
        print(f"clinical_answer.answer_relevance {judge.name:16} mean {statistics.mean(values):.2f}, "
              f"scored ≤ 3: {low}/{len(values)}")


def rag_qa_rows() -> list[LabelledRow]:
    """The bundled rag_qa answers with their hand labels, as rag_answer judgments."""
    def read(name: str) -> list[dict]:
        return bundled("rag_qa", name)

    cases = {c["id"]: c for c in read("cases.jsonl")}
    generations = {g["case_id"]: g for g in read("generations.jsonl")}
    rows = []
    for label in read("answer_labels.jsonl"):
        case, gen = cases[label["case_id"]], generations[label["case_id"]]
        raw = {
            "id": label["case_id"],
            "prompt_id": "rag_answer",
            "input": {
                "question": case["question"],
                "generated_answer": gen["answer"],
                "reference_answer": case["reference_answer"],
                "contexts": [chunk["text"] for chunk in gen["retrieved"][:10]],
            },
            "label": {k: label[k] for k in ("accuracy", "completeness", "relevance")},
            "note": label.get("note", ""),
        }
        rows.append(check_row(raw, f"datasets/rag_qa/answer_labels.jsonl case {label['case_id']}"))
    return rows


# -- agreement statistics ------------------------------------------------------------------

Scale = tuple[float, float]
Pair = tuple[float, float, float]  # (prediction, label, step)


def step_of(scale: Scale | None) -> float:
    if scale is None:
        return 1.0
    return 0.1 if (scale[1] - scale[0]) <= 1.0 else 1.0


def summarise(pairs: Sequence[Pair], scale: Scale | None = None) -> dict[str, float | None]:
    """pairs of (prediction, label, step) -> exact, within1, MAE, rho, and with a scale the
    share of wrong answers caught and of correct answers flagged (see the module docstring)."""
    eps = 1e-9
    n = len(pairs)
    exact = sum(abs(p - y) <= s / 2 + eps for p, y, s in pairs) / n
    within = sum(abs(p - y) <= s + eps for p, y, s in pairs) / n
    mae = sum(abs(p - y) for p, y, _ in pairs) / n
    rho = spearman([p for p, _, _ in pairs], [y for _, y, _ in pairs])
    caught = flagged = None
    if scale is not None:  # 1-5: labelled ≤ 2 scored ≤ 2.5 (caught), labelled ≥ 4 scored ≤ 3 (flagged)
        caught, flagged, _, _ = screen_rates([y for _, y, _ in pairs], [p for p, _, _ in pairs], scale)
    return {"exact": exact, "within1": within, "mae": mae, "rho": rho, "caught": caught, "flagged": flagged}


class Juror(Protocol):
    """What the bench needs of a judge: an offline judge (``assay.judges.offline``) fits."""

    name: str
    weight: float

    def verdict(self, prompt: Prompt, item: Mapping[str, Any]) -> Mapping[str, Any]: ...


@dataclass
class FieldPairs:
    """One prompt field's (prediction, label, step) pairs per predictor."""

    prompt_id: str
    field: str
    scale: Scale | None  # None for counts
    lower_is_better: bool
    by_predictor: dict[str, list[Pair]] = field(default_factory=lambda: defaultdict(list))

    @property
    def n(self) -> int:
        return len(self.by_predictor[ENSEMBLE])

    def stats(self, predictor: str = ENSEMBLE) -> dict[str, float | None]:
        # caught/flagged only where a low score means a wrong answer
        return summarise(self.by_predictor[predictor], None if self.lower_is_better else self.scale)


@dataclass
class SetAgreement:
    predictors: list[str]
    fields: dict[tuple[str, str], FieldPairs]
    intent_matches: dict[str, list[bool]]  # predictor -> per agent row, intent_label == the label's
    details: list[str]


def measure(rows: Iterable[LabelledRow], jury: Sequence[Juror]) -> SetAgreement:
    """Every judge's and the ensemble's score next to the label, per prompt field."""
    weights = [j.weight for j in jury]
    predictors = [j.name for j in jury] + [ENSEMBLE]
    fields: dict[tuple[str, str], FieldPairs] = {}
    intent: dict[str, list[bool]] = defaultdict(list)
    details = []
    for row in rows:
        prompt = get_prompt(row.prompt_id)
        # a set may label only some fields (the bundled clinical rows label faithfulness only)
        filled = {name: 0 for name in [*prompt.score_fields, *prompt.count_fields]} | row.label
        label_scores = {k: v for k, v in prompt.scores(filled).items() if k in row.label}
        verdicts = [j.verdict(prompt, row.input) for j in jury]
        judge_scores = [prompt.scores(v) for v in verdicts]
        if "intent_label" in row.label:
            votes = [v["intent_label"] for v in verdicts]
            mode = max(votes, key=lambda lab: (votes.count(lab), -votes.index(lab)))
            for name, vote in zip(predictors, [*votes, mode], strict=True):
                intent[name].append(vote == row.label["intent_label"])
        line = []
        for name, label in label_scores.items():
            scale = prompt.score_fields.get(name)
            pairs = fields.setdefault(
                (prompt.id, name), FieldPairs(prompt.id, name, scale, name in prompt.lower_is_better)
            )
            values = [s[name] for s in judge_scores]
            how = prompt.reducer(name)
            if how == "median":
                ens = statistics.median(values)
            elif how == "min":
                ens = min(values)
            else:
                ens, _ = aggregate_scores(values, weights, scale=scale or (0.0, 10.0))
            for predictor, value in zip(predictors, [*values, ens], strict=True):
                pairs.by_predictor[predictor].append((value, label, step_of(scale)))
            line.append(f"{name}={label:g} ← " + " ".join(f"{v:g}" for v in values) + f" | ens {ens:.2f}")
        details.append(f"{row.id:22} {prompt.id:24} " + "; ".join(line))
    return SetAgreement(predictors, fields, dict(intent), details)


# -- printing ------------------------------------------------------------------------------


def field_order(keys: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Fields in prompt registration order, each prompt's fields in its own order."""
    order = {
        (p.id, name): (i, j)
        for i, p in enumerate(all_prompts())
        for j, name in enumerate([*p.score_fields, *p.count_fields])
    }
    return sorted(set(keys), key=lambda k: order.get(k, (len(order), 0)))


def num(value: float | None, width: int) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:{width}.2f}"


COLUMNS = (("exact", 6), ("within1", 8), ("mae", 6), ("rho", 6), ("caught", 7), ("flagged", 8))


def set_table(result: SetAgreement, judges: bool) -> list[str]:
    """One table: a row per prompt field (the ensemble, with a 95 % bootstrap interval for its
    Spearman; each judge indented under it)."""
    lines = [f"{'field':42} {'n':>4} {'predictor':16} " + " ".join(f"{k if k != 'mae' else 'MAE':>{w}}" for k, w in COLUMNS)
             + f" {'rho 95%':>13}"]
    for key in field_order(result.fields):
        pairs = result.fields[key]
        names = [ENSEMBLE, *(p for p in result.predictors if p != ENSEMBLE)] if judges else [ENSEMBLE]
        for i, name in enumerate(names):
            stats = pairs.stats(name)
            head = f"{key[0] + '.' + key[1]:42} {pairs.n:>4}" if i == 0 else f"{'':42} {'':>4}"
            interval = ""
            if name == ENSEMBLE:  # the judges' intervals are as wide; one per field keeps the bench quick
                got = bootstrap_interval(spearman, [y for _, y, _ in pairs.by_predictor[name]],
                                         [p for p, _, _ in pairs.by_predictor[name]])
                interval = f" {f'[{got[0]:.2f},{got[1]:.2f}]' if got else '-':>13}"
            lines.append(f"{head} {name:16} " + " ".join(num(stats[k], w) for k, w in COLUMNS) + interval)
    if result.intent_matches:
        n = len(result.intent_matches[ENSEMBLE])
        shown = result.predictors if judges else [ENSEMBLE]
        lines.append(
            f"agent_intent.intent_label (n={n}) exact agreement: "
            + ", ".join(f"{name} {sum(result.intent_matches[name]) / n:.2f}" for name in shown)
        )
    return lines


SIDE = ("rho", "exact", "caught", "flagged")
W = 8  # a side-by-side cell


def side_by_side(results: Sequence[tuple[LabelledSet, SetAgreement]]) -> list[str]:
    """The ensemble's Spearman, caught, flagged and exact per field, one column group per set."""
    group = 5 + W * len(SIDE)
    lines = [
        f"{'':42} " + " ".join(f"{s.short:^{group}}" for s, _ in results),
        f"{'field':42} " + " ".join(f"{'n':>5}" + "".join(f"{k:>{W}}" for k in SIDE) for _ in results),
    ]
    keys = field_order(k for _, r in results for k in r.fields)
    for key in keys:
        cells = []
        for _, result in results:
            pairs = result.fields.get(key)
            if pairs is None:
                cells.append(f"{'·':>5}" + "".join(f"{'·':>{W}}" for _ in SIDE))
                continue
            stats = pairs.stats()
            cells.append(f"{pairs.n:>5}" + "".join(num(stats[k], W) for k in SIDE))
        lines.append(f"{key[0] + '.' + key[1]:42} " + " ".join(cells))
    cells = []
    for _, result in results:
        matches = result.intent_matches.get(ENSEMBLE)
        cells.append(
            f"{'·':>5}" + "".join(f"{'·':>{W}}" for _ in SIDE)
            if not matches
            else f"{len(matches):>5}"
            + "".join(num(sum(matches) / len(matches), W) if k == "exact" else f"{'':>{W}}" for k in SIDE)
        )
    lines.append(f"{'agent_intent.intent_label':42} " + " ".join(cells))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "datasets" / "judgments" / "labelled.jsonl")
    parser.add_argument("--details", action="store_true", help="print every prediction next to its label")
    parser.add_argument("--judges", action="store_true", help="print each offline judge's row under the ensemble's")
    parser.add_argument("--no-heldout", action="store_true", help="only the in-sample set")
    parser.add_argument(
        "--only", type=Path, metavar="DIR",
        help="measure only the labelled set in DIR (DIR/<suite>/labelled.jsonl), e.g. bench/heldout/en1",
    )
    parser.add_argument(
        "--rules-only", action="store_true",
        help="rag_answer and memory_usefulness from the rules alone, without the fitted stages",
    )
    args = parser.parse_args(argv)

    # every set is read and checked before the jury runs on any of them
    if args.only:
        sets = [named_set(args.only)]
    else:
        sets = [in_sample_set(args.data)]
        if not args.no_heldout:
            sets += heldout_sets()
    jury = offline_jury(fitted=not args.rules_only)
    for prompt_id, stage in STAGES.items():
        if args.rules_only:
            print(f"{prompt_id}: the rules alone (no fitted stage)")
            continue
        about = model_file(stage)["fitted_on"]
        print(f"{prompt_id}: rules, then the fitted stage ({'/'.join(stage.fields)}), fitted on {about['rows']} "
              f"labelled rows of {', '.join(about['sets'])}: for those scores those sets are training data, not evidence")
    print()
    results = []
    for labelled in sets:
        result = measure(labelled.rows, jury)
        results.append((labelled, result))
        print(f"== {labelled.title}: {labelled.about}")
        if args.details:
            print("\n".join(result.details))
        print("\n".join(set_table(result, args.judges)))
        print()
    bundled_clinical = clinical_rows()
    print(f"== in-sample clinical answers ({len(bundled_clinical)}, no relevance labels; each addresses its "
          "question): how each offline judge scores their relevance")
    clinical_relevance(bundled_clinical)
    print()
    print("== side by side (ensemble; · = no labels for that field in the set)")
    print("\n".join(side_by_side(results)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
