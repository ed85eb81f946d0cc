"""How much weight a source deserves: its type and a 0-1 credibility score, with the reasons.

The score is a transparent sum, so a reader can check it from the reasons the report prints:
a base for the source type (a peer-reviewed article or an official page starts higher than a
preprint, a news item or an unknown page), a little for a named venue, for citations (on a log
scale, so a classic does not drown everything else) and for recency; a retracted work scores 0.
It is a prior about the source, not a judgement of the claim: the evaluator uses it to name
sub-questions that rest only on weak sources, and passage selection uses it as a small tie-breaker.
"""

from __future__ import annotations

import math
from urllib.parse import urlparse

from scholargraph.records import Credibility, Passage, SourceType, Work
from scholargraph.schemas import Draft

__all__ = ["Credibility", "assess", "credibility_of", "flag_weak_findings", "is_official",
           "source_type", "weak_only"]

BASE: dict[SourceType, float] = {
    "peer_reviewed": 0.6, "official": 0.6, "preprint": 0.35, "news": 0.25, "other": 0.25,
}
VENUE_BONUS = 0.1
CITATION_BONUS_PER_DECADE = 0.05
"""Added per tenfold citations (1 citation: +0.015, 10: +0.05, 100: +0.1), capped below."""
CITATION_BONUS_MAX = 0.15
RECENT_YEARS = 5
RECENCY_BONUS = 0.05

_OFFICIAL_SUFFIXES = (".gov", ".mil", ".int", ".europa.eu")
_OFFICIAL_LABELS = {"gov", "gouv", "gob", "govt", "nhs"}
_PREPRINT_VENUES = ("arxiv", "biorxiv", "medrxiv", "chemrxiv", "ssrn", "research square",
                    "preprints.org")


def source_type(work: Work) -> SourceType:
    """The kind of source a work is, from its record kind, venue and address."""
    venue = (work.venue or "").lower()
    if work.kind == "preprint" or any(name in venue for name in _PREPRINT_VENUES):
        return "preprint"
    if work.kind == "news":
        return "news"
    if work.kind == "material" or is_official(work.url):
        return "official"
    if work.kind == "article" and work.venue:
        return "peer_reviewed"
    return "other"


def is_official(url: str | None) -> bool:
    """Whether a page is served by a government or intergovernmental body (.gov, .gov.uk,
    .mil, .int, europa.eu)."""
    host = (urlparse(url).hostname or "").lower() if url else ""
    if not host:
        return False
    return host.endswith(_OFFICIAL_SUFFIXES) or bool(_OFFICIAL_LABELS & set(host.split(".")[1:]))


def assess(work: Work, this_year: int) -> Credibility:
    """The work's source type and credibility score, with a reason for every part of the score."""
    kind = source_type(work)
    reasons = [_type_reason(work, kind)]
    if work.is_retracted:
        return Credibility(source_type=kind, score=0.0, reasons=[*reasons, "retracted"])
    score = BASE[kind]
    if work.venue and kind == "peer_reviewed":
        score += VENUE_BONUS
        reasons.append(f"venue: {work.venue}")
    if work.cited_by_count:
        score += min(CITATION_BONUS_MAX,
                     CITATION_BONUS_PER_DECADE * math.log10(1 + work.cited_by_count))
        reasons.append(f"{work.cited_by_count} citations")
    elif work.cited_by_count == 0:
        reasons.append("not cited yet")
    year = work.year or (work.published.year if work.published else None)
    if year and year >= this_year - RECENT_YEARS:
        score += RECENCY_BONUS
        reasons.append(f"recent ({year})")
    elif year:
        reasons.append(f"from {year}")
    return Credibility(source_type=kind, score=round(min(1.0, score), 2), reasons=reasons)


def _type_reason(work: Work, kind: SourceType) -> str:
    if kind == "preprint":
        return "preprint: not peer reviewed"
    if kind == "news":
        return "news item: not peer reviewed"
    if kind == "official":
        return "curated database" if work.kind == "material" else "government or official site"
    if kind == "peer_reviewed":
        return "journal article"
    return "no venue: peer review unknown" if work.kind == "article" else "web page"


def credibility_of(work: Work, this_year: int) -> Credibility:
    """The credibility the retrieval node set, or assessed now for a work that skipped it."""
    return work.credibility or assess(work, this_year)


def weak_only(passage_ids: list[str], work_of: dict[str, Work], this_year: int) -> bool:
    """Whether every work behind these passages is a weak source (False when none is known)."""
    works = {work_of[i].id: work_of[i] for i in passage_ids if i in work_of}
    return bool(works) and all(credibility_of(w, this_year).weak for w in works.values())


def flag_weak_findings(draft: Draft, passages: list[Passage], papers: list[Work],
                       this_year: int) -> Draft:
    """The draft with ``weak_sources`` set on each finding that rests only on weak sources."""
    work_of = passage_works(passages, papers)
    return draft.model_copy(update={"findings": [
        finding.model_copy(update={
            "weak_sources": weak_only(finding.passage_ids, work_of, this_year)})
        for finding in draft.findings]})


def passage_works(passages: list[Passage], papers: list[Work]) -> dict[str, Work]:
    """Per passage id, the work it comes from."""
    works = {work.id: work for work in papers}
    return {p.id: works[p.work_id] for p in passages if p.work_id in works}
