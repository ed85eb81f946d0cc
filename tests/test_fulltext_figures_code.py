"""A figure's words and a program's listing are no sentences of a paper: read from invented
documents in their real formats (a PDF written by :func:`text_pdf`, with a figure placed as a
form XObject and a listing in Courier; a JATS article with ``<code>`` and ``<preformat>``)
through the real parsers, they never reach a paragraph, so never a finding."""

from __future__ import annotations

from scholargraph.agents.schemas import SubQuestion
from scholargraph.deterministic.extractive import quotable, rank_candidates, section_role
from scholargraph.fulltext.fetch import with_full_text
from scholargraph.fulltext.jats import parse_jats
from scholargraph.fulltext.legible import code_as_text
from scholargraph.fulltext.pdf import parse_pdf
from scholargraph.rag.chunking import chunk_work
from scholargraph.records import Work
from scholargraph.testing.documents import Line, text_pdf

TITLE = "An invented trial of a night-time dose"
FIGURE_WORDS = ["Migraine days per month", "Week 12", "Placebo", "Night dose", "0 4 8 12"]
LISTING = ["fit <- glm(relapse ~ dose + age, family = binomial,", "           data = trial)"]


def _pages(figure: list[str], listing: list[str]) -> list[list[Line]]:
    return [[
        TITLE,
        "Abstract",
        "We gave an invented drug at night to adults with migraine.",
        "1 Methods",
        "Adults with migraine took the invented drug at night for twelve weeks. We fitted",
        "the model in R as follows:",
        ("code", listing),
        "Relapse was modelled on the dose and the age of each adult.",
        "2 Results",
        "The monthly migraine days fell from 9.1 to 5.2 in the group given the",
        ("figure", figure),
        "night dose, and did not change with placebo.",
        "Figure 1: Migraine days per month by week and group.",
    ]]


def _paragraphs(pages: list[list[Line]]) -> list[str]:
    document = parse_pdf(text_pdf(pages, title=TITLE))
    return [block.text for block in document.blocks if block.kind == "paragraph"]


def test_a_figures_words_are_not_read_into_the_sentence_around_it() -> None:
    """The words drawn inside a figure (its axis titles, legend, ticks) are not running text:
    the sentence the figure interrupts is read whole, as the page prints it."""
    paragraphs = _paragraphs(_pages(FIGURE_WORDS, LISTING))
    results = next(text for text in paragraphs if "migraine days fell" in text)
    assert results == ("The monthly migraine days fell from 9.1 to 5.2 in the group given the "
                       "night dose, and did not change with placebo.")
    assert not any(word in text for text in paragraphs for word in ("Week 12", "Night dose"))


def test_a_listing_in_a_fixed_pitch_font_is_no_sentence_and_ends_its_paragraph() -> None:
    """Two lines or more in a fixed-pitch font are a listing: kept out of the prose, and the
    prose after it starts a paragraph of its own (it read '... as follows: fit <- glm(...'
    and 'as follows: Relapse was modelled ...' as one sentence)."""
    paragraphs = _paragraphs(_pages(FIGURE_WORDS, LISTING))
    assert not any("glm(" in text or "data = trial" in text for text in paragraphs)
    assert any(text.endswith("We fitted the model in R as follows:") for text in paragraphs)
    assert "Relapse was modelled on the dose and the age of each adult." in paragraphs


def test_one_line_in_a_fixed_pitch_font_stays_in_its_sentence() -> None:
    """A single typewriter line (a web address, a program's name) is part of the prose."""
    pages: list[list[Line]] = [[
        TITLE, "1 Methods", "The code is shared at", ("code", ["https://example.org/trial"]),
        "for anyone to run again."]]
    assert "The code is shared at https://example.org/trial for anyone to run again." in \
        _paragraphs(pages)


def test_a_figure_holding_most_of_its_page_is_the_page_and_is_read() -> None:
    """A form holding most of a page's words is the page itself (a proceedings' stamp wraps
    every page of a recorded ACL paper in one): its text is read as before."""
    words = ["Relapse was rarer with the night dose than with placebo in the invented trial "
             "of adults with migraine who took it for twelve weeks."]
    paragraphs = _paragraphs([[TITLE, "2 Results", ("figure", words)]])
    assert any("Relapse was rarer with the night dose" in text for text in paragraphs)


JATS = b"""<?xml version="1.0" encoding="UTF-8"?>
<article><front><article-meta>
<title-group><article-title>An invented tool for counting coughs</article-title></title-group>
</article-meta></front>
<body><sec><title>Methods</title>
<p>The counts were read with the <code>coughs</code> package as follows:
<code language="r">counts &lt;- read_counts("night.csv")
model &lt;- glm(count ~ arm, family = poisson, data = counts)</code>
The model was fitted once per arm.</p>
<preformat>$ coughs --night night.csv --out counts.csv
read 1204 nights</preformat>
<p>Nights were scored by two readers.</p>
</sec></body></article>"""


def test_jats_code_and_preformat_are_no_sentences() -> None:
    """A listing in ``<code>`` or ``<preformat>`` never joins a paragraph's text; a short
    one-line ``<code>`` naming a package inside a sentence stays its word."""
    document = parse_jats(JATS)
    work = with_full_text(Work(title=document.title or "", sources=["library"]), document,
                          "library", None)
    texts = [passage.text for passage in chunk_work(work)]
    joined = " ".join(texts)
    assert "read_counts" not in joined and "family = poisson" not in joined
    assert "--night" not in joined and "1204 nights" not in joined
    paragraphs = [block.text for block in document.blocks]
    assert paragraphs == [
        "The counts were read with the coughs package as follows:",
        "The model was fitted once per arm.",
        "Nights were scored by two readers."]


def test_a_programs_text_read_as_a_sentence_is_never_a_finding() -> None:
    """Code neither a font nor a tag tells (a listing set in the text's own font) is read as a
    sentence of the full text, and set aside; prose with one code-like sign stays a finding."""
    jats = b"""<?xml version="1.0" encoding="UTF-8"?>
<article><front><article-meta>
<title-group><article-title>An invented tool for counting coughs</article-title></title-group>
</article-meta></front>
<body><sec><title>Results</title>
<p>Run as: counts = read_counts("night.csv"); model.fit(counts, arm="night").</p>
<p>The night arm coughed less than placebo (p = 0.03).</p>
</sec></body></article>"""
    document = parse_jats(jats)
    work = with_full_text(Work(title=document.title or "", sources=["library"]), document,
                          "library", None)
    facets = {c.quote.text: c.facets for p in chunk_work(work) for c in quotable(p, 2024)}
    assert facets['Run as: counts = read_counts("night.csv"); model.fit(counts, arm="night").'] \
        == {"code"}
    assert "code" not in facets["The night arm coughed less than placebo (p = 0.03)."]
    assert not code_as_text("Treatment for six weeks in patients with the variant (n = 40) "
                            "reduced relapse; an important role for dose remains.")


RANKING_JATS = b"""<?xml version="1.0" encoding="UTF-8"?>
<article><front><article-meta>
<title-group><article-title>Night-time dosing of drug Q for chronic cough</article-title>
</title-group></article-meta></front>
<body>
<sec><title>Methods</title>
<p>Adults with chronic cough were randomised to drug Q at night or to placebo.
We tested whether night-time dosing of drug Q reduced chronic cough compared with placebo.</p>
</sec>
<sec><title>Results</title>
<p>Night-time dosing of drug Q reduced chronic cough by 31% compared with placebo.
Sleep was longer in both arms. Dropouts were few in both arms. Adverse events were mild.
Nausea was the commonest adverse event. Two adults stopped for nausea.</p>
</sec></body></article>"""


def test_a_full_texts_result_is_ranked_above_its_method() -> None:
    """Within a full text, the sentence stating the result under 'Results' ranks above the
    sentence of 'Methods' saying what was tested in the same words, which ends its section
    and ranked first (where a sentence lies in its section says where results are in an
    abstract, not in a full text)."""
    document = parse_jats(RANKING_JATS)
    work = with_full_text(Work(title=document.title or "", sources=["library"]), document,
                          "library", None)
    sub = SubQuestion(id="q1", text="Does night-time dosing of drug Q reduce chronic cough?",
                      answer_shape="reported results")
    ranked = rank_candidates(sub, chunk_work(work), [], {work.id: 2024},
                             read_in_full={work.id: work.title})
    assert ranked[0].quote.text == ("Night-time dosing of drug Q reduced chronic cough by 31% "
                                    "compared with placebo.")
    assert section_role("Results > Subgroups") == "result"
    assert section_role("4 Experiments > 4.1 Experimental Setup") == "method"
    assert section_role("A Novel Approach") is None
