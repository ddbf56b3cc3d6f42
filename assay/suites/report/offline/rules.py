"""report_* (0-10): the offline jury's rules for a report and the sources it cites.

Sentences with a ``[SOURCE:N]`` tag or a figure are *claims*. A cited claim is supported when
every tag names a source, coverage(claim, cited sources) ≥ SUPPORT and none of its figures is
contradicted by or missing from them; an uncited claim when its figures occur in some source.
An uncited sentence that proposes (a plan, a target, or a directive in a recommendations
section) claims nothing. Cue words: ``rules/cues.yaml``.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from assay.judges.offline import text as tx
from assay.judges.offline.messages import Msg, joined, say
from assay.judges.offline.scoring import pct
from assay.judges.offline.suite_rules import RuleSet
from assay.judges.prompts import ReportInput
from assay.schemas import JsonObject

CUES_PATH = Path(__file__).resolve().parents[1] / "rules" / "cues.yaml"
CUE_KEYS = ("recommendation_headings", "directive_endings", "directive_openers", "request_words")


@cache
def cues() -> dict[str, tuple[str, ...]]:
    """``rules/cues.yaml``: every key a list of non-empty strings (a ValueError names the key)."""
    from assay.yaml_files import read_yaml_mapping

    data = read_yaml_mapping(CUES_PATH, "report cue table", ValueError)
    out = {}
    for key in CUE_KEYS:
        words = data.get(key)
        if not isinstance(words, list) or not words or not all(isinstance(w, str) and w.strip() for w in words):
            raise ValueError(f"report cue table {CUES_PATH}: '{key}' must be a list of non-empty strings")
        out[key] = tuple(words)
    return out


@cache
def directive_end() -> re.Pattern[str]:
    """A sentence ending that directs ("… 분산한다", "we should …")."""
    endings = "|".join(re.escape(w) for w in cues()["directive_endings"])
    openers = "|".join(re.escape(w) for w in cues()["directive_openers"])
    return re.compile(rf"(?:{endings}|(?:{openers}) [^.]*)[.!]?$", re.IGNORECASE)


class ReportRules(RuleSet):
    """The four report prompts, read off the judge's signals (``units``, ``coverage``…)."""

    def _report_claims(self, item: ReportInput) -> JsonObject:
        """Per-sentence analysis shared by the factual and hallucination rules."""
        sources = {s.number: s for s in item.sources}
        all_sources = "\n".join(f"{s.title}\n{s.content}" for s in item.sources)
        sents, in_recommendations = _body_sentences(item.report)
        ctx = self.prepare([*sents, *(s.content for s in item.sources), item.query])
        source_units = {n: self.units(f"{s.title}\n{s.content}", ctx) for n, s in sources.items()}
        claims = []
        for idx, sent in enumerate(sents, 1):
            tags = tx.citations(sent)
            # label numbers (stages, ordinals, age groups) and numbers inside names are no figures
            body = tx.strip_citations(sent)
            facts = tx.mask_labels(body)
            proposes = tx.has_any(body, tx.PROPOSAL_CUES) or (idx in in_recommendations and _directs(body))
            if not tags and (not tx.quantities(facts) or proposes):
                continue
            valid = [n for n in tags if n in sources]
            claim = {"index": idx, "text": _clean(body), "tags": tags, "valid": valid,
                     "invalid": [n for n in tags if n not in sources]}
            if tags:
                claim.update(self._cited(claim, body, facts, item.query, sources, source_units, ctx))
            else:
                claim.update(self._uncited(facts, all_sources, item.query))
            claims.append(claim)
        return {"sentences": sents, "claims": claims, "exaggerations": _exaggerations(sents, all_sources)}

    def _cited(
        self, claim: JsonObject, body: str, facts: str, query: str, sources: dict, source_units: dict, ctx: Any
    ) -> JsonObject:
        """A cited claim must be covered by the sources it cites, figures included."""
        valid = claim["valid"]
        ref_text = "\n".join(sources[n].content for n in dict.fromkeys(valid)) if valid else ""
        ref_units = self.union(*(source_units[n] for n in valid)) if valid else {}
        cov = self.coverage(self.units(body, ctx), ref_units) or 0.0
        level, reasons = self.conflicts(facts, ref_text, query) if valid else (0, [])
        missing = self.unsupported_figures(facts, ref_text, query) if valid else []
        if missing and level == 0:
            level, reasons = 1, [say("report.cited_figures_missing", figures=", ".join(missing))]
        supported = bool(valid) and not claim["invalid"] and cov >= self.SUPPORT and level == 0
        return {"coverage": cov, "level": level, "reasons": reasons, "supported": supported, "uncited_figure": False}

    def _uncited(self, facts: str, all_sources: str, query: str) -> JsonObject:
        """An uncited figure must at least appear somewhere in the sources."""
        missing = self.unsupported_figures(facts, all_sources, query)
        return {
            "coverage": 0.0 if missing else 1.0,
            "level": 0,
            "reasons": [say("report.figures_missing", figures=", ".join(missing))] if missing else [],
            "supported": not missing,
            "uncited_figure": bool(missing),
        }

    def report_factual_accuracy(self, item: ReportInput) -> JsonObject:
        """10·(0.5·supported + 0.3·correct tags + 0.2·cited) − 1.5 per contradicted claim − 1 per
        uncited figure − 0.5 per exaggeration (each counted at most 3 times)."""
        a = self._report_claims(item)
        claims = a["claims"]
        issues: list[Msg] = []
        tags_ok, tags_total = _tags(claims)
        if claims:
            supported = sum(c["supported"] for c in claims) / len(claims)
            cited = sum(bool(c["tags"]) for c in claims) / len(claims)
        else:
            supported, cited = 0.5, 0.0
            issues.append(say("report.no_claims"))
        cit_acc = tags_ok / tags_total if tags_total else (1.0 if not claims else supported)
        contradicted = sum(1 for c in claims if c["level"] >= 1)
        uncited = sum(1 for c in claims if c["uncited_figure"])
        exag = len(a["exaggerations"])
        score = 10 * (0.5 * supported + 0.3 * cit_acc + 0.2 * cited)
        score -= 1.5 * min(contradicted, 3) + 1.0 * min(uncited, 3) + 0.5 * min(exag, 3)
        issues += [issue for c in claims if (issue := _claim_issue(c))]
        issues += [say("report.exaggeration_issue", index=e["index"], cue=e["cue"]) for e in a["exaggerations"]]
        reasoning = joined((f"[{self.signal}]", say(
            "report.factual", claims=len(claims), supported=pct(supported), citations=pct(cit_acc), cited=pct(cited),
            contradicted=contradicted, uncited=uncited, exaggerations=exag,
        )), " ")  # fmt: skip
        return {"score": _clip(score), "reasoning": reasoning, "issues": issues}

    def report_coherence(self, item: ReportInput) -> JsonObject:
        """2 each for structure (≥ 4 headers), a conclusion, connectives (≥ 1 in 4 sentences),
        cohesion (adjacent-sentence similarity / COHESION_REF) and a grounded conclusion (0 if its
        growth/decline direction opposes the body's); −1 if sections average < 1.5 sentences."""
        m = self._coherence_measures(item.report)
        score = 2 * (m["structure"] + m["has_conclusion"] + m["connectives"] + m["cohesion"] + m["grounded"])
        strengths, weaknesses = _coherence_findings(m)
        reasoning = joined((f"[{self.signal}]", say(
            "report.coherence", structure=m["structure"], conclusion=m["has_conclusion"], connectives=m["connectives"],
            cohesion=m["cohesion"], grounded=m["grounded"], thin=say("report.thin_sections") if m["thin"] else "",
        )), " ")  # fmt: skip
        return {"score": _clip(score - (1.0 if m["thin"] else 0.0)), "reasoning": reasoning,
                "strengths": strengths, "weaknesses": weaknesses}

    def _coherence_measures(self, report: str) -> JsonObject:
        heads = tx.headers(report)
        sents = [s for s in tx.sentences(report) if not tx.HEADER_RE.match(s)]
        ctx = self.prepare(sents)
        concl_idx = next((i for i, h in enumerate(heads) if tx.has_any(h, tx.CONCLUSION_CUES)), None)
        body_text, concl_text = _split_conclusion(report)
        has_conclusion = 1.0 if (concl_idx is not None and concl_text.strip()) else 0.0
        conn = sum(1 for s in sents if tx.has_any(s, tx.CONNECTIVES))
        unit_list = [self.units(s, ctx) for s in sents]
        sims = [self.similarity(a, b) for a, b in zip(unit_list, unit_list[1:], strict=False)]
        grounded, opposite = 0.0, False
        if has_conclusion:
            cov = self.coverage(self.units(concl_text, ctx), self.units(body_text, ctx)) or 0.0
            grounded = min(cov / 0.5, 1.0)
            body_dir, concl_dir = tx.direction(body_text), tx.direction(concl_text)
            if body_dir and concl_dir and body_dir != concl_dir:
                grounded, opposite = 0.0, True
        return {
            "heads": len(heads), "sents": len(sents), "conn": conn,
            "structure": min(len(heads) / 4, 1.0),
            "has_conclusion": has_conclusion,
            "connectives": min(conn / max(len(sents) * 0.25, 1.0), 1.0),
            "cohesion": min((sum(sims) / len(sims)) / self.COHESION_REF, 1.0) if sims else 0.0,
            "grounded": grounded, "opposite": opposite,
            "thin": len(heads) >= 2 and len(sents) / max(len(heads) - 1, 1) < 1.5,
        }

    def report_relevance(self, item: ReportInput) -> JsonObject:
        """10·(0.55·Q + 0.15·format + 0.15·recommendations + 0.15·specifics), Q = coverage(query
        topic, report); at most 2 when the title covers ≤ TITLE_MIN of the topic and Q < 0.6."""
        report = item.report
        ctx = self.prepare([item.query, *tx.sentences(report)])
        topic = _query_topic(item.query)
        u_topic = self.units(topic, ctx)
        heads = tx.headers(report)
        title = heads[0] if heads else (tx.sentences(report) or [""])[0]
        q = self.coverage(u_topic, self.units(report, ctx)) or 0.0
        in_title = self.coverage(u_topic, self.units(title, ctx)) or 0.0
        fmt, recommendations, specifics = _relevance_parts(item.query, report, heads)
        score = 10 * (0.55 * q + 0.15 * fmt + 0.15 * recommendations + 0.15 * specifics)
        off_topic = in_title <= self.TITLE_MIN and q < 0.6
        if off_topic:
            score = min(score, 2.0)
        fulfilled, missing = [], []
        (fulfilled if q >= 0.6 else missing).append(say("report.topic", share=pct(q), topic=topic))
        (fulfilled if fmt >= 1 else missing).append(say("report.format"))
        (fulfilled if recommendations else missing).append(say("report.recommendations"))
        (fulfilled if specifics >= 0.5 else missing).append(say("report.specifics"))
        reasoning = joined((f"[{self.signal}]", say(
            "report.relevance", topic=pct(q), title=pct(in_title), format=fmt, recommendations=recommendations,
            specifics=specifics, off_topic=say("report.off_topic") if off_topic else "",
        )), " ")  # fmt: skip
        return {"score": _clip(score), "reasoning": reasoning,
                "fulfilled_requirements": fulfilled, "missing_requirements": missing}

    def report_hallucination(self, item: ReportInput) -> JsonObject:
        """One case per claim with an invalid tag or unsupported by its sources (citation
        inaccuracy, 2), per uncited figure no source has (unfounded, 2), per exaggeration (1)."""
        a = self._report_claims(item)
        cases = [case for c in a["claims"] if (case := _hallucination(c))]
        cases += [_case("exaggeration", say("report.sentence", index=e["index"]),
                        say("report.exaggeration_case", text=e["text"], cue=e["cue"]), 1)
                  for e in a["exaggerations"]]  # fmt: skip
        tags_ok, tags_total = _tags(a["claims"])
        return {
            "hallucination_count": len(cases),
            "hallucinations": cases,
            "citation_accuracy": round(tags_ok / tags_total, 4) if tags_total else 1.0,
        }


def _tags(claims: list[JsonObject]) -> tuple[int, int]:
    """(the tags of supported claims, every tag): the share of correct citations."""
    return sum(len(c["tags"]) for c in claims if c["supported"]), sum(len(c["tags"]) for c in claims)


def _claim_issue(c: JsonObject) -> Msg | None:
    """The factual rule's issue line for one claim (None when it holds)."""
    index = c["index"]
    if c["invalid"]:
        return say("report.unknown_source", index=index, tags=", ".join(f"[SOURCE:{n}]" for n in c["invalid"]))
    if c["level"] >= 1:
        return say("report.other_figures", index=index, reasons=joined(c["reasons"], "; "))
    if c["uncited_figure"]:
        return say("report.uncited_figure", index=index, text=c["text"][:60])
    if not c["supported"]:
        return say("report.unsupported", index=index, share=pct(c["coverage"]))
    return None


def _hallucination(c: JsonObject) -> JsonObject | None:
    """The hallucination rule's case for one claim (None when it holds)."""
    loc = say("report.sentence", index=c["index"])
    if c["invalid"]:
        tags = ", ".join(f"[SOURCE:{n}]" for n in c["invalid"])
        return _case("citation_inaccuracy", loc, say("report.unknown_source_case", text=c["text"], tags=tags), 2)
    if c["tags"] and not c["supported"]:
        why = joined(c["reasons"], "; ") if c["reasons"] else say("report.agreement", share=pct(c["coverage"]))
        return _case("citation_inaccuracy", loc, say("report.disagrees_case", text=c["text"], why=why), 2)
    if c["uncited_figure"]:
        return _case("unfounded_claims", loc, say("report.unfounded_case", text=c["text"], why=c["reasons"][0]), 2)
    return None


def _exaggerations(sents: list[str], all_sources: str) -> list[JsonObject]:
    """Per sentence, the first exaggeration word the sources do not use."""
    out = []
    for idx, sent in enumerate(sents, 1):
        cue = next((c for c in tx.EXAGGERATION_CUES if c in sent and c not in all_sources), None)
        if cue is not None:
            out.append({"index": idx, "text": _clean(tx.strip_citations(sent)), "cue": cue})
    return out


def _coherence_findings(m: JsonObject) -> tuple[list[Msg], list[Msg]]:
    """Phrased strengths and weaknesses (``report.<name>_strong`` / ``_weak``); the figure in
    parentheses is the evidence."""
    strengths: list[Msg] = []
    weaknesses: list[Msg] = []

    def finding(ok: bool, name: str, **values: object) -> None:
        (strengths if ok else weaknesses).append(say(f"report.{name}_{'strong' if ok else 'weak'}", **values))

    heads, sents, conn = m["heads"], m["sents"], m["conn"]
    finding(m["structure"] >= 1, "structure", heads=heads)
    finding(bool(m["has_conclusion"]), "conclusion")
    finding(m["connectives"] >= 0.5, "connectives", connected=conn, sentences=sents)
    finding(m["cohesion"] >= 0.5, "cohesion", share=pct(m["cohesion"]))
    if m["opposite"]:
        weaknesses.append(say("report.conclusion_opposite"))
    elif m["has_conclusion"]:
        finding(m["grounded"] >= 0.5, "grounded", share=pct(m["grounded"]))
    if m["thin"]:
        weaknesses.append(say("report.thin_weak"))
    return strengths, weaknesses


def _relevance_parts(query: str, report: str, heads: list[str]) -> tuple[float, float, float]:
    """Format (sections when a report is asked for, a conclusion), recommendations, specifics."""
    wants_report = "보고서" in query or "report" in query.lower()
    has_conclusion = any(tx.has_any(h, tx.CONCLUSION_CUES) for h in heads)
    fmt = (0.5 if (len(heads) >= 3 or not wants_report) else 0.0) + (0.5 if has_conclusion else 0.0)
    _, concl = _split_conclusion(report)
    recommendations = 1.0 if tx.has_any(concl or report, tx.RECOMMENDATION_CUES) else 0.0
    specifics = (0.5 if tx.quantities(report) else 0.0) + (0.5 if tx.has_any(report, tx.EXAMPLE_CUES) else 0.0)
    return fmt, recommendations, min(specifics, 1.0)


def _directs(sentence: str) -> bool:
    return bool(directive_end().search(sentence.strip()))


def _body_sentences(report: str) -> tuple[list[str], set[int]]:
    """The report's sentences without headings, and the 1-based numbers of those in a
    recommendations section (## and deeper: the title names the whole report)."""
    sents: list[str] = []
    advising = False
    in_recommendations: set[int] = set()
    for sent in tx.sentences(report):
        heading = tx.HEADER_RE.match(sent)
        if heading:
            if not sent.lstrip().startswith("# "):
                advising = any(word in heading.group(1).lower() for word in cues()["recommendation_headings"])
            continue
        sents.append(sent)
        if advising:
            in_recommendations.add(len(sents))
    return sents, in_recommendations


def _clip(score: float) -> int:
    return round(min(max(score, 0.0), 10.0))


def _clean(text: str) -> str:
    return re.sub(r"\s+([.,])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


def _case(kind: str, location: Msg, description: Msg, severity: int) -> JsonObject:
    return {"type": kind, "location": location, "description": description, "severity": severity}


def _split_conclusion(report: str) -> tuple[str, str]:
    """(body, conclusion section text); conclusion is empty when there is no such header."""
    lines = tx.normalize(report).splitlines()
    for i, line in enumerate(lines):
        m = tx.HEADER_RE.match(line)
        if m and tx.has_any(m.group(1), tx.CONCLUSION_CUES):
            end = next((j for j in range(i + 1, len(lines)) if tx.HEADER_RE.match(lines[j])), len(lines))
            return "\n".join(lines[:i] + lines[end:]), "\n".join(lines[i + 1 : end])
    return tx.normalize(report), ""


def _query_topic(query: str) -> str:
    """The query without request words ("…보고서를 작성해주세요")."""
    kept = [w for w in tx.normalize(query).split() if not w.startswith(cues()["request_words"])]
    return " ".join(kept) or query
