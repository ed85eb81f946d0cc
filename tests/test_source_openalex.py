"""OpenAlexAgent through pyalex, over real HTTP, against recorded Work objects."""

from __future__ import annotations

import json
import logging

import pytest
from pyalex import invert_abstract

from scholargraph.agents.schemas import Intent
from scholargraph.errors import SourceResponseError, SourceUnavailable
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.openalex import WORK_FIELDS, OpenAlexAgent
from scholargraph.testing import Fault, ReplayServer, fixture_bytes

KEY = "openalex-key-0123456789"
STATE_OF_OA = "openalex/openalex-python_W2741809807.json"


def _search(query: str, agent: OpenAlexAgent | None = None, **options: int) -> list:
    return (agent or OpenAlexAgent()).search(SearchRequest(query=query, **options)).works


def test_query_is_plain_text_with_phrases() -> None:
    intent = Intent(kind="review", domains=["general"], keywords=[])
    assert OpenAlexAgent().build_query(["machine learning", "public health", "surveillance"],
                                       intent) == \
        '"machine learning" AND ("public health" OR surveillance)'
    assert OpenAlexAgent().build_query(["open access"], intent) == '"open access"'
    assert OpenAlexAgent().build_query(["prevalence of open access"], intent) == \
        "(prevalence AND open AND access)"


def test_identifiers_are_normalised(replay: ReplayServer) -> None:
    recorded = json.loads(fixture_bytes(STATE_OF_OA))
    [work] = _search('"prevalence and impact of Open Access"')
    assert work.openalex_id == "W2741809807" == recorded["id"].rsplit("/", 1)[-1]
    assert work.doi == recorded["doi"].removeprefix("https://doi.org/") == "10.7717/peerj.4375"
    assert work.pmid == recorded["ids"]["pmid"].rsplit("/", 1)[-1] == "29456894"
    assert work.pmcid == "PMC5815332"
    assert work.cited_by_count == recorded["cited_by_count"]
    assert work.is_retracted is recorded["is_retracted"] is False
    assert work.year == recorded["publication_year"]
    assert work.venue == recorded["primary_location"]["source"]["display_name"]
    assert work.abstract == " ".join(invert_abstract(recorded["abstract_inverted_index"]).split())
    assert work.authors[0] == "Piwowar, Heather"
    assert work.sources == ["openalex"] and work.kind == "article"


def test_relevant_hits_for_a_review_question(replay: ReplayServer) -> None:
    agent = OpenAlexAgent()
    intent = Intent(kind="review", domains=["biomedical"], keywords=[])
    query = agent.build_query(["machine learning", "public health surveillance"], intent)
    works = _search(query, agent)
    assert works
    assert all("public health surveillance" in f"{w.title} {w.abstract}".lower() for w in works)


def test_since_until_become_filters(replay: ReplayServer) -> None:
    works = _search("machine learning", since=2020, until=2021, limit=50)
    assert works and all(2020 <= work.year <= 2021 for work in works)
    request = replay.requests[0]
    assert request.param("filter") == \
        "from_publication_date:2020-01-01,to_publication_date:2021-12-31"
    assert request.param("search") == "machine learning"
    assert set(request.param("select").split(",")) == set(WORK_FIELDS)  # only what is read


def test_cursor_paging_follows_next_cursor(replay: ReplayServer) -> None:
    works = _search("machine learning", OpenAlexAgent(per_page=5), limit=12)
    assert len(works) == 12 == len({work.openalex_id for work in works})
    cursors = [request.param("cursor") for request in replay.requests]
    assert len(cursors) == 3 and cursors[0] == "*" and len(set(cursors)) == 3
    assert all(request.param("per-page") == "5" for request in replay.requests)


def test_one_page_of_a_hundred_at_most(replay: ReplayServer) -> None:
    _search("health", limit=500)
    assert replay.requests[0].param("per-page") == "100"


def test_no_match_is_an_empty_result(replay: ReplayServer) -> None:
    assert _search('"quantum chromodynamics"') == []
    assert replay.count("openalex") == 1


def test_api_key_is_sent_as_a_header_and_never_logged(replay: ReplayServer, monkeypatch,
                                                       caplog) -> None:
    monkeypatch.setenv("OPENALEX_API_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    assert _search("machine learning", limit=3)
    request = replay.requests[0]
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in request.path and KEY not in json.dumps(request.params)
    assert caplog.records and KEY not in caplog.text


def test_server_error_then_success_is_retried(replay: ReplayServer) -> None:
    replay.inject("openalex", Fault("500"))
    assert len(_search("machine learning", limit=5)) == 5
    assert replay.count("openalex") == 2


@pytest.mark.parametrize("kind", ["truncated", "malformed", "empty"])
def test_broken_answer_is_a_response_error(replay: ReplayServer, kind: str) -> None:
    replay.inject("openalex", Fault(kind))
    with pytest.raises(SourceResponseError):
        _search("machine learning")


def test_hang_past_the_timeout_is_unavailable(replay: ReplayServer, monkeypatch) -> None:
    monkeypatch.setenv("SCHOLARGRAPH_TIMEOUT", "0.2")
    replay.inject("openalex", Fault("hang", times=-1, seconds=1.0))
    with pytest.raises(SourceUnavailable):
        _search("machine learning")


def test_replay_keeps_recorded_works_byte_for_byte(replay: ReplayServer) -> None:
    import requests

    body = requests.get(f"{replay.url}/openalex/works", timeout=5,
                        params={"search": "machine learning", "per-page": "3"}).content
    recorded = fixture_bytes("openalex/peneira_works.json")
    listed = json.loads(body)
    assert listed["meta"]["count"] > 3 and listed["meta"]["page"] == 1
    decoder, at = json.JSONDecoder(), body.index(b'"results":[') + len(b'"results":[')
    text = body.decode()
    for _ in listed["results"]:
        start = text.index('{"id"', at)
        _, at = decoder.raw_decode(text, start)
        assert text[start:at].encode() in recorded


def test_replay_filters_single_works_and_refusals(replay: ReplayServer) -> None:
    import requests

    works = f"{replay.url}/openalex/works"
    both = requests.get(works, timeout=5, params={
        "filter": "doi:10.7717/peerj.4375|https://doi.org/10.4081/gh.2014.294"}).json()
    assert {w["id"].rsplit("/", 1)[-1] for w in both["results"]} == {"W2741809807",
                                                                      "W2068311567"}
    by_doi = requests.get(f"{works}/https://doi.org/10.1016/j.xgen.2025.100814", timeout=5)
    assert by_doi.content == fixture_bytes(
        "openalex/paperqa_test_doi_search_paper_attributes0.openalex.json").strip()
    refused = requests.get(works, timeout=5, params={"filter": "authorships.author.id:A1"})
    assert refused.status_code == 400 and refused.json()["error"].startswith("Invalid query")
    assert requests.get(f"{works}/W1", timeout=5).status_code == 404


def test_an_author_openalex_could_not_match_is_not_cited_as_a_name(replay: ReplayServer) -> None:
    """The recorded Benin paper has three authorships OpenAlex left unmatched ('NULL
    AUTHOR_ID', id A9999999999, no raw name): its reference read 'Agossou, C., AUTHOR_ID, N.,
    ...' in review.md, the BibTeX and the RIS; now it names only the four real authors."""
    from scholargraph.exports import bibtex, ris
    from scholargraph.exports.citation import format_reference

    [work] = _search('"breast cancer in Benin"')
    assert work.authors == ["Agossou, Cyrille", "Atchadé, Mintodê Nicodème",
                            "Djibril, Aliou Moussa", "Kurisheva, Svetlana Vladimirovna"]
    for text in (format_reference(work), bibtex.dumps([work]), ris.dumps([work])):
        assert "AUTHOR_ID" not in text and "NULL" not in text


@pytest.mark.parametrize(("shown", "read"), [
    ("Robert W. Heath Jr.", "Heath, Robert W., Jr."),
    ("Fons van der Sommen", "van der Sommen, Fons"),
    ("Ada Lovelace", "Lovelace, Ada"),
])
def test_display_names_keep_their_particles_and_suffixes(shown: str, read: str) -> None:
    from scholargraph.sources.openalex import _author

    assert _author({"author": {"id": "https://openalex.org/A5023888391",
                               "display_name": shown}}) == read
