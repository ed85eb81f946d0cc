"""NCBI E-utilities (ESearch, EFetch) answered from real recorded PubMed responses.

The pool is every ``<PubmedArticle>`` of the recorded EFetch files, kept byte for byte. ESearch
for any term returns, in the recorded ESearch shape, the ids of the pool's articles that match
the term (PubMed field tags, phrases, Boolean operators, ``[dp]`` ranges), best match first; a
term that matches nothing gets the recorded zero-hit answer (``biopython_esearch8.xml``).
``usehistory=y`` returns a WebEnv that names the hit list itself, so EFetch can page through it
(``retstart``/``retmax``) without server state. EFetch wraps the requested articles in the
recorded ``PubmedArticleSet`` envelope. See ``fixtures/PROVENANCE_pubmed_arxiv_openalex.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from xml.etree import ElementTree

from scholargraph.testing.fixtures import fixture_bytes
from scholargraph.testing.messages import ReplayRequest, ReplayResponse
from scholargraph.testing.services import querymatch
from scholargraph.testing.services.querymatch import Doc, Range, Term, Token

EFETCH_FILES = ("pubmed7", "pubmed5", "pubmed4", "pubmed2", "pubmed1")
ZERO_HITS = "pubmed/biopython_esearch8.xml"
ENVELOPE_SOURCE = "pubmed/biopython_pubmed1.xml"
ESEARCH_SHAPE = "pubmed/biopython_esearch2.xml"
WEBENV_PREFIX = "MCID_replay_"
XML = "text/xml; charset=UTF-8"

_ARTICLE = re.compile(rb"<PubmedArticle>.*?</PubmedArticle>", re.DOTALL)
_DATE = r'"?(?P<{0}>\d{{4}})[^"\[\]():]*"?\s*\[(?:dp|pdat)\]'
_RANGE = _DATE.format("lo") + r"\s*:\s*" + _DATE.format("hi")
_TOKEN = re.compile(
    r'''(?P<range>\(\s*''' + _RANGE + r'''\s*\))
      |(?P<span>(?P<slo>\d{4})(?:/\d{1,2}){0,2}\s*:\s*(?P<shi>\d{4})(?:/\d{1,2}){0,2}\s*\[(?:dp|pdat)\])
      |(?P<paren>[()])
      |"(?P<phrase>[^"]*)"(?:\[(?P<ptag>[^\]]*)\])?
      |(?P<word>[^\s()"\[\]]+)(?:\[(?P<wtag>[^\]]*)\])?
    ''', re.VERBOSE | re.IGNORECASE)

_FIELDS: dict[str | None, tuple[str, ...]] = {
    None: ("title", "abstract", "mesh", "keywords", "journal", "authors"),
    "all fields": ("title", "abstract", "mesh", "keywords", "journal", "authors"),
    "all": ("title", "abstract", "mesh", "keywords", "journal", "authors"),
    "tiab": ("title", "abstract"),
    "title/abstract": ("title", "abstract"),
    "ti": ("title",),
    "title": ("title",),
    "ab": ("abstract",),
    "mh": ("mesh",),
    "mesh": ("mesh",),
    "mesh terms": ("mesh",),
    "majr": ("mesh",),
    "tw": ("title", "abstract", "mesh", "keywords"),
    "ot": ("keywords",),
    "au": ("authors",),
    "ta": ("journal",),
    "journal": ("journal",),
}


def _tokenize(query: str) -> list[Token]:
    tokens: list[Token] = []
    for match in _TOKEN.finditer(query):
        if match.group("range"):
            tokens.append(Range("year", match.group("lo"), match.group("hi")))
        elif match.group("span"):
            tokens.append(Range("year", match.group("slo"), match.group("shi")))
        elif match.group("paren"):
            tokens.append(match.group("paren"))
        elif match.group("phrase") is not None:
            tokens.append(_term(match.group("phrase"), match.group("ptag"), quoted=True))
        elif match.group("word").upper() in ("AND", "OR", "NOT"):
            tokens.append(match.group("word").upper())
        else:
            tokens.append(_term(match.group("word"), match.group("wtag"), quoted=False))
    return tokens


def _term(text: str, tag: str | None, quoted: bool) -> Token:
    tag = (tag or "").strip().lower() or None
    if tag in ("dp", "pdat", "publication date") and re.fullmatch(r"\d{4}.*", text):
        return Range("year", text[:4], text[:4])
    return Term(tag, text, quoted)


SYNTAX = querymatch.Syntax(tokenize=_tokenize, fields=_FIELDS)


@dataclass(frozen=True)
class Article:
    """One recorded article: its exact bytes, and what the matcher reads from it."""

    pmid: str
    raw: bytes
    doc: Doc
    entrez: str = ""
    """The day PubMed added it ('2017/08/05'), from its history's ``entrez`` date."""


def _article(raw: bytes) -> Article:
    root = ElementTree.fromstring(raw)
    def text(path: str) -> str:
        return " ".join("".join(node.itertext()) for node in root.iterfind(path))

    year = (root.findtext(".//Article/Journal/JournalIssue/PubDate/Year")
            or (root.findtext(".//Article/Journal/JournalIssue/PubDate/MedlineDate") or "")[:4])
    fields = {
        "title": text(".//Article/ArticleTitle"),
        "abstract": text(".//Article/Abstract/AbstractText"),
        "mesh": text(".//MeshHeadingList/MeshHeading/DescriptorName"),
        "keywords": text(".//KeywordList/Keyword"),
        "journal": text(".//Article/Journal/Title"),
        "authors": text(".//Article/AuthorList/Author/LastName"),
    }
    return Article(
        pmid=root.findtext("MedlineCitation/PMID") or "",
        raw=raw,
        doc=Doc({name: querymatch.words(value) for name, value in fields.items()}, date=year),
        entrez=_day(root.find("PubmedData/History/PubMedPubDate[@PubStatus='entrez']")),
    )


def _day(element: ElementTree.Element | None) -> str:
    """A PubMed date element as 'YYYY/MM/DD' (month and day 01 where missing)."""
    if element is None:
        return ""
    parts = [element.findtext(name) or "1" for name in ("Year", "Month", "Day")]
    return f"{int(parts[0]):04d}/{int(parts[1]):02d}/{int(parts[2]):02d}"


def _padded(day: str) -> str:
    """ESearch's ``mindate``/``maxdate`` ('2017', '2017/8', '2017/08/05') as 'YYYY/MM/DD'."""
    parts = [int(part) for part in re.findall(r"\d+", day)[:3]]
    return "/".join(f"{part:0{4 if i == 0 else 2}d}" for i, part in enumerate(parts))


class PubMedService:
    """The E-utilities under ``/pubmed/``: ``esearch.fcgi`` and ``efetch.fcgi`` (GET or POST)."""

    prefix = "pubmed"

    def __init__(self, as_of: date | None = None) -> None:
        """``as_of``: serve only the articles PubMed had added by that day (Entrez date)."""
        self.as_of = as_of

    @cached_property
    def articles(self) -> list[Article]:
        """The pool, in recorded order; an id recorded twice is served once."""
        pool: dict[str, Article] = {}
        last = f"{self.as_of:%Y/%m/%d}" if self.as_of else None
        for name in EFETCH_FILES:
            for raw in _ARTICLE.findall(fixture_bytes(f"pubmed/biopython_{name}.xml")):
                article = _article(raw)
                if last is None or article.entrez <= last:
                    pool.setdefault(article.pmid, article)
        return list(pool.values())

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        utility = request.path.strip("/")
        if utility == "esearch.fcgi":
            return self._esearch(request)
        if utility == "efetch.fcgi" and request.param("db") == "pmc":
            from scholargraph.testing.services.fulltext import pmc_efetch

            return pmc_efetch(request)
        if utility == "efetch.fcgi":
            return self._efetch(request)
        return ReplayResponse(404, b"<html><body>Not Found</body></html>", "text/html")

    def search(self, term: str) -> list[str]:
        """PMIDs of the pool's articles that ``term`` matches, best match first."""
        try:
            tree = querymatch.parse(term, SYNTAX)
        except querymatch.QueryError:
            return []
        hits = [a for a in self.articles if querymatch.matches(tree, a.doc, SYNTAX)]
        hits.sort(key=lambda a: -querymatch.score(tree, a.doc, SYNTAX))
        return [a.pmid for a in hits]

    def _esearch(self, request: ReplayRequest) -> ReplayResponse:
        if request.param("db", "pubmed") != "pubmed":
            return _error("esearch", f"Invalid db name specified: {request.param('db')}")
        if request.param("mindate") and (request.param("datetype") or "pdat") != "edat":
            return _error("esearch", "the replay answers datetype=edat date windows only")
        ids = self.search(request.param("term", "") or "")
        window = _entrez_window(request)
        if window is not None:
            added = {a.pmid: a.entrez for a in self.articles}
            ids = [pmid for pmid in ids if window[0] <= added[pmid] <= window[1]]
        if not ids:
            return ReplayResponse(body=fixture_bytes(ZERO_HITS), content_type=XML)
        start = int(request.param("retstart", "0") or 0)
        size = int(request.param("retmax", "20") or 20)
        page = ids[start:start + size]
        history = ""
        if (request.param("usehistory") or "").lower() == "y":
            history = f"<QueryKey>1</QueryKey><WebEnv>{WEBENV_PREFIX}{'.'.join(ids)}</WebEnv>"
        id_list = "".join(f"<Id>{pmid}</Id>\n" for pmid in page)
        body = (
            f"<eSearchResult><Count>{len(ids)}</Count><RetMax>{len(page)}</RetMax>"
            f"<RetStart>{start}</RetStart>{history}<IdList>\n{id_list}</IdList>"
            f"<TranslationSet/><QueryTranslation>{_escape(request.param('term') or '')}"
            "</QueryTranslation></eSearchResult>\n"
        ).encode()
        return ReplayResponse(body=_esearch_prolog() + body, content_type=XML)

    def _efetch(self, request: ReplayRequest) -> ReplayResponse:
        if request.param("db", "pubmed") != "pubmed":
            return _error("efetch", f"Invalid db name specified: {request.param('db')}")
        webenv = request.param("WebEnv") or request.param("webenv")
        if webenv:
            if not webenv.startswith(WEBENV_PREFIX):
                return _error("efetch", "Unable to obtain query #1")
            wanted = [pmid for pmid in webenv.removeprefix(WEBENV_PREFIX).split(".") if pmid]
            start = int(request.param("retstart", "0") or 0)
            wanted = wanted[start:start + int(request.param("retmax", "10000") or 10000)]
        else:
            wanted = [pmid.strip() for pmid in (request.param("id") or "").split(",")
                      if pmid.strip()]
        by_id = {article.pmid: article for article in self.articles}
        chosen = [by_id[pmid].raw for pmid in wanted if pmid in by_id]
        body = (_set_prolog() + b"<PubmedArticleSet>\n" + b"\n".join(chosen)
                + b"\n</PubmedArticleSet>\n")
        return ReplayResponse(body=body, content_type=XML)


def _entrez_window(request: ReplayRequest) -> tuple[str, str] | None:
    """The Entrez-date window ``datetype=edat&mindate=...&maxdate=...`` asks for (ESearch reads
    the dates only as a pair), or ``None``."""
    low, high = request.param("mindate"), request.param("maxdate")
    if not low or not high:
        return None
    upper = _padded(high)
    return _padded(low), upper + "/99" * (2 - upper.count("/"))


def _set_prolog() -> bytes:
    """The recorded XML declaration and DOCTYPE of the newest EFetch recording."""
    return fixture_bytes(ENVELOPE_SOURCE).split(b"<PubmedArticleSet>", 1)[0]


def _esearch_prolog() -> bytes:
    return fixture_bytes(ESEARCH_SHAPE).split(b"<eSearchResult>", 1)[0]


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _error(utility: str, message: str) -> ReplayResponse:
    body = (f'<?xml version="1.0" encoding="UTF-8" ?>\n'
            f'<eResult><ERROR>{_escape(message)}</ERROR></eResult>\n')
    return ReplayResponse(400, body.encode(), XML)
