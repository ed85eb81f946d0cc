"""arXiv through the ``arxiv`` package, one request per page of up to 2,000 entries.

The client's own spacing (``delay_seconds``) is switched off: its session is replaced by one from
the shared HTTP policy, whose process-wide limiter allows one request every three seconds (the
terms of use), timeouts and retries included. That session also checks each answer before the
client reads it, because the client's parser recovers from broken XML silently: a truncated feed,
an HTML error page or arXiv's own error entry becomes a :class:`SourceResponseError` here instead
of a short result list.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any, ClassVar

import arxiv
import requests
from lxml import etree

from scholargraph.agents.schemas import Intent
from scholargraph.errors import SourceResponseError, SourceUnavailable
from scholargraph.http.policy import (
    RETRY_STATUS,
    Politeness,
    http_session,
    install_secret_filter,
    translate_errors,
)
from scholargraph.records import Work
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

log = logging.getLogger(__name__)

MAX_PAGE = 2000
ATOM = "{http://www.w3.org/2005/Atom}"
ERROR_ID = "https://arxiv.org/api/errors"
CATEGORIES: dict[str, tuple[str, ...]] = {"materials": ("cond-mat.mtrl-sci",)}
PHRASE_WORDS = 2
STOP_WORDS = frozenset({"a", "an", "and", "for", "in", "of", "on", "or", "the", "to", "with"})
_DATE_FIELD = re.compile(r"\b(submittedDate|lastUpdatedDate)\s*:", re.IGNORECASE)


class ArxivAgent(SourceAgent):
    """Searches arXiv preprints (physics, mathematics, computer science, and more)."""

    name: ClassVar[str] = "arxiv"
    order: ClassVar[int] = 20
    politeness: ClassVar[Politeness] = Politeness(
        requests=1, per_seconds=3.0,  # arXiv's API terms: one request every three seconds
        official_hosts=("arxiv.org",), endpoint_envs=("SCHOLARGRAPH_ARXIV_URL",))
    label: ClassVar[str] = "arXiv"
    domains = frozenset({"physics", "computer_science", "materials"})
    query_syntax: ClassVar[str] = (
        'arXiv API query: fields ti: (title), abs: (abstract), au: (author), cat: (category, '
        'e.g. cat:cs.LG), all:; phrases in double quotes; AND, OR, ANDNOT in capitals; '
        'parentheses; dates as submittedDate:[202001010000 TO 202312312359]'
    )

    def __init__(self, settings: Settings | None = None, *, page_size: int = MAX_PAGE) -> None:
        super().__init__(settings)
        self.page_size = max(1, min(page_size, MAX_PAGE))

    def build_query(self, terms: list[str], intent: Intent) -> str:
        """The first (most specific) term is required, any of the others may join it."""
        return self._in_categories(
            first_and_any([_term_group(term) for term in clean_terms(terms)]), intent)

    def build_any_two_query(self, words: list[str], intent: Intent) -> str:
        return self._in_categories(
            any_two([_term_group(word) for word in clean_terms(words)]), intent)

    @staticmethod
    def _in_categories(query: str, intent: Intent) -> str:
        """The query within the question's arXiv categories when its fields map to a few."""
        if not query:
            return ""
        categories = _categories(intent)
        if categories:
            query = f"({query}) AND ({' OR '.join(f'cat:{cat}' for cat in categories)})"
        return query

    def _search(self, request: SearchRequest) -> SourceResult:
        query = with_added_window(with_dates(request.query, request.since, request.until),
                                  request)
        if request.limit <= 0 or not query.strip():
            return SourceResult()
        return SourceResult(works=self._run(arxiv.Search(query=query, max_results=request.limit)))

    def lookup(self, arxiv_ids: list[str]) -> list[Work]:
        """The works with these arXiv ids (any version), in one ``id_list`` request per page."""
        if not arxiv_ids:
            return []
        return self._run(arxiv.Search(id_list=list(arxiv_ids), max_results=len(arxiv_ids)))

    def _run(self, search: arxiv.Search) -> list[Work]:
        settings = self.settings
        install_secret_filter()
        client = arxiv.Client(page_size=min(self.page_size, search.max_results or MAX_PAGE),
                              delay_seconds=0.0, num_retries=1)
        client.query_url_format = f"{settings.arxiv_url}?{{}}"
        client._session = _checked_session(settings)
        with translate_errors(self.name, settings):
            try:
                return works_of(client.results(search))
            except arxiv.HTTPError as exc:
                raise _http_error(exc) from None
            except arxiv.UnexpectedEmptyPageError:
                raise SourceResponseError(self.name, "arXiv returned an empty page in the middle "
                                          "of the results, twice; try again later") from None


def with_added_window(query: str, request: SearchRequest) -> str:
    """``query`` restricted to the entries submitted in an update's window (arXiv keeps no
    other date of addition; a new version of an old entry keeps its first submission date)."""
    if request.added_since is None or not query.strip():
        return query
    until = request.added_until or request.added_since
    window = (f"submittedDate:[{request.added_since:%Y%m%d}0000 TO {until:%Y%m%d}2359]")
    return f"({query}) AND {window}"


def with_dates(query: str, since: int | None, until: int | None) -> str:
    """``query`` restricted to a submission window, unless it already names a date field."""
    if (since is None and until is None) or _DATE_FIELD.search(query):
        return query
    window = f"submittedDate:[{since or 1991}01010000 TO {until or 9999}12312359]"
    return f"({query}) AND {window}" if query.strip() else window



def _term_group(term: str) -> str:
    """A short term as a title/abstract phrase; a long one as its words, all in the abstract."""
    words = [word for word in term.split() if word.lower() not in STOP_WORDS]
    if len(words) > PHRASE_WORDS:
        return "(" + " AND ".join(f"abs:{word}" for word in words) + ")"
    value = f'"{term}"' if " " in term else term
    return f"(ti:{value} OR abs:{value})"


def _categories(intent: Intent) -> tuple[str, ...]:
    """Categories only when every domain of the question maps to a few precise ones."""
    domains = set(intent.domains)
    if not domains or not domains.issubset(CATEGORIES):
        return ()
    return tuple(cat for domain in sorted(domains) for cat in CATEGORIES[domain])


def _checked_session(settings: Settings) -> requests.Session:
    session = http_session("arxiv", settings)
    session.hooks["response"].append(_check_feed)
    return session


def _check_feed(response: requests.Response, *args: Any, **kwargs: Any) -> requests.Response:
    """Refuse an answer that is not a complete Atom feed, before the lenient parser sees it."""
    if response.status_code in RETRY_STATUS:
        return response
    try:
        root = etree.fromstring(response.content, etree.XMLParser(
            resolve_entities=False, no_network=True, recover=False))
    except etree.XMLSyntaxError as exc:
        raise SourceResponseError("arxiv", f"the answer is not a complete Atom feed ({exc})") \
            from None
    if root.tag != f"{ATOM}feed":
        raise SourceResponseError("arxiv", f"expected an Atom feed, got <{root.tag}>")
    for entry in root.iterfind(f"{ATOM}entry"):
        if (entry.findtext(f"{ATOM}id") or "").startswith(ERROR_ID):
            message = (entry.findtext(f"{ATOM}summary") or "error").strip()
            raise SourceResponseError("arxiv", f"arXiv rejected the query: {message}")
    if response.status_code != 200:
        raise SourceResponseError("arxiv", f"HTTP {response.status_code}")
    return response


def _http_error(exc: arxiv.HTTPError) -> Exception:
    if exc.status in RETRY_STATUS:
        return SourceUnavailable("arxiv", f"HTTP {exc.status} after retries; try again later")
    return SourceResponseError("arxiv", f"HTTP {exc.status}")


def works_of(results: Iterable[arxiv.Result]) -> list[Work]:
    """The results as works; an entry that cannot be one (a field of the wrong shape) is left
    out with a warning naming it, and the other entries kept."""
    works = []
    for result in results:
        try:
            works.append(_work(result))
        except (ValueError, TypeError, AttributeError) as exc:
            log.warning("arXiv entry %s left out: %s", getattr(result, "entry_id", "?"),
                        (str(exc).splitlines() or [type(exc).__name__])[0][:200])
    return works


WITHDRAWN = re.compile(
    r"\b(?:paper|article|manuscript|submission|preprint|version|work|note)\s+(?:has\s+been|is|was)"
    r"\s+withdrawn\b|\bwithdrawn\s+by\s+(?:the\s+)?(?:authors?|arxiv|submitter)\b|^\W*withdrawn\b",
    re.IGNORECASE)
"""How arXiv's withdrawn entries say so, in the comment or in the abstract that replaces the
paper's ('This paper has been withdrawn by the author due to an error in Lemma 2',
'Withdrawn.'): the withdrawal is the last version, and the API gives no other field for it.
A paper about a withdrawn drug ('the drug was withdrawn from the market') does not match."""


def withdrawal(result: arxiv.Result) -> str | None:
    """The notice of a withdrawn entry ('Withdrawn on arXiv: This paper has been withdrawn
    ...'), or None; it names the comment, else the abstract's first sentence, which say why."""
    for text in (result.comment or "", result.summary or ""):
        if WITHDRAWN.search(text):
            said = " ".join(text.split())
            sentence = re.split(r"(?<=\.)\s", said, maxsplit=1)[0]
            return f"Withdrawn on arXiv: {sentence[:200]}"
    return None


def _work(result: arxiv.Result) -> Work:
    """A work from an entry; a withdrawn one (:func:`withdrawal`) is flagged as a retracted
    one is, so a review neither rests a finding on it without saying so nor hides it."""
    withdrawn = withdrawal(result)
    return Work(
        title=result.title or "(untitled)",
        authors=[_author(author.name) for author in result.authors if author.name],
        year=result.published.year if result.published else None,
        venue="arXiv",
        abstract=result.summary or None,
        doi=result.doi or None,
        arxiv_id=result.get_short_id(),
        url=result.entry_id.replace("http://", "https://"),
        sources=["arxiv"],
        kind="preprint",
        journal_ref=result.journal_ref or None,
        is_retracted=withdrawn is not None,
        notices=[withdrawn] if withdrawn else [],
    )


def _author(name: str) -> str:
    """'Given Family' as arXiv writes it, turned into 'Family, Given' (:func:`family_first`)."""
    return family_first(name)
