"""PubMedAgent through Bio.Entrez, over real HTTP, against recorded E-utilities answers."""

from __future__ import annotations

import io
import logging
import re
from xml.etree import ElementTree

import pytest

from scholargraph.agents.schemas import Intent
from scholargraph.errors import SourceResponseError, SourceUnavailable
from scholargraph.records import SearchLogEntry
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.pubmed import PubMedAgent, with_dates, works_from_efetch
from scholargraph.testing import Fault, ReplayRequest, ReplayResponse, ReplayServer, fixture_bytes
from scholargraph.testing.services.pubmed import PubMedService

KEY = "ncbi0123456789abcdef0123456789abcdef"


def _recorded(name: str, pmid: str) -> ElementTree.Element:
    root = ElementTree.fromstring(fixture_bytes(f"pubmed/{name}"))
    for article in root.iter("PubmedArticle"):
        if article.findtext("MedlineCitation/PMID") == pmid:
            return article
    raise AssertionError(f"{pmid} is not in {name}")


def _search(query: str, **options: int) -> list:
    return PubMedAgent().search(SearchRequest(query=query, **options)).works


def test_query_uses_field_tags_and_boolean_structure() -> None:
    intent = Intent(kind="review", domains=["biomedical"], keywords=[])
    query = PubMedAgent().build_query(["machine learning", "public health", "surveillance"],
                                      intent)
    assert query == ('("machine learning"[tiab] OR "machine learning"[mh]) AND '
                     '(("public health"[tiab] OR "public health"[mh]) OR '
                     '("surveillance"[tiab] OR "surveillance"[mh]))')
    assert PubMedAgent().build_query(['"telomere"', " "], intent) == \
        '("telomere"[tiab] OR "telomere"[mh])'
    assert PubMedAgent().build_query(["deep learning for testing"], intent) == \
        "(deep[tiab] AND learning[tiab] AND testing[tiab])"


def test_date_range_goes_into_the_query_once() -> None:
    assert with_dates("telomere[tiab]", 2015, 2020) == \
        '(telomere[tiab]) AND ("2015"[dp] : "2020"[dp])'
    assert with_dates("telomere[tiab]", 2015, None) == \
        '(telomere[tiab]) AND ("2015"[dp] : "3000"[dp])'
    assert with_dates('telomere AND 2017[dp]', 2015, 2020) == "telomere AND 2017[dp]"
    assert with_dates("telomere", None, None) == "telomere"


def test_identifiers_and_fields_match_the_recording(replay: ReplayServer) -> None:
    works = _search("pulmonary imaging biomarker")
    assert [work.pmid for work in works] == ["29963580"]
    work = works[0]
    recorded = _recorded("biopython_pubmed7.xml", "29963580")
    ids = {node.get("IdType"): node.text for node in recorded.iter("ArticleId")
           if node in list(recorded.find("PubmedData/ArticleIdList"))}
    assert work.doi == ids["doi"].lower() == "10.1117/1.jmi.5.2.026002"
    assert work.pmcid == ids["pmc"] == "PMC6022861"
    first = recorded.find(".//AuthorList/Author")
    assert work.authors[0] == f"{first.findtext('LastName')}, {first.findtext('ForeName')}"
    assert work.year == 2018
    assert work.venue == recorded.findtext(".//Journal/Title")
    assert work.title.startswith("Development of a pulmonary imaging biomarker pipeline")
    assert work.url == "https://pubmed.ncbi.nlm.nih.gov/29963580/"
    assert work.sources == ["pubmed"] and work.kind == "article"


def test_structured_abstract_keeps_its_labels(replay: ReplayServer) -> None:
    [work] = _search("telomere[tiab]")
    labels = [node.get("Label") for node in
              _recorded("biopython_pubmed4.xml", work.pmid).iter("AbstractText")]
    assert labels == ["OBJECTIVE", "DESIGN", "RESULTS", "CONCLUSIONS"]
    assert work.abstract.startswith("OBJECTIVE: Telomere shortening")
    assert all(f"{label}: " in work.abstract for label in labels)
    assert "<i>" not in work.title and "TERT" in work.title


def test_doi_falls_back_to_article_ids_and_old_records_parse(replay: ReplayServer) -> None:
    [work] = _search('"flavocytochrome"[tiab]')
    assert work.pmid == "9997"
    assert work.doi == "10.1016/0005-2795(76)90109-4"
    assert work.year == 1976 and work.pmcid is None


def test_search_uses_history_server_and_post(replay: ReplayServer) -> None:
    works = _search("cryopreservation OR telomere OR pesticide", limit=20)
    assert len(works) == 3
    esearch, efetch = replay.requests
    assert esearch.path == "/esearch.fcgi" and efetch.path == "/efetch.fcgi"
    assert esearch.method == efetch.method == "POST"
    assert esearch.param("usehistory") == "y" and esearch.param("retmax") == "20"
    assert esearch.param("tool") == "scholargraph"
    assert efetch.param("WebEnv") and efetch.param("query_key") == "1"
    assert "?" not in esearch.path


def test_efetch_pages_through_the_history_in_batches(replay: ReplayServer) -> None:
    agent = PubMedAgent(batch_size=2)
    works = agent.search(SearchRequest(query="humans[mh] OR 2018[dp] OR cryopreservation",
                                       limit=5)).works
    efetches = [r for r in replay.requests if r.path == "/efetch.fcgi"]
    assert [(r.param("retstart"), r.param("retmax")) for r in efetches] == \
        [("0", "2"), ("2", "2"), ("4", "1")]
    assert replay.requests[0].param("retmax") == "5"
    assert len(works) == 5 == len({work.pmid for work in works})


def test_a_failing_batch_fails_the_search_and_stops_the_fetches(replay: ReplayServer) -> None:
    """Batches are fetched one ahead on a worker thread; its failure is raised to the caller,
    and no batch after it is asked for."""
    replay.inject("pubmed", Fault("500", times=-1, path="/efetch.fcgi"))
    with pytest.raises(SourceUnavailable):
        PubMedAgent(batch_size=2).search(
            SearchRequest(query="humans[mh] OR 2018[dp] OR cryopreservation", limit=5))
    retstarts = {r.param("retstart") for r in replay.requests if r.path == "/efetch.fcgi"}
    assert retstarts <= {"0", "2"} and "0" in retstarts


def test_since_until_reach_the_request_and_filter(replay: ReplayServer) -> None:
    works = _search("cryopreservation OR telomere OR pesticide", since=2017, until=2020)
    assert {work.pmid for work in works} == {"27797938", "28775130"}
    term = replay.requests[0].param("term")
    assert term.endswith('("2017"[dp] : "2020"[dp])')


def test_zero_hits_is_an_empty_result_not_an_error(replay: ReplayServer) -> None:
    assert _search("abcXYZ") == []
    assert replay.count("pubmed") == 1


def test_server_error_then_success_is_retried(replay: ReplayServer) -> None:
    replay.inject("pubmed", Fault("500"))
    assert [work.pmid for work in _search("pulmonary")] == ["29963580"]
    assert replay.count("pubmed") == 3


@pytest.mark.parametrize("kind", ["truncated", "malformed", "empty"])
def test_broken_answer_is_a_response_error(replay: ReplayServer, kind: str) -> None:
    replay.inject("pubmed", Fault(kind))
    with pytest.raises(SourceResponseError):
        _search("pulmonary")


def test_hang_past_the_timeout_is_unavailable(replay: ReplayServer, monkeypatch) -> None:
    monkeypatch.setenv("SCHOLARGRAPH_TIMEOUT", "0.2")
    replay.inject("pubmed", Fault("hang", times=-1, seconds=1.0))
    with pytest.raises(SourceUnavailable):
        _search("pulmonary")


class _NewerDtd(PubMedService):
    """Answers of one E-utility that name a DTD Biopython does not bundle (as a future NCBI
    might)."""

    def __init__(self, utility: str) -> None:
        super().__init__()
        self.utility = utility

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        response = super().handle(request)
        if request.path.endswith(f"{self.utility}.fcgi"):
            response.body = re.sub(rb"(pubmed_|esearch)\d*\.dtd", rb"\g<1>990101-new.dtd",
                                   response.body)
        return response


def test_a_newer_efetch_dtd_is_read_without_a_download(replay: ReplayServer) -> None:
    """EFetch's XML is read without its DTD, so a new DTD version changes nothing."""
    replay.add_handler(_NewerDtd("efetch"))
    works = _search("pulmonary")
    assert works and all(work.pmid and work.title for work in works)
    assert {r.path for r in replay.requests} == {"/esearch.fcgi", "/efetch.fcgi"}


def test_a_missing_esearch_dtd_is_a_response_error_not_a_download(replay: ReplayServer) -> None:
    """ESearch's answer is still parsed by Biopython, against the DTDs it bundles."""
    replay.add_handler(_NewerDtd("esearch"))
    with pytest.raises(SourceResponseError, match="upgrade biopython"):
        _search("pulmonary")


def test_api_key_is_sent_but_never_logged(replay: ReplayServer, monkeypatch, caplog) -> None:
    monkeypatch.setenv("NCBI_API_KEY", KEY)
    monkeypatch.setenv("NCBI_EMAIL", "reviewer@example.org")
    caplog.set_level(logging.DEBUG)
    works = _search("pulmonary")
    assert works and all(request.param("api_key") == KEY for request in replay.requests)
    assert all(request.param("email") == "reviewer@example.org" for request in replay.requests)
    assert all(KEY not in request.path for request in replay.requests)

    replay.inject("pubmed", Fault("500", times=-1))
    with pytest.raises(SourceUnavailable) as failure:
        _search("pulmonary")
    entry = SearchLogEntry(source="pubmed", query="pulmonary", status="error",
                           error=str(failure.value))
    assert KEY not in entry.model_dump_json()
    assert caplog.records and KEY not in caplog.text


def test_the_three_literature_agents_in_the_registry() -> None:
    from scholargraph.sources.registry import get_agent, source_names

    names = source_names()
    assert names.index("pubmed") < names.index("arxiv") < names.index("openalex")
    pubmed, arxiv, openalex = (get_agent(name) for name in ("pubmed", "arxiv", "openalex"))
    assert (pubmed.order, arxiv.order, openalex.order) == (10, 20, 30)
    assert (pubmed.label, arxiv.label, openalex.label) == ("PubMed", "arXiv", "OpenAlex")
    assert pubmed.domains == {"biomedical", "chemistry"}
    assert arxiv.domains == {"physics", "computer_science", "materials"}
    assert openalex.always_active
    general = Intent(kind="factual", domains=["general"], keywords=[])
    assert openalex.is_relevant(general) and not pubmed.is_relevant(general)
    assert all(agent.query_syntax != "plain keywords" for agent in (pubmed, arxiv, openalex))


def test_an_efetch_error_answer_says_what_ncbi_said() -> None:
    """NCBI reports a lost history as an <eFetchResult> with an <ERROR>, not as records."""
    answer = b"<eFetchResult><ERROR>Unable to obtain query #1</ERROR></eFetchResult>"
    with pytest.raises(SourceResponseError, match="Unable to obtain query #1"):
        works_from_efetch(io.BytesIO(answer))


def test_efetch_xml_entities_are_not_expanded() -> None:
    """An answer cannot make the reader expand entities it declares (a billion-laughs body)."""
    answer = (b'<?xml version="1.0"?><!DOCTYPE PubmedArticleSet [<!ENTITY big "'
              + b"x" * 1000 + b'">]><PubmedArticleSet><PubmedArticle><MedlineCitation>'
              b"<PMID>1</PMID><Article><ArticleTitle>A &big; title</ArticleTitle></Article>"
              b"</MedlineCitation></PubmedArticle></PubmedArticleSet>")
    [work] = works_from_efetch(io.BytesIO(answer))
    assert work.pmid == "1" and "xxx" not in work.title


def test_what_pubmed_links_to_an_article_becomes_its_notices() -> None:
    """The recorded article lists a comment published on it (and 48 works it cites, which are
    not notices)."""
    [work] = works_from_efetch(io.BytesIO(fixture_bytes("pubmed/biopython_pubmed4.xml")))
    assert work.pmid == "27797938"
    assert work.notices == ["Comment in: Gut. 2017 Jun;66(6):1 (PMID 27920200)"]
    assert not work.is_retracted


def test_a_retraction_pubmed_links_flags_the_article() -> None:
    """Edited from the recorded answer: the same article, as PubMed would list a retraction."""
    recorded = fixture_bytes("pubmed/biopython_pubmed4.xml")
    retracted = recorded.replace(b'RefType="CommentIn"', b'RefType="RetractionIn"', 1)
    [work] = works_from_efetch(io.BytesIO(retracted))
    assert work.is_retracted
    assert work.notices == ["Retraction in: Gut. 2017 Jun;66(6):1 (PMID 27920200)"]
