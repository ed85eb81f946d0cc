"""Passages: sentence-aware, exact offsets, stable ids."""

from __future__ import annotations

import pytest

from scholargraph.deterministic.text import funding_line
from scholargraph.rag.chunking import chunk_work, split_sentences
from scholargraph.records import TextSpan, Work

ABSTRACT = (
    "Smith et al. reported a 2.5-fold increase (Fig. 2) in yield. The effect, e.g. at 300 K, "
    "persisted for 12 h. Was it reproducible? Yes: three labs confirmed it! "
    "Costs fell by approx. 40% in the U.S. market. "
) * 8


def source_of(work: Work, section: str) -> str:
    return {"abstract": work.abstract, "full_text": work.full_text, "title": work.title}[section]


def test_offsets_are_exact_and_ids_stable() -> None:
    work = Work(title="Yield", doi="10.1000/xyz", abstract=ABSTRACT, full_text=ABSTRACT * 3)
    passages = chunk_work(work, max_chars=300)
    assert {p.section for p in passages} == {"abstract", "full_text"}
    for passage in passages:
        assert passage.text == source_of(work, passage.section)[passage.start:passage.end]
        assert passage.id == f"doi:10.1000/xyz#{passage.section}:{passage.start}-{passage.end}"
        assert len(passage.text) <= 300
        assert passage.work_id == work.id
    assert [p.id for p in chunk_work(work, max_chars=300)] == [p.id for p in passages]


def test_passages_end_at_sentence_ends_and_skip_abbreviations() -> None:
    spans = split_sentences(ABSTRACT[: ABSTRACT.index("Costs")])
    sentences = [ABSTRACT[start:end] for start, end in spans]
    assert sentences == [
        "Smith et al. reported a 2.5-fold increase (Fig. 2) in yield.",
        "The effect, e.g. at 300 K, persisted for 12 h.",
        "Was it reproducible?",
        "Yes: three labs confirmed it!",
    ]
    work = Work(title="Yield", abstract=ABSTRACT)
    for passage in chunk_work(work, max_chars=200):
        assert passage.text.endswith((".", "!", "?"))


def test_an_overlong_sentence_is_cut_at_words() -> None:
    work = Work(title="Long", abstract="word " * 500 + "end.")
    passages = chunk_work(work, max_chars=100)
    assert all(len(p.text) <= 100 and not p.text.startswith(" ") for p in passages)
    assert " ".join(p.text for p in passages) == work.abstract


def test_a_work_without_text_yields_its_title() -> None:
    work = Work(title="Only a title", pmid="7")
    [passage] = chunk_work(work)
    assert (passage.section, passage.text, passage.id) == ("title", "Only a title",
                                                          "pmid:7#title:0-12")


def test_a_text_opening_with_a_lone_full_stop_is_split() -> None:
    """A record's abstract may open with a stray full stop ('. Costs fell.')."""
    text = ". Costs fell. Yields rose."
    assert [text[start:end] for start, end in split_sentences(text)] == [
        ".", "Costs fell.", "Yields rose."]


def test_a_stop_after_a_stray_comma_ends_a_sentence() -> None:
    """Exports that join an abstract's sections lose the space ("...properties,.We
    characterized ..."): the method sentence and the next are two sentences, not one."""
    text = ("Cells were injected to assess their chondroprotective properties,.We characterized "
            "the stemness of the cells.")
    assert [text[start:end] for start, end in split_sentences(text)] == [
        "Cells were injected to assess their chondroprotective properties,.",
        "We characterized the stemness of the cells."]


def test_a_caption_is_a_passage_apart_from_the_paragraphs_around_it() -> None:
    """Invented full text: a paragraph, a figure's caption and a paragraph of one section and
    page. The caption is never packed with the prose (it would be quoted as a finding): three
    passages, the middle one of kind 'caption', each slicing the text exactly."""
    first = "Yields rose by a fifth on the treated plots. "
    caption = "Figure 2. Yields of treated and untreated plots by year. "
    last = "Untreated plots stayed flat over the three seasons."
    text = first + caption + last
    cuts = [0, len(first), len(first) + len(caption), len(text)]
    kinds = ["paragraph", "caption", "paragraph"]
    spans = [TextSpan(start=start, end=end, section="Results", page=3, kind=kind)  # type: ignore[arg-type]
             for start, end, kind in zip(cuts, cuts[1:], kinds, strict=False)]
    work = Work(title="Yield", full_text=text, full_text_spans=spans)
    passages = chunk_work(work)
    assert [p.kind for p in passages] == kinds
    assert passages[1].text == caption.strip()
    assert all(p.text == text[p.start:p.end] and p.page == 3 for p in passages)


def test_a_stop_after_an_acronym_with_no_space_ends_a_sentence() -> None:
    """An export that joined a structured abstract's parts leaves "...follow-up MRI.No
    significant ...": two sentences, the result apart from the method. An initial ("E.Coli",
    "group B.Modern") still reads as part of a name."""
    text = ("Repair tissue was scored by follow-up MRI.No significant differences were seen "
            "between the groups.Knee function improved in both arms of the ADHD.We stopped.")
    assert [text[start:end] for start, end in split_sentences(text)] == [
        "Repair tissue was scored by follow-up MRI.",
        "No significant differences were seen between the groups.",
        "Knee function improved in both arms of the ADHD.",
        "We stopped."]
    initial = "Growth of E.Coli was slowed in group B.Modern methods helped."
    assert [initial[start:end] for start, end in split_sentences(initial)] == [initial]


def test_a_stop_after_a_named_letter_ends_a_sentence_before_an_opening_word() -> None:
    """"... variation in haemophilia A. In this survey, ..." was quoted as one finding: the
    letter was read as an initial. An initial stays one ("J. Smith"), and a letter before a
    name is not taken for a sentence end."""
    text = ("Practice varied widely in haemophilia A. In this survey, preference was the top "
            "reason. Levels of vitamin D. The cohort was small. We thank J. Smith for help. "
            "Group A. Streptococcus was grown.")
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "Practice varied widely in haemophilia A.",
        "In this survey, preference was the top reason.",
        "Levels of vitamin D.", "The cohort was small.", "We thank J. Smith for help.",
        "Group A. Streptococcus was grown."]


RESULT = "Emicizumab prophylaxis lowered treated bleeds by 68% in adults with haemophilia A."


@pytest.mark.parametrize("funding", [
    "F Hoffmann-La Roche funded the study.",
    "Novo Nordisk and Sanofi funded the study.",
    "Novo Nordisk & Sanofi sponsored this trial.",
    "Roche financed the study.",
    "Chugai Pharmaceutical funded the HAVEN trial.",
    "Funded by the National Institute for Health Research.",
    "This work was supported by grant 1234 of the Wellcome Trust.",
])
def test_a_funding_line_glued_to_a_names_letter_is_split_where_it_is_read_as_one(
        funding: str) -> None:
    """The splitter had its own copy of the funder pattern, which took neither 'and'/'&'
    between funders nor 'financed': such a line stayed glued to the result before it. Every
    line read as a funding line is now split off there, and only such a line."""
    text = RESULT[:-1] + "." + funding
    assert [text[a:b] for a, b in split_sentences(text)] == [RESULT, funding]
    assert funding_line(funding)


@pytest.mark.parametrize("glued", [
    "Smith and Jones reported the same.", "Bleeding fell in both arms.",
])
def test_a_sentence_glued_to_a_names_letter_that_is_no_funding_line_is_not_split(
        glued: str) -> None:
    text = RESULT[:-1] + "." + glued
    assert not funding_line(glued)
    assert [text[a:b] for a, b in split_sentences(text)] == [text]


def test_a_sentence_opening_with_a_panels_letter_after_a_named_letter_is_split() -> None:
    """"... in haemophilia A. (B) We found ..." and "... group A. B. Results show ..." were
    one sentence: the letter after the stop was read as an initial. An enclosed letter is never
    an initial; a bare one is a label before a word opening a sentence or naming a section,
    and stays an initial before a surname."""
    text = (f"{RESULT} (B) We found that joint bleeds fell by half over two years. Bleeds fell "
            "in group A. B. Results show that joint bleeds fell by half. We thank J. Smith "
            "for help. Samples came from group A. B. Jones counted them.")
    assert [text[a:b] for a, b in split_sentences(text)] == [
        RESULT, "(B) We found that joint bleeds fell by half over two years.",
        "Bleeds fell in group A.", "B. Results show that joint bleeds fell by half.",
        "We thank J. Smith for help.", "Samples came from group A. B. Jones counted them."]
