"""A library is screened whole: every record of the scientist's own file is a candidate, once a
run, whatever the question's words and ``--max-results``, identified in PRISMA as from the library.

The library is built here from the recorded corpus (:mod:`scholargraph.testing`): the recorded
PubMed and OpenAlex works written as an RIS export, the recorded arXiv entries as JSONL records,
each read through the project's own parsers of those responses.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import rispy

from scholargraph import review
from scholargraph.records import Work
from scholargraph.sources.arxiv import ArxivAgent
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.library import EVERY_RECORD, load_library
from scholargraph.sources.openalex import work_from_openalex
from scholargraph.sources.pubmed import PubMedAgent
from scholargraph.testing import ReplayServer
from scholargraph.testing.services.arxiv import ArxivService
from scholargraph.testing.services.openalex import OpenAlexService
from scholargraph.testing.services.pubmed import PubMedService

ON_THE_CORPUS = "machine learning for public health surveillance"
OFF_THE_CORPUS = "Specialized psychotherapies for adults with borderline personality disorder"


def ris_entry(work: Work) -> dict[str, object]:
    notes = [f"PMID: {work.pmid}"] if work.pmid else []
    entry = {"type_of_reference": "JOUR", "title": work.title, "authors": work.authors,
             "year": str(work.year or ""), "doi": work.doi, "abstract": work.abstract,
             "journal_name": work.venue, "notes": notes}
    return {key: value for key, value in entry.items() if value}


def jsonl_record(work: Work) -> str:
    return json.dumps({"title": work.title, "authors": work.authors, "year": work.year,
                       "abstract": work.abstract, "arxiv_id": work.arxiv_id, "doi": work.doi})


@pytest.fixture
def corpus_library(replay: ReplayServer, tmp_path: Path) -> tuple[Path, int]:
    """A folder library of every recorded PubMed, OpenAlex and arXiv work, and its size."""
    pubmed = PubMedAgent().lookup([article.pmid for article in PubMedService().articles])
    openalex = [work_from_openalex(item.work) for item in OpenAlexService().pool]
    recorded = len(ArxivService().entries)  # one recorded search of 100 entries
    arxiv = ArxivAgent().search(SearchRequest(query="testing", limit=recorded)).works
    assert pubmed and openalex and len(arxiv) == recorded
    folder = tmp_path / "library"
    folder.mkdir()
    (folder / "export.ris").write_text(rispy.dumps([ris_entry(w) for w in pubmed + openalex]),
                                       encoding="utf-8")
    (folder / "preprints.jsonl").write_text("\n".join(map(jsonl_record, arxiv)) + "\n",
                                            encoding="utf-8")
    size = len(pubmed) + len(openalex) + len(arxiv)
    assert len(load_library(folder)) == size  # the reader reads every record written
    return folder, size


@pytest.mark.parametrize("question", [ON_THE_CORPUS, OFF_THE_CORPUS])
def test_every_record_of_the_library_is_considered_once(corpus_library, tmp_path, question):
    folder, size = corpus_library
    # --max-results caps what a service is asked for per query, never the library
    report = review(question, sources=["library"], library=str(folder), offline=True,
                    max_results=5, max_iterations=2, full_text=0, out=tmp_path / "out")
    prisma = report.prisma
    assert prisma["identified"] == {"library": size}
    assert prisma["duplicates_removed"] + prisma["screened"] == size
    assert prisma["excluded"] + prisma["included"] == prisma["screened"]
    assert len(report.papers) == prisma["included"]
    # every record excluded keeps a reason a person can check
    assert sum(prisma["excluded_reasons"].values()) == prisma["excluded"]
    assert all(reason.strip() for reason in prisma["excluded_reasons"])
    # the library is read once a run, in one search-log entry, whatever the rounds
    (entry,) = [e for e in report.search_log if e.source == "library"]
    assert entry.query == f"{EVERY_RECORD} library" and entry.n_results == size
    if question == ON_THE_CORPUS:
        assert prisma["included"] > 0


def test_the_library_gets_one_query_a_run_whatever_the_engine(tmp_path):
    """The deterministic engine writes the library's one query in round 1 and none after; a
    model's own library queries are replaced by it, with a note."""
    from scholargraph.agents.query_generation import deterministic_queries, with_named_queries
    from scholargraph.agents.schemas import Intent, SourceQuery, SubQuestion
    from scholargraph.sources.library import LibraryAgent

    records = tmp_path / "records.ris"
    records.write_text("TY  - JOUR\nTI  - Knee osteoarthritis and exercise\nER  - \n",
                       encoding="utf-8")
    agent = LibraryAgent(path=records)
    intent = Intent(kind="factual", domains=["biomedical"], keywords=["knee osteoarthritis"])
    subs = [SubQuestion(id="q1", text="exercise for knee osteoarthritis",
                        answer_shape="trials of exercise")]
    first = deterministic_queries([agent], subs, intent, round_number=1, targets=["q1"],
                                  already_sent=set(), question=OFF_THE_CORPUS)
    assert [q.query for q in first] == [f"{EVERY_RECORD} records.ris"]
    sent = {("library", first[0].query)}
    assert deterministic_queries([agent], subs, intent, round_number=2, targets=["q1"],
                                 already_sent=sent, question=OFF_THE_CORPUS) == []
    model = [SourceQuery(source="library", sub_question_id="q1", query="knee exercise", round=1)]
    queries, notes = with_named_queries(model, [agent], subs, intent, OFF_THE_CORPUS, set(), 1)
    assert [q.query for q in queries] == [first[0].query]
    assert len(notes) == 1 and "every record read" in notes[0]
    again, _ = with_named_queries(model, [agent], subs, intent, OFF_THE_CORPUS, sent, 2)
    assert again == []


def test_a_library_read_whole_keeps_the_years_asked_for(tmp_path):
    """``--since``/``--until`` still apply to a library read whole, and the log says so."""
    from scholargraph.sources.library import LibraryAgent

    records = tmp_path / "records.jsonl"
    records.write_text("\n".join(json.dumps({"title": f"Study {year}", "year": year})
                                 for year in (2001, 2011, 2021)) + "\n", encoding="utf-8")
    agent = LibraryAgent(path=records)
    query = f"{EVERY_RECORD} records.jsonl"
    every = agent.search(SearchRequest(query=query, limit=1))
    assert [w.year for w in every.works] == [2001, 2011, 2021]  # the limit is not a cap here
    assert every.log_note == f"3 records read from {records}"
    recent = agent.search(SearchRequest(query=query, limit=1, since=2010))
    assert [w.year for w in recent.works] == [2011, 2021]
    assert recent.log_note.startswith(f"2 of the 3 records read from {records}")


def title_key(title: str) -> str:
    """A title as deduplication reads it: case, punctuation and a "(Preprint)" tag aside (a
    preprint and its article are one work, included under one of their titles)."""
    words = re.sub(r"[^\w\s]", " ", title.lower()).split()
    return " ".join(word for word in words if word != "preprint")


def test_the_corpus_library_keeps_every_work_plainly_on_the_question(corpus_library, tmp_path,
                                                                      readme_topic):
    """Every recorded work read as one library (141 records) and screened against the README's
    question: no work whose title names machine learning and public health or surveillance is
    set aside, and every exclusion is "does not address: ..." with the concepts missed."""
    folder, _ = corpus_library
    report = review(ON_THE_CORPUS, sources=["library"], library=str(folder), offline=True,
                    max_iterations=1, full_text=0, out=tmp_path / "out")
    included = {title_key(w.title) for w in report.papers}
    plainly = [w.title for w in load_library(folder) if readme_topic.plainly_on_topic(w)]
    assert plainly and [title for title in plainly if title_key(title) not in included] == []
    reasons = report.prisma["excluded_reasons"]
    assert sum(reasons.values()) >= 100  # the arXiv papers on testing software
    assert all(reason.startswith("does not address: ") for reason in reasons)


def test_a_topic_reviews_included_works_come_closest_to_the_question_first(
        corpus_library, tmp_path, readme_topic):
    """Whatever the order of the scientist's file, the review lists (and quotes) the works on
    its question first: the first works listed have titles naming machine learning and public
    health or surveillance, and none of the first quarter is one a reader finds off the topic.
    (In the file's order, the first work listed was a study of climate regions.)"""
    folder, _ = corpus_library
    report = review(ON_THE_CORPUS, sources=["library"], library=str(folder), offline=True,
                    max_iterations=1, full_text=0, out=tmp_path / "out")
    listed = report.papers
    assert len(listed) >= 8
    assert all(readme_topic.plainly_on_topic(work) for work in listed[:4]), \
        [work.title for work in listed[:4]]
    assert all(readme_topic.on_topic(work) for work in listed[:len(listed) // 4])
    review_md = (tmp_path / "out" / "review.md").read_text(encoding="utf-8")
    assert "included, cited or not, closest to the question first" in review_md


def test_records_without_a_title_are_identified_and_removed_before_screening(
        corpus_library, tmp_path, screening_check):
    """PRISMA's "identified" from a library is the export's size: its records without a title
    (a fifth of some exports lack an abstract; some lack the title too) were identified, and
    are removed before screening for want of one, counted under that reason, where they went
    uncounted and "identified" fell short of the file the scientist gave."""
    folder, size = corpus_library
    with (folder / "export.ris").open("a", encoding="utf-8") as export:
        export.write("\nTY  - JOUR\nAU  - Nobody, A.\nPY  - 2020\nER  - \n"
                     "\nTY  - JOUR\nAB  - An abstract whose record lost its title.\nER  - \n")
    report = review(ON_THE_CORPUS, sources=["library"], library=str(folder), offline=True,
                    max_iterations=1, full_text=0, out=tmp_path / "out")
    prisma = report.prisma
    assert prisma["identified"] == {"library": size + 2}
    assert prisma["removed_before_screening"] == {"no title": 2}
    assert prisma["duplicates_removed"] + 2 + prisma["screened"] == size + 2
    screening_check((tmp_path / "out" / "screening.csv").read_text(encoding="utf-8"), prisma)
    assert "Records removed, no title (n = 2)" in (tmp_path / "out" / "prisma.svg").read_text()
    assert f"| Records identified: library | {size + 2} |" in \
        (tmp_path / "out" / "review.md").read_text()
    assert "| Records removed before screening, by reason | no title: 2 |" in \
        (tmp_path / "out" / "review.md").read_text()


def test_a_library_review_stops_when_nothing_is_left_to_search(corpus_library, tmp_path):
    """The library is read whole in round 1 and a later round has no query to send: the run
    stops after round 1 with its reason, rather than re-screening the same records to the end of
    its budget for a draft that cannot change."""
    folder, _ = corpus_library
    rounds: list[str] = []

    def watch(node: str, update: dict) -> None:
        if node == "evaluation":
            rounds.append(update["evaluation"].verdict)

    report = review(OFF_THE_CORPUS, sources=["library"], library=str(folder), offline=True,
                    max_iterations=5, full_text=0, out=tmp_path / "out", on_progress=watch)
    assert rounds == ["more_evidence"], "the first round leaves gaps, so a round was refused"
    assert report.iterations == 1
    assert report.stop_reason.startswith("nothing left to search: every source has been "
                                         "searched with every query the gaps allow (")
    assert {entry.round for entry in report.search_log} == {1}
