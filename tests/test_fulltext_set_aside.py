"""A finding is a sentence stating a result: never a table's row, an example, or text the page
does not print as it was read (a math font read as letters, glyphs without characters).

Each class is read from an invented document in its real format through the real parser: a
JATS article with a results table, and a PDF written by :func:`text_pdf`.
"""

from __future__ import annotations

import pytest

from scholargraph.agents.schemas import SubQuestion
from scholargraph.deterministic.extractive import (
    SET_ASIDE,
    Candidate,
    example_only,
    full_titles,
    quotable,
    rank_candidates,
    states_finding,
)
from scholargraph.fulltext.fetch import with_full_text
from scholargraph.fulltext.jats import parse_jats
from scholargraph.fulltext.legible import garbled, table_as_text
from scholargraph.fulltext.pdf import parse_pdf
from scholargraph.rag.chunking import chunk_work
from scholargraph.records import Passage, Work
from scholargraph.testing.documents import text_pdf

JATS = b"""<?xml version="1.0" encoding="UTF-8"?>
<article><front><article-meta>
<article-id pub-id-type="pmc">PMC0000001</article-id>
<title-group><article-title>Invented trial of drug Q for chronic cough</article-title></title-group>
<abstract><p>Drug Q was tested against placebo in adults with chronic cough.</p></abstract>
</article-meta></front>
<body><sec><title>Results</title>
<p>Drug Q reduced the daily cough count by 31% compared with placebo.</p>
<table-wrap id="t1"><label>Table 1</label><caption><p>Cough outcomes by arm.</p></caption>
<table><thead><tr><th>Outcome</th><th>Drug Q</th><th>Placebo</th></tr></thead>
<tbody><tr><td>Daily cough count reduced</td><td>31%</td><td>4%</td></tr>
<tr><td>Cough-free nights increased</td><td>12 of 40</td><td>3 of 41</td></tr></tbody>
</table></table-wrap>
</sec></body></article>"""
COUGH = SubQuestion(id="q1", text="Did drug Q reduce cough compared with placebo?",
                    answer_shape="reported results")


def test_a_table_row_is_cited_as_context_but_never_quoted_as_a_finding() -> None:
    """Each row of a JATS table reads as a sentence ('Table 1, Daily cough count reduced: Drug
    Q 31%; Placebo 4%.') and is kept as a passage of kind 'table' (the evidence table and the
    review cite it), but it is no sentence stating a result: the paragraph above it is."""
    document = parse_jats(JATS)
    work = with_full_text(Work(title=document.title or "", sources=["library"]), document,
                          "library", None)
    passages = chunk_work(work)
    rows = [p for p in passages if p.kind == "table"]
    assert rows and any("Drug Q 31%" in p.text for p in rows)
    for row in rows:
        candidates = quotable(row, 2024)
        assert candidates and all(c.facets == {"table"} for c in candidates)
        assert not any(states_finding(c, {"result"}) for c in candidates)
    ranked = rank_candidates(COUGH, passages, ["drug Q", "cough"], {work.id: 2024},
                             read_in_full=full_titles([work]))
    assert ranked, "the paragraph's result is quotable"
    assert all(c.quote.passage_id not in {p.id for p in rows} for c in ranked)
    assert any(c.quote.text.startswith("Drug Q reduced the daily cough count") for c in ranked)


PDF_TITLE = "Linking invented trials to their drugs"
PDF_PAGES = [[
    PDF_TITLE,
    "Abstract",
    "We link invented trials to the drugs they test and measure how often the links are right.",
    "1 Introduction",
    "Readers of a trial registry want to know which drugs each trial tested.",
    "2 Methods",
    "For example, to let readers see which trials tested a drug, we experimented with",
    "methods for linking each trial to the drug it names in its title.",
    "That is, g! k D LSTM.xk ; g! k1/; hk D h! k I g k where k indexes the tokens",
    "of a trial title.",
    "Always Keep The signed consent form The final protocol Dosing schedules",
    "Drug labels Sometimes Keep Letters to sponsors Audit reports Rarely Keep",
    "Internal notes.",
    "Protocol 1.52 (0.40) The plan a trial registers before it enrols anyone.",
    "3 Results",
    "The linked registry reached an accuracy of 91.2% on the held-out trials.",
]]
LINKING = SubQuestion(id="q1", text="How accurately can trials be linked to the drugs they test?",
                      answer_shape="reported results")


def pdf_candidates() -> tuple[Work, list[Passage], dict[str, Candidate]]:
    document = parse_pdf(text_pdf(PDF_PAGES, PDF_TITLE))
    work = with_full_text(Work(title=PDF_TITLE, sources=["library"]), document, "library", None)
    passages = chunk_work(work)
    candidates = {c.quote.text: c for p in passages if p.section != "abstract"
                  for c in quotable(p, 2024)}
    return work, passages, candidates


def test_a_pdfs_examples_tables_of_words_and_misread_math_are_set_aside() -> None:
    """Read from a PDF, the Methods' example of what was tried, its formula set in a math font
    read as other letters, its table of words read as running text and a row of its table of
    document types are each set aside (kind 'example', 'garbled', 'table'): still passages,
    cited as context, never quoted as findings. The Results' sentence is quoted."""
    work, passages, candidates = pdf_candidates()

    def kind_of(opening: str) -> frozenset[str]:
        [facets] = [c.facets for text, c in candidates.items() if text.startswith(opening)]
        return facets

    assert kind_of("For example, to let readers") == {"example"}
    assert kind_of("That is, g! k D LSTM") == {"garbled"}
    assert kind_of("Always Keep The signed consent form") == {"table"}
    assert kind_of("Protocol 1.52 (0.40) The plan") == {"table"}
    result = candidates["The linked registry reached an accuracy of 91.2% on the held-out trials."]
    assert "result" in result.facets and states_finding(result, {"result"})
    set_aside = [c for c in candidates.values() if c.facets & SET_ASIDE]
    assert len(set_aside) == 4 and not any(states_finding(c, {"result"}) for c in set_aside)
    assert any("g! k D LSTM" in p.text for p in passages), "kept as context"
    ranked = rank_candidates(LINKING, passages, ["trials", "drugs", "linked"],
                             {work.id: 2024}, read_in_full=full_titles([work]))
    assert [c.quote.text for c in ranked if c.facets & SET_ASIDE] == []
    assert any(c.quote.text == result.quote.text for c in ranked)


@pytest.mark.parametrize(("sentence", "unreadable"), [
    ("That is, g! k D LSTM.xk ; g! k1/; gk D g! k I g k where k indexes the tokens.", True),
    ("We encode a relation between m1 and m2 as two directed edges m1 ! m2 and m2 ! m1.", True),
    ("The effect was \ue000\ue001\ue002 across all three sites of the trial.", True),
    ("Survival improved \ufffd in the treated arm compared with controls.", True),
    ("\u2192 \u2194 \u21d2 \u2200 \u2203 \u2208 \u2209 \u2211 \u220f \u221a \u221e x", True),
    ("We add a directed edge from paper nodes p1 ! p2 for each paper p2 cited in p1.", True),
    ("Wow! It worked in 12 of 14 invented patients.", False),
    ("Yields fell when FV/ FM fell, and the sigmoid f(x) = 1/ (1 + e) was fitted.", False),
    ("Primers were 5\u2032-tcagtggtggacctgacctg-3\u2032 and 5\u2032-tgctgtagccaaattcgttg-3\u2032.",
     False),
    ("The other parameters were set as follows: size=300, min_count=3, alpha=0.025.", False),
    ("We select k = 35, 6, 2 sentences for L, S, T summaries, respectively.", False),
])
def test_text_a_reader_cannot_check_against_the_page_is_garbled(sentence: str,
                                                                  unreadable: bool) -> None:
    """Private-use glyphs, a replacement character, a line of symbols and the debris of a math
    font read as letters are garbled; technical prose (primers, settings, variables) is not."""
    assert garbled(sentence) is unreadable


@pytest.mark.parametrize(("sentence", "table"), [
    ("Always Keep The signed consent form The final protocol Dosing schedules Drug labels "
     "Sometimes Keep Letters to sponsors Audit reports Rarely Keep Internal notes.", True),
    ("on the register Letters resolved by an audit or order Attorney letters Other notes.", True),
    ("Protocol 1.52 (0.40) The plan a trial registers before it enrols anyone.", True),
    ("The sponsor violated Title VII of the Civil Rights Act in 2004.", False),
    ("The files are hosted on Amazon S3 and listed by the First Amendment Project.", False),
    ("Thirteen Black and Asian participants joined in March, and four more in June.", False),
])
def test_a_table_of_words_read_as_running_text_is_a_table(sentence: str, table: bool) -> None:
    """Cells run together (a word, then a capitalised common word with no stop between, three
    times, or twice when one is a word no name starts with), or a row opening with its label
    and a figure with another in brackets; names made of common words are not cells."""
    assert table_as_text(sentence) is table


@pytest.mark.parametrize(("sentence", "example"), [
    ("For example, we experimented with methods for linking each trial to its drug.", True),
    ("For instance, a doctor might group the notes of one patient by visit.", True),
    ("e.g., the registry can be queried for every trial of a drug.", True),
    ("For example, median survival was 23 months, higher than the 14 months of controls.", False),
    ("The registry, for example, lists every trial of a drug.", False),
])
def test_a_sentence_opening_with_an_example_is_a_finding_only_with_a_measured_result(
        sentence: str, example: bool) -> None:
    passage = Passage(id=f"w#full_text:0-{len(sentence)}", work_id="w", text=sentence, start=0,
                      end=len(sentence), section="Results", page=None)
    [candidate] = quotable(passage, 2024)
    assert ("example" in candidate.facets) is example
    assert example_only(sentence, {"result"} if "higher" in sentence else set()) is example


ROWS_PAGES = [[
    "Tagging invented drug names",
    "Abstract",
    "We tag drug names in invented trial reports and report how well the tagger does.",
    "Keywords",
    "Drug Names, Tagging, Trial Reports, Language Models.",
    "1 Introduction",
    "Trial reports name their drugs in many ways, and a tagger has to find each of them.",
    "2 Results",
    "Adding a language model raised the F1 of the tagger by 3.1 points. In the deployed system,",
    "we use two instances of the tagger",
    "Setting F1",
    "Without LM 61.4",
    "With LM 64.5",
    "Table 1: Results of the tagger on the invented test set.",
    "with the same architecture, each trained on its own reports.",
    "Table 1 shows the results of the tagger on the invented test set.",
]]


def test_a_pdfs_keywords_and_one_figure_table_rows_stay_out_of_its_sentences() -> None:
    """The index terms under 'Keywords' are front matter, no block to quote; the rows of a
    table of one figure each ('Without LM 61.4'), set right above their caption, are a table
    block, and the sentence the table interrupts reads whole; a sentence only pointing at the
    table's results is set aside."""
    document = parse_pdf(text_pdf(ROWS_PAGES, "Tagging invented drug names"))
    assert not any("Tagging, Trial Reports" in block.text for block in document.blocks)
    [table] = [block for block in document.blocks if block.kind == "table"]
    assert table.text == "Setting F1; Without LM 61.4; With LM 64.5"
    assert any("we use two instances of the tagger with the same architecture, each trained"
               in block.text for block in document.blocks if block.kind == "paragraph")
    work = with_full_text(Work(title="Tagging invented drug names", sources=["library"]),
                          document, "library", None)
    facets = {c.quote.text: c.facets for p in chunk_work(work) for c in quotable(p, 2024)}
    assert facets["Table 1 shows the results of the tagger on the invented test set."] == {
        "pointer"}
    assert "result" in facets["Adding a language model raised the F1 of the tagger by 3.1 points."]


@pytest.mark.parametrize(("sentence", "pointer"), [
    ("Table 2 shows the results based on 500 invented reports.", True),
    ("As shown in Figure 3, the comparison of both arms favours drug Q.", False),
    ("Table 4 compares the performance of the baseline and our tagger.", True),
    ("Table 2 shows the results: the tagger found 91% of the names.", False),
    ("Figure 2 shows that tagging improved with every added report.", False),
])
def test_a_sentence_pointing_at_a_tables_results_is_no_finding(sentence: str,
                                                               pointer: bool) -> None:
    passage = Passage(id=f"w#full_text:0-{len(sentence)}", work_id="w", text=sentence, start=0,
                      end=len(sentence), section="Results", page=3)
    [candidate] = quotable(passage, 2024)
    assert (candidate.facets == {"pointer"}) is pointer


@pytest.mark.parametrize(("sentence", "pointer"), [
    ("Our evaluation of the tagger on unseen reports is shown in the last columns of Table 1.",
     True),
    ("The invented strains used in this study are listed in Table 2.", True),
    ("The tagger found 91% of the names, as shown in Table 2.", False),
])
def test_a_sentence_saying_only_where_a_result_is_shown_is_no_finding(sentence: str,
                                                                      pointer: bool) -> None:
    passage = Passage(id=f"w#full_text:0-{len(sentence)}", work_id="w", text=sentence, start=0,
                      end=len(sentence), section="Results", page=None)
    [candidate] = quotable(passage, 2024)
    assert (candidate.facets == {"pointer"}) is pointer


@pytest.mark.parametrize(("sentence", "aim"), [
    ("Next, we discuss how we link each invented trial to the drugs it names.", True),
    ("Below, we describe the tagger and the reports it was trained on.", True),
    ("Next, we linked each invented trial to its drug and found 91% of the links right.", False),
])
def test_a_sections_roadmap_says_what_the_paper_does(sentence: str, aim: bool) -> None:
    passage = Passage(id=f"w#full_text:0-{len(sentence)}", work_id="w", text=sentence, start=0,
                      end=len(sentence), section="2 Methods", page=2)
    [candidate] = quotable(passage, 2024)
    assert ("aim" in candidate.facets) is aim
