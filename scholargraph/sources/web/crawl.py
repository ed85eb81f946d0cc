"""One step further for questions that ask for data: the links of a result page to its own site.

The web agent reads the pages its search found; when the question asks for specific values
(``Intent.wants_data``), it then follows some of their links, once (depth 1):

- only links to the page's own host, never another site;
- chosen by relevance: the anchor text must share at least one word (stemmed) with the query, and
  the links sharing most words come first;
- only links robots.txt allows (checked for every link before it counts against the budget, and
  again when it is fetched);
- within a page budget (:class:`CrawlLimits`: 5 pages per site, 10 per search);
- fetched by the same :class:`~scholargraph.sources.web.pages.PageFetcher` as the results, so each
  host is paced by its own limiter (``web:<host>``), the size and time caps hold, and a script
  shell is rendered.

A page read this way becomes a web work with its main text as ``full_text`` and ``found_via`` set
to the result page whose link led to it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import cache
from urllib.parse import urlsplit

import Stemmer

from scholargraph.deterministic.text import content_words
from scholargraph.records import Work
from scholargraph.sources.web.pages import PageOutcome


@dataclass(frozen=True)
class CrawlLimits:
    """How far the shallow crawl may go from one search's result pages."""

    per_site: int = 5
    """Pages followed on one host."""
    per_search: int = 10
    """Pages followed in all."""


@dataclass(frozen=True)
class Link:
    """A link chosen to follow: where it goes, its anchor text, the page it is on, its score."""

    url: str
    anchor: str
    found_via: str
    overlap: int


@cache
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def stems(text: str) -> set[str]:
    """The stemmed content words of ``text`` ('tables' and 'table' meet)."""
    return set(_stemmer().stemWords(content_words(text)))


def choose_links(pages: list[PageOutcome], query: str, limits: CrawlLimits, known: set[str],
                 allowed: Callable[[str], bool]) -> list[Link]:
    """Links to follow from ``pages`` (result pages, best result first): same host only, none
    already ``known``, most query words in the anchor first (ties in page order), only those
    ``allowed`` (robots.txt), within the budget."""
    terms = stems(query)
    candidates: list[Link] = []
    for page in pages:
        host = urlsplit(page.url).netloc.lower()
        for url, anchor in page.links.items():
            overlap = len(terms & stems(anchor))
            if overlap and url not in known and urlsplit(url).netloc.lower() == host:
                candidates.append(Link(url, anchor, page.url, overlap))
    candidates.sort(key=lambda link: -link.overlap)  # stable: page order breaks ties
    chosen: dict[str, Link] = {}
    per_site: Counter[str] = Counter()
    for link in candidates:
        host = urlsplit(link.url).netloc.lower()
        if link.url in chosen or per_site[host] >= limits.per_site or not allowed(link.url):
            continue
        chosen[link.url] = link
        per_site[host] += 1
        if len(chosen) >= limits.per_search:
            break
    return list(chosen.values())


def crawled_work(link: Link, outcome: PageOutcome) -> Work | None:
    """A web work from a followed link's page, or ``None`` when the page gave no text."""
    if outcome.status != "fetched" or not outcome.text:
        return None
    host = urlsplit(link.url).netloc.lower().removeprefix("www.")
    work = Work(kind="web", title=outcome.title or link.anchor or host, url=link.url,
                venue=host, full_text=outcome.text, sources=["web"], found_via=link.found_via)
    dated(work, outcome.published)
    return work


def dated(work: Work, published: str | None) -> None:
    """Give a web work the day its page says it was published, and so its year (cited in the
    references as any work's); a news work keeps the day its outlet gave."""
    if not published or work.published is not None:
        return
    try:
        day = date.fromisoformat(published)
    except ValueError:
        return
    work.published, work.year = day, day.year

