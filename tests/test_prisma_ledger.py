"""PRISMA counts add up by construction: a property-based test over many multi-round reviews.

Hypothesis builds record sets round by round from a pool of papers: exact duplicates from
other sources, clones (one DOI under two PMIDs, which dedup keeps apart: two works sharing an
id), preprint versions naming their article, records without an abstract, records off the
topic, records found by snowballing and from a library, and papers found again in a later round
(merged across rounds). Each round goes through the real retrieval node (deduplication,
screening, the claim ranking when the question is a claim, full texts sought from the replay
server's PMC) and the PRISMA invariants are checked after every round, and by the exporter's
own validator; so is the screening record (``screening.csv``), whose rows must add up to them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.runtime import Runtime

from scholargraph.agents.retrieval import retrieval
from scholargraph.context import ReviewContext
from scholargraph.exports import screening
from scholargraph.exports.prisma import PrismaRecord, flow_svg
from scholargraph.ledger import FullTextFate, Ledger, LedgerError
from scholargraph.records import Work
from scholargraph.report import Report
from scholargraph.testing import ReplayServer

TOPIC = "What is known about telomere length and cardiovascular risk?"
CLAIM = "Short telomere length increases cardiovascular risk in adults."
ON_TOPIC = ("Telomere length and cardiovascular risk in a cohort of {n} adults",
            "Leucocyte telomere length predicts cardiovascular events: study {n}",
            "Cardiovascular risk factors and telomere shortening, cohort {n}")
OFF_TOPIC = ("Soil bacteria in alpine meadows, survey {n}",
             "A compiler for array languages, version {n}")
RECORDED_PMC = ("PMC4816447", "PMC10653940", "PMC6398430")
SOURCES = ("pubmed", "openalex", "arxiv", "library", "snowball")


@st.composite
def paper(draw: st.DrawFn, number: int) -> Work:
    """One paper of the pool: on or off the topic, maybe without abstract or with a PMCID."""
    on_topic = draw(st.booleans())
    titles = ON_TOPIC if on_topic else OFF_TOPIC
    title = draw(st.sampled_from(titles)).format(n=number)
    abstract = draw(st.one_of(st.none(), st.just(
        f"{title}. We measured telomere length and followed cardiovascular risk for years."
        if on_topic else f"{title}. Nothing here concerns the question.")))
    pmcid = draw(st.one_of(st.none(), st.sampled_from(RECORDED_PMC),
                           st.just(f"PMC{9_000_000 + number}")))
    return Work(title=title, abstract=abstract, year=2000 + number % 20,
                authors=[f"Author{number}, A.", "Second, B."], venue="Journal of Tests",
                doi=f"10.5555/test.{number}", pmid=str(30_000_000 + number), pmcid=pmcid,
                sources=["pubmed"])


def variant(work: Work, kind: str, source: str, copy: int) -> Work:
    """A record of ``work`` as another source or path gives it."""
    if kind == "same":
        return work.model_copy(update={"sources": [source], "pmid": work.pmid
                                       if source == "pubmed" else None})
    if kind == "clone":  # the same DOI and title under another PMID: kept apart, one id
        return work.model_copy(update={"pmid": str(int(work.pmid or 0) + 1_000_000 + copy),
                                       "sources": ["pubmed"]})
    if kind == "version":  # a preprint naming its published DOI
        return Work(title=work.title, abstract=work.abstract, year=work.year,
                    authors=work.authors, arxiv_id=f"2101.{copy:05d}",
                    version_ids=[f"doi:{work.doi}"], sources=["arxiv"])
    return work.model_copy(update={"sources": [source], "pmid": None, "pmcid": None})


@st.composite
def review_rounds(draw: st.DrawFn) -> list[list[Work]]:
    """One to three rounds of records drawn from a pool of papers."""
    pool = [draw(paper(number)) for number in range(draw(st.integers(1, 8)))]
    rounds = []
    for _ in range(draw(st.integers(1, 3))):
        records = []
        for index in draw(st.lists(st.integers(0, len(pool) - 1), max_size=10)):
            kind = draw(st.sampled_from(("same", "same", "clone", "version", "other")))
            source = draw(st.sampled_from(SOURCES))
            records.append(variant(pool[index], kind, source, len(records)))
        rounds.append(records)
    return rounds


@pytest.fixture(scope="module")
def pmc() -> Iterator[ReplayServer]:
    with ReplayServer.default() as server:
        yield server


def check_invariants(prisma: dict, records: int, papers: int) -> None:
    identified = sum(prisma["identified"].values())
    assert identified == records
    assert prisma["screened"] == identified - prisma["duplicates_removed"]
    assert prisma["excluded"] == sum(prisma["excluded_reasons"].values())
    assert prisma["included"] == prisma["screened"] - prisma["excluded"] == papers
    if "reports_sought" in prisma:
        assert 0 <= prisma["reports_assessed"] <= prisma["reports_sought"] <= prisma["included"]
        assert prisma["reports_sought"] - prisma["reports_not_retrieved"] \
            == prisma["reports_assessed"]
        assert sum(prisma["not_retrieved_reasons"].values()) == prisma["reports_not_retrieved"]
    flow_svg(PrismaRecord(**prisma))  # the exporter's own validator accepts it


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rounds=review_rounds(), claim=st.booleans(), full_text=st.sampled_from((0, 2, 10)))
def test_prisma_adds_up_after_every_round(pmc: ReplayServer, rounds: list[list[Work]],
                                          claim: bool, full_text: int,
                                          screening_check: Callable[[str, dict], None]) -> None:
    context = ReviewContext(full_text=full_text, settings={
        "pubmed_url": pmc.service_url("pubmed"), "no_cache": True, "rate_scale": 1000})
    state: dict = {"question": CLAIM if claim else TOPIC, "records": [], "papers": [],
                   "active_sources": ["pubmed"], "full_texts": {}}
    for number, records in enumerate(rounds, 1):
        state["records"] = [*state["records"], *records]
        state["iteration"] = number
        update = retrieval(state, Runtime(context=context))
        check_invariants(update["prisma"], len(state["records"]), len(update["papers"]))
        written = Report(question=state["question"], papers=update["papers"],
                         prisma=update["prisma"], screening=update["screening"])
        screening_check(screening.dumps(written), update["prisma"])
        included = [row.work_id for row in update["screening"] if row.decision == "included"]
        assert sorted(included) == sorted(work.id for work in update["papers"])
        state["papers"], state["full_texts"] = update["papers"], update["full_texts"]
        sought = {key for key in update["full_texts"]}
        assert len(sought) <= max(full_text, 0) * number  # never more than the budgets allow


def test_the_pubmed_clones_that_broke_a_review_of_200_are_counted_once_each() -> None:
    """Two works under one DOI (two PMIDs): a tally by id counted one exclusion for both."""
    first = Work(title="Soil bacteria", abstract="Nothing on topic.", doi="10.5555/x",
                 pmid="1", sources=["pubmed"])
    clone = first.model_copy(update={"pmid": "2"})
    state = {"question": TOPIC, "records": [first, clone], "papers": [],
             "active_sources": ["pubmed"], "iteration": 1}
    prisma = retrieval(state, Runtime(context=ReviewContext(full_text=0)))["prisma"]
    assert (prisma["screened"], prisma["excluded"], prisma["included"]) == (2, 2, 0)
    assert sum(prisma["excluded_reasons"].values()) == 2


def test_a_ledger_refuses_groups_that_do_not_partition_the_records() -> None:
    with pytest.raises(LedgerError, match="partition"):
        Ledger.build(["pubmed", "pubmed"], [[0]], [None])
    with pytest.raises(LedgerError, match="2 works"):
        Ledger.build(["pubmed", "pubmed"], [[0], [1]], [None])


def test_full_text_fates_count_only_included_works() -> None:
    ledger = Ledger.build(["pubmed", "arxiv", "pubmed"], [[0, 1], [2]], [None, "off topic"],
                          [FullTextFate(status="retrieved", licence="CC BY"),
                           FullTextFate(status="closed access")])
    prisma = ledger.prisma()
    assert prisma["reports_sought"] == prisma["reports_assessed"] == 1
    assert prisma["full_text_licences"] == {"CC BY": 1}
    assert prisma["duplicates_removed"] == 1 and prisma["excluded_reasons"] == {"off topic": 1}
