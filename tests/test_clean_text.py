"""Clean text everywhere: control characters never reach a record, sentences split where a
space was lost, and reference lists never become findings; over the recorded OpenAlex works
whose fields showed each fault."""

from __future__ import annotations

import json
import re

import pytest

from scholargraph.deterministic.extractive import quotable
from scholargraph.deterministic.text import (
    clean_text,
    reference_debris,
    references_start,
    run_together,
)
from scholargraph.exports import bibtex, csljson, ris
from scholargraph.rag.chunking import chunk_work, split_sentences
from scholargraph.records import Work
from scholargraph.sources.openalex import work_from_openalex
from scholargraph.testing import fixture_bytes

LANCET, HEALTH_SECURITY, OSF = ("10.1016/s2589-7500(22)00097-8", "10.1089/hs.2020.0194",
                                "10.31219/osf.io/ndp8m")
CHESS, OJPHI_PREPRINT = "10.53553/jch.v08i01.002", "10.2196/preprints.50243"


def recorded(doi: str) -> Work:
    results = json.loads(fixture_bytes("openalex/peneira_works.json"))["results"]
    [item] = [item for item in results if (item.get("doi") or "").endswith(doi)]
    return work_from_openalex(item)


def quoted(work: Work) -> list[str]:
    return [c.quote.text for p in chunk_work(work) for c in quotable(p, work.year)]


def test_control_characters_are_stripped_when_the_record_is_made() -> None:
    raw = json.loads(fixture_bytes("openalex/peneira_works.json"))["results"]
    [item] = [i for i in raw if (i.get("doi") or "").endswith(LANCET)]
    venue = item["primary_location"]["source"]["display_name"]
    assert venue == "\x98The \x9cLancet. Digital health"
    assert recorded(LANCET).venue == "The Lancet. Digital health"
    work = Work(title="Deep\u200blearning\x00 for\x07 surveillance", authors=["Abad,\x1b Zahra"],
                abstract="Line one.\r\nLine two.\x0cPage two.", pages="e1\x9c")
    assert (work.title, work.authors, work.pages) == (
        "Deeplearning for surveillance", ["Abad, Zahra"], "e1")
    assert work.abstract == "Line one. Line two. Page two."  # breaks kept, then spaced
    assert clean_text("plain text, tabs\tand\nlines") == "plain text, tabs\tand\nlines"


def test_mojibake_is_decoded_back_when_the_record_is_made() -> None:
    raw = json.loads(fixture_bytes("openalex/peneira_works.json"))["results"]
    [item] = [i for i in raw if (i.get("doi") or "").endswith(CHESS)]
    assert "chess\u00e2\u20ac\x9d" in item["abstract_inverted_index"]  # as OpenAlex serves it
    abstract = recorded(CHESS).abstract or ""
    assert "leading to \u201cadvanced chess\u201d can be used" in abstract
    assert "\u00e2\u20ac" not in abstract
    # text that only looks foreign is left as it is
    kept = "R\u00e9nyi\u2013Ulam na\u00efve caf\u00e9 \u201cquoted\u201d 10 \u00b5m \u00b15"
    assert clean_text(kept) == kept


def test_escaped_markup_and_placeholder_headings_never_reach_the_abstract() -> None:
    raw = json.loads(fixture_bytes("openalex/peneira_works.json"))["results"]
    [item] = [i for i in raw if (i.get("doi") or "").endswith(OJPHI_PREPRINT)]
    served = item["abstract_inverted_index"]
    assert {"<title>UNSTRUCTURED</title>", "&lt;i&gt;Online"} <= set(served)
    abstract = recorded(OJPHI_PREPRINT).abstract or ""
    assert abstract.startswith("Founded in 2009, the Online Journal of Public Health Informatics")
    assert "<" not in abstract and "UNSTRUCTURED" not in abstract
    assert Work(title="t", abstract="p &lt; 0.05 in &lt;i&gt;vivo&lt;/i&gt;").abstract == (
        "p < 0.05 in vivo")


def test_an_abstract_escaped_twice_reads_as_text() -> None:
    # as some database exports serve it: the '&' of '&lt;' escaped again
    work = Work(title="Dosing in &amp;lt;i&amp;gt;children&amp;lt;/i&amp;gt;",
                abstract="57 aged &amp;lt;12 years and 3 aged &amp;gt;=65 years; R&amp;amp;D")
    assert work.title == "Dosing in children"
    assert work.abstract == "57 aged <12 years and 3 aged >=65 years; R&D"


def test_a_sentence_run_into_the_next_is_split_at_its_full_stop() -> None:
    abstract = recorded(OSF).abstract or ""
    assert "crowdsourced data.Conclusion: Findings" in abstract
    sentences = [abstract[start:end] for start, end in split_sentences(abstract)]
    assert any(s.endswith("improve the quality and reliability of crowdsourced data.")
               for s in sentences)
    assert any(s.startswith("Conclusion: Findings indicate") for s in sentences)
    conclusion = [q for q in quoted(recorded(OSF)) if q.startswith("Findings indicate")]
    assert conclusion, "the label is cut off the quote, as for a spaced structured abstract"


def test_a_label_run_into_a_one_letter_word_is_cut_off_the_quote() -> None:
    # the NEJM AI record's abstract reads "...ConclusionsA nationwide implementation..."
    work = Work(title="Screening for hepatitis C carriers", abstract=(
        "Hepatitis C carriers often go unrecognised in primary care for many years. "
        "ConclusionsA nationwide screening found as many carriers with far fewer tests."))
    texts = quoted(work)
    assert "A nationwide screening found as many carriers with far fewer tests." in texts
    assert not any(text.startswith("Conclusions") for text in texts)


def test_a_chapter_saying_what_it_defines_states_no_finding() -> None:
    sentence = ("This chapter defines big data for public health and outlines strategies "
                "for policy.")
    work = Work(title="Big data in public health", abstract=sentence)
    [candidate] = [c for p in chunk_work(work) for c in quotable(p, 2023)]
    assert candidate.facets == {"aim"}


@pytest.mark.parametrize(("text", "expected"), [
    ("The rate was 3.5 per 1000. It fell.", ["The rate was 3.5 per 1000.", "It fell."]),
    ("E.coli and S.aureus grew in 2.5% of plates.", None),
    ("Samples were collected, e.g.The first cohort was larger.", None),
    ("The U.S. Army and the U.K. agreed.", None),
    ("Smith et al.The trial was stopped.", None),
    ("It has monitored a variety of diseases.15 Science Clips, a weekly service, follows.",
     ["It has monitored a variety of diseases.", "Science Clips, a weekly service, follows."]),
    ("Risk fell (ref.12 Table 2).", None),
    ("All analyses were conducted in R. Results The model performed well.",
     ["All analyses were conducted in R.", "Results The model performed well."]),
    ("Patients saw J. Results were mixed.", None),
    ("The mean was 4.15 Gy in both arms.", None),
    ("Data are at https://example.org/Data.Set and doi:10.1000/ABC.Def today.", None),
    ("Code is at github.com/lab/Tool.Py for all.", None),
    ("Doses were 3 mg/kg.Using these data, a model was fit.",
     ["Doses were 3 mg/kg.", "Using these data, a model was fit."]),
    ("Registered at ClinicalTrials.gov in 2019.", None),
    ("BRCA1.The gene was mutated.", ["BRCA1.", "The gene was mutated."]),
    ("It rose by 12%.In contrast, it fell.", ["It rose by 12%.", "In contrast, it fell."]),
])
def test_sentence_splitting_keeps_decimals_abbreviations_and_addresses(
        text: str, expected: list[str] | None) -> None:
    assert [text[start:end] for start, end in split_sentences(text)] == (expected or [text])


def test_reference_list_debris_is_never_a_quotable_sentence() -> None:
    lancet = recorded(LANCET)
    assert "Crossref PubMed Scopus (15) Google Scholar" in (lancet.abstract or "")
    health_security = recorded(HEALTH_SECURITY)
    assert "References1. Endsley MR." in (health_security.abstract or "")
    for work in (lancet, health_security):
        quotes = quoted(work)
        assert quotes, work.doi
        for quote in quotes:
            assert "Crossref" not in quote and "Google Scholar" not in quote, quote
            assert not reference_debris(quote), quote
    assert not any("Endsley" in q or "Oxford University Press" in q
                   for q in quoted(health_security))


def test_cells_run_together_are_never_a_quotable_sentence() -> None:
    """The recorded Health Security abstract field holds the article's text, a table among it
    with its cells run together ('bias-freeOrganize in a purpose-built wayPrioritize')."""
    work = recorded(HEALTH_SECURITY)
    assert "wayPrioritize" in (work.abstract or "")
    quotes = quoted(work)
    assert quotes
    assert not any("wayPrioritize" in quote or run_together(quote) for quote in quotes)


@pytest.mark.parametrize(("text", "debris"), [
    ("Access may require subscriptions or feesWork across disciplinesCollaboration among "
     "scientists", True),
    ("We searched PubMed and OpenAlex for eHealth and mHealth apps.", False),
    ("The iPhone app by McDonald et al. stored each dataSet locally.", False),
    ("Vaccination coverage rose by 12% in 2021.", False),
])
def test_run_together_text_is_told_from_names_in_camel_case(text: str, debris: bool) -> None:
    assert run_together(text) is debris


def test_reference_lists_are_not_indexed() -> None:
    work = recorded(HEALTH_SECURITY)
    cut = references_start(work.abstract or "")
    assert cut is not None
    passages = chunk_work(work)
    assert passages and max(p.end for p in passages) <= cut
    assert all(p.text == (work.abstract or "")[p.start:p.end] for p in passages)


@pytest.mark.parametrize("text", [
    "2021; 36: 908-915Crossref PubMed Scopus (2) Google Scholar—Smith J. A trial.",
    "Smith AB, Jones CD, Brown E. Machine learning in health. Lancet 2019;394:1234-40.",
    "Lancet Digit Health. 2020; 2: e1-e10. PubMed",
    "Past risk,9Schell RC Allen B Goedel WC et al.Identifying predictors of overdose death.",
])
def test_reference_debris_is_recognised(text: str) -> None:
    assert reference_debris(text)


@pytest.mark.parametrize("text", [
    "We searched PubMed, Scopus and Google Scholar for studies published 2010-2020.",
    "The model improved accuracy by 12% (95% CI 8-16; p<0.001) in 2021.",
    "Cases rose from 2019 to 2021 in 36 states, as Smith et al. reported.",
])
def test_statements_naming_databases_or_numbers_are_not_debris(text: str) -> None:
    assert not reference_debris(text)


def test_the_recorded_lancet_venue_is_exported_clean() -> None:
    lancet = recorded(LANCET)
    csl = json.dumps(csljson.to_csl([lancet]), ensure_ascii=False)
    for text in (bibtex.dumps([lancet]), ris.dumps([lancet]), csl):
        assert "Lancet. Digital health" in text
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)


def test_no_passage_spans_a_citation_pasted_into_the_text() -> None:
    lancet = recorded(LANCET)
    passages = chunk_work(lancet)
    assert len(passages) > 1
    for passage in passages:
        assert "Crossref" not in passage.text and "Google Scholar" not in passage.text
        assert passage.text == (lancet.abstract or "")[passage.start:passage.end]
    statement = "the model performed well in different time periods"
    assert any(statement in passage.text for passage in passages)


def test_a_summary_box_label_is_cut_off_the_quote() -> None:
    work = Work(title="Long-term weekly prophylaxis in haemophilia A", year=2020, abstract=(
        "Key Points Long-term, once-weekly prophylaxis was well tolerated with no thrombotic "
        "events in 18 patients with haemophilia A. Highlights Bleeding rates fell by 80% "
        "over two years of treatment."))
    quotes = quoted(work)
    assert any(q.startswith("Long-term, once-weekly prophylaxis was well tolerated")
               for q in quotes), quotes
    assert not any(q.startswith(("Key Points", "Highlights")) for q in quotes), quotes
