"""ArxivAgent through the ``arxiv`` client, over real HTTP, against recorded Atom feeds."""

from __future__ import annotations

import re

import pytest

from scholargraph.agents.schemas import Intent
from scholargraph.errors import SourceResponseError, SourceUnavailable
from scholargraph.sources.arxiv import ArxivAgent, with_dates
from scholargraph.sources.base import SearchRequest
from scholargraph.testing import Fault, ReplayServer, fixture_bytes

PAGE_1 = "arxiv/q_testing_s0_m10_bc5a6c384fe9.atom.xml"
PAGE_2 = "arxiv/q_testing_s10_m10_34e56e15aaac.atom.xml"


def _recorded_ids(name: str) -> list[str]:
    """Entry ids of a recorded feed, without the version suffix."""
    ids = re.findall(rb"<id>http://arxiv.org/abs/([^<]+)</id>", fixture_bytes(name))
    return [re.sub(r"v\d+$", "", value.decode()) for value in ids]


def _intent(*domains: str) -> Intent:
    return Intent(kind="review", domains=list(domains), keywords=[])


def test_query_uses_title_and_abstract_fields() -> None:
    query = ArxivAgent().build_query(["deep learning", "testing", "fuzzing"],
                                     _intent("computer_science"))
    assert query == ('(ti:"deep learning" OR abs:"deep learning") AND '
                     '((ti:testing OR abs:testing) OR (ti:fuzzing OR abs:fuzzing))')


def test_long_key_phrases_become_required_words(replay: ReplayServer) -> None:
    query = ArxivAgent().build_query(["deep learning testing"], _intent("computer_science"))
    assert query == "(abs:deep AND abs:learning AND abs:testing)"
    works = ArxivAgent().search(SearchRequest(query=query, limit=20)).works
    assert works
    for work in works:
        assert all(word in work.abstract.lower() for word in ("deep", "learning", "test"))


def test_materials_questions_are_kept_to_their_category() -> None:
    query = ArxivAgent().build_query(["perovskite"], _intent("materials"))
    assert query == "((ti:perovskite OR abs:perovskite)) AND (cat:cond-mat.mtrl-sci)"


def test_date_window_goes_into_the_query_once() -> None:
    assert with_dates("ti:testing", 2015, 2020) == \
        "(ti:testing) AND submittedDate:[201501010000 TO 202012312359]"
    assert with_dates("submittedDate:[2020 TO 2021] AND testing", 2015, None) == \
        "submittedDate:[2020 TO 2021] AND testing"


def test_two_pages_of_ten(replay: ReplayServer) -> None:
    works = ArxivAgent(page_size=10).search(SearchRequest(query="testing", limit=20)).works
    assert [work.arxiv_id for work in works] == _recorded_ids(PAGE_1) + _recorded_ids(PAGE_2)
    starts = [(request.param("start"), request.param("max_results")) for request in replay.requests]
    assert starts == [("0", "10"), ("10", "10")]


def test_identifiers_and_fields(replay: ReplayServer) -> None:
    work = ArxivAgent().search(SearchRequest(query="testing", limit=10)).works[0]
    assert work.arxiv_id == "2202.12139"  # recorded as http://arxiv.org/abs/2202.12139v1
    recorded_doi = re.search(rb"<arxiv:doi>([^<]+)</arxiv:doi>", fixture_bytes(PAGE_1))
    assert work.doi == recorded_doi.group(1).decode().lower()
    assert work.kind == "preprint" and work.venue == "arXiv" and work.year == 2022
    assert work.authors[0] == "Ahuja, Mohit Kumar"
    assert work.url == "https://arxiv.org/abs/2202.12139v1"
    assert work.abstract.startswith("Deep Learning (DL) has revolutionized")


def test_one_request_per_page_up_to_the_limit(replay: ReplayServer) -> None:
    works = ArxivAgent().search(SearchRequest(query="testing", limit=100)).works
    assert len(works) == 100 and replay.count("arxiv") == 1
    assert replay.requests[0].param("max_results") == "100"


def test_since_until_reach_the_request(replay: ReplayServer) -> None:
    works = ArxivAgent().search(
        SearchRequest(query="abs:testing", limit=50, since=2024, until=2024)).works
    assert works and {work.year for work in works} == {2024}
    assert replay.requests[0].param("search_query") == \
        "(abs:testing) AND submittedDate:[202401010000 TO 202412312359]"


def test_matching_follows_the_query(replay: ReplayServer) -> None:
    works = ArxivAgent().search(
        SearchRequest(query='ti:"deep learning" AND ti:testing', limit=20)).works
    assert works and all("deep learning" in work.title.lower() for work in works)


def test_no_match_is_an_empty_result(replay: ReplayServer) -> None:
    assert ArxivAgent().search(SearchRequest(query="ti:xylophone", limit=20)).works == []


def test_lookup_by_id_and_recorded_error(replay: ReplayServer) -> None:
    [work] = ArxivAgent().lookup(["1605.08386"])
    assert work.arxiv_id == "1605.08386" and work.authors == ["Stanley, Caprice",
                                                             "Windisch, Tobias"]
    with pytest.raises(SourceResponseError, match="incorrect id format for abc"):
        ArxivAgent().lookup(["abc"])


def test_server_error_then_success_is_retried(replay: ReplayServer) -> None:
    replay.inject("arxiv", Fault("500"))
    assert len(ArxivAgent().search(SearchRequest(query="testing", limit=10))) == 10
    assert replay.count("arxiv") == 2


@pytest.mark.parametrize("kind", ["truncated", "malformed", "empty"])
def test_broken_feed_is_a_response_error(replay: ReplayServer, kind: str) -> None:
    replay.inject("arxiv", Fault(kind))
    with pytest.raises(SourceResponseError):
        ArxivAgent().search(SearchRequest(query="testing", limit=10))


def test_hang_past_the_timeout_is_unavailable(replay: ReplayServer, monkeypatch) -> None:
    monkeypatch.setenv("SCHOLARGRAPH_TIMEOUT", "0.2")
    replay.inject("arxiv", Fault("hang", times=-1, seconds=1.0))
    with pytest.raises(SourceUnavailable):
        ArxivAgent().search(SearchRequest(query="testing", limit=10))


@pytest.mark.parametrize(("written", "read"), [
    ("Robert W. Heath Jr.", "Heath, Robert W., Jr."),
    ("John Smith III", "Smith, John, III"),
    ("Fons van der Sommen", "van der Sommen, Fons"),
])
def test_a_name_suffix_is_not_taken_for_the_family_name(written: str, read: str) -> None:
    from scholargraph.sources.arxiv import _author

    assert _author(written) == read
