"""PubMed through NCBI's E-utilities: ESearch on the history server, then EFetch in large batches.

Requests go through the shared HTTP policy (limiter, timeout, retries, cache) to
``settings.pubmed_url``, always as POST, so the API key travels in a request body and never in a
URL that a log line or an error message could print. Bio.Entrez's own request functions are not
used for sending: they hard-code NCBI's URLs and add a second, stricter throttle of their own
(0.37 s between any two calls, measured as 0.12 s lost per chained request against the 3/s
limit the shared limiter already keeps) and a 15 s sleep on dropped connections.

The XML is parsed with ``Entrez.read`` against the DTDs Biopython bundles; parsing never
downloads a DTD (offline that would hang or fail late): a response whose DTD is not bundled is
reported as a :class:`SourceResponseError` that says to upgrade Biopython. EFetch batches are
fetched one ahead of the one being parsed, so parsing overlaps the wait for the next answer.
"""

from __future__ import annotations

import io
import logging
import re
from contextvars import ContextVar
from typing import Any, ClassVar

from Bio import Entrez
from Bio.Entrez import Parser as EntrezParser

from scholargraph.errors import SourceResponseError
from scholargraph.records import Work
from scholargraph.schemas import Intent
from scholargraph.settings import Settings
from scholargraph.tools.base import (
    SearchRequest,
    SourceAgent,
    SourceResult,
    clean_terms,
    first_and_any,
)
from scholargraph.tools.http import (
    http_session,
    install_secret_filter,
    talks_to_official,
    translate_errors,
)
from scholargraph.tools.prefetch import one_ahead

log = logging.getLogger(__name__)

ESEARCH_MAX = 10_000
EFETCH_BATCH = 1_000
"""Records per EFetch: up to 1,000 records is one request after the search. Larger batches would
save requests only past 1,000 records and make answers of tens of MB (PubMed XML with
references runs to 20 KB per article), held whole in memory while parsed."""
TOOL_NAME = "scholargraph"
PHRASE_WORDS = 2
STOP_WORDS = frozenset({"a", "an", "and", "for", "in", "of", "on", "or", "the", "to", "with"})
_DATE_TAG = re.compile(r"\[(dp|pdat|edat|mdat|crdt|publication date|date - publication)\]", re.IGNORECASE)
_INLINE_TAGS = re.compile(r"</?(i|b|u|sup|sub|em|strong)>", re.IGNORECASE)


class _EUtilities:
    """POSTs to the configured E-utilities base over the shared HTTP policy."""

    def __init__(self, settings: Settings) -> None:
        self._url = settings.pubmed_url
        self._session = http_session("pubmed", settings)

    def call(self, utility: str, **params: Any) -> io.BytesIO:
        response = self._session.post(f"{self._url}{utility}.fcgi", data=params)
        response.raise_for_status()
        return io.BytesIO(response.content)


_parsing: ContextVar[bool] = ContextVar("scholargraph_entrez_parsing", default=False)
_original_dtd_urlopen = EntrezParser.urlopen


def _dtd_urlopen(url: Any, *args: Any, **kwargs: Any) -> Any:
    if not _parsing.get():
        return _original_dtd_urlopen(url, *args, **kwargs)
    raise OSError(f"not downloading {url}: scholargraph parses only with bundled DTDs")


EntrezParser.urlopen = _dtd_urlopen


class PubMedAgent(SourceAgent):
    """Searches PubMed (MEDLINE and more) through NCBI's E-utilities."""

    name: ClassVar[str] = "pubmed"
    order: ClassVar[int] = 10
    label: ClassVar[str] = "PubMed"
    domains = frozenset({"biomedical", "chemistry"})
    query_syntax: ClassVar[str] = (
        'PubMed Boolean query: terms tagged [tiab] (title/abstract) or [mh] (MeSH), phrases in '
        'double quotes, AND/OR/NOT in capitals, dates as ("2015"[dp] : "2020"[dp])'
    )

    def __init__(self, settings: Settings | None = None, *, batch_size: int = EFETCH_BATCH) -> None:
        super().__init__(settings)
        self.batch_size = max(1, min(batch_size, ESEARCH_MAX))

    def build_query(self, terms: list[str], intent: Intent) -> str:
        """The first (most specific) term is required, any of the others may join it."""
        return first_and_any([_term_group(term) for term in clean_terms(terms, '"()[]')])

    def _search(self, request: SearchRequest) -> SourceResult:
        settings = self.settings
        install_secret_filter()
        term = with_dates(request.query, request.since, request.until)
        limit = max(0, min(request.limit, ESEARCH_MAX))
        eutils, identity = _EUtilities(settings), _identity(settings)
        with translate_errors(self.name, settings):
            found = _read(eutils.call("esearch", db="pubmed", term=term, retmax=limit,
                                      usehistory="y", sort="relevance", **identity))
            ids = [str(pmid) for pmid in found.get("IdList", [])]
            if ids and not found.get("WebEnv"):
                raise SourceResponseError(self.name, "ESearch gave ids but no history (WebEnv)")
            starts = range(0, len(ids), self.batch_size)
            fetches = [{"db": "pubmed", "retmode": "xml", "WebEnv": found.get("WebEnv"),
                        "query_key": found.get("QueryKey"), "retstart": start,
                        "retmax": min(self.batch_size, len(ids) - start), **identity}
                       for start in starts]
            works: list[Work] = []
            for answer in one_ahead(eutils.call("efetch", **params) for params in fetches):
                batch = _read(answer)
                works.extend(_work(article) for article in batch.get("PubmedArticle", []))
                works.extend(_book_work(book) for book in batch.get("PubmedBookArticle", []))
        return SourceResult(works=_in_order(works, ids))


def with_dates(query: str, since: int | None, until: int | None) -> str:
    """``query`` with a publication-date range, unless it already has a date tag."""
    if (since is None and until is None) or _DATE_TAG.search(query):
        return query
    window = f'("{since or 1800}"[dp] : "{until or 3000}"[dp])'
    return f"({query}) AND {window}" if query.strip() else window



def _term_group(term: str) -> str:
    """A short term as a phrase (text or MeSH); a long one as its words, all required.

    A three-word key phrase from a question is rarely written verbatim in an abstract.
    """
    words = [word for word in term.split() if word.lower() not in STOP_WORDS]
    if len(words) > PHRASE_WORDS:
        return "(" + " AND ".join(f"{word}[tiab]" for word in words) + ")"
    quoted = f'"{term}"'
    return f"({quoted}[tiab] OR {quoted}[mh])"


def _identity(settings: Settings) -> dict[str, str]:
    """``tool``, ``email`` and ``api_key`` as NCBI asks, passed per call (never set globally)."""
    if not settings.ncbi_email and talks_to_official("pubmed", settings):
        _warn_once("NCBI_EMAIL is not set: NCBI asks every E-utilities user for a contact email")
    identity = {"tool": TOOL_NAME, "email": settings.ncbi_email or ""}
    if settings.ncbi_api_key and settings.ncbi_api_key.get_secret_value():
        identity["api_key"] = settings.ncbi_api_key.get_secret_value()
    return identity


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        log.warning(message)


def _read(handle: Any) -> Any:
    """Parse one E-utilities answer, turning Biopython's parse failures into typed errors."""
    marker = _parsing.set(True)
    try:
        return Entrez.read(handle)
    except (ValueError, RuntimeError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "Failed to access" in text:
            raise SourceResponseError(
                "pubmed", f"{text}: the answer names a DTD Biopython does not bundle; "
                "upgrade biopython") from None
        raise SourceResponseError("pubmed", f"unreadable E-utilities answer ({text[:200]})") from None
    finally:
        _parsing.reset(marker)
        handle.close()


def _in_order(works: list[Work], ids: list[str]) -> list[Work]:
    """Works in ESearch's (relevance) order, whatever order EFetch returned them in."""
    rank = {pmid: index for index, pmid in enumerate(ids)}
    return sorted(works, key=lambda work: rank.get(work.pmid or "", len(rank)))


def _work(article: dict[str, Any]) -> Work:
    citation = article["MedlineCitation"]
    body = citation["Article"]
    ids = {str(item.attributes.get("IdType", "")): str(item)
           for item in article.get("PubmedData", {}).get("ArticleIdList", [])}
    pmid = str(citation["PMID"])
    return Work(
        title=_plain(str(body.get("ArticleTitle", ""))) or "(untitled)",
        authors=[name for name in map(_author, body.get("AuthorList", [])) if name],
        year=_year(body),
        venue=str(body.get("Journal", {}).get("Title", "")) or None,
        abstract=_abstract(body),
        doi=ids.get("doi") or _elocation_doi(body),
        pmid=pmid,
        pmcid=ids.get("pmc"),
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/",
        sources=["pubmed"],
        kind="article",
    )


def _book_work(book: dict[str, Any]) -> Work:
    """A PubMed book or chapter record (GeneReviews, StatPearls, NCBI Bookshelf)."""
    document = book["BookDocument"]
    ids = {str(item.attributes.get("IdType", "")): str(item)
           for item in document.get("ArticleIdList", [])}
    pmid = str(document["PMID"])
    source = document.get("Book", {})
    authors = [name for author_list in document.get("AuthorList", [])
               for name in map(_author, author_list) if name]
    year = str(source.get("PubDate", {}).get("Year", ""))
    return Work(
        title=_plain(str(document.get("ArticleTitle") or source.get("BookTitle") or ""))
        or "(untitled)",
        authors=authors,
        year=int(year) if year.isdigit() else None,
        venue=_plain(str(source.get("BookTitle", ""))) or None,
        abstract=_abstract(document),
        doi=ids.get("doi"),
        pmid=pmid,
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/",
        sources=["pubmed"],
        kind="other",
    )


def _plain(text: str) -> str:
    return _INLINE_TAGS.sub("", text).strip()


def _author(author: dict[str, Any]) -> str | None:
    if author.get("CollectiveName"):
        return str(author["CollectiveName"])
    family = str(author.get("LastName", "")).strip()
    given = str(author.get("ForeName") or author.get("Initials") or "").strip()
    if not family:
        return None
    return f"{family}, {given}" if given else family


def _year(body: dict[str, Any]) -> int | None:
    date = body.get("Journal", {}).get("JournalIssue", {}).get("PubDate", {})
    text = str(date.get("Year") or date.get("MedlineDate") or "")
    match = re.search(r"\b(1[89]\d\d|20\d\d)\b", text)
    if match:
        return int(match.group(1))
    for article_date in body.get("ArticleDate", []):
        if str(article_date.get("Year", "")).isdigit():
            return int(article_date["Year"])
    return None


def _abstract(body: dict[str, Any]) -> str | None:
    """Abstract sections joined, each with its label (OBJECTIVE: ..., METHODS: ...)."""
    sections = body.get("Abstract", {}).get("AbstractText", [])
    parts = []
    for section in sections:
        label = section.attributes.get("Label") if hasattr(section, "attributes") else None
        text = _plain(str(section))
        if text:
            parts.append(f"{label}: {text}" if label else text)
    return " ".join(parts) or None


def _elocation_doi(body: dict[str, Any]) -> str | None:
    for location in body.get("ELocationID", []):
        if location.attributes.get("EIdType") == "doi":
            return str(location)
    return None
