"""What the web agent keeps of a result page, as a reader citing it needs: the day the page says
it was published (its metadata, never a guess), and nothing of a cookie, consent or sign-in wall
standing in front of the page. Served through the replay server's web mirror from hand-written
test pages (fixtures/ddg/pages/, see PROVENANCE_materials_web.md)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest

from scholargraph.agents.intent import detect_intent
from scholargraph.agents.schemas import Intent
from scholargraph.records import Work
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.web.agent import WebAgent, left_out
from scholargraph.sources.web.pages import RobotsCache, is_wall
from scholargraph.testing import ReplayServer
from scholargraph.testing.services.ddg import DuckDuckGoService, Site, WebPagesService

MEDIUM_PATH = ("/homullus/fake-and-free-bypass-on-cookie-with-cloudflare-edge-cache-workers-"
               "for-wordpress-72c36d23c174")
STACKOVERFLOW_PATH = "/questions/31694486/nginx-proxy-no-cache-and-proxy-cache-bypass"
"""The first and third results of the recorded DuckDuckGo page, whose pages the tests choose."""


@pytest.fixture
def web() -> Iterator[ReplayServer]:
    sites = {"medium.com": Site(robots=404, pages={MEDIUM_PATH: "dated-article.html"}),
             "stackoverflow.com": Site(robots=404, pages={STACKOVERFLOW_PATH: "cookie-wall.html"})}
    with ReplayServer([DuckDuckGoService(), WebPagesService(sites)]) as server, \
            server.environment(SCHOLARGRAPH_RATE_SCALE="1000", SCHOLARGRAPH_NO_CACHE="1"):
        yield server


def search(query: str = "fake cache bypass") -> tuple[dict[str, Work], list[str]]:
    result = WebAgent(robots=RobotsCache(), max_pages=3).search(SearchRequest(query=query,
                                                                              limit=3))
    return {work.venue or "": work for work in result.works}, result.notes


def test_a_page_dated_in_its_metadata_is_cited_with_its_day_and_year(web: ReplayServer) -> None:
    works, _ = search()
    medium = works["medium.com"]

    assert medium.published == date(2024, 3, 5) and medium.year == 2024
    assert "Bypass on cookie sends a request" in (medium.full_text or "")


def test_an_undated_page_gets_no_date_made_up(web: ReplayServer) -> None:
    works, _ = search()

    assert works["support.stackpath.com"].year is None
    assert works["support.stackpath.com"].published is None


def test_a_cookie_wall_is_never_kept_as_the_pages_text(web: ReplayServer) -> None:
    works, notes = search()
    walled = works["stackoverflow.com"]

    assert walled.full_text is None
    assert walled.abstract  # the search snippet stays
    assert notes == ["Web: 1 page showed a cookie, consent or sign-in wall instead of its text; "
                     "it keeps its search snippet"]


@pytest.mark.parametrize(("text", "wall"), [
    ("Before you continue. We use cookies to show personalised ads. Accept all or Reject all.",
     True),
    ("Sign in to continue reading. This content is only available to subscribers.", True),
    ("Session cookies let a site recognise a signed-in visitor; we use cookies of this kind "
     "only after login.", False),
    ("Patients gave informed consent to the protocol. " * 40 + "Accept all cookies.", False),
])
def test_a_wall_is_short_and_says_what_walls_say(text: str, wall: bool) -> None:
    assert is_wall(text) is wall


@pytest.mark.parametrize("question", [
    "How do web scraping libraries handle cookie consent banners?",
    "EU policy on pesticide use",
    "national guidelines for sepsis management",
    "Which Python libraries compute band structures from DFT output?",
])
def test_questions_answered_outside_journals_ask_the_web(question: str) -> None:
    intent = detect_intent(question)

    assert WebAgent().is_relevant(intent.model_copy(update={"domains": ["biomedical"]}))


@pytest.mark.parametrize("question", [
    "CRISPR libraries for genome-wide screens", "band gap of LiFePO4 and olivine cathodes",
    "gene regulation of autophagy in yeast", "policy gradient methods for robot control",
    "scaling laws for neural language models",
    "machine learning for public health surveillance",
])
def test_a_field_question_stays_off_the_web(question: str) -> None:
    intent = detect_intent(question)
    fielded = Intent(**{**intent.model_dump(), "domains": ["biomedical", "materials"]})

    assert not WebAgent().is_relevant(fielded)


@pytest.mark.parametrize(("href", "reason"), [
    ("https://duckduckgo.com/y.js?ad_domain=example.com&ad_provider=bingv7aa&u3=x", "ad"),
    ("//duckduckgo.com/y.js?ad_domain=example.com&ad_provider=bingv7aa", "ad"),
    ("https://www.bing.com/aclick?ld=e8abc&u=x", "ad"),
    ("//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.youtube.com%2Fwatch%3Fv%3Dabc&rut=0f", "video"),
    ("https://vimeo.com/12345", "video"),
    ("https://www.nginx.com/blog/nginx-caching-guide/", None),
    ("//duckduckgo.com/l/?uddg=https%3A%2F%2Fmedium.com%2Fa&rut=0f", None),
])
def test_ads_and_videos_are_no_evidence_to_read(href: str, reason: str | None) -> None:
    assert left_out({"href": href, "title": "t", "body": "b"}) == reason


@pytest.mark.parametrize(("href", "title", "reason"), [
    ("https://knowyourmeme.com/memes/pesticide-guy", "Pesticide guy", "meme"),
    ("https://www.reddit.com/r/memes/comments/abc/eu_regulations/", "EU regulations", "meme"),
    ("https://www.reddit.com/r/europe/comments/abc/", "EU pesticide memes thread", "meme"),
    ("https://www.reddit.com/r/europe/comments/abc/", "EU votes to extend glyphosate", None),
    ("https://raw.githubusercontent.com/o/r/main/scrape.py", "scrape.py", "code listing"),
    ("https://github.com/o/r/blob/main/src/consent.js", "consent.js at main", "code listing"),
    ("https://gist.github.com/someone/0123abcd", "cookie banner clicker", "code listing"),
    ("https://github.com/o/r", "o/r: a scraping library", None),
    ("https://github.com/o/r/issues/12", "Cookie banners block scraping", None),
    ("https://food.ec.europa.eu/plants/pesticides_en", "Pesticides - Food Safety", None),
])
def test_meme_threads_and_code_listings_are_no_work_to_read(href: str, title: str,
                                                           reason: str | None) -> None:
    """A meme, on a meme site or a forum thread saying so, and a source file or paste are not
    works a review cites; a forum thread, a repository's page or issue and an agency's page
    stay."""
    assert left_out({"href": href, "title": title, "body": "b"}) == reason


def test_the_recorded_results_video_meme_and_code_are_left_out_with_a_note(
        web: ReplayServer) -> None:
    """The recorded DuckDuckGo page (a real 2020 answer) holds, among 25 results, one YouTube
    video, one thread of r/dankmemes and one gist of JavaScript; a forum thread served by
    ``showthread.php`` is a page, and stays."""
    result = WebAgent(robots=RobotsCache(), max_pages=0).search(
        SearchRequest(query="fake cache bypass", limit=25))

    urls = [work.url or "" for work in result.works]
    assert len(urls) == 22
    assert not any(site in url for url in urls
                   for site in ("youtube.com", "dankmemes", "gist.github.com"))
    assert any("showthread.php" in url for url in urls)
    assert result.notes == ["Web: left out 3 search results as no work to quote "
                            "(1 code listing, 1 meme, 1 video)"]
