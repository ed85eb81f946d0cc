"""A Crossref source agent: the worked example of a scholargraph plug-in.

Crossref holds the metadata publishers deposit with their DOIs: titles, authors, dates, journals,
often abstracts and citation counts. The agent searches ``/works`` with free text (``query``),
a publication-year window (``filter=from-pub-date:...,until-pub-date:...``), only the fields it
reads (``select``) and as many rows as asked (up to 1,000 per request, Crossref's cap).

The agent declares Crossref's manners as data (``politeness``); everything else a source needs
comes from scholargraph: the session of :meth:`SourceAgent.session` applies that declaration
(a rate limiter shared by the whole process, the timeout, retries with backoff and
``Retry-After``, a cap on the size of an answer) and the on-disk cache;
:meth:`SourceAgent.search` turns failures into typed errors that the review records in its search
log and goes on.

Crossref's limits, from Crossref: its REST API documentation ("Access and authentication") says
the limit in force is sent with every answer (``x-rate-limit-limit``, ``x-rate-limit-interval``),
depends on the pool, and is enforced with 429; Crossref's announcement "Announcing changes to
REST API rate limits" (blog, 5 November 2025) sets, from 1 December 2025, for requests that
return lists of records (queries, filters: what this agent sends) 1 request a second in the
public pool and 3 a second in the polite pool, which a ``mailto`` contact address selects.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from scholargraph.agents.schemas import Domain, Intent
from scholargraph.errors import SourceResponseError
from scholargraph.http.policy import Politeness, configured, translate_errors
from scholargraph.records import Work
from scholargraph.settings import Settings
from scholargraph.sources.base import SearchRequest, SourceAgent, SourceResult

ENDPOINT_ENV = "SCHOLARGRAPH_CROSSREF_URL"
PLUS_TOKEN_ENV = "CROSSREF_PLUS_TOKEN"
"""A Metadata Plus subscriber's API token, sent in Crossref's ``Crossref-Plus-API-Token``
header; declared secret, so scholargraph scrubs it from errors and logs and keeps it out of the
HTTP cache."""
PLUS_TOKEN_HEADER = "Crossref-Plus-API-Token"
DEFAULT_ENDPOINT = "https://api.crossref.org"
MAX_ROWS = 1000
FIELDS = ("DOI", "title", "author", "issued", "container-title", "abstract", "type", "URL",
          "is-referenced-by-count")
PREPRINT_TYPES = frozenset({"posted-content"})
_ABSTRACT_HEADING = re.compile(r"^\s*<jats:title>\s*Abstract\s*</jats:title>", re.IGNORECASE)


class CrossrefAgent(SourceAgent):
    """Searches Crossref's metadata of DOI-registered works, all fields of research."""

    name: ClassVar[str] = "crossref"
    order: ClassVar[int] = 35  # after OpenAlex (30), before the Materials Project (40)
    label: ClassVar[str] = "Crossref"
    domains: ClassVar[frozenset[Domain]] = frozenset(
        {"general", "biomedical", "chemistry", "physics", "computer_science"})
    query_syntax: ClassVar[str] = "plain words; Crossref ranks works by how many of them match"
    politeness: ClassVar[Politeness] = Politeness(
        requests=1, per_seconds=1.0,  # public pool, lists of records
        keyed_requests=3, key_env="NCBI_EMAIL",  # polite pool: the address sent as mailto
        official_hosts=("crossref.org",),  # SCHOLARGRAPH_RATE_SCALE never applies there
        endpoint_envs=(ENDPOINT_ENV,),  # ...only to a mirror or the replay server
    )
    secret_envs: ClassVar[tuple[str, ...]] = (PLUS_TOKEN_ENV,)
    secret_parameters: ClassVar[tuple[str, ...]] = (PLUS_TOKEN_HEADER,)

    def build_query(self, terms: list[str], intent: Intent) -> str:
        words = (re.sub(r'["():\[\]]+', " ", term).strip() for term in terms)
        return " ".join(dict.fromkeys(word for word in words if word))

    def _search(self, request: SearchRequest) -> SourceResult:
        if request.limit <= 0 or not request.query.strip():
            return SourceResult()
        settings = self.settings
        params = {"query": request.query, "rows": str(min(request.limit, MAX_ROWS)),
                  "select": ",".join(FIELDS)}
        window = _window(request.since, request.until)
        if window:
            params["filter"] = window
        if settings.ncbi_email:
            params["mailto"] = settings.ncbi_email  # Crossref's "polite pool" asks for a contact
        session = self.session()  # the declared politeness, the cache, secrets kept out of it
        token = configured(PLUS_TOKEN_ENV, settings)
        if token:
            session.headers[PLUS_TOKEN_HEADER] = f"Bearer {token}"
        with translate_errors(self.name, settings):
            response = session.get(f"{endpoint(settings)}/works", params=params)
            response.raise_for_status()
            items = _items(response.json())
        return SourceResult(works=[work_from_crossref(item) for item in items[:request.limit]])


def endpoint(settings: Settings) -> str:
    """Crossref's API root for the run: ``SCHOLARGRAPH_CROSSREF_URL`` (a mirror, the replay
    server) or the official one."""
    return (configured(ENDPOINT_ENV, settings) or DEFAULT_ENDPOINT).rstrip("/")


def _window(since: int | None, until: int | None) -> str:
    parts = []
    if since is not None:
        parts.append(f"from-pub-date:{since}")
    if until is not None:
        parts.append(f"until-pub-date:{until}")
    return ",".join(parts)


def _items(answer: Any) -> list[dict[str, Any]]:
    message = answer.get("message") if isinstance(answer, dict) else None
    items = message.get("items") if isinstance(message, dict) else None
    if answer.get("status") != "ok" or not isinstance(items, list):
        raise SourceResponseError("crossref", "the answer is not a Crossref work list")
    return items


def work_from_crossref(item: dict[str, Any]) -> Work:
    """A :class:`Work` from one Crossref work object (its JATS abstract markup is stripped)."""
    try:
        year = (item.get("issued") or {}).get("date-parts", [[None]])[0][0]
        return Work(
            title=(item.get("title") or ["(untitled)"])[0],
            authors=[name for name in map(_author, item.get("author") or []) if name],
            year=int(year) if year else None,
            venue=(item.get("container-title") or [None])[0],
            abstract=_ABSTRACT_HEADING.sub("", item.get("abstract") or ""),
            doi=item.get("DOI"),
            url=item.get("URL"),
            sources=["crossref"],
            kind="preprint" if item.get("type") in PREPRINT_TYPES else "article",
            cited_by_count=item.get("is-referenced-by-count"),
        )
    except (AttributeError, IndexError, TypeError, ValueError) as exc:
        raise SourceResponseError("crossref", f"a work not as Crossref documents it ({exc})") \
            from None


def _author(author: dict[str, Any]) -> str | None:
    family, given = author.get("family"), author.get("given")
    if family:
        return f"{family}, {given}" if given else family
    return author.get("name")
