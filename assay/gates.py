"""CI gates: ``--assert METRIC>=VALUE`` thresholds on a run's means, and per-case results as
JUnit XML for CI systems.

A threshold is checked against the metric's mean over the scored cases in ``summary.json``.
A metric that is not in the run, that no case has a score for, or that a case lacks because
its target call failed (``assay.failed_calls``) misses its threshold: a gate never passes on a
number that was not measured. In JUnit such a case is an ``<error>``.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from xml.etree import ElementTree as ET

from pydantic import BaseModel

OPERATORS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt,
}
_THRESHOLD = re.compile(r"^\s*([^<>=\s]+)\s*(>=|<=|>|<)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$")


class Threshold(BaseModel):
    metric: str
    op: str
    value: float

    def __str__(self) -> str:
        return f"{self.metric}{self.op}{self.value:g}"

    def holds(self, observed: float | None) -> bool:
        return observed is not None and OPERATORS[self.op](observed, self.value)


def parse_threshold(text: str) -> Threshold:
    """``accuracy>=4``, ``ndcg@10 > 0.7``, ``csp<=0.2``; a clear error otherwise."""
    found = _THRESHOLD.match(text)
    if not found:
        raise ValueError(f"--assert {text!r}: write METRIC>=VALUE (or <=, >, <) with a number, e.g. accuracy>=4")
    return Threshold(metric=found.group(1), op=found.group(2), value=float(found.group(3)))


def missed_thresholds(thresholds: Sequence[Threshold], means: Mapping[str, float | None],
                      unmeasured: Mapping[str, int] | None = None, why_unscored: Mapping[str, str] | None = None,
                      ) -> list[str]:
    """One line per threshold the run's means miss (empty when every gate holds).
    ``unmeasured``: metric -> how many cases lack it because their target call failed;
    ``why_unscored``: metric -> a reason it has no score (``first_unscored_reasons``)."""
    missed = []
    for t in thresholds:
        lost = (unmeasured or {}).get(t.metric, 0)
        if lost:
            missed.append(f"{t}: {lost} case{'' if lost == 1 else 's'} it covers {'was' if lost == 1 else 'were'} "
                          "not measured (target calls failed), so its mean leaves them out")
        elif t.metric not in means:
            missed.append(f"{t}: the run has no metric {t.metric!r} (metrics: {', '.join(means)})")
        elif means[t.metric] is None:
            why = (why_unscored or {}).get(t.metric)
            missed.append(f"{t}: {t.metric} is unscored for every case" + (f" ({why})" if why else ""))
        elif not t.holds(means[t.metric]):
            missed.append(f"{t}: {t.metric} mean is {means[t.metric]:.4f}")
    return missed


# -- JUnit XML ----------------------------------------------------------------------------------
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(value: object) -> str:
    """Text XML can carry: control characters (invalid in XML 1.0) replaced."""
    return _NOT_XML.sub("\ufffd", str(value))


def junit_xml(
    suite: str,
    run_id: str,
    metrics: Sequence[str],
    cases: Sequence[tuple[str, str | None]],
    values: Mapping[tuple[str, str], float | None],
    reasons: Mapping[tuple[str, str], str],
    thresholds: Sequence[Threshold] = (),
    errors: Mapping[str, str] | None = None,
) -> str:
    """One testcase per case (classname = suite and group). A case is an *error* when its target
    call failed (``errors``: case id -> the failure), *fails* when one of its own scores misses
    an asserted threshold, and is *skipped* when none of its metrics has a score; every score is
    a property, and unscored metrics say why in system-out."""
    by_metric = {t.metric: t for t in thresholds}
    errors = errors or {}
    root = ET.Element("testsuites", name=f"assay {suite}")
    failures = skipped = errored = 0
    testsuite = ET.SubElement(root, "testsuite", name=f"assay.{suite}", id=_xml_text(run_id))
    for case_id, group in cases:
        case = ET.SubElement(testsuite, "testcase", name=_xml_text(case_id),
                             classname=_xml_text(f"{suite}.{group}" if group else suite))
        props = ET.SubElement(case, "properties")
        missed, unscored = [], []
        for metric in metrics:
            value = values.get((case_id, metric))
            ET.SubElement(props, "property", name=_xml_text(metric), value="" if value is None else f"{value:.6g}")
            if value is None:
                unscored.append(f"{metric}: unscored ({reasons.get((case_id, metric), 'no reason recorded')})")
            elif metric in by_metric and not by_metric[metric].holds(value):
                missed.append(f"{by_metric[metric]}: {value:.4f}")
        if case_id in errors:
            errored += 1
            ET.SubElement(case, "error", message=_xml_text(f"target call failed: {errors[case_id]}"), type="target-call")
        elif missed:
            failures += 1
            ET.SubElement(case, "failure", message=_xml_text("; ".join(missed)), type="threshold")
        elif metrics and len(unscored) == len(metrics):
            skipped += 1
            ET.SubElement(case, "skipped", message="no metric has a score")
        if unscored:
            ET.SubElement(case, "system-out").text = _xml_text("\n".join(unscored))
    for element in (root, testsuite):
        element.set("tests", str(len(cases)))
        element.set("failures", str(failures))
        element.set("errors", str(errored))
        element.set("skipped", str(skipped))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def junit_from_rows(suite: str, run_id: str, metrics: Sequence[str], groups: Mapping[str, str | None],
                    rows: Sequence[Mapping[str, Any]], thresholds: Sequence[Threshold] = (),
                    errors: Mapping[str, str] | None = None) -> str:
    """``junit_xml`` from stored score rows (final rows only: automatic and ensemble)."""
    values: dict[tuple[str, str], float | None] = {}
    reasons: dict[tuple[str, str], str] = {}
    order: dict[str, None] = {}
    for row in rows:
        if row.get("judge") is not None:
            continue
        key = (str(row["case_id"]), str(row["metric"]))
        order.setdefault(key[0])
        values[key] = row.get("value")
        if row.get("value") is None:
            reasons[key] = str(row.get("unscored_reason") or "no reason recorded")
    cases = [(case_id, groups.get(case_id)) for case_id in order]
    return junit_xml(suite, run_id, metrics, cases, values, reasons, thresholds, errors)


def first_unscored_reasons(rows: Sequence[Mapping[str, Any]], metrics: set[str]) -> dict[str, str]:
    """metric -> the first final row's reason it is unscored, for each of ``metrics``."""
    out: dict[str, str] = {}
    for row in rows:
        metric = str(row.get("metric"))
        if metric in metrics and metric not in out and row.get("judge") is None and row.get("unscored_reason"):
            out[metric] = str(row["unscored_reason"])
    return out


def unmeasured_by_metric(rows: Sequence[Mapping[str, Any]], unmeasured: set[str]) -> dict[str, int]:
    """metric -> how many of the ``unmeasured`` cases (target call failed) have no final score for it."""
    counts: dict[str, int] = {}
    for row in rows:
        if row.get("judge") is None and row.get("value") is None and str(row.get("case_id")) in unmeasured:
            counts[str(row["metric"])] = counts.get(str(row["metric"]), 0) + 1
    return counts
