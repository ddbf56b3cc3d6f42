"""``assay calibrate``: measure a finished run's jury against human labels.

The labels file holds one human score per row: ``case_id``, ``metric`` and ``score`` (CSV with
a header, or JSON lines), and optionally ``rater`` when several people labelled. For each
labelled metric the jury's score (the ensemble row) and each judge's own score are compared
with the people's (their mean when several rated a case):

- Spearman's ρ and Cohen's κ with quadratic weights, each with a 95 % bootstrap interval (the
  labelled cases resampled, fixed seed), exact and within-one agreement on the metric's
  categories (``Categories``: points, tenths on 0-1, counts), and a confusion table of human ×
  jury categories;
- the jury as a screen: of the cases people scored bad (the scale's bottom quarter, ≤ 2 on 1-5),
  the share it scored bad (≤ 2.5: caught), and of those people scored good (≥ 4), the share it
  scored at or below the midpoint (≤ 3: flagged); a lower-is-better metric is mirrored first;
- Krippendorff's α (interval) across every judge and every rater together;
- the widest gaps: up to five cases where the jury is furthest from the people.

The result is added to the run as ``calibration.json`` (recorded in the manifest with a
``calibrate`` step and an amendment that keeps the earlier root hash, so ``assay audit`` still
passes and runs chained to the earlier anchor still audit), and report.md / report.html are
re-rendered with a calibration section.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import statistics
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from assay import artifacts as names
from assay.hashing import sha256_bytes
from assay.judges.criteria import PASS_FAIL
from assay.lineage.audit import audit_run
from assay.lineage.manifest import MANIFEST, Amendment, RunRecorder, StepRecord, load_manifest, now_iso
from assay.lineage.store import ArtifactStore
from assay.lineage.trace import RunIntegrityError, RunReader
from assay.metrics import agreement as ag
from assay.rendering.explorer import embedded_explorer
from assay.rendering.render import render_html
from assay.rendering.tables import fmt, markdown_table, md_markup, md_text
from assay.validation.limits import InputLimits, RejectedValue, loads_checked

STEP = "calibrate"
SECTION_TITLE = "## Calibration against human labels"
LABEL_FIELDS = ("case_id", "metric", "score")
PASS_FAIL_LABELS = {"pass": 1.0, "fail": 0.0}


class CalibrationError(ValueError):
    """The labels file or the run cannot be calibrated; the message names the row."""


class HumanLabel(BaseModel):
    case_id: str
    metric: str
    score: float
    rater: str = "human"


class Agreement(BaseModel):
    """One predictor (the jury or one judge) against the people, on one metric."""

    predictor: str
    n: int
    spearman: float | None
    kappa_quadratic: float | None
    exact: float | None
    within_one: float | None
    # 95 % bootstrap intervals (cases resampled); None under 5 cases or a constant side
    spearman_interval: tuple[float, float] | None = None
    kappa_interval: tuple[float, float] | None = None
    # the jury as a screen (``agreement.screen_rates``), with the counts they are shares of
    caught: float | None = None
    flagged: float | None = None
    n_bad: int = Field(default=0, description="cases people scored in the scale's bad quarter")
    n_good: int = Field(default=0, description="cases people scored in the scale's good quarter")


class Disagreement(BaseModel):
    case_id: str
    human: float
    jury: float


# How many of the widest jury-people gaps a metric's calibration lists: the cases to read first.
SHOWN_DISAGREEMENTS = 5


class MetricCalibration(BaseModel):
    metric: str
    scale: str
    lower_is_better: bool = False
    n_labelled: int
    unmatched: list[str] = Field(default_factory=list, description="labelled cases the run left unscored, with why")
    jury: Agreement | None
    judges: list[Agreement] = Field(default_factory=list)
    alpha_all: float | None = Field(description="Krippendorff's alpha (interval), every judge and rater")
    confusion: list[list[int]] = Field(default_factory=list, description="rows: human category; columns: jury")
    categories: list[float] = Field(default_factory=list, description="points; tenths on a 0-1 scale; counts")
    disagreements: list[Disagreement] = Field(
        default_factory=list, description="the cases where jury and people differ most, largest first"
    )


class CalibrationRecord(BaseModel):
    run_id: str
    labels_file: str
    labels_sha256: str
    raters: list[str]
    metrics: list[MetricCalibration]


# -- labels ------------------------------------------------------------------------------------
def read_labels(path: Path) -> list[HumanLabel]:
    """Labels from CSV (with a header) or JSON lines; a bad row fails naming its line."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CalibrationError(f"{path.name}: not UTF-8 text (byte {exc.start}); save the labels as UTF-8 CSV or JSON lines") from None
    rows: list[tuple[int, dict[str, object]]] = []
    limits = InputLimits.from_env()
    if path.suffix.lower() in {".jsonl", ".json", ".ndjson"}:
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = loads_checked(line, limits)
            except json.JSONDecodeError as exc:
                raise CalibrationError(f"{path.name} line {number}: not valid JSON ({exc.msg})") from None
            except RejectedValue as exc:
                raise CalibrationError(f"{path.name} line {number}: {exc}") from None
            if not isinstance(row, dict):
                raise CalibrationError(f"{path.name} line {number}: expected a JSON object")
            rows.append((number, row))
    else:
        reader = csv.DictReader(io.StringIO(text))
        missing = [f for f in LABEL_FIELDS if f not in (reader.fieldnames or [])]
        if missing:
            raise CalibrationError(f"{path.name}: the header lacks {', '.join(missing)} (needs {', '.join(LABEL_FIELDS)})")
        rows = [(number, dict(row)) for number, row in enumerate(reader, 2)]
    labels = []
    for number, row in rows:
        absent = [f for f in LABEL_FIELDS if row.get(f) in (None, "")]
        if absent:
            raise CalibrationError(f"{path.name} line {number}: missing {', '.join(absent)}")
        try:
            # a pass/fail criterion's label may be written as the verdict itself
            score = PASS_FAIL_LABELS.get(str(row["score"]).strip().lower(), None)
            score = float(row["score"]) if score is None else score  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise CalibrationError(f"{path.name} line {number}: score {row['score']!r} is not a number") from None
        if not math.isfinite(score):
            raise CalibrationError(f"{path.name} line {number}: score {row['score']!r} is not a finite number")
        labels.append(
            HumanLabel(
                case_id=str(row["case_id"]), metric=str(row["metric"]), score=score, rater=str(row.get("rater") or "human")
            )
        )
    if not labels:
        raise CalibrationError(f"{path.name}: no labels")
    return labels


def _scale(text: str) -> tuple[float, float]:
    m = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*-\s*(-?\d+(?:\.\d+)?)\s*", text or "")
    if not m:
        raise CalibrationError(f"scale {text!r} is neither 'low-high' nor 'count'")
    return float(m.group(1)), float(m.group(2))


@dataclass(frozen=True)
class Categories:
    """A metric's categories for κ, exact, within one and the confusion table: whole points on a
    1-5 or 0-10 scale, tenths on a 0-1 scale (as ``bench/jury_agreement.py`` steps it), fail 0
    and pass 1 on a pass/fail criterion, and for a count (hallucinations) every count from 0 to
    the largest anyone gave."""

    low: float
    high: float
    step: float
    bounded: bool  # caught and flagged need a scale with a bad and a good end; a count has none

    @classmethod
    def of(cls, scale_text: str, values: Collection[float]) -> Categories:
        if scale_text == PASS_FAIL:  # a pass/fail criterion: two categories, fail 0 and pass 1
            return cls(0.0, 1.0, 1.0, bounded=True)
        if scale_text == "count":
            return cls(0.0, float(max(1, math.ceil(max(values, default=0)))), 1.0, bounded=False)
        lo, hi = _scale(scale_text)
        return cls(lo, hi, 0.1 if hi - lo <= 1 else 1.0, bounded=True)

    @property
    def in_steps(self) -> tuple[float, float]:
        """The scale counted in steps: 0-1 becomes 0-10, so its tenths are whole categories."""
        return self.low / self.step, self.high / self.step

    def steps(self, values: list[float]) -> list[float]:
        return [v / self.step for v in values]

    def labels(self) -> list[float]:
        return [round(c * self.step, 1) for c in ag.categories_of(self.in_steps)]

    def holds(self, score: float) -> bool:
        return score >= 0 if not self.bounded else self.low <= score <= self.high


# -- statistics ------------------------------------------------------------------------------
def calibrate_scores(
    score_rows: list[dict], labels: list[HumanLabel], lower_is_better: Collection[str] = ()
) -> list[MetricCalibration]:
    """Per labelled metric, the jury and each judge against the people (see the module docstring);
    ``lower_is_better`` names the metrics where a low score is the good one."""
    ensemble: dict[tuple[str, str], dict] = {}
    per_judge: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for row in score_rows:
        key = (row["metric"], row["case_id"])
        if row.get("judge") is None:
            ensemble[key] = row
        elif row.get("value") is not None:
            per_judge[key][row["judge"]] = float(row["value"])
    known_metrics = {m for m, _ in ensemble}
    human: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for number, label in enumerate(labels, 1):
        if label.metric not in known_metrics:
            raise CalibrationError(
                f"label {number} ({label.case_id}): the run has no metric {label.metric!r}; "
                f"its metrics: {', '.join(sorted(known_metrics))}"
            )
        if (label.metric, label.case_id) not in ensemble:
            raise CalibrationError(f"label {number}: the run has no case {label.case_id!r} for {label.metric}")
        human[(label.metric, label.case_id)][label.rater] = label.score
    raters = sorted({label.rater for label in labels})
    out = []
    for metric in sorted({m for m, _ in human}):
        cases = sorted(c for m, c in human if m == metric)
        scale_text = ensemble[(metric, cases[0])]["scale"]
        given = [v for c in cases for v in (*human[(metric, c)].values(), *per_judge[(metric, c)].values())]
        given += [float(ensemble[(metric, c)]["value"]) for c in cases if ensemble[(metric, c)].get("value") is not None]
        scale = Categories.of(scale_text, given)
        for c in cases:
            for rater, score in human[(metric, c)].items():
                if not scale.holds(score):
                    where = "below 0 (a count)" if not scale.bounded else f"outside {scale_text}"
                    raise CalibrationError(f"label for {c} / {metric} by {rater}: {score:g} is {where}")
        unmatched, pairs = [], []
        for c in cases:
            row = ensemble[(metric, c)]
            if row.get("value") is None:
                unmatched.append(f"{c}: {row.get('unscored_reason') or 'unscored'}")
            else:
                pairs.append((c, statistics.fmean(human[(metric, c)].values()), float(row["value"])))
        judges = sorted({j for c in cases for j in per_judge[(metric, c)]})

        lower = metric in lower_is_better
        jury = _against("jury", {c: j for c, _, j in pairs}, pairs, scale, lower) if pairs else None
        judge_rows = [
            _against(
                name, {c: per_judge[(metric, c)][name] for c in cases if name in per_judge[(metric, c)]}, pairs, scale, lower
            )
            for name in judges
        ]
        matrix = [[per_judge[(metric, c)].get(name) for c in cases] for name in judges]
        matrix += [[human[(metric, c)].get(rater) for c in cases] for rater in raters]
        out.append(
            MetricCalibration(
                metric=metric,
                scale=scale_text,
                lower_is_better=lower,
                n_labelled=len(cases),
                unmatched=unmatched,
                jury=jury,
                judges=judge_rows,
                alpha_all=ag.krippendorff_alpha(matrix, "interval") if len(matrix) >= 2 else None,
                confusion=ag.confusion(
                    scale.steps([h for _, h, _ in pairs]), scale.steps([j for _, _, j in pairs]), scale.in_steps
                ) if pairs else [],
                categories=scale.labels(),
                disagreements=_widest_gaps(pairs, scale),
            )
        )
    return out


def _widest_gaps(pairs: list[tuple[str, float, float]], scale: Categories) -> list[Disagreement]:
    """The cases where the jury is furthest from the people, at least one category apart."""
    apart = [(abs(j - h), c, h, j) for c, h, j in pairs if abs(j - h) / scale.step >= 1 - 1e-9]
    apart.sort(key=lambda t: (-t[0], t[1]))
    return [Disagreement(case_id=c, human=round(h, 2), jury=round(j, 2)) for _, c, h, j in apart[:SHOWN_DISAGREEMENTS]]


def _against(
    name: str,
    values: dict[str, float],
    pairs: list[tuple[str, float, float]],
    scale: Categories,
    lower_is_better: bool = False,
) -> Agreement:
    """``name``'s scores (by case) against the people's, on the cases the jury scored."""
    matched = [(h, values[c]) for c, h, _ in pairs if c in values]
    hs, js = [h for h, _ in matched], [j for _, j in matched]
    hc, jc, steps = scale.steps(hs), scale.steps(js), scale.in_steps  # categories for κ, exact, within one
    screen = (
        ag.screen_rates(hs, js, (scale.low, scale.high), lower_is_better) if scale.bounded else ag.Screen(None, None, 0, 0)
    )
    return Agreement(
        predictor=name,
        n=len(matched),
        spearman=ag.spearman(hs, js),
        kappa_quadratic=ag.cohen_kappa_quadratic(hc, jc, steps),
        exact=ag.exact_agreement(hc, jc, steps),
        within_one=ag.within_one(hc, jc, steps),
        spearman_interval=ag.bootstrap_interval(ag.spearman, hs, js),
        kappa_interval=ag.bootstrap_interval(lambda h, j: ag.cohen_kappa_quadratic(h, j, steps), hc, jc),
        caught=screen.caught,
        flagged=screen.flagged,
        n_bad=screen.bad,
        n_good=screen.good,
    )


# -- report section --------------------------------------------------------------------------
def calibration_markdown(record: CalibrationRecord) -> str:
    lines = [
        SECTION_TITLE,
        "",
        f"Human labels: `{md_text(record.labels_file)}` (sha256 `{record.labels_sha256[:16]}`), "
        f"{len(record.raters)} rater{'s' if len(record.raters) != 1 else ''}. "
        "Brackets hold 95 % bootstrap intervals (the labelled cases resampled): with few labels they are wide, "
        "and a figure is only as firm as its interval. κ is Cohen's kappa with quadratic weights; α is "
        "Krippendorff's alpha (interval) across every judge and rater; exact and within one compare scores "
        "rounded to the metric's categories (whole points; tenths on a 0-1 scale; counts). Caught: of the cases people scored in the scale's bad quarter "
        "(≤ 2 on 1-5), those the predictor scored bad (≤ 2.5); flagged: of those people scored in the good "
        "quarter (≥ 4), those it scored at or below the midpoint (≤ 3); a lower-is-better metric is mirrored.",
        "",
    ]
    rows = []
    for m in record.metrics:
        for a in [m.jury, *m.judges]:
            if a is None:
                continue
            rows.append([
                md_text(m.metric), md_text(a.predictor), a.n,
                # assay's own figures: their brackets are no link, so the table keeps them as written
                md_markup(_with_interval(a.spearman, a.spearman_interval)),
                md_markup(_with_interval(a.kappa_quadratic, a.kappa_interval)),
                fmt(a.exact, 2), fmt(a.within_one, 2), _share(a.caught, a.n_bad), _share(a.flagged, a.n_good),
                fmt(m.alpha_all, 2) if a.predictor == "jury" else "",
            ])  # fmt: skip
    lines.append(markdown_table(
        ["metric", "predictor", "n", "Spearman", "κ (quadratic)", "exact", "within one", "caught", "flagged", "α (all)"], rows
    ))
    for m in record.metrics:
        if m.confusion:
            lines += ["", f"Confusion for {md_text(m.metric)} ({md_text(m.scale)}): rows are the people's score, columns the jury's.", ""]
            lines.append(markdown_table(["human \\ jury", *(f"{c:g}" for c in m.categories)],
                                        [[f"{c:g}", *row] for c, row in zip(m.categories, m.confusion, strict=True)]))
        if m.disagreements:
            lines += ["", f"Widest gaps for {md_text(m.metric)}, the cases to read first: "
                      + ", ".join(f"{md_text(d.case_id)} (people {d.human:g}, jury {d.jury:g})" for d in m.disagreements)
                      + "."]
        if m.unmatched:
            lines += ["", f"Not compared for {md_text(m.metric)} (the run left them unscored):", ""]
            lines += [f"- {md_text(u)}" for u in m.unmatched]
    return "\n".join(lines) + "\n"


def _with_interval(value: float | None, interval: tuple[float, float] | None) -> str:
    """0.72 [0.55, 0.84]; the value alone when there is no interval."""
    return fmt(value, 2) + (f" [{interval[0]:.2f}, {interval[1]:.2f}]" if value is not None and interval else "")


def _share(rate: float | None, of: int) -> str:
    """0.80 (4 of 5); '-' when people scored no case in that quarter."""
    return "-" if rate is None else f"{rate:.2f} ({round(rate * of)} of {of})"


def with_section(report_md: str, section: str) -> str:
    """``report_md`` with its calibration section replaced by (or ended with) ``section``."""
    start = report_md.find(SECTION_TITLE)
    if start < 0:
        return report_md.rstrip("\n") + "\n\n" + section
    after = report_md.find("\n## ", start + len(SECTION_TITLE))
    tail = report_md[after + 1 :] if after >= 0 else ""
    return report_md[:start] + section + ("\n" + tail if tail else "")


# -- the command --------------------------------------------------------------------------------
def calibrate_run(store: ArtifactStore, run_id: str, labels_path: Path) -> CalibrationRecord:
    """Measure the run's jury against ``labels_path`` and amend the run (see the module docstring)."""
    manifest = load_manifest(store, run_id)
    if manifest.status == "running":
        raise CalibrationError(f"run {run_id} has not finished")
    for needed in (names.SCORES, names.REPORT_MD):
        if needed not in manifest.artifacts:
            raise CalibrationError(f"run {run_id} has no {needed} to calibrate")
    # Calibrating re-renders the report from the stored one and re-anchors the manifest: on a run
    # with an edited file or manifest that would bless the edit, so the run must pass its audit.
    audit = audit_run(store, run_id)
    if not audit.ok:
        raise CalibrationError(
            f"run {run_id} fails its audit, and calibrating would re-anchor what was changed:\n" + "\n".join(audit.lines())
        )
    reader = RunReader(store, run_id)  # every read checked against its hash once more

    def read(name: str) -> bytes:
        try:
            return reader.bytes(name)
        except RunIntegrityError as exc:  # changed between the audit and this read
            raise CalibrationError(str(exc)) from None

    raw = labels_path.read_bytes()
    labels = read_labels(labels_path)
    score_rows = [json.loads(line) for line in read(names.SCORES).decode("utf-8").splitlines() if line.strip()]
    summary = json.loads(read(names.SUMMARY)) if names.SUMMARY in manifest.artifacts else {}
    lower_is_better = summary.get("lower_is_better", [])
    record = CalibrationRecord(
        run_id=run_id,
        labels_file=labels_path.name,
        labels_sha256=sha256_bytes(raw),
        raters=sorted({label.rater for label in labels}),
        metrics=calibrate_scores(score_rows, labels, lower_is_better),
    )
    markdown_text = with_section(read(names.REPORT_MD).decode("utf-8"), calibration_markdown(record))
    charts = {
        name.removeprefix("charts/").removesuffix(".png"): read(name)
        for name in manifest.artifacts
        if name.startswith("charts/") and name.endswith(".png")
    }
    # the case explorer is carried over from the published page (it does not change with labels)
    explorer = embedded_explorer(read(names.REPORT_HTML).decode("utf-8")) if names.REPORT_HTML in manifest.artifacts else None
    html_text = render_html(markdown_text, charts, f"assay {manifest.suite} report", explorer)

    previous_root = json.loads(store.read_bytes(store.run_path(run_id, MANIFEST)))["root_hash"]
    recorder = RunRecorder(store, manifest, chain=False, run_dir=run_id)
    cal_sha = store.put(json.dumps(record.model_dump(mode="json"), ensure_ascii=False, indent=2).encode("utf-8"))
    recorder.record(names.CALIBRATION, cal_sha, STEP, inputs=[names.SCORES], media_type=names.JSON, path=names.CALIBRATION)
    for name, text, kind in ((names.REPORT_MD, markdown_text, "text/markdown"), (names.REPORT_HTML, html_text, "text/html")):
        inputs = sorted({*manifest.artifacts[name].inputs, names.CALIBRATION}) if name in manifest.artifacts else [names.CALIBRATION]
        recorder.record(name, store.put(text.encode("utf-8")), STEP, inputs=inputs, media_type=kind, path=name)
    outputs = [names.CALIBRATION, names.REPORT_MD, names.REPORT_HTML]
    recorder.step(StepRecord(name=STEP, status="ran", outputs=outputs, detail=f"labels {labels_path.name}"))
    manifest.amendments.append(
        Amendment(step=STEP, at=now_iso(), previous_root=previous_root, detail=f"labels sha256 {record.labels_sha256}")
    )
    recorder.save()
    return record


def summary_lines(record: CalibrationRecord) -> list[str]:
    """The console view: one line per metric and predictor."""
    out = [f"calibrated run {record.run_id} against {record.labels_file}"]
    for m in record.metrics:
        for a in [m.jury, *m.judges]:
            if a is not None:
                out.append(
                    f"  {m.metric:14s} {a.predictor:18s} n={a.n:<3d} rho={_with_interval(a.spearman, a.spearman_interval)} "
                    f"kappa={_with_interval(a.kappa_quadratic, a.kappa_interval)} exact={fmt(a.exact, 2)} "
                    f"within1={fmt(a.within_one, 2)} caught={_share(a.caught, a.n_bad)} flagged={_share(a.flagged, a.n_good)}"
                )
        out.append(f"  {m.metric:14s} alpha (judges + people) = {fmt(m.alpha_all, 2)}")
        if m.disagreements:
            out.append(f"  {m.metric:14s} widest gaps: "
                       + ", ".join(f"{d.case_id} (people {d.human:g}, jury {d.jury:g})" for d in m.disagreements))
        if m.unmatched:
            out.append(f"  {m.metric:14s} not compared (unscored): {len(m.unmatched)}")
    out.append(f"written: {names.CALIBRATION}, report.md and report.html re-rendered; manifest re-anchored")
    return out
