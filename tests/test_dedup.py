"""Deduplication: identifier forms, preprint + published pairs, and the merges it must refuse."""

from __future__ import annotations

from scholargraph.rag.dedup import author_key, deduplicate, normalize_title
from scholargraph.records import Work

TITLE = "Reputation offsets trust judgments based on social biases among Airbnb users"


def work(**fields: object) -> Work:
    fields.setdefault("title", TITLE)
    fields.setdefault("authors", ["Abrahao, Bruno", "Parigi, Paolo"])
    fields.setdefault("year", 2017)
    return Work(**fields)


def test_doi_spellings_are_one_work() -> None:
    records = [
        work(doi="https://doi.org/10.1073/PNAS.1604234114", sources=["openalex"]),
        work(title="Another title entirely", doi="doi:10.1073/pnas.1604234114", sources=["web"]),
        work(doi="10.1073/pnas.1604234114", sources=["pubmed"], pmid="28827354"),
    ]
    result = deduplicate(records)
    assert result.duplicates_removed == 2
    [merged] = result.works
    assert merged.doi == "10.1073/pnas.1604234114"
    assert merged.pmid == "28827354"
    assert merged.sources == ["openalex", "web", "pubmed"]
    assert [m.rule for m in result.merges] == ["doi", "doi"]
    assert {m.merged_id for m in result.merges} == {"doi:10.1073/pnas.1604234114"}


def test_arxiv_versions_are_one_work() -> None:
    records = [
        work(arxiv_id="2101.00001v1", kind="preprint", sources=["arxiv"]),
        work(arxiv_id="arXiv:2101.00001v3", kind="preprint", sources=["web"]),
        work(doi="10.48550/arXiv.2101.00001", kind="preprint", sources=["openalex"]),
    ]
    result = deduplicate(records)
    assert len(result.works) == 1
    assert result.works[0].arxiv_id == "2101.00001"
    assert {m.rule for m in result.merges} == {"arxiv"}


def test_pmid_and_pmcid_forms_link_records() -> None:
    records = [
        work(pmid="https://pubmed.ncbi.nlm.nih.gov/28827354/", sources=["web"]),
        work(pmid=28827354, pmcid="PMC5604045", sources=["pubmed"]),
        work(title="Untitled record", pmcid="5604045", sources=["openalex"]),
    ]
    result = deduplicate(records)
    assert len(result.works) == 1
    assert result.works[0].pmcid == "PMC5604045"
    assert [m.rule for m in result.merges] == ["pmid", "pmcid"]


def test_preprint_and_published_version_merge_keeping_both_ids() -> None:
    preprint = work(title=TITLE + ".", arxiv_id="1609.00001v2", kind="preprint", year=2016,
                    venue="arXiv", abstract="A much longer abstract of the preprint, " * 5,
                    authors=["B. Abrahao", "P. Parigi"], sources=["arxiv"])
    published = work(doi="10.1073/pnas.1604234114", venue="PNAS", abstract="Short.",
                      sources=["openalex"])
    result = deduplicate([preprint, published])
    [merged] = result.works
    assert merged.doi == "10.1073/pnas.1604234114"
    assert merged.arxiv_id == "1609.00001"
    assert merged.venue == "PNAS"
    assert merged.abstract == preprint.abstract
    assert merged.sources == ["arxiv", "openalex"]
    assert merged.merged_by == ["fuzzy_title"]
    [merge] = result.merges
    assert (merge.rule, merge.kept_id, merge.merged_id, merge.work_id) == (
        "fuzzy_title", "arxiv:1609.00001", "doi:10.1073/pnas.1604234114", merged.id)


def test_near_identical_titles_with_other_year_or_author_stay_apart() -> None:
    records = [
        work(year=2017),
        work(title=TITLE + "s", year=2019),
        work(title=TITLE.lower(), authors=["Smith, John", "Doe, Jane"]),
        work(title=TITLE, authors=[]),
    ]
    result = deduplicate(records)
    assert result.duplicates_removed == 0
    assert result.works == records


def test_conflicting_identifiers_veto_a_merge() -> None:
    two_pmids = [work(pmid="111", sources=["pubmed"]), work(pmid="222", sources=["pubmed"])]
    two_dois = [work(doi="10.1002/14651858.cd002273.pub2"),
                work(doi="10.1002/14651858.cd002273.pub3")]
    assert deduplicate(two_pmids).duplicates_removed == 0
    assert deduplicate(two_dois).duplicates_removed == 0


def test_identifier_links_are_transitive_and_order_is_first_appearance() -> None:
    other = work(title="A different paper about something else", doi="10.1000/other")
    records = [
        other,
        work(doi="10.1000/a", sources=["openalex"]),
        work(doi="10.1000/a", pmid="42", sources=["pubmed"]),
        work(title="Mangled", pmid="42", openalex_id="https://openalex.org/W42", sources=["web"]),
        work(title="Mangled again", openalex_id="W42", sources=["openalex"]),
    ]
    result = deduplicate(records)
    assert [w.doi for w in result.works] == ["10.1000/other", "10.1000/a"]
    assert result.works[1].openalex_id == "W42"
    assert result.duplicates_removed == 3
    assert [m.rule for m in result.merges] == ["doi", "pmid", "openalex"]


def test_normalisation_helpers() -> None:
    assert normalize_title("[Étude  <i>in vivo</i> des cellules.]") == "etude in vivo des cellules"
    assert author_key("Zuna, R E") == author_key("R. E. Zuna") == author_key("Zuna RE") == "zuna"
    assert author_key("Gottfried Vossen") == "vossen"


def test_same_title_in_two_journals_or_two_trials_stays_apart() -> None:
    guideline = {"title": "Screening guidelines for the prevention and early detection of "
                     "cervical cancer", "authors": ["Saslow, D", "Solomon, D"], "year": 2012}
    trial = {"authors": ["Low, D. E."], "year": 2011, "venue": "J Antimicrob Chemother"}
    records = [
        Work(**guideline, venue="American Journal of Clinical Pathology"),
        Work(**guideline, venue="CA: a Cancer Journal for Clinicians"),
        Work(title="FOCUS 1: a randomized phase III trial of ceftaroline", **trial),
        Work(title="FOCUS 2: a randomized phase III trial of ceftaroline", **trial),
    ]
    assert deduplicate(records).duplicates_removed == 0


def test_journal_abbreviations_and_database_notes_still_merge() -> None:
    common = {"authors": ["Noris, M.", "Remuzzi, G."], "year": 2009}
    records = [
        Work(title="Atypical hemolytic-uremic syndrome", venue="New England Journal of Medicine",
             **common),
        Work(title="[Atypical hemolytic uremic syndrome]. [Review] [88 refs]",
             venue="N Engl J Med", **common),
        Work(title="Atypical Hemolytic-Uremic Syndrome.", venue="The New England journal of "
             "medicine = N Engl J Med", **common),
    ]
    result = deduplicate(records)
    assert result.duplicates_removed == 2
    assert {m.rule for m in result.merges} == {"fuzzy_title"}


def test_one_source_never_lists_a_work_twice_without_shared_ids() -> None:
    column = {"title": "Book review column", "authors": ["Karl Aberer"], "year": 2002,
                  "venue": "SIGMOD Record"}
    records = [Work(**column, sources=["openalex"]), Work(**column, sources=["openalex"]),
               Work(**column, sources=["pubmed"])]
    result = deduplicate(records)
    assert result.groups == [[0, 2], [1]]
