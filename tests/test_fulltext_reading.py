"""Full texts read as the scientist who checks each quote against the paper reads them.

Every document here is INVENTED (written to the JATS 1.1/1.3 and PDF 1.4 specifications for
these tests; no sentence comes from a real article) except where a test names a recorded
fixture of ``scholargraph/testing/fixtures/fulltext`` (provenance beside it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scholargraph.fulltext.fetch import FullTextReader, landing_pdf_url
from scholargraph.fulltext.jats import parse_jats
from scholargraph.fulltext.pdf import Vocabulary, join_lines, parse_pdf
from scholargraph.rag.chunking import chunk_work
from scholargraph.records import Work
from scholargraph.settings import get_settings
from scholargraph.sources.library import load_library
from scholargraph.testing import ReplayServer, fixture_bytes
from scholargraph.testing.documents import text_pdf

NAMESPACED = ('<article xmlns="https://jats.nlm.nih.gov/ns/archiving/1.3/" '
              'xmlns:mml="http://www.w3.org/1998/Math/MathML" '
              'xmlns:xlink="http://www.w3.org/1999/xlink">')
PLAIN = ('<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Archiving and Interchange '
         'DTD v1.1 20151215//EN" "JATS-archivearticle1.dtd">\n'
         '<article xmlns:mml="http://www.w3.org/1998/Math/MathML" '
         'xmlns:xlink="http://www.w3.org/1999/xlink">')

DOSE = ("<mml:math><mml:msub><mml:mi>D</mml:mi><mml:mtext>adj</mml:mtext></mml:msub>"
        "<mml:mo>=</mml:mo><mml:mi>D</mml:mi><mml:mo>\u00d7</mml:mo><mml:msup><mml:mfenced>"
        "<mml:mfrac><mml:mi>w</mml:mi><mml:mn>70</mml:mn></mml:mfrac></mml:mfenced>"
        "<mml:mn>0.75</mml:mn></mml:msup></mml:math>")

BODY = f"""<front><article-meta><title-group><article-title>An invented dosing study
</article-title></title-group></article-meta></front>
<body>
<sec sec-type="methods"><title>Methods</title>
<p>Each child's dose was scaled as</p>
<disp-formula id="e3"><label>(3)</label>{DOSE}</disp-formula>
<p>where w is the body weight in kilograms.</p>
<p>Trough levels were fitted as <disp-formula><tex-math>\\documentclass[12pt]{{minimal}}
\\begin{{document}}$$c = a e^{{-kt}}$$\\end{{document}}</tex-math></disp-formula> over the
first week.</p>
<p>Adherence was scored as</p>
<disp-formula><graphic xlink:href="e4.gif"/></disp-formula>
<p>for every visit.</p>
</sec>
<sec sec-type="results"><title>Results</title>
<p>Clearance rose with weight in all 40 children.</p>
<disp-formula><mml:math><mml:msqrt><mml:mi>n</mml:mi></mml:msqrt></mml:math></disp-formula>
<p>The scaled dose kept troughs in range.</p>
<boxed-text><label>Box 1</label><caption><title>What this study adds</title></caption>
<p>Weight-scaled dosing suits children.</p></boxed-text>
</sec>
<sec><title>Supplementary Material</title><p>The files are available online.</p></sec>
</body>
<back><sec sec-type="supplementary-material"><title>Supporting information</title>
<p>The publisher does not own the copyright of these files.</p>
<supplementary-material><label>S1 Table</label><caption><p>Doses by week.</p></caption>
<media xlink:href="s1.docx"><caption><p>Click here for additional data file.</p></caption>
</media></supplementary-material></sec></back>
</article>"""


@pytest.mark.parametrize("opening", [NAMESPACED, PLAIN], ids=["jats-1.3-namespaced", "jats-1.1"])
def test_a_display_formula_is_read_into_the_sentence_that_states_it(opening: str) -> None:
    """The sentence around a display formula keeps it, linearised from its MathML, TeX or (an
    image only) a placeholder; 'where w is ...' below it goes on with the same sentence."""
    blocks = parse_jats((opening + BODY).encode()).blocks
    methods = [block.text for block in blocks if block.section == "Methods"]
    assert methods == [
        "Each child's dose was scaled as D_adj = D \u00d7 (w/70)^0.75 (3) where w is the body "
        "weight in kilograms.",
        "Trough levels were fitted as c = a e^{-kt} over the first week.",
        "Adherence was scored as [formula] for every visit.",
    ]
    results = [block.text for block in blocks if block.section == "Results"]
    assert results == ["Clearance rose with weight in all 40 children.", "\u221a(n)",
                       "The scaled dose kept troughs in range."]


@pytest.mark.parametrize("opening", [NAMESPACED, PLAIN], ids=["jats-1.3-namespaced", "jats-1.1"])
def test_boxes_are_cited_as_boxes_and_supplementary_file_lists_are_left_out(opening: str) -> None:
    blocks = parse_jats((opening + BODY).encode()).blocks
    box = [block for block in blocks if "Weight-scaled" in block.text]
    assert [(block.section, block.text) for block in box] == [
        ("Results > Box 1 What this study adds", "Weight-scaled dosing suits children.")]
    text = " ".join(block.text for block in blocks)
    for left_out in ("available online", "copyright", "Doses by week", "Click here"):
        assert left_out not in text
    assert not any(block.section.startswith(("Supp", "Supporting")) for block in blocks)


def test_a_library_article_quotes_the_formula_sentence_whole(tmp_path: Path) -> None:
    """Through the library reader and the chunker, as a review quotes it."""
    (tmp_path / "dosing.nxml").write_text(PLAIN + BODY, encoding="utf-8")
    (work,) = load_library(tmp_path / "dosing.nxml")
    quoted = [passage.text for passage in chunk_work(work) if "scaled as" in passage.text]
    assert quoted and all("(w/70)^0.75 (3) where w is the body weight" in text
                          for text in quoted)


# --- PDF ------------------------------------------------------------------------------------

def _two_column_pages() -> list[list[str]]:
    """An invented two-column article: a sentence runs over the page break, and the second
    page opens with a figure (its own words, then its caption set across both columns) before
    the sentence's rest."""
    return [
        ["An invented trial of night shifts", "1 Introduction",
         "Night work disturbs sleep in nurses,", "and shift rotas differ between wards.",
         "We compared two rotas; a cost-effective", "rota matters to hospitals. The trial",
         "randomised nurses whose treat-", "ment of patients went on as usual, from"],
        ["Forward rotation", "Backward rotation",
         "Figure 1: Hours slept per day by rota, for each of the twelve wards of the trial [4].",
         "Each bar is one ward; the shaded part shows the nurses who left before the end.",
         "twelve wards in four hospitals. Sleep", "was logged for six weeks by each",
         "nurse, and the cost-", "effective rota was chosen. All nurses",
         "gave written consent to the study.", "The rota was the only change made."],
    ]


def test_a_sentence_over_a_page_break_skips_the_figure_above_its_rest() -> None:
    document = parse_pdf(text_pdf(_two_column_pages(), title="An invented trial of night shifts"))
    paragraphs = [block for block in document.blocks if block.kind == "paragraph"]
    opening = paragraphs[0]
    assert opening.page == 1 and opening.section == "1 Introduction"
    assert opening.text.endswith("The trial randomised nurses whose treatment of patients "
                                 "went on as usual, from twelve wards in four hospitals.")
    captions = [(block.page, block.text) for block in document.blocks if block.kind == "caption"]
    assert (2, "Figure 1: Hours slept per day by rota, for each of the twelve wards of the "
               "trial [4]. Each bar is one ward; the shaded part shows the nurses who left "
               "before the end.") in captions
    assert (2, "Forward rotation Backward rotation") in captions
    text = " ".join(block.text for block in paragraphs)
    assert "rotation" not in text and "Hours slept" not in text


def test_a_line_end_hyphen_stays_in_a_compound_the_paper_prints_whole() -> None:
    document = parse_pdf(text_pdf(_two_column_pages(), title="An invented trial of night shifts"))
    text = " ".join(block.text for block in document.blocks)
    assert "the cost-effective rota was chosen" in text  # 'cost-effective' printed on page 1
    assert "costeffective" not in text
    assert "whose treatment of patients" in text  # a word broken in two is joined


def test_hyphen_rules_without_and_with_evidence() -> None:
    vocabulary = Vocabulary(["a dose-response curve", "the treatment arm"])
    assert join_lines(["a dose-", "response"], vocabulary) == "a dose-response"
    assert join_lines(["the treat-", "ment"], vocabulary) == "the treatment"
    assert join_lines(["a random-", "ised trial"], vocabulary) == "a randomised trial"
    assert join_lines(["a dose-", "response"]) == "a doseresponse"  # no evidence: a word


def test_the_recorded_acl_pdf_keeps_its_compounds_and_its_figure_caption() -> None:
    """Recorded N18-3011 (CC BY): 'meta-analysis' and 'citation-based' broken at a line end,
    and 'Figure 1: Part of the literature graph.' under the figure's own words."""
    document = parse_pdf(fixture_bytes("fulltext/publisher/s2orc-doc2json_N18-3011.pdf"))
    text = " ".join(block.text for block in document.blocks if block.kind == "paragraph")
    assert "meta-analysis" in text and "citation-based" in text
    assert "metaanalysis" not in text and "citationbased" not in text
    assert "Part of the literature graph" not in text
    assert any(block.kind == "caption" and block.text.startswith(
        "Figure 1: Part of the literature graph.") for block in document.blocks)


def test_a_compound_is_known_wherever_a_line_breaks_it() -> None:
    vocabulary = Vocabulary(["beats the state-of-the-art model"])
    assert join_lines(["outperform the state-", "of-the-art on"], vocabulary) == \
        "outperform the state-of-the-art on"
    assert join_lines(["outperform the state-of-", "the-art on"], vocabulary) == \
        "outperform the state-of-the-art on"


def test_a_footnote_between_a_broken_word_leaves_the_word_whole() -> None:
    """Invented page: footnote 2 (raised after 'TRIMS,') is set between the two halves of
    'state-' 'of-the-art', as pypdf reads a column's foot before the next column."""
    pages = [["1 Introduction", "Our tool, TRIMS,2 sorts trial records. It beats the state-",
              "2TRIMS: Trial Records In Many Sources.", "of-the-art tools on every data set we",
              "tried, and a state-of-the-art rival too."]]
    document = parse_pdf(text_pdf(pages, title="An invented tool for trial records"))
    text = " ".join(block.text for block in document.blocks)
    assert "It beats the state-of-the-art tools on every data set we tried" in text
    assert "Trial Records In Many Sources" not in text and "TRIMS, sorts" in text


def test_panel_captions_over_a_table_are_captions() -> None:
    """Invented page: two halves of a table, each under its panel caption '(a) ...'."""
    pages = [["2 Results", "Both arms slept longer than at baseline, as the table shows.",
              "(a) Nurses on forward rotas.", "Ward 6.1 6.4 7.0", "Clinic 5.9 6.2 6.8",
              "(b) Nurses on backward rotas.", "Ward 5.2 5.5 5.9", "Clinic 5.0 5.3 5.6",
              "Sleep rose most in the first two weeks."]]
    document = parse_pdf(text_pdf(pages, title="An invented rota study"))
    paragraphs = [block.text for block in document.blocks if block.kind == "paragraph"]
    assert paragraphs == ["Both arms slept longer than at baseline, as the table shows. Sleep "
                          "rose most in the first two weeks."]
    captions = [block.text for block in document.blocks if block.kind == "caption"]
    assert captions == ["(a) Nurses on forward rotas.", "(b) Nurses on backward rotas."]


# --- open-access copies -------------------------------------------------------------------

def test_a_landing_page_is_followed_to_the_pdf_it_names(tmp_path: Path) -> None:
    """OpenAlex often names a paper's landing page as its open-access location; the page's
    ``citation_pdf_url`` (a hand-written stand-in of the ACL Anthology's, see the fixtures'
    PROVENANCE) leads to the recorded PDF, read after its host's robots.txt."""
    with ReplayServer.default() as server, server.environment(
            SCHOLARGRAPH_HOME=str(tmp_path / "home"), SCHOLARGRAPH_RATE_SCALE="1000"):
        work = Work(title="Construction of the Literature Graph in Semantic Scholar",
                    oa_url="https://aclanthology.org/N18-3011/")
        done = FullTextReader(get_settings()).read_all([work], budget=1)
        paths = [request.path for request in server.requests if request.service == "web"]
    assert [outcome.status for outcome in done.outcomes] == ["retrieved"]
    assert done.works[0].full_text and "literature graph" in done.works[0].full_text
    assert paths.index("/aclanthology.org/N18-3011/") < \
        paths.index("/aclanthology.org/N18-3011.pdf")


def test_only_a_landing_pages_own_pdf_link_is_taken() -> None:
    page = (b'<!DOCTYPE html><html><head><meta name="citation_title" content="A">'
            b'<meta name="citation_pdf_url" content="/content/1.full.pdf?download=true&amp;v=2">'
            b"</head><body></body></html>")
    assert landing_pdf_url("https://journal.example/content/1", page, "text/html") == \
        "https://journal.example/content/1.full.pdf?download=true&v=2"
    assert landing_pdf_url("https://journal.example/content/1",
                           b"<html><head><title>No tag</title></head></html>", "text/html") is None
    assert landing_pdf_url("https://journal.example/x.pdf", b"%PDF-1.4 ...", "application/pdf") \
        is None
    assert landing_pdf_url("https://journal.example/1", b'<html><meta name="citation_pdf_url" '
                           b'content="javascript:alert(1)"></html>', "text/html") is None


LISTS = """<front><article-meta><title-group><article-title>An invented eligibility study
</article-title></title-group></article-meta></front><body><sec><title>Methods</title>
<p>Patients were eligible if they had:<list list-type="bullet"><list-item><p>an EGFR mutation
</p></list-item><list-item><p>measurable disease</p></list-item><list-item><p>no prior therapy</p>
</list-item></list>and gave consent.</p>
<p>Outcomes were <list list-type="order"><list-item><label>(i)</label><p>survival;</p></list-item>
<list-item><label>(ii)</label><p>response.</p></list-item></list></p></sec></body></article>"""


@pytest.mark.parametrize("opening", [NAMESPACED, PLAIN], ids=["jats-1.3-namespaced", "jats-1.1"])
def test_a_list_inside_a_sentence_keeps_its_items_apart(opening: str) -> None:
    blocks = parse_jats((opening + LISTS).encode()).blocks
    assert [block.text for block in blocks] == [
        "Patients were eligible if they had: an EGFR mutation; measurable disease; no prior "
        "therapy and gave consent.",
        "Outcomes were (i) survival; (ii) response."]


def test_a_group_of_display_formulas_reads_each_of_them() -> None:
    article = (PLAIN + """<body><sec><title>Methods</title><p>The two rates were</p>
<disp-formula-group><disp-formula><label>(1)</label><mml:math><mml:mi>a</mml:mi><mml:mo>=</mml:mo>
<mml:mn>2</mml:mn></mml:math></disp-formula><disp-formula><label>(2)</label><mml:math>
<mml:mi>b</mml:mi><mml:mo>=</mml:mo><mml:mn>3</mml:mn></mml:math></disp-formula>
</disp-formula-group><p>in every ward.</p></sec></body></article>""").encode()
    assert [block.text for block in parse_jats(article).blocks] == [
        "The two rates were a = 2 (1); b = 3 (2) in every ward."]


def test_inline_formulas_read_signs_and_charges_as_printed() -> None:
    """Invented: a unit with a negative power and an ion's charge, as inline MathML."""
    article = (PLAIN + """<body><sec><title>Methods</title><p>Cells were kept in 5 mmol
<inline-formula><mml:math><mml:msup><mml:mi>L</mml:mi><mml:mrow><mml:mo>\u2212</mml:mo>
<mml:mn>1</mml:mn></mml:mrow></mml:msup></mml:math></inline-formula> of
<inline-formula><mml:math><mml:msup><mml:mrow><mml:mo>[</mml:mo><mml:mi>Fe</mml:mi>
<mml:msub><mml:mrow><mml:mo>(</mml:mo><mml:mi>CN</mml:mi><mml:mo>)</mml:mo></mml:mrow>
<mml:mn>6</mml:mn></mml:msub><mml:mo>]</mml:mo></mml:mrow><mml:mrow><mml:mn>3</mml:mn>
<mml:mo>\u2212</mml:mo><mml:mo>/</mml:mo><mml:mn>4</mml:mn><mml:mo>\u2212</mml:mo></mml:mrow>
</mml:msup></mml:math></inline-formula> at <inline-formula><mml:math><mml:msub><mml:mi>T</mml:mi>
<mml:mi>g</mml:mi></mml:msub><mml:mo>\u2212</mml:mo><mml:mn>5</mml:mn></mml:math>
</inline-formula>.</p><p>Growth was fitted as</p><disp-formula><graphic xlink:href="e1.gif"/>
</disp-formula><p>with no lag.</p><p>All wards took part.</p>
<disp-formula><graphic xlink:href="e2.gif"/></disp-formula></sec></body></article>""").encode()
    assert [block.text for block in parse_jats(article).blocks] == [
        "Cells were kept in 5 mmol L^\u22121 of [Fe(CN)_6]^(3\u2212/4\u2212) at T_g \u2212 5.",
        "Growth was fitted as [formula] with no lag.",
        "All wards took part."]  # an image alone after a whole sentence says nothing
