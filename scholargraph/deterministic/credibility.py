"""How much weight a source deserves: its type and a 0-1 credibility score, with the reasons.

The score is a transparent sum, so a reader can check it from the reasons the report prints:
a base for the source type (a peer-reviewed article or an official page starts higher than a
book or chapter, which starts higher than a preprint, a news item or an unknown page), a little
for a named journal, for citations (on a log scale, so a classic does not drown everything else)
and for recency; a retracted work scores 0.
It is a prior about the source, not a judgement of the claim: the evaluator uses it to name
sub-questions that rest only on weak sources, and passage selection uses it as a small tie-breaker.
"""

from __future__ import annotations

import math
import re
from urllib.parse import urlparse

from scholargraph.agents.schemas import Draft
from scholargraph.identifiers import is_preprint_doi, preprint_server
from scholargraph.records import BOOK_KINDS, Credibility, Passage, SourceType, Work

__all__ = ["Credibility", "assess", "credibility_of", "flag_weak_findings", "is_official",
           "no_venue_named", "preprint_server_of", "published_as", "source_type",
           "standing_unknown", "weak_only"]

BASE: dict[SourceType, float] = {
    "peer_reviewed": 0.6, "official": 0.6, "book": 0.5, "preprint": 0.35, "news": 0.25,
    "other": 0.25,
}
"""A book or chapter sits between a journal article and a preprint: a publisher's editors chose
and reviewed it, but not by a journal's independent peer review, so it is not called
peer-reviewed; at 0.5 it is not weak on its own (a chapter is not a preprint or a web page)."""
VENUE_BONUS = 0.1
CITATION_BONUS_PER_DECADE = 0.05
"""Added per tenfold citations (1 citation: +0.015, 10: +0.05, 100: +0.1), capped below."""
CITATION_BONUS_MAX = 0.15
RECENT_YEARS = 5
RECENCY_BONUS = 0.05

_OFFICIAL_SUFFIXES = (".gov", ".mil", ".int", ".europa.eu")
_OFFICIAL_LABELS = {"gov", "gouv", "gob", "govt", "nhs"}
_PREPRINT_VENUES = re.compile(
    r"\b(?:arxiv|biorxiv|medrxiv|chemrxiv|techrxiv|psyarxiv|socarxiv|edarxiv|engrxiv|ssrn"
    r"|social science research network|research square|preprints\.org|osf preprints"
    r"|jmir preprints|authorea)\b", re.IGNORECASE)
"""Venue names preprint servers are recorded under ('SSRN Electronic Journal' and OpenAlex's
'Social Science Research Network' are SSRN, a preprint server despite the name)."""
_PREPRINT_HOSTS = ("arxiv.org", "osf.io", "ssrn.com", "researchsquare.com", "medrxiv.org",
                   "biorxiv.org", "preprints.jmir.org", "preprints.org", "chemrxiv.org",
                   "techrxiv.org", "authorea.com", "psyarxiv.com")
_SCHOLARLY_KINDS = ("article", "preprint", *BOOK_KINDS)


def source_type(work: Work) -> SourceType:
    """The kind of source a work is, from what its record says: the record kind its source
    gave, the DOI and venue of a preprint server, a journal DOI or journal reference that
    says a preprint was published. The address decides only for a page with nothing else to
    go by: a PubMed article is a journal article although PubMed is on nih.gov.

    A book or a chapter of one ('book-chapter' in OpenAlex, an NCBI Bookshelf record in PubMed)
    is its own type, ``book``: its editors and publisher reviewed it, but that is not a
    journal's peer review, and neither is it a web page whose review nobody can tell."""
    if work.kind == "news":
        return "news"
    if work.kind == "material":
        return "official"
    if published_as(work):
        return "peer_reviewed"
    if work.kind == "preprint" or preprint_server_of(work):
        return "preprint"
    if work.kind == "article" and work.venue:
        return "peer_reviewed"
    if work.kind in BOOK_KINDS:
        return "book"
    if not _scholarly_record(work) and is_official(work.url):
        return "official"
    return "other"


def preprint_server_of(work: Work) -> str | None:
    """The preprint server a record comes from, by its DOI, its venue or (for a page found on
    the web) its address; None for anything else."""
    if server := preprint_server(work.doi):
        return server
    if match := _PREPRINT_VENUES.search(work.venue or ""):
        return match.group(0)
    host = (urlparse(work.url).hostname or "").lower() if work.url else ""
    if work.kind == "web" and any(host == h or host.endswith("." + h) for h in _PREPRINT_HOSTS):
        return host
    return None


def published_as(work: Work) -> str | None:
    """Where a preprint says it was published: the journal DOI of an arXiv record (arXiv's
    DOI field names the published version, not the preprint), a journal reference, or a
    journal DOI its source lists as another version of it; None for a record that is not a
    preprint or names no publication. A preprint's own DOI from a server not known here says
    nothing about publication."""
    if work.kind != "preprint" and not preprint_server_of(work):
        return None
    if work.arxiv_id and work.doi and not is_preprint_doi(work.doi):
        return f"DOI {work.doi}"
    if work.journal_ref:
        return work.journal_ref
    for version in work.version_ids:
        kind, _, value = version.partition(":")
        if kind == "doi" and not is_preprint_doi(value):
            return f"DOI {value}"
    return None


def _scholarly_record(work: Work) -> bool:
    """Whether the record comes from a scholarly index (a journal article, a preprint, a
    record with a PMID or DOI) rather than from a page's address alone."""
    return work.kind in _SCHOLARLY_KINDS or bool(work.pmid or work.doi or work.arxiv_id)


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
    venue = _journal(work)
    if venue and kind == "peer_reviewed":
        score += VENUE_BONUS
        reasons.append(f"venue: {venue}")
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


def _journal(work: Work) -> str | None:
    """The journal a work appeared in: its venue, unless that is a preprint server (then the
    journal reference of a published preprint, if any)."""
    if work.venue and not _PREPRINT_VENUES.search(work.venue):
        return work.venue
    return work.journal_ref


def _type_reason(work: Work, kind: SourceType) -> str:
    if kind == "peer_reviewed" and (where := published_as(work)):
        return f"preprint published in a journal ({where})"
    if kind == "preprint":
        server = preprint_server_of(work)
        return f"preprint{f' ({server})' if server else ''}: not peer reviewed"
    if kind == "news":
        return "news item: not peer reviewed"
    if kind == "official":
        return "curated database" if work.kind == "material" else "government or official site"
    if kind == "peer_reviewed":
        return "journal article"
    if kind == "book":
        what = "book chapter" if work.kind == "chapter" else "book"
        return f"{what}: reviewed by its editors, not journal peer review"
    return "no venue: peer review unknown" if work.kind == "article" else "web page"


def standing_unknown(work: Work) -> bool:
    """Whether a work's standing cannot be told from its record: a scholarly record that names
    no venue (a library exported without journal names), scored as low as an unknown page
    but not known to be a preprint, news or a page."""
    kind = work.credibility.source_type if work.credibility else source_type(work)
    return kind == "other" and work.kind == "article"


def no_venue_named(works: list[Work]) -> bool:
    """Whether there are works and none names its venue (:func:`standing_unknown`): their peer
    review is unknown, not absent. Of a review's cited works it is said once, as the gap
    :data:`~scholargraph.agents.evaluation.NO_VENUE_NAMED`, not as a tag on every finding
    (:meth:`~scholargraph.report.Report.weakness_note`); of a finding's or a sub-question's,
    it is what their tag and gap say instead of "weak sources only"."""
    return bool(works) and all(map(standing_unknown, works))


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
