"""Full text is asked for once: PMC articles many to a request, each at most once a run."""

from __future__ import annotations

import pytest
from langgraph.runtime import Runtime

from scholargraph.agents.retrieval import retrieval
from scholargraph.context import ReviewContext
from scholargraph.fulltext.fetch import PMC_BATCH, FullTextReader
from scholargraph.records import Work
from scholargraph.settings import get_settings
from scholargraph.testing import ReplayServer
from scholargraph.testing.services.fulltext import NOT_RECORDED

RECORDED = ("PMC4816447", "PMC10653940", "PMC6398430")
QUESTION = "What is known about telomere length and cardiovascular risk?"


def paper(number: int, pmcid: str) -> Work:
    title = f"Telomere length and cardiovascular risk in cohort {number}"
    return Work(title=title, abstract=f"{title}. Telomere length predicted cardiovascular risk.",
                pmid=str(31_000_000 + number), pmcid=pmcid, year=2020, sources=["pubmed"])


def pmc_requests(server: ReplayServer) -> list[list[str]]:
    return [(request.param("id") or "").split(",") for request in server.requests
            if request.service == "pubmed" and request.param("db") == "pmc"]


def test_pmc_articles_are_asked_for_many_to_a_request(replay: ReplayServer) -> None:
    works = [paper(i, pmcid) for i, pmcid in enumerate(RECORDED)]
    works += [paper(10 + i, f"PMC{8_000_000 + i}") for i in range(PMC_BATCH)]

    done = FullTextReader(get_settings()).read_all(works, budget=len(works))

    asked = pmc_requests(replay)
    assert [len(ids) for ids in asked] == [PMC_BATCH, len(works) - PMC_BATCH]
    assert sorted(i for ids in asked for i in ids) == sorted(
        w.pmcid.removeprefix("PMC") for w in works if w.pmcid)
    statuses = [outcome.status for outcome in done.outcomes]
    assert statuses[:3] == ["retrieved"] * 3 and set(statuses[3:]) == {"not_recorded"}
    assert all(work.full_text for work in done.works[:3])
    assert done.works[0].full_text != done.works[1].full_text


def test_the_replay_server_names_the_ids_it_has_no_recording_for(replay: ReplayServer) -> None:
    import requests

    answer = requests.get(f"{replay.service_url('pubmed')}efetch.fcgi",
                          params={"db": "pmc", "id": "4816447,123,6398430,456"}, timeout=10)
    assert answer.headers[NOT_RECORDED] == "123,456"
    assert answer.content.count(b"<article ") == 2


@pytest.mark.parametrize("budget", [2, 10])
def test_an_article_is_fetched_once_a_run_whatever_the_rounds(replay: ReplayServer,
                                                              budget: int) -> None:
    first = [paper(i, pmcid) for i, pmcid in enumerate(RECORDED)]
    later = [*first, paper(7, "PMC8000007")]  # found again in round 2, and one more
    context = ReviewContext(full_text=budget)
    state: dict = {"question": QUESTION, "records": [], "papers": [], "full_texts": {},
                   "active_sources": ["pubmed"]}
    for number, records in enumerate((first, later, later), 1):
        state["records"] = [*state["records"], *records]
        state["iteration"] = number
        update = retrieval(state, Runtime(context=context))
        state["papers"], state["full_texts"] = update["papers"], update["full_texts"]

    asked = [i for ids in pmc_requests(replay) for i in ids]
    assert len(asked) == len(set(asked)) == min(budget, 4)
    assert update["prisma"]["reports_sought"] == min(budget, 4)
    assert update["prisma"]["reports_assessed"] == min(budget, 3)
    read = [paper for paper in update["papers"] if paper.full_text]
    assert len(read) == min(budget, 3)  # the texts read in round 1 are still there in round 3
