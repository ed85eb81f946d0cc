"""The zero-shot screening score: every record judged against the question and its criteria.

A systematic reviewer screens a record by asking whether it addresses what the question is
about and whether its design is one the criteria admit. Sharing a few words is not that: "machine
learning for public health surveillance" is not answered by a paper on testing machine-learning
software. So a record is judged three ways, none of which needs labels:

- **meaning**: the cosine of its title and abstract's vector with the question's, the question's
  vector joined with the centroid of the inclusion criteria when there are criteria (the bundled
  MiniLM model, :mod:`scholargraph.rag.embeddings`);
- **concepts**: what the question is about, split at its connecting words ("machine learning",
  "public health surveillance"); a record addresses a concept when it names half of its stemmed
  words or is close to it in meaning;
- **design**: when the criteria name study designs to include or exclude (randomised trials,
  cohorts, case reports, animal or in-vitro studies, reviews, protocols, editorials), the design
  read from the record's title and abstract.

:func:`score_records` ranks records by meaning plus a small share for the concepts named (what
``bench/screening.py`` measures as WSS@95); :func:`screening_decisions` sets aside a record only
with a reason a person can check ("does not address: public health surveillance"; "design: case
report; the criteria exclude case reports"). Recall comes first: a record far in meaning is set
aside only when it also leaves a concept unaddressed, and a record with a title and no abstract
is judged on its title with a lower bar, as reviewers keep it for the full text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from scholargraph.errors import InputError
from scholargraph.rag.embeddings import Embedder, EmbeddingUnavailable
from scholargraph.rag.ranking import tokenize
from scholargraph.records import Work

Design = Literal["randomised trial", "cohort", "case-control", "case report", "case series",
                 "animal", "in vitro", "review", "protocol", "editorial"]

MEANING_MIN = 0.35
"""Below this cosine with the question (and criteria) a record is far in meaning; it is set aside
when it also leaves one of the question's concepts unaddressed. Chosen on the shared reviews
(``bench/screening.py``), leaving three of the nine out in turn (see the README)."""
TITLE_ONLY_SLACK = 0.05
"""A record with no abstract is judged on its title, with the bar lowered by this much: a title
alone says less, and reviewers keep such records for the full text."""
CONCEPT_COSINE = 0.15
"""A record addresses a concept in meaning when its vector is this close to the concept's."""
CONCEPT_WEIGHT = 0.05
"""What naming every concept adds to the ranking score (a cosine, so a nudge among equals)."""
DESIGN_PENALTY = 0.1
"""What a design the criteria exclude takes off the ranking score: such a record is set aside
by the decision anyway, and ranks below the records of admitted designs near it."""

EXCLUSION_DESIGN = "design: {found}; the criteria {why}"
EXCLUSION_CONCEPTS = "does not address: {concepts}"


class Criteria(BaseModel):
    """A review's eligibility criteria, as written and as read.

    ``inclusion`` and ``exclusion`` are the criteria's sentences, split by what they say
    ("we excluded...", a line under "Exclusion criteria"); the designs are those the sentences
    name, which the screening compares with each record's design.
    """

    text: str = Field(min_length=1)
    inclusion: list[str] = Field(default_factory=list)
    exclusion: list[str] = Field(default_factory=list)
    wanted_designs: list[Design] = Field(default_factory=list)
    excluded_designs: list[Design] = Field(default_factory=list)


@dataclass(frozen=True)
class Concept:
    """One thing the question is about: its words as written and their stems."""

    text: str
    stems: frozenset[str]

    def named_in(self, tokens: set[str]) -> bool:
        """Whether a text (its stemmed tokens) names at least half of the concept's words, each
        word or one of its :data:`SYNONYMS`."""
        named = sum(1 for stem in self.stems
                    if stem in tokens or not SYNONYMS.get(stem, frozenset()).isdisjoint(tokens))
        return named >= math.ceil(len(self.stems) / 2)


@dataclass(frozen=True)
class Decision:
    """The screening's verdict on one record: kept, or set aside with the reason."""

    score: float
    reason: str | None = None

    @property
    def included(self) -> bool:
        return self.reason is None


# ---------------------------------------------------------------- the question and its concepts

_REVIEW_SUBTITLE = re.compile(
    r"\s*[:?–—-]\s*(?:an?\s+|the\s+)?(?:updated\s+|comparative\s+)?"
    r"(?:systematic|scoping|rapid|narrative|umbrella|literature|tertiary|meta|integrative|"
    r"critical|mapping|review)\b.*$", re.IGNORECASE | re.DOTALL)
_CONNECTORS = re.compile(
    r"(?<![\w-])(?:of|for|in|on|with|within|and|or|versus|vs|among|amongst|by|to|from|the|a|an|"
    r"its|their|does|do|did|is|are|was|were|can|could|have|has|what|which|how|when|why|"
    r"between|through|using|based|via|at|as|into|about|cure|cures|treat|treats|improve|"
    r"improves|reduce|reduces|increase|increases|prevent|prevents|cause|causes|affect|affects|"
    r"predict|predicts|influence|influences)(?![\w-])|[,;:?!()\[\]\"“”]|\.(?=\s|$)",
    re.IGNORECASE)
GENERIC_WORDS = (
    "what which how does do is are can main findings finding results result limitations "
    "limitation methods method data used use study studies studied evidence reported report "
    "known explain explains differences difference values value compare compared comparative "
    "comparison settings conditions condition mechanisms mechanism proposed supports support "
    "contradicts effect effects effectiveness efficacy role impact research review outcomes "
    "outcome associated association correlated related linked whether understanding common "
    "management source sources possible determinants relation relationship important variables "
    "new novel current recent non cross sectional longitudinal methodological methodology "
    "rigour rigor"
)
GENERIC_TERMS = frozenset(tokenize(GENERIC_WORDS))
"""Words that say what kind of answer is wanted, not what the question is about."""


SYNONYMS: dict[str, frozenset[str]] = {
    stem: frozenset(tokenize(words)) for stem, words in {
        "anim": "rat rats mice mouse murine rodent rodents rabbit rabbits dog dogs pig pigs "
                "primate primates monkey monkeys sheep zebrafish animals",
        "rodent": "rat rats mice mouse murine",
        "human": "patient patients participant participants people adult adults volunteer "
                 "volunteers men women",
        "peopl": "patient patients participant participants adult adults men women",
        "adult": "patient patients participant participants people men women",
        "child": "children paediatric pediatric infant infants adolescent adolescents",
        "paediatr": "children pediatric infant infants adolescent adolescents",
        "pediatr": "children paediatric infant infants adolescent adolescents",
        "elder": "older aged geriatric",
    }.items()}
"""The few population words a record rarely uses as the question does: a question on animals is
answered by studies in rats, one on people by studies of patients. Keyed by stem."""
_LATIN_IN = re.compile(r"\bin (vivo|vitro|situ|silico|utero)\b", re.IGNORECASE)


def question_topic(question: str) -> str:
    """The question without a subtitle naming the kind of review ("...: a systematic review and
    meta-analysis"): that describes the review, not the records it screens."""
    return _REVIEW_SUBTITLE.sub("", question).strip() or question.strip()


def concepts(question: str) -> list[Concept]:
    """What the question is about: its phrases between connecting words, generic words left out
    ("machine learning for public health surveillance": "machine learning", "public health
    surveillance")."""
    found: list[Concept] = []
    topic = _LATIN_IN.sub(r"in-\1", question_topic(question))
    for phrase in _CONNECTORS.split(topic):
        stems = frozenset(tokenize(phrase)) - GENERIC_TERMS
        if stems and all(stems != c.stems for c in found):
            found.append(Concept(" ".join(phrase.split()), stems))
    return found


# ---------------------------------------------------------------- criteria

_EXCLUSION_SENTENCE = re.compile(r"\bexclu|\bnot (?:eligible|considered|included)\b|\bineligible",
                                 re.IGNORECASE)
_HEADING = re.compile(r"^\s*(inclusion|exclusion)\s+criteria\b", re.IGNORECASE)

CRITERIA_DESIGNS: dict[Design, re.Pattern[str]] = {
    "randomised trial": re.compile(r"randomi[sz]ed|\bRCTs?\b|controlled trials?", re.I),
    "cohort": re.compile(r"\bcohorts?\b|observational", re.I),
    "case-control": re.compile(r"case[- ]control", re.I),
    "case report": re.compile(r"case reports?", re.I),
    "case series": re.compile(r"case series", re.I),
    "animal": re.compile(r"\banimals?\b|non-human|\brodents?\b|\brats\b|\bmice\b|mammalian models",
                         re.I),
    "in vitro": re.compile(r"in[- ]vitro", re.I),
    "review": re.compile(r"\breviews\b|review articles?|systematic reviews?|meta-analys[ie]s",
                         re.I),
    "protocol": re.compile(r"\bprotocols?\b", re.I),
    "editorial": re.compile(r"editorials?|\bletters\b|commentar(?:y|ies)", re.I),
}
"""How criteria name a design (plural or generic forms: "reviews", "animal studies")."""


def read_criteria(path_or_text: str | Path) -> Criteria:
    """Criteria from a file (a path that exists) or from the text itself.

    Raises :class:`InputError` for a file that is missing (a short single line that looks like a
    path, :func:`_looks_like_path`) or criteria that are empty.
    """
    text = str(path_or_text)
    candidate = _as_path(text)
    if candidate is not None and candidate.is_file():
        try:
            text = candidate.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise InputError(f"cannot read the criteria file {candidate} ({error}); "
                             "give a UTF-8 text file") from error
        if not text.strip():
            raise InputError(f"the criteria file {candidate} is empty; write the inclusion and "
                             "exclusion criteria in it")
    elif candidate is not None and _looks_like_path(text):
        raise InputError(f"the criteria file {candidate} does not exist; give an existing file "
                         "or the criteria as text")
    if not text.strip():
        raise InputError("the criteria are empty; give the inclusion and exclusion criteria as "
                         "text or a file")
    inclusion, exclusion = _split_criteria(text)
    return Criteria(text=text.strip(), inclusion=inclusion, exclusion=exclusion,
                    wanted_designs=_designs_named(inclusion),
                    excluded_designs=_designs_named(exclusion, excluding=True))


def _looks_like_path(text: str) -> bool:
    """Whether one line is meant as a file's path: it ends in .txt or .md, starts like a path
    (``/``, ``~``, ``./``), or holds a path separator and no space ("criteria/rct", not
    "adults/children aged 5 or more", which is criteria)."""
    line = text.strip()
    if Path(line).suffix.lower() in {".txt", ".md"} or line.startswith(("/", "~", "./", "../")):
        return True
    return any(sep in line for sep in "/\\") and not any(ch.isspace() for ch in line)


def _as_path(text: str) -> Path | None:
    """``text`` as a file path when it could be one (one short line), else None."""
    line = text.strip()
    if not line or "\n" in line or len(line) > 255:
        return None
    try:
        path = Path(line).expanduser()
        path.is_file()  # a name the system cannot take raises here
    except (OSError, ValueError):
        return None
    return path


def _split_criteria(text: str) -> tuple[list[str], list[str]]:
    """The criteria's sentences, as inclusion or exclusion ones (by a heading above them or by
    what they say)."""
    inclusion: list[str] = []
    exclusion: list[str] = []
    section: str | None = None
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            section = heading[1].lower()
            line = line[heading.end():]
        for sentence in re.split(r"(?<=[.;])\s+", line.strip()):
            if len(sentence.split()) < 2:
                continue
            excluding = section == "exclusion" or bool(_EXCLUSION_SENTENCE.search(sentence))
            (exclusion if excluding else inclusion).append(sentence)
    return inclusion, exclusion


def _designs_named(sentences: Sequence[str], *, excluding: bool = False) -> list[Design]:
    """The designs the sentences name. "Observational studies" asks for cohorts among others,
    but excluding them is not read as excluding cohorts (a comparative cohort is often what an
    "observational studies without a comparator" exclusion keeps): only "cohort" itself is."""
    text = " ".join(sentences)
    found = [design for design, pattern in CRITERIA_DESIGNS.items() if pattern.search(text)]
    if excluding and not re.search(r"\bcohorts?\b", text, re.IGNORECASE):
        found = [design for design in found if design != "cohort"]
    return found


# ---------------------------------------------------------------- records and their designs

RECORD_DESIGNS: dict[Design, re.Pattern[str]] = {
    "randomised trial": re.compile(r"\brandomi[sz]ed\b|\bRCT\b|\brandomly (?:assigned|allocated)",
                                   re.I),
    "cohort": re.compile(r"\bcohort (?:study|studies)\b|\b(?:prospective|retrospective) cohort\b",
                         re.I),
    "case-control": re.compile(r"\bcase[- ]control\b", re.I),
    "case report": re.compile(r"\bcase report\b|\bwe (?:report|describe|present) (?:a|an|the|"
                              r"one|two|three) (?:\w+ )?(?:case|patient|boy|girl|man|woman)\b|"
                              r"^(?:a )?case of\b", re.I),
    "case series": re.compile(r"\bcase series\b", re.I),
    "animal": re.compile(r"\b(?:rats?|mice|mouse|murine|rodents?|rabbits?|dogs?|pigs?|piglets?|"
                         r"sheep|primates?|monkeys?|zebrafish|animal models?)\b", re.I),
    "in vitro": re.compile(r"\bin vitro\b|\bcell lines?\b|\bcultured cells\b", re.I),
    "review": re.compile(r"\breview\b|\bmeta-analys[ie]s\b|\boverview\b", re.I),
    "protocol": re.compile(r"\bprotocol for\b|\bstudy protocol\b|\bprotocol of\b|\ba protocol\b",
                           re.I),
    "editorial": re.compile(r"^(?:editorial|commentary|letter|reply|erratum|corrigendum)\b|"
                            r"\bletter to the editor\b", re.I),
}
"""How a record shows its design. Reviews, protocols and editorials are read from the title
only (an abstract that mentions a review is not one); the rest from title and abstract."""
_TITLE_ONLY_DESIGNS: frozenset[Design] = frozenset({"review", "protocol", "editorial"})
_HUMANS = re.compile(r"\b(?:patients?|participants?|women|men|children|adults|volunteers|"
                     r"humans?|infants?|people|persons?)\b", re.I)


def record_text(work_or_record: Work | Mapping[str, object]) -> str:
    """What is screened of a record: its title and abstract (a :class:`Work` or a mapping with
    ``title`` and ``abstract``, as a CSV row)."""
    if isinstance(work_or_record, Work):
        title, abstract = work_or_record.title, work_or_record.abstract or ""
    else:
        title = str(work_or_record.get("title") or "")
        abstract = str(work_or_record.get("abstract") or "")
    title, abstract = title.strip(), abstract.strip()
    if not abstract:
        return title
    return f"{title}{'' if title.endswith(('.', '?', '!')) else '.'} {abstract}"


def record_designs(title: str, abstract: str = "") -> list[Design]:
    """The study designs a record's title and abstract show (none when it shows none).

    An animal or in-vitro design needs the record not to speak of people as well: a clinical
    study may mention the mouse model it builds on.
    """
    found: list[Design] = []
    whole = f"{title}. {abstract}"
    for design, pattern in RECORD_DESIGNS.items():
        text = title if design in _TITLE_ONLY_DESIGNS else whole
        if not pattern.search(text):
            continue
        if design in ("animal", "in vitro") and _HUMANS.search(whole):
            continue
        found.append(design)
    return found


def design_reason(designs: Sequence[Design], criteria: Criteria | None) -> str | None:
    """Why the criteria set aside a record of these designs, or None when they admit it.

    A record is set aside when one of its designs is excluded by the criteria and none is one
    they ask for ("case report and review of the literature" is both, and neither is wanted).
    """
    if criteria is None or not designs:
        return None
    wanted = set(criteria.wanted_designs)
    if wanted & set(designs):
        return None
    excluded = [d for d in designs if d in criteria.excluded_designs]
    if not excluded:
        return None
    return EXCLUSION_DESIGN.format(found=", ".join(designs),
                                   why=f"exclude {_plural(excluded[0])}")


def _plural(design: Design) -> str:
    return {"in vitro": "in-vitro studies", "animal": "animal studies",
            "case series": "case series"}.get(design, f"{design}s")


# ---------------------------------------------------------------- scoring and deciding

@dataclass(frozen=True)
class _Signals:
    meaning: np.ndarray | None
    """Cosine of each record with the question (and criteria); None without embeddings."""
    named: np.ndarray
    """records x concepts: whether the record names the concept in words."""
    close: np.ndarray | None
    """records x concepts: whether the record is close to the concept in meaning."""


def score_records(question: str, criteria: Criteria | None, texts: Sequence[str], *,
                  embedder: Embedder | None = None,
                  vectors: np.ndarray | None = None) -> np.ndarray:
    """One score per text (title and abstract, :func:`record_text`), higher for records more
    likely to be included: the cosine with the question and criteria plus ``CONCEPT_WEIGHT``
    times the share of the question's concepts the record names.

    ``vectors`` are the texts' vectors when the caller has them (normalised, from ``embedder``);
    without an embedder the score is the share of concepts named alone. Raises
    :class:`EmbeddingUnavailable` when the embedder fails.
    """
    signals = _signals(question, criteria, texts, embedder, vectors)
    share = signals.named.mean(axis=1) if signals.named.shape[1] else np.zeros(len(texts))
    excluded = np.array([design_reason(record_designs(*_title_and_abstract(text)), criteria)
                         is not None for text in texts], dtype=bool)
    base = share if signals.meaning is None else signals.meaning + CONCEPT_WEIGHT * share
    return (base - DESIGN_PENALTY * excluded).astype(np.float32)


def _title_and_abstract(text: str) -> tuple[str, str]:
    """A record's text (:func:`record_text`) split back at the end of its first sentence."""
    title, _, abstract = text.partition(". ")
    return title, abstract


def screening_decisions(question: str, criteria: Criteria | None,
                        records: Sequence[tuple[str, str]], *, embedder: Embedder | None = None,
                        vectors: np.ndarray | None = None) -> list[Decision]:
    """The review's include/exclude decision for each record, given as (title, abstract).

    A record is set aside (with the reason) when its design is one the criteria exclude, or
    when it leaves one of the question's concepts unaddressed, in words and in meaning, while
    being far from the question as a whole (cosine below ``MEANING_MIN``; a title without an
    abstract below ``MEANING_MIN - TITLE_ONLY_SLACK``). Without an embedder, a record is set
    aside only when it names none of the concepts in words. Everything else is kept: recall
    first, as a reviewer screening titles and abstracts keeps what they cannot rule out.
    """
    texts = [record_text({"title": title, "abstract": abstract}) for title, abstract in records]
    signals = _signals(question, criteria, texts, embedder, vectors)
    found = concepts(question)
    share = signals.named.mean(axis=1) if found else np.zeros(len(texts))
    decisions = []
    for i, (title, abstract) in enumerate(records):
        meaning = None if signals.meaning is None else float(signals.meaning[i])
        score = share[i] if meaning is None else meaning + CONCEPT_WEIGHT * share[i]
        designed = design_reason(record_designs(title, abstract), criteria)
        reason = designed or _concept_reason(found, signals, i, meaning, bool(abstract.strip()))
        score -= DESIGN_PENALTY if designed else 0.0
        decisions.append(Decision(score=float(score), reason=reason))
    return decisions


def _concept_reason(found: Sequence[Concept], signals: _Signals, i: int, meaning: float | None,
                    has_abstract: bool) -> str | None:
    if not found:
        return None
    addressed = signals.named[i].copy()
    if signals.close is not None:
        addressed |= signals.close[i]
    missing = [c.text for c, ok in zip(found, addressed) if not ok]
    if not missing:
        return None
    if meaning is None:
        return None if addressed.any() else EXCLUSION_CONCEPTS.format(concepts="; ".join(missing))
    bar = MEANING_MIN - (0 if has_abstract else TITLE_ONLY_SLACK)
    if meaning >= bar:
        return None
    return EXCLUSION_CONCEPTS.format(concepts="; ".join(missing))


def _signals(question: str, criteria: Criteria | None, texts: Sequence[str],
             embedder: Embedder | None, vectors: np.ndarray | None) -> _Signals:
    found = concepts(question)
    tokens = [set(tokenize(text)) for text in texts]
    named = np.array([[c.named_in(t) for c in found] for t in tokens], dtype=bool).reshape(
        len(texts), len(found))
    if embedder is None:
        return _Signals(meaning=None, named=named, close=None)
    if vectors is None:
        vectors = embedder.embed_documents(list(texts))
    target = _question_vector(question, criteria, embedder)
    close = None
    if found:
        concept_vectors = embedder.embed_documents([c.text for c in found])
        close = (vectors @ concept_vectors.T) >= CONCEPT_COSINE
    return _Signals(meaning=vectors @ target, named=named, close=close)


def _question_vector(question: str, criteria: Criteria | None, embedder: Embedder) -> np.ndarray:
    """The question's vector, joined with the mean of the inclusion criteria's sentences'
    (each sentence embedded alone: the model reads 192 tokens, and criteria run longer)."""
    vector = embedder.embed_query(question_topic(question))
    if criteria is not None and criteria.inclusion:
        sentences = embedder.embed_documents(criteria.inclusion)
        centroid = sentences.mean(axis=0)
        vector = vector + centroid / (np.linalg.norm(centroid) or 1.0)
    return vector / (np.linalg.norm(vector) or 1.0)


__all__ = ["Concept", "Criteria", "Decision", "Design", "EmbeddingUnavailable", "concepts",
           "design_reason", "question_topic", "read_criteria", "record_designs", "record_text",
           "score_records", "screening_decisions"]
