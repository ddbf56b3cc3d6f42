"""The offline judge scaffold: the Judge protocol and the signals every suite's rules read.

An offline judge answers the same prompts, with the same verdict schema, as an LLM judge,
deterministically and without a network. Each concrete judge supplies its *signal*:

- ``units(text, ctx)``: the text as weighted units (morphemes, character n-grams, or word stems
  and quantities), ``{unit: weight}``;
- ``conflicts(answer, reference, question)``: (level, reasons), 0 none, 1 part of the answer's
  figures contradict the reference, 2 they contradict it outright;
- thresholds (class attributes) that say how much overlap counts as support.

From these, ``coverage(target, source)`` is the weighted share of the target's units found in
the source and ``similarity(a, b)`` the weighted cosine. The rules that turn them into scores
belong to the suites (``assay/suites/<suite>/offline/``), found through ``suite_rules``.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from assay.judges.base import JudgeRequest, JudgeResult, LocalJudge, Usage
from assay.judges.offline import (
    answer_core,
    claims,
    fitted,
    forest,
    lexicon,
    messages,
    scoring,
    set_aside,
    suite_rules,
)
from assay.judges.offline import lang as language_packs
from assay.judges.offline import text as tx
from assay.judges.offline.messages import Msg
from assay.judges.offline.scoring import Units, band, pct  # noqa: F401  (re-exported for the judges)
from assay.judges.prompts import Prompt, get_prompt
from assay.metrics import figure_forms, quantities
from assay.schemas import JsonObject


class OfflineJudge(LocalJudge):
    """Base of the offline judges (see the module docstring for the shared rules)."""

    name: str = "offline"
    model: str = "offline/base"
    # The core's code and data; each call's key adds the answering suite's rules (``request``), so
    # editing any of them is a different judge and stored verdicts are not reused for it.
    rule_files: ClassVar[tuple[Path, ...]] = tuple(
        Path(module.__file__).resolve()  # type: ignore[arg-type]
        for module in (
            tx, scoring, quantities, figure_forms, claims, lexicon, fitted, forest, answer_core, language_packs, set_aside,
            messages,
        )
    ) + tuple(sorted(language_packs.HERE.glob("*.yaml")))
    signal: ClassVar[str] = ""

    # thresholds (overridden per judge)
    WRONG_N: ClassVar[float] = 0.15
    SUPPORT: ClassVar[float] = 0.5
    COHESION_REF: ClassVar[float] = 0.3
    SEGMENT_OVERLAP: ClassVar[float] = 0.01
    TITLE_MIN: ClassVar[float] = 0.0
    ACC_CUTS: ClassVar[tuple[tuple[float, float], ...]] = ((0.8, 5), (0.6, 4), (0.4, 3))
    COMP_CUTS: ClassVar[tuple[tuple[float, float], ...]] = ((0.8, 5), (0.6, 4), (0.4, 3), (0.2, 2))
    REL_CUTS: ClassVar[tuple[tuple[float, float], ...]] = ((0.6, 5), (0.4, 4), (0.25, 3), (0.1, 2))

    def __init__(self, weight: float = 1.0, name: str | None = None, fitted: bool = True) -> None:
        if weight < 0 or not math.isfinite(weight):
            raise ValueError("weight must be a finite non-negative number")
        self.weight = float(weight)
        if name is not None:
            self.name = name
        # the suites' fitted stages (``offline/fitted.py``); False gives the rules' verdicts alone
        self.fitted = bool(fitted)
        self._rule_table: tuple[int, dict[str, Callable[[Any], JsonObject]]] = (-1, {})

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, weight={self.weight}, fitted={self.fitted})"

    @property
    def version(self) -> str:
        # the rules alone are another judge than rules plus the fitted stage: no shared stored verdicts
        return super().version + ("" if self.fitted else "-rules")

    def request(self, prompt: Any, item: BaseModel, lang: str = "ko") -> JudgeRequest:
        """The call key carries the rules of the suite that answers this prompt (``sources_hash``)
        and the feedback's language: a verdict explained in Korean is not replayed for an English run."""
        request = super().request(prompt, item, lang)
        version = f"{request.params['version']}-{suite_rules.sources_hash(prompt.id)}"
        params = {**request.params, "version": version, "lang": lang}
        return JudgeRequest(request.model, request.api_base, request.messages, params)

    # -- signal primitives (overridden) --------------------------------------------------------

    def prepare(self, texts: list[str]) -> Any:
        """Per-call context built from every text of one judgment (e.g. IDF); default none."""
        return None

    def units(self, text: str, ctx: Any = None) -> Units:
        raise NotImplementedError

    def conflicts(self, answer: str, reference: str, question: str = "") -> tuple[int, list[Msg]]:
        raise NotImplementedError

    def unsupported_figures(self, text: str, reference: str, question: str = "") -> list[str]:
        """Figures of ``text`` (not in ``question``) that ``reference`` does not contain."""
        raise NotImplementedError

    # -- derived measures -------------------------------------------------------------------------

    @staticmethod
    def coverage(target: Units, source: Units) -> float | None:
        """Weighted share of ``target``'s units present in ``source`` (None if target is empty)."""
        return OfflineJudge.coverage_any(target, source)

    @staticmethod
    def coverage_any(target: Units, *sources: Units) -> float | None:
        """``coverage(target, union(*sources))`` without building the union."""
        total = sum(target.values())
        if total <= 0:
            return None
        return sum(w for u, w in target.items() if any(u in s for s in sources)) / total

    @staticmethod
    def similarity(a: Units, b: Units) -> float:
        dot = sum(w * b[u] for u, w in a.items() if u in b)
        na = math.sqrt(sum(w * w for w in a.values()))
        nb = math.sqrt(sum(w * w for w in b.values()))
        return dot / (na * nb) if na and nb else 0.0

    @staticmethod
    def minus(a: Units, b: Units) -> Units:
        return {u: w for u, w in a.items() if u not in b}

    @staticmethod
    def union(*parts: Units) -> Units:
        out: Units = {}
        for part in parts:
            for u, w in part.items():
                out[u] = max(out.get(u, 0.0), w)
        return out

    # -- the Judge protocol ---------------------------------------------------------------------

    async def ajudge(
        self,
        prompt: Prompt | str,
        item: BaseModel | Mapping[str, Any],
        case_id: str,
        lang: str = "ko",
        request: JudgeRequest | None = None,
    ) -> JudgeResult:
        """The scores do not depend on ``lang`` (rules read the input, not the template); the
        feedback is written in it."""
        return self.judge_sync(prompt, item, case_id, lang)

    def judge_sync(
        self, prompt: Prompt | str, item: BaseModel | Mapping[str, Any], case_id: str, lang: str = "ko"
    ) -> JudgeResult:
        started = time.perf_counter()
        prompt_id = prompt.id if isinstance(prompt, Prompt) else str(prompt)
        base = {
            "judge": self.name,
            "model": self.model,
            "prompt_id": prompt_id,
            "case_id": case_id,
            "attempts": 1,
        }
        try:
            prompt_obj = get_prompt(prompt)
            data = prompt_obj.coerce_input(item)
            rule = self._rules().get(prompt_obj.id)
            if rule is None and prompt_obj.llm_only:
                raise KeyError(f"prompt {prompt_obj.id!r} needs an LLM judge; the offline jury has no rule for it")
            if rule is None:
                raise KeyError(f"{self.name} has no rule for prompt {prompt_obj.id!r}")
            data, aside = self._set_aside(prompt_obj, data)
            # the rules' messages are written in the run's language only now, after every rule ran
            written = messages.render_verdict(self._noted(rule(data), aside), lang)
            verdict = prompt_obj.verdict_model.model_validate(written)
            raw = json.dumps(verdict.model_dump(mode="json"), ensure_ascii=False)
        except Exception as exc:  # a bug or an unusable input: permanent, never retried
            return JudgeResult(
                **base,
                error=f"{type(exc).__name__}: {exc}",
                error_kind="permanent",
                latency_s=time.perf_counter() - started,
            )
        return JudgeResult(
            **base,
            verdict=verdict.model_dump(mode="json"),
            raw_text=raw,
            usage=Usage(),
            latency_s=time.perf_counter() - started,
        )

    def verdict(self, prompt: Prompt | str, item: BaseModel | Mapping[str, Any], lang: str = "ko") -> JsonObject:
        """The validated verdict as a dict (raises on failure); convenient for scripts."""
        result = self.judge_sync(prompt, item, case_id="-", lang=lang)
        if result.verdict is None:
            raise RuntimeError(result.error)
        return result.verdict

    def _rules(self) -> dict[str, Callable[[Any], JsonObject]]:
        """prompt id -> this judge's rule for it, from every suite's offline rules."""
        known = len(suite_rules.registered())  # a plugin suite may register after this judge was built
        if self._rule_table[0] != known:
            self._rule_table = (known, suite_rules.rules_for(self))
        return self._rule_table[1]

    @staticmethod
    def _set_aside(prompt: Prompt, data: BaseModel) -> tuple[BaseModel, tuple[str, ...]]:
        """The input with what addresses the grader cut from the judged output (``set_aside``)."""
        field = prompt.judged_field
        if field is None or not isinstance(getattr(data, field, None), str):
            return data, ()
        kept, aside = set_aside.set_aside(getattr(data, field))
        return (data.model_copy(update={field: kept}), aside) if aside else (data, ())

    @staticmethod
    def _noted(verdict: JsonObject, aside: tuple[str, ...]) -> JsonObject:
        """The verdict's explanation names what was set aside (quoted as it was written)."""
        if not aside:
            return verdict
        key = next((k for k in ("feedback", "reasoning") if k in verdict), None)
        if key is None:
            return verdict
        note = messages.say("core.stripped", what=set_aside.quoted(aside))
        return {**verdict, key: messages.joined((verdict[key], note), " ", ".")}

    def rule_set(self, prompt_id: str) -> suite_rules.RuleSet:
        """The suite's rule set that answers ``prompt_id`` (for scripts that read its signals)."""
        return self._rules()[prompt_id].__self__  # type: ignore[attr-defined]

    def supports(self, prompt_id: str) -> bool:
        return prompt_id in self._rules()
