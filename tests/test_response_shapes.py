"""The shapes real services document and return, read through the project's own parsers: PubMed
efetch XML (MedlineDate, translated titles, NlmCategory, superscripts), OpenAlex titles with
inline markup, withdrawn arXiv entries, JATS marks and breaks, and PDFs whose running heads,
footnotes, captions and tables pypdf reads into the running text.

Records marked *invented* are written here to the services' documented formats (the PubMed DTD,
JATS 1.3, the arXiv Atom feed); the others are the recorded responses the project ships.
"""

from __future__ import annotations

import copy
import io
import json
import re

import pytest
from pypdf import PdfReader, PdfWriter
from pypdf import _encryption as pypdf_encryption
from pypdf._crypt_providers import _fallback as fallback

from scholargraph.errors import InputError
from scholargraph.fulltext.jats import parse_jats
from scholargraph.fulltext.pdf import parse_pdf
from scholargraph.settings import Settings
from scholargraph.sources.arxiv import ArxivAgent
from scholargraph.sources.markup import plain_inline, superscript
from scholargraph.sources.openalex import work_from_openalex
from scholargraph.sources.pubmed import works_from_efetch
from scholargraph.testing import ReplayServer, fixture_bytes
from scholargraph.testing.documents import OneFeed, text_pdf

# --- PubMed ---------------------------------------------------------------------------------

INVENTED_ARTICLE = """<PubmedArticle><MedlineCitation><PMID>{pmid}</PMID><Article>
<Journal><JournalIssue><PubDate>{date}</PubDate></JournalIssue><Title>Invented J</Title></Journal>
<ArticleTitle>{title}</ArticleTitle>{extra}</Article></MedlineCitation></PubmedArticle>"""


def efetch(**fields: str) -> list:
    """One invented PubMed article, read by the efetch reader."""
    values = {"pmid": "1", "date": "<Year>2001</Year>", "title": "T.", "extra": ""} | fields
    body = f"<PubmedArticleSet>{INVENTED_ARTICLE.format(**values)}</PubmedArticleSet>"
    return works_from_efetch(io.BytesIO(body.encode()))


@pytest.mark.parametrize(("date", "year"), [
    ("<MedlineDate>2019 Jan-Feb</MedlineDate>", 2019),
    ("<MedlineDate>1998 Dec-1999 Jan</MedlineDate>", 1998),
    ("<Year>2018</Year><Season>Winter</Season>", 2018),
])
def test_pubmed_dates_of_every_documented_shape_give_the_year(date: str, year: int) -> None:
    [work] = efetch(date=date)
    assert work.year == year


def test_a_translated_title_loses_medlines_brackets_and_a_bracketed_term_keeps_them() -> None:
    [translated] = efetch(title="[Effects of smoking on alveolar cells].",
                          extra="<VernacularTitle>Wirkung des Rauchens.</VernacularTitle>")
    [isotope] = efetch(title="[18F]FDG PET in lymphoma [a pilot study].")
    [untitled] = efetch(title="", extra="<VernacularTitle>Über Zellen.</VernacularTitle>")
    assert translated.title == "Effects of smoking on alveolar cells."
    assert isotope.title == "[18F]FDG PET in lymphoma [a pilot study]."
    assert untitled.title == "Über Zellen."
    [placeholder] = efetch(title="[Not Available].",
                           extra="<VernacularTitle>Sobre las células.</VernacularTitle>")
    assert placeholder.title == "Sobre las células."


def test_pubmed_superscripts_read_as_exponents_and_markup_as_text() -> None:
    [work] = efetch(
        title="CO<sub>2</sub> uptake in <i>E. coli</i> at 10<sup>-3</sup> M",
        extra="<Abstract><AbstractText Label='RESULTS' NlmCategory='RESULTS'>Doses of 10<sup>7"
              "</sup> CFU cut the rate to 5 s<sup>\u22121</sup>; Ni<sup>2+</sup> did not."
              "</AbstractText><AbstractText NlmCategory='CONCLUSIONS'>It works.</AbstractText>"
              "<AbstractText NlmCategory='UNASSIGNED'>Trial 7.</AbstractText></Abstract>")
    assert work.title == "CO2 uptake in E. coli at 10^-3 M"
    assert work.abstract == ("RESULTS: Doses of 10^7 CFU cut the rate to 5 s^\u22121; Ni2+ did "
                             "not. CONCLUSIONS: It works. Trial 7.")


def test_pubmed_group_authors_and_an_elocation_doi() -> None:
    [work] = efetch(extra="<ELocationID EIdType='pii'>S0001</ELocationID><ELocationID "
                          "EIdType='doi' ValidYN='Y'>10.1000/Invented.7</ELocationID><AuthorList>"
                          "<Author><CollectiveName>The Invented Study Group</CollectiveName>"
                          "</Author><Author><LastName>Doe</LastName><Initials>J</Initials></Author>"
                          "</AuthorList>")
    assert work.doi == "10.1000/invented.7"
    assert work.authors == ["The Invented Study Group", "Doe, J"]


def test_inline_markup_rule() -> None:
    assert plain_inline("TiO<sub>2</sub> at 10<sup>6</sup> K") == "TiO2 at 10^6 K"
    assert plain_inline("<p>Block tags</p> stay") == "<p>Block tags</p> stay"
    assert superscript("10", "7") == "^7"
    assert superscript("mM", "\u22121") == "^\u22121"
    assert superscript("Ni", "2+") == "2+"
    assert superscript("cells", "12") == "12"


# --- OpenAlex -------------------------------------------------------------------------------

def peneira_work() -> dict:
    return json.loads(fixture_bytes("openalex/peneira_works.json"))["results"][0]


@pytest.mark.parametrize(("title", "read"), [
    ("Synthesis of TiO<sub>2</sub> films in <i>Escherichia coli</i>",
     "Synthesis of TiO2 films in Escherichia coli"),
    ("Doses of 10<sup>\u22123</sup> M", "Doses of 10^\u22123 M"),
    ("&lt;i&gt;Online&lt;/i&gt; CO&lt;sub&gt;2&lt;/sub&gt; levels", "Online CO2 levels"),
    ("p < 0.05 in the &lt;script&gt; tag", "p < 0.05 in the <script> tag"),
])
def test_openalex_titles_with_inline_markup(title: str, read: str) -> None:
    """Edited from a recorded work: its title as Crossref's markup reaches OpenAlex."""
    assert work_from_openalex({**peneira_work(), "title": title}).title == read


def test_an_openalex_abstract_keeps_its_exponents() -> None:
    item = copy.deepcopy(peneira_work())
    item["abstract_inverted_index"] = {"We": [0], "gave": [1], "10<sup>7</sup>": [2],
                                       "cells.": [3]}
    assert work_from_openalex(item).abstract == "We gave 10^7 cells."


# --- arXiv ----------------------------------------------------------------------------------




def _lookup(body: bytes) -> list:
    with ReplayServer([OneFeed(body)]) as server, server.environment():
        return ArxivAgent(Settings()).lookup(["1605.08386"])


RECORDED_FEED = "arxiv/id_1605.08386_s0_m100_199195aa31ad.atom.xml"


def test_a_recorded_entry_is_not_withdrawn() -> None:
    [work] = _lookup(fixture_bytes(RECORDED_FEED))
    assert not work.is_retracted and work.notices == []


@pytest.mark.parametrize("comment", [
    "This paper has been withdrawn by the author due to a crucial error in Lemma 2",
    "Withdrawn.",
    "The submission was withdrawn by arXiv administrators",
])
def test_a_withdrawn_arxiv_entry_is_flagged(comment: str) -> None:
    """Edited from the recorded feed: its comment replaced by a withdrawal's, as arXiv shows
    the reason a withdrawn version gives."""
    body = fixture_bytes(RECORDED_FEED).replace(
        b"<arxiv:comment>20 pages, 3 figures</arxiv:comment>",
        f"<arxiv:comment>{comment}</arxiv:comment>".encode())
    [work] = _lookup(body)
    assert work.is_retracted
    assert work.notices == [f"Withdrawn on arXiv: {comment.split('. ')[0]}"]


def test_a_paper_about_a_withdrawn_drug_is_not_withdrawn() -> None:
    body = fixture_bytes(RECORDED_FEED).replace(
        b"Graphs on lattice points", b"The drug was withdrawn from the market. Graphs on lattice")
    [work] = _lookup(body)
    assert not work.is_retracted


# --- JATS -----------------------------------------------------------------------------------

INVENTED_JATS = b"""<article xmlns:mml="http://www.w3.org/1998/Math/MathML"><front><article-meta>
<title-group><article-title>An invented trial<xref ref-type="fn" rid="fn1">*</xref>
</article-title></title-group>
<abstract abstract-type="graphical"><p>Graphical abstract.</p></abstract>
<abstract><p>The real abstract.</p></abstract>
<trans-abstract xml:lang="fr"><p>Le resume.</p></trans-abstract>
<pub-date><year>2020</year></pub-date></article-meta></front>
<body><sec><title>Results</title>
<p>Mice given 10<sup>7</sup> CFU lived longer than controls<sup><xref ref-type="bibr"
rid="b1">1</xref>,<xref ref-type="bibr" rid="b2">2</xref></sup>, as in 2010<xref ref-type="bibr"
rid="b3"><sup>3</sup></xref> and before [<xref ref-type="bibr" rid="b4">4</xref>].</p>
<p>Survival rose<xref ref-type="fn" rid="fn2">a</xref> with dose<break/>in every group.</p>
<disp-formula><label>(1)</label><mml:math><mml:mi>y</mml:mi></mml:math></disp-formula>
<sec><p>An untitled subsection.</p></sec>
</sec></body>
<sub-article article-type="reply"><body><p>We thank the reviewer.</p></body></sub-article>
</article>"""


def test_jats_marks_exponents_and_breaks_read_as_a_scientist_reads_them() -> None:
    """Invented JATS 1.3: a raised citation or footnote mark is no part of a sentence, an
    exponent is one, and the reviewers' sub-article is not the paper's text."""
    document = parse_jats(INVENTED_JATS)
    assert document.title == "An invented trial"
    assert document.abstract == "The real abstract."
    assert [(block.section, block.text) for block in document.blocks] == [
        ("Results", "Mice given 10^7 CFU lived longer than controls, as in 2010 and before "
                    "[4]."),
        ("Results", "Survival rose with dose in every group."),
        ("Results", "y (1)"),  # a display formula after a whole sentence: a block of its own
        ("Results", "An untitled subsection."),
    ]


def test_a_recorded_pmc_article_states_its_doses_as_powers_of_ten() -> None:
    """The recorded mBio article (PMC10653940) gives its doses as 10<sup>7</sup> CFU."""
    text = " ".join(b.text for b in parse_jats(
        fixture_bytes("fulltext/pmc/pubmed-client_oai_PMC10653940.xml")).blocks)
    assert "10^7, 10^8, and 10^9" in text
    assert not re.search(r"\b10[789] CFU", text)


# --- PDF ------------------------------------------------------------------------------------

RECORDED_PDF = "fulltext/publisher/s2orc-doc2json_N18-3011.pdf"


def test_a_recorded_pdfs_footnotes_tables_and_captions_leave_its_paragraphs() -> None:
    """The recorded ACL paper: its page 4 ran a table, its caption and three footnotes into the
    text of section 4.1."""
    document = parse_pdf(fixture_bytes(RECORDED_PDF))
    paragraphs = " ".join(b.text for b in document.blocks if b.kind == "paragraph")
    for left_out in ("Due to space constraints", "We also experimented with a",
                     "91.5 1990", "Table 2: Document-level", "tagme-help"):
        assert left_out not in paragraphs
    assert "disambiguate the mentions. III." in paragraphs  # the mark 'mentions.4' dropped
    captions = [b.text for b in document.blocks if b.kind == "caption"]
    assert any(c.startswith("Table 2: Document-level evaluation of three approaches") and
               c.endswith("biomedical (Bio).") for c in captions)
    tables = [b for b in document.blocks if b.kind == "table"]
    assert any("Hybrid 91.5 1990 92.1 3126" in b.text and b.page == 4 for b in tables)





TITLE = "Invented Effects of Light on Plant Growth"


def test_running_heads_and_the_title_on_every_page_are_not_text() -> None:
    """Invented: the title heads the odd pages, the authors and the journal the even ones, and
    a sentence runs from one page to the next under them."""
    pages = [
        [TITLE, "Abstract", "Light changes growth.", "1 Introduction", "Plants were grown"],
        ["Rossi et al.", "Invented Journal of Botany 12 (2020)", "under red light for", "2 Results",
         "Growth rose by a third"],
        [TITLE, "Invented Journal of Botany 12 (2020)", "in every one of the plots", "and",
         "the rate was 0.5 mm per day.5", "5Measured with a ruler."],
        ["Rossi et al.", "Invented Journal of Botany 12 (2020)", "as before."],
    ]
    document = parse_pdf(text_pdf(pages, TITLE))
    text = " ".join(b.text for b in document.blocks if b.kind == "paragraph")
    assert "Plants were grown under red light for" in text
    assert "Growth rose by a third in every one of the plots and the rate was 0.5 mm per day. " \
        "as before." in text
    assert "Rossi" not in text and "Journal" not in text and "Invented Effects" not in text
    assert "ruler" not in text


def test_a_caption_and_a_table_in_a_pdf_are_their_own_blocks() -> None:
    """Invented: a table with its header, then its caption, then the text goes on."""
    lines = ["1 Results", "Yields are given below.", "Crop 2019 2020", "Wheat 3.1 3.4",
             "Maize 7.2 7.9", "Table 1: Yields in tonnes per hectare.", "Both crops gained.",
             "Table 1 shows the gain in both years."]
    document = parse_pdf(text_pdf([lines], "Invented yields of two crops"))
    blocks = [(b.kind, b.text) for b in document.blocks]
    assert blocks == [
        ("table", "Crop 2019 2020; Wheat 3.1 3.4; Maize 7.2 7.9"),
        ("caption", "Table 1: Yields in tonnes per hectare."),
        ("paragraph", "Yields are given below. Both crops gained. Table 1 shows the gain in "
                      "both years."),
    ]


def aes_locked(data: bytes) -> bytes:
    """``data`` encrypted as publishers lock a PDF: AES-256, an owner password, none to open."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password="", owner_password="invented-owner", algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


LOCKED_LINES = ["1 Results", "Both crops gained in the locked copy."]


def test_a_pdf_locked_without_a_password_is_read() -> None:
    document = parse_pdf(aes_locked(text_pdf([LOCKED_LINES], "Invented locked crops")))
    assert [b.text for b in document.blocks] == ["Both crops gained in the locked copy."]


def test_an_aes_pdf_without_the_cryptography_package_is_an_input_error(monkeypatch) -> None:
    """pypdf decrypts AES only through 'cryptography', which it does not require: without it,
    its own fallback raises a DependencyError, once a crash, now a reason to give the user."""
    locked = aes_locked(text_pdf([LOCKED_LINES], "Invented locked crops"))
    monkeypatch.setattr(pypdf_encryption, "aes_cbc_decrypt", fallback.aes_cbc_decrypt)
    monkeypatch.setattr(pypdf_encryption, "aes_ecb_decrypt", fallback.aes_ecb_decrypt)
    monkeypatch.setattr(pypdf_encryption, "CryptAES", fallback.CryptAES)
    with pytest.raises(InputError, match="cryptography"):
        parse_pdf(locked)


def test_an_english_other_abstract_stands_in_for_a_missing_abstract() -> None:
    """Invented: a record whose only abstracts are OtherAbstracts, one in English."""
    body = INVENTED_ARTICLE.format(pmid="3", date="<Year>2001</Year>", title="T.", extra="")
    body = body.replace("</Article>", "</Article><OtherAbstract Type='Publisher' Language='spa'>"
                        "<AbstractText>Resumen.</AbstractText></OtherAbstract><OtherAbstract "
                        "Type='Publisher' Language='eng'><AbstractText Label='AIM'>To test."
                        "</AbstractText></OtherAbstract>")
    [work] = works_from_efetch(io.BytesIO(f"<PubmedArticleSet>{body}</PubmedArticleSet>".encode()))
    assert work.abstract == "AIM: To test."


def test_an_inline_formula_among_alternatives_is_read_from_its_mathml() -> None:
    """Invented JATS: a dose as an inline formula in MathML beside its TeX and image copies,
    and a MathML power outside any alternatives."""
    article = (b'<article xmlns:mml="http://www.w3.org/1998/Math/MathML"><body><sec><title>'
               b"Results</title><p>Counts reached <inline-formula><alternatives><tex-math>"
               b"10^{7}</tex-math><mml:math><mml:msup><mml:mn>10</mml:mn><mml:mn>7</mml:mn>"
               b"</mml:msup></mml:math><inline-graphic/></alternatives></inline-formula> CFU "
               b"and <inline-formula><mml:math><mml:msup><mml:mi>x</mml:mi><mml:mn>2</mml:mn>"
               b"</mml:msup></mml:math></inline-formula> grew.</p></sec></body></article>")
    [block] = parse_jats(article).blocks
    assert block.text == "Counts reached 10^7 CFU and x^2 grew."


def test_a_sentence_running_over_a_page_is_read_whole_at_the_page_it_starts() -> None:
    """Invented: a sentence, and a word hyphenated across it, run from page 1 to page 2."""
    pages = [["Invented title of a two page paper", "1 Results", "Yields rose in the warm",
              "plots, and fol-"],
             ["lowed the rain. Cold plots did not change.", "2 Discussion", "Warmth helped."]]
    document = parse_pdf(text_pdf(pages, "Invented title of a two page paper"))
    assert [(b.page, b.section, b.text) for b in document.blocks] == [
        (1, "1 Results", "Yields rose in the warm plots, and followed the rain."),
        (2, "1 Results", "Cold plots did not change."),
        (2, "2 Discussion", "Warmth helped."),
    ]
