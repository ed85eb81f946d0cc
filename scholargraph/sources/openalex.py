"""OpenAlex through pyalex: full-text search plus publication-date filters, cursor paging.

pyalex builds every URL on ``https://api.openalex.org`` whatever ``config.openalex_url`` says, so
the paginator's session is replaced by one from the shared HTTP policy with an adapter mounted on
that prefix which sends the requests to ``settings.openalex_url`` instead (and waits for the
limiter, times out, retries). The API key goes in pyalex's ``Authorization`` header, never in a URL.
Each page is asked for while the one before is turned into works (:func:`one_ahead`).
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar, get_args

import pyalex
from pyalex import Works

from scholargraph.agents.schemas import Domain, Intent
from scholargraph.errors import SourceResponseError
from scholargraph.http.policy import (
    Politeness,
    http_session,
    install_secret_filter,
    translate_errors,
)
from scholargraph.http.prefetch import one_ahead
from scholargraph.identifiers import (
    identifiers_in_url,
    is_preprint_doi,
    normalize_arxiv_id,
    normalize_doi,
    osf_id,
)
from scholargraph.records import Work, WorkKind
from scholargraph.settings import Settings
from scholargraph.sources.base import (
    SearchRequest,
    SourceAgent,
    SourceResult,
    any_two,
    clean_terms,
    family_first,
    first_and_any,
)
from scholargraph.sources.markup import plain_inline

log = logging.getLogger(__name__)

OFFICIAL_URL = "https://api.openalex.org"
WORK_FIELDS = ("id", "doi", "ids", "title", "display_name", "publication_year", "type",
               "authorships", "primary_location", "locations", "abstract_inverted_index",
               "cited_by_count", "is_retracted", "open_access", "best_oa_location",
               "referenced_works")
"""The fields :func:`work_from_openalex` reads: the only ones a search asks for (``select``),
which leaves out the bulkiest parts of a Work (related works, concepts, topics, yearly
counts) and roughly halves what is downloaded. The locations are read for the other versions
of a work they name (a journal article's preprint, a preprint's published version)."""
PER_PAGE_MAX = 100
PHRASE_WORDS = 2
STOP_WORDS = frozenset({"a", "an", "and", "for", "in", "of", "on", "or", "the", "to", "with"})
ALL_DOMAINS: frozenset[Domain] = frozenset(get_args(Domain))


class OpenAlexAgent(SourceAgent):
    """Searches OpenAlex, the open catalogue of scholarly works across every field."""

    name: ClassVar[str] = "openalex"
    order: ClassVar[int] = 30
    politeness: ClassVar[Politeness] = Politeness(
        requests=10,  # OpenAlex caps at 100/s; ten keeps a review far from it and its 403s
        official_hosts=("openalex.org",), endpoint_envs=("SCHOLARGRAPH_OPENALEX_URL",))
    label: ClassVar[str] = "OpenAlex"
    always_active: ClassVar[bool] = True
    domains: ClassVar[frozenset[Domain]] = ALL_DOMAINS
    query_syntax: ClassVar[str] = (
        'OpenAlex full-text search over titles and abstracts: plain words, phrases in double '
        'quotes, AND/OR/NOT in capitals; no field tags (years are applied as filters)'
    )

    def __init__(self, settings: Settings | None = None, *, per_page: int = PER_PAGE_MAX) -> None:
        super().__init__(settings)
        self.per_page = max(1, min(per_page, PER_PAGE_MAX))

    def build_query(self, terms: list[str], intent: Intent) -> str:
        """The first (most specific) term is required, any of the others may join it."""
        return first_and_any([_phrase(term) for term in clean_terms(terms)])

    def build_any_two_query(self, words: list[str], intent: Intent) -> str:
        return any_two(clean_terms(words))

    def _search(self, request: SearchRequest) -> SourceResult:
        install_secret_filter()
        if request.limit <= 0 or not request.query.strip():
            return SourceResult()
        _configure(self.settings)
        if request.added_since is None:
            return SourceResult(works=self._works(request, {}))
        try:
            return SourceResult(works=self._works(request, _created_window(request)))
        except SourceResponseError as exc:
            if not exc.message.startswith(("HTTP 400", "HTTP 403")):
                raise
        # OpenAlex has long kept the creation-date filters for its Premium keys: refused, the
        # publication date is the nearest filter every key may use
        note = (f"OpenAlex refused the creation-date filter (kept for Premium keys); works "
                f"published since {request.added_since} were searched instead")
        window = {"from_publication_date": f"{request.added_since:%Y-%m-%d}"}
        return SourceResult(works=self._works(request, window), notes=[note])

    def _works(self, request: SearchRequest, window: dict[str, str]) -> list[Work]:
        """The search's works, the years and ``window`` (more filters) applied."""
        settings = self.settings
        query = Works().search(request.query).select(list(WORK_FIELDS))
        if request.since is not None:
            query = query.filter(from_publication_date=f"{request.since}-01-01")
        if request.until is not None:
            query = query.filter(to_publication_date=f"{request.until}-12-31")
        if window:
            query = query.filter(**window)
        pages = query.paginate(method="cursor", per_page=min(self.per_page, request.limit),
                               n_max=request.limit)
        pages._session = http_session("openalex", settings,
                                      rewrite=(OFFICIAL_URL, settings.openalex_url.rstrip("/")))
        works: list[Work] = []
        with translate_errors(self.name, settings):
            for page in one_ahead(pages):
                works.extend(works_of_page(page))
                if len(works) >= request.limit:
                    break
        return works[: request.limit]


def _created_window(request: SearchRequest) -> dict[str, str]:
    """OpenAlex's filters for the works it added in an update's window."""
    assert request.added_since is not None
    until = request.added_until or request.added_since
    return {"from_created_date": f"{request.added_since:%Y-%m-%d}",
            "to_created_date": f"{until:%Y-%m-%d}"}


def _configure(settings: Settings) -> None:
    """pyalex's identity is module-wide: set it from the settings in force for this call."""
    key = settings.openalex_api_key.get_secret_value() if settings.openalex_api_key else None
    pyalex.config.api_key = key or None
    pyalex.config.email = settings.ncbi_email or None
    pyalex.config.user_agent = settings.user_agent
    pyalex.config.max_retries = 0  # the shared policy retries; pyalex's adapter is not used



def _phrase(term: str) -> str:
    """A short term as a phrase; a long one as its words, all required."""
    words = [word for word in term.split() if word.lower() not in STOP_WORDS]
    if len(words) > PHRASE_WORDS:
        return "(" + " AND ".join(words) + ")"
    return f'"{term}"' if " " in term else term


def work_from_openalex(item: dict[str, Any]) -> Work:
    """A :class:`Work` from one OpenAlex Work object (as the API documents it)."""
    try:
        work = pyalex.Work(item)
        ids = work.get("ids") or {}
        location = work.get("primary_location") or {}
        source = location.get("source") or {}
        return Work(
            title=plain_inline(work.get("title") or work.get("display_name") or "(untitled)"),
            authors=[name for name in map(_author, work.get("authorships") or []) if name],
            year=work.get("publication_year"),
            venue=source.get("display_name"),
            abstract=_abstract(work),
            doi=work.get("doi") or ids.get("doi"),
            pmid=ids.get("pmid"),
            pmcid=ids.get("pmcid"),
            openalex_id=work.get("id"),
            url=work.get("doi") or location.get("landing_page_url") or work.get("id"),
            sources=["openalex"],
            kind=_kind(work),
            publication_types=[work["type"]] if work.get("type") else [],
            cited_by_count=work.get("cited_by_count"),
            is_retracted=bool(work.get("is_retracted")),
            oa_url=open_access_url(work),
            licence=open_access_licence(work),
            referenced_works=work.get("referenced_works") or [],
            version_ids=_other_versions(work),
        )
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        detail = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise SourceResponseError("openalex", f"a work without the documented fields ({detail})") \
            from None


def _abstract(work: pyalex.Work) -> str | None:
    """The abstract rebuilt from its inverted index, its inline markup read as a reader
    would (:func:`~scholargraph.sources.markup.plain_inline`); None when there is none or the
    index is not word -> positions (the work's other fields are still read)."""
    if not work.get("abstract_inverted_index"):
        return None
    try:
        return plain_inline(str(work["abstract"])) or None
    except (TypeError, ValueError, AttributeError, IndexError):
        log.warning("OpenAlex work %s: its abstract index is not word -> positions; read "
                    "without its abstract", work.get("id"))
        return None


def works_of_page(page: list[Any]) -> list[Work]:
    """The page's works; a work that cannot be read is left out with a warning naming it, and
    the page's other works are kept."""
    works = []
    for item in page:
        try:
            works.append(work_from_openalex(item))
        except SourceResponseError as exc:
            name = item.get("id") if isinstance(item, dict) else type(item).__name__
            log.warning("OpenAlex work %s left out: %s", name, exc.message)
    return works


BOOK_TYPES: dict[str, WorkKind] = {"book-chapter": "chapter", "book": "book"}
"""OpenAlex's types for books and their chapters (its 'type' field, from Crossref's)."""


def _kind(work: dict[str, Any]) -> WorkKind:
    """The work's kind from OpenAlex's ``type``: a preprint (also by its DOI: OpenAlex types an
    SSRN paper 'article'), a book chapter or a book, else an article."""
    if work.get("type") == "preprint" or is_preprint_doi(work.get("doi")):
        return "preprint"
    return BOOK_TYPES.get(work.get("type") or "", "article")


def open_access_url(item: dict[str, Any]) -> str | None:
    """The best open-access copy: the PDF of ``best_oa_location`` when OpenAlex knows one (the
    paper itself), else ``open_access.oa_url`` (often a landing page)."""
    best = item.get("best_oa_location") or {}
    return best.get("pdf_url") or (item.get("open_access") or {}).get("oa_url")


def open_access_licence(item: dict[str, Any]) -> str | None:
    """The licence of the best open-access copy ('cc-by'), where OpenAlex states one."""
    return (item.get("best_oa_location") or {}).get("license")


def _other_versions(work: dict[str, Any]) -> list[str]:
    """The DOIs, arXiv ids and OSF ids of the work's locations other than its own: OpenAlex
    lists a journal article's preprint among its locations (an OSF or arXiv page) and a
    preprint's published version among its own ('https://doi.org/10.2196/28749')."""
    doi = normalize_doi(work.get("doi"))
    own = {("doi", doi), ("osf", osf_id(doi)), ("arxiv", normalize_arxiv_id(doi))}
    found: list[str] = []
    for location in work.get("locations") or []:
        if not isinstance(location, dict):
            continue
        for url in (location.get("landing_page_url"), location.get("pdf_url")):
            for kind, value in identifiers_in_url(url):
                if kind in ("doi", "arxiv", "osf") and (kind, value) not in own:
                    found.append(f"{kind}:{value}")
    return list(dict.fromkeys(found))


NO_AUTHOR_ID = "A9999999999"
"""The id OpenAlex gives an authorship it could not match to an author, displayed as
'NULL AUTHOR_ID': not a name (a reference list once read 'Agossou, C., AUTHOR_ID, N.')."""


def _author(authorship: dict[str, Any]) -> str | None:
    """'Given Family' as OpenAlex displays it, turned into 'Family, Given'; for an authorship
    OpenAlex could not match (:data:`NO_AUTHOR_ID`), the name as printed in the paper
    (``raw_author_name``), or none; the printed name too when OpenAlex gives no author."""
    if not isinstance(authorship, dict):
        return None
    author = authorship.get("author") or {}
    raw = (authorship.get("raw_author_name") or "").strip()
    if str(author.get("id") or "").endswith(NO_AUTHOR_ID):
        name = raw
    else:
        name = (author.get("display_name") or "").strip() or raw
    return family_first(name) or None
