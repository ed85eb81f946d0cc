"""BibTeX, RIS and CSL-JSON exports, each read back by a parser that is not the one that wrote it.

BibTeX is parsed by pybtex (and by bibtexparser) and its LaTeX decoded by pylatexenc's LaTeX
reader; RIS by a line reader written here from the RIS specification (and by rispy); CSL-JSON is
checked against a JSON Schema written here from the CSL-JSON 1.0.2 field rules.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import bibtexparser
import jsonschema
import pytest
import rispy
from bibtexparser.bparser import BibTexParser
from pybtex import format_from_string
from pybtex.database import parse_string
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

from scholargraph.agents.schemas import Finding
from scholargraph.exports import bibtex, csljson, ris
from scholargraph.exports.citation import citation_keys, format_reference, parse_name
from scholargraph.exports.styles import format_references
from scholargraph.records import Material, Work
from scholargraph.report import Reference, Report
from scholargraph.sources.arxiv import ArxivAgent
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.openalex import OpenAlexAgent
from scholargraph.sources.pubmed import PubMedAgent
from scholargraph.testing import ReplayServer


def sample_works() -> list[Work]:
    """Works that exercise every branch: types, identifiers, awkward names and titles."""
    return [
        Work(
            title="CRISPR-Cas9 screens of DNA repair & 50% \"yield\" in MoS2_x: $5 #1 ~ ^ \\ <b>",
            authors=["Müller, Jürgen", "O'Neil, Élodie", "Łukasz Dvořák", "Smith JA",
                     "Ludwig van Beethoven", "Nguyễn, Văn Ân"],
            year=2021, venue="Nature Genetics & Genomics", doi="10.1038/S41588-021-00001-X",
            pmid="34567890", pmcid="PMC8000001", abstract="We screened {n} cells; 40% died.",
            sources=["pubmed", "openalex"], is_retracted=True,
        ),
        Work(
            title="Attention is all you need", authors=["Ashish Vaswani", "Noam Shazeer"],
            year=2017, venue="arXiv", arxiv_id="arXiv:1706.03762v5", kind="preprint",
            abstract="The dominant sequence transduction models...", sources=["arxiv"],
        ),
        Work(title="How to grow silicon crystals", url="https://example.org/grow si?x=1&y=%20",
             venue="example.org", kind="web", sources=["web"]),
        Material(material_id="mp-149", formula="Si", band_gap_ev=0.61, is_stable=True).as_work(),
        Work(title="An unbalanced {brace and } } in a title", kind="other"),
        Work(title="Deep learning for proteins", authors=["Smith, Anna"], year=2020,
             venue="Bioinformatics", doi="10.1093/bioinformatics/btaa001"),
        Work(title="Deep learning for proteins, revisited", authors=["Smith, Bob"], year=2020,
             venue="Bioinformatics", doi="10.1093/bioinformatics/btaa002"),
        Work(title="Food safety report", authors=["Food and Drug Administration"], year=2019,
             venue="FDA Reports"),
    ]


def _latex_reader() -> LatexNodes2Text:
    """pylatexenc's LaTeX-to-text reader, taught the text-mode symbol macros of the LaTeX
    kernel it does not know (so the check does not depend on our own table)."""
    context = get_default_latex_context_db().filter_context()
    context.add_context_category("kernel-text-symbols", prepend=True, macros=[
        MacroTextSpec("textbraceleft", "{"), MacroTextSpec("textbraceright", "}"),
        MacroTextSpec("textasciicircum", "^"), MacroTextSpec("textless", "<"),
        MacroTextSpec("textgreater", ">"),
    ])
    return LatexNodes2Text(latex_context=context)


def _text(reader: LatexNodes2Text, latex: str) -> str:
    return re.sub(r"\s+", " ", reader.latex_to_text(latex)).strip()


def _as_latex_reads(title: str) -> str:
    """arXiv authors write '--' for an en dash, and LaTeX typesets it as one: that is the
    reading the export keeps, so the comparison does too."""
    return title.replace("---", "\u2014").replace("--", "\u2013")


# ---------------------------------------------------------------- citation keys


def test_keys_are_stable_unique_and_readable() -> None:
    works = sample_works()
    keys = citation_keys(works)
    assert keys == citation_keys(sample_works())
    assert len(set(keys)) == len(keys)
    assert all(re.fullmatch(r"[a-z][a-z0-9]*", key) for key in keys)
    assert keys[0] == "muller2021crispr"
    assert keys[1] == "vaswani2017attention"
    assert keys[3] == "mp149"
    assert keys[5:7] == ["smith2020deep", "smith2020deepb"]


def test_keys_spell_letters_without_a_decomposition_as_reference_managers_do() -> None:
    works = [Work(title="Søvn og skiftarbeid", authors=["Ødegård, Søren"], year=2021),
             Work(title="Łódź cohort", authors=["Łukasz Dvořák"], year=2018),
             Work(title="Æther", authors=["Straße, Ann"], year=2001)]
    assert citation_keys(works) == ["odegard2021sovn", "dvorak2018lodz", "strasse2001aether"]


def test_suffixed_keys_never_take_another_works_key() -> None:
    works = [Work(title="Deep nets", authors=["Smith, A."], year=2020),
             Work(title="Deepa study", authors=["Smith, B."], year=2020),
             Work(title="Deep nets again", authors=["Smith, C."], year=2020)]
    assert citation_keys(works) == ["smith2020deep", "smith2020deepa", "smith2020deepb"]
    assert citation_keys([*works[::2], works[1]]) == ["smith2020deep", "smith2020deepb",
                                                      "smith2020deepa"]


def test_works_added_at_the_end_leave_the_earlier_keys_as_they_were() -> None:
    """An update appends its references after the review's: a key a manuscript already cites
    must not change when a work with the same author, year and first word arrives."""
    review = sample_works()[:6]
    updated = [*review, Work(title="Deep learning for ligands", authors=["Smith, Cy"],
                             year=2020, venue="Bioinformatics")]
    assert citation_keys(updated)[:6] == citation_keys(review)
    assert citation_keys(review)[5] == "smith2020deep"
    assert citation_keys(updated)[6] == "smith2020deepb"


def test_names_are_split_the_way_citation_formats_want() -> None:
    assert parse_name("Müller, Jürgen").family == "Müller"
    assert parse_name("Ludwig van Beethoven").family == "van Beethoven"
    assert parse_name("Smith JA").given == "J. A."
    assert parse_name("Jean-Pierre Dupont").initials == "J.-P."
    assert parse_name("Materials Project").literal == "Materials Project"
    assert parse_name("Food and Drug Administration").literal == "Food and Drug Administration"


# ---------------------------------------------------------------- BibTeX


def test_bibtex_reads_back_with_pybtex() -> None:
    works = sample_works()
    database = parse_string(bibtex.dumps(works), "bibtex")
    reader = _latex_reader()
    assert list(database.entries) == citation_keys(works)
    for work, entry in zip(works, database.entries.values()):
        assert _text(reader, entry.fields["title"]) == work.title
        assert entry.fields.get("year") == (str(work.year) if work.year else None)
        assert entry.fields.get("doi") == work.doi
        people = entry.persons.get("author", [])
        assert len(people) == len(work.authors)
        for person, name in zip(people, work.authors):
            expected = parse_name(name)
            family = " ".join(person.prelast_names + person.last_names)
            assert _text(reader, family) == (expected.family or expected.literal)


def test_bibtex_reads_back_with_bibtexparser() -> None:
    """bibtexparser 1.x splits author lists on ' and ' without minding braces, so the author
    counts are checked with pybtex above, not here."""
    works = sample_works()
    parser = BibTexParser(common_strings=False)
    database = bibtexparser.loads(bibtex.dumps(works), parser)
    reader = _latex_reader()
    assert [entry["ID"] for entry in database.entries] == citation_keys(works)
    for work, entry in zip(works, database.entries):
        assert _text(reader, entry["title"]) == work.title
        assert entry.get("year") == (str(work.year) if work.year else None)
        assert entry.get("doi") == work.doi


def test_bibtex_entry_types_and_identifier_fields() -> None:
    entries = parse_string(bibtex.dumps(sample_works()), "bibtex").entries
    article = entries["muller2021crispr"]
    assert article.type == "article"
    assert article.fields["journal"] == r"Nature Genetics \& Genomics"
    assert article.fields["pmid"] == "34567890"
    assert article.fields["pmcid"] == "PMC8000001"
    assert article.fields["doi"] == "10.1038/s41588-021-00001-x"
    assert article.fields["note"] == "Retracted"
    preprint = entries["vaswani2017attention"]
    assert preprint.type == "misc"
    assert preprint.fields["eprint"] == "1706.03762"
    assert preprint.fields["archiveprefix"] == "arXiv"
    web = entries["grow"]
    assert web.type == "misc"
    assert web.fields["url"] == "https://example.org/grow%20si?x=1&y=%20"
    material = entries["mp149"]
    assert material.type == "misc"
    assert material.fields["url"].endswith("/materials/mp-149")
    assert str(material.persons["author"][0]) == "{Materials Project}"


def test_bibtex_escapes_latex_specials_and_protects_case() -> None:
    text = bibtex.dumps(sample_works()[:1])
    title = re.search(r"^  title = \{(.*)\},$", text, re.MULTILINE).group(1)
    for raw in ("&", "%", "$", "#", "_"):
        assert f"\\{raw}" in title
    assert r"\textasciitilde{}" in title and r"\textasciicircum{}" in title
    assert r"\textbackslash{}" in title
    assert "{CRISPR-Cas9}" in title and "{DNA}" in title
    assert r"M{\"u}ller" in text
    assert "Nguyễn" in text  # no LaTeX spelling: kept as UTF-8


def test_bibtex_styles_keep_acronyms_formulas_and_organisations() -> None:
    """pybtex's unsrt style re-cases titles and formats names the way BibTeX's does."""
    formatted = format_from_string(bibtex.dumps(sample_works()), style="unsrt",
                                   output_backend="text").splitlines()
    assert "CRISPR-Cas9 screens of DNA repair" in formatted[0]
    assert "MoS2" in formatted[0] and "Ludwig van Beethoven" in formatted[0]
    assert "Materials Project entry mp-149: Si." in formatted[3]
    assert formatted[7].startswith("[8] Food and Drug Administration. Food safety report.")


def test_bibtex_keeps_unbalanced_braces_out_of_the_syntax() -> None:
    work = sample_works()[4]
    entry = parse_string(bibtex.dumps([work]), "bibtex").entries["unbalanced"]
    assert r"\textbraceleft{}" in entry.fields["title"]
    assert _text(_latex_reader(), entry.fields["title"]) == work.title


# ---------------------------------------------------------------- RIS


def read_ris(text: str) -> list[dict[str, list[str]]]:
    """A reader written from the RIS specification: 'XX  - value' lines, TY opens, ER closes."""
    records: list[dict[str, list[str]]] = []
    current: dict[str, list[str]] | None = None
    for line in text.splitlines():
        if not line.strip():
            continue
        match = re.fullmatch(r"([A-Z][A-Z0-9])  - ?(.*)", line)
        assert match, f"not an RIS line: {line!r}"
        tag, value = match.groups()
        if tag == "TY":
            assert current is None, "TY before the previous ER"
            current = {}
        assert current is not None, f"{tag} outside a record"
        if tag == "ER":
            records.append(current)
            current = None
            continue
        current.setdefault(tag, []).append(value)
    assert current is None, "last record has no ER"
    return records


def test_ris_reads_back_with_a_spec_reader() -> None:
    works = sample_works()
    records = read_ris(ris.dumps(works))
    assert len(records) == len(works)
    assert [record["TY"] for record in records[:5]] == [
        ["JOUR"], ["UNPB"], ["ELEC"], ["DATA"], ["GEN"]]
    for work, key, record in zip(works, citation_keys(works), records):
        assert record["ID"] == [key]
        assert record["TI"] == [work.title]
        assert record.get("AU", []) == [parse_name(name).inverted for name in work.authors]
        assert record.get("PY") == ([str(work.year)] if work.year else None)
        assert record.get("DO") == ([work.doi] if work.doi else None)
    assert records[0]["AN"] == ["34567890"]
    assert "RETRACTED" in records[0]["N1"]
    assert records[0]["T2"] == ["Nature Genetics & Genomics"]
    assert records[1]["UR"] == ["https://arxiv.org/abs/1706.03762"]


def test_ris_reads_back_with_rispy() -> None:
    works = sample_works()
    records = rispy.loads(ris.dumps(works))
    assert [record["title"] for record in records] == [work.title for work in works]
    assert [len(record.get("authors", [])) for record in records] == [
        len(work.authors) for work in works]


# ---------------------------------------------------------------- CSL-JSON

_NAME = {"type": "object", "additionalProperties": False, "properties": {
    "family": {"type": "string", "minLength": 1}, "given": {"type": "string"},
    "literal": {"type": "string", "minLength": 1}},
    "oneOf": [{"required": ["family"]}, {"required": ["literal"]}]}
_DATE = {"type": "object", "required": ["date-parts"], "properties": {"date-parts": {
    "type": "array", "minItems": 1, "maxItems": 2, "items": {
        "type": "array", "minItems": 1, "maxItems": 3, "items": {"type": "integer"}}}}}
CSL_ITEM_RULES = {
    "type": "object",
    "required": ["id", "type"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "type": {"enum": ["article", "article-journal", "chapter", "book", "webpage", "dataset",
                          "document"]},
        "title": {"type": "string"},
        "author": {"type": "array", "items": _NAME},
        "issued": _DATE,
        "container-title": {"type": "string"},
        "publisher": {"type": "string"},
        "number": {"type": "string"},
        "volume": {"type": "string", "minLength": 1},
        "issue": {"type": "string", "minLength": 1},
        "page": {"type": "string",
                 "pattern": "^[A-Za-z]?[0-9]+[A-Za-z]?(-[A-Za-z]?[0-9]+[A-Za-z]?)?$"},
        "DOI": {"type": "string", "pattern": "^10\\."},
        "PMID": {"type": "string", "pattern": "^[0-9]+$"},
        "PMCID": {"type": "string", "pattern": "^PMC[0-9]+$"},
        "URL": {"type": "string", "pattern": "^https?://"},
        "abstract": {"type": "string"},
        "note": {"type": "string"},
    },
}


def test_csl_items_follow_the_field_rules_and_share_the_keys() -> None:
    works = sample_works()
    items = json.loads(json.dumps(csljson.to_csl(works)))
    jsonschema.validate(items, {"type": "array", "items": CSL_ITEM_RULES})
    assert [item["id"] for item in items] == citation_keys(works)
    assert [item["type"] for item in items[:5]] == [
        "article-journal", "article", "webpage", "dataset", "document"]
    for work, item in zip(works, items):
        assert item["title"] == work.title
        assert len(item.get("author", [])) == len(work.authors)
        assert item.get("DOI") == work.doi
        assert item.get("issued", {}).get("date-parts") == ([[work.year]] if work.year else None)
    first = items[0]
    assert first["author"][0] == {"family": "Müller", "given": "Jürgen"}
    assert first["container-title"] == "Nature Genetics & Genomics"
    assert first["PMID"] == "34567890" and first["note"] == "Retracted"
    assert items[1]["number"] == "arXiv:1706.03762"
    assert items[3]["author"] == [{"literal": "Materials Project"}]


# ---------------------------------------------------------------- Report.write


def test_report_writes_the_five_files_with_the_same_works(tmp_path: Path) -> None:
    works = sample_works()
    report = Report(question="Does it work?", papers=works,
                    references=[Reference(number=n, work_id=w.id)
                                for n, w in enumerate(works[:3], start=1)])
    paths = report.write(tmp_path / "out")
    assert sorted(paths) == sorted(["review.md", "review.json", "references.bib",
                                    "references.ris", "references.csl.json", "review.html",
                                    "prisma.svg", "years.svg", "screening.csv"])
    titles = [work.title for work in works[:3]]
    bib = parse_string(paths["references.bib"].read_text(encoding="utf-8"), "bibtex")
    reader = _latex_reader()
    assert [_text(reader, e.fields["title"]) for e in bib.entries.values()] == titles
    assert [r["TI"][0] for r in read_ris(paths["references.ris"].read_text("utf-8"))] == titles
    csl = json.loads(paths["references.csl.json"].read_text(encoding="utf-8"))
    assert [item["title"] for item in csl] == titles
    review = json.loads(paths["review.json"].read_text(encoding="utf-8"))
    cited = {ref["work_id"] for ref in review["references"]}
    assert [paper["title"] for paper in review["papers"] if paper["id"] in cited] == titles


def test_recorded_records_from_the_real_clients_survive_every_export(
        replay: ReplayServer) -> None:
    """Real titles and names (PubMed, arXiv, OpenAlex recordings, fetched by the real clients
    over HTTP from the replay server) round-trip through all three formats."""
    works: list[Work] = []
    for agent, query in ((PubMedAgent(), "the"), (ArxivAgent(), "testing"),
                         (OpenAlexAgent(), "the")):
        works += agent.search(SearchRequest(query=query, limit=100)).works
    assert len(works) > 100
    keys = citation_keys(works)
    assert len(set(keys)) == len(keys)
    reader = _latex_reader()
    entries = parse_string(bibtex.dumps(works), "bibtex").entries
    assert list(entries) == keys
    for work, entry in zip(works, entries.values()):
        assert _text(reader, entry.fields["title"]) == _as_latex_reads(work.title)
        assert len(entry.persons.get("author", [])) == len(work.authors)
        assert entry.fields.get("doi") == work.doi
    records = read_ris(ris.dumps(works))
    assert [record["TI"] for record in records] == [[work.title] for work in works]
    assert [len(record.get("AU", [])) for record in records] == [len(w.authors) for w in works]
    items = csljson.to_csl(works)
    jsonschema.validate(items, {"type": "array", "items": CSL_ITEM_RULES})
    assert [item["id"] for item in items] == keys


# ---------------------------------------------------------------- volume, issue, pages


def placed_works() -> list[Work]:
    """Journal articles with the places a library export gives: a range, MEDLINE's abbreviated
    range, an en-dash range, an article number, and none."""
    return [
        Work(title="Tau spreading in the entorhinal cortex", authors=["de la Cruz, María"],
             year=2019, venue="Acta Neuropathologica", volume="137", issue="3",
             pages="401-19"),
        Work(title="Sleep and memory", authors=["Okafor, Ada"], year=2021,
             venue="Journal of Sleep", volume="44", pages="23\u201335"),
        Work(title="A cohort of nurses", authors=["Lind, Per"], year=2016, venue="PLoS ONE",
             volume="11", issue="4", pages="e0152831"),
        Work(title="No place given", authors=["Roy, Ann"], year=2020, venue="Cell"),
    ]


def test_volume_issue_and_pages_reach_every_export() -> None:
    """A library review's works carry volume, issue and pages; a reference manager needs them
    to format the citation and a reader to find the article, so each format writes them in
    its own fields (MEDLINE's '401-19' written out as 401-419)."""
    works = placed_works()
    entries = list(parse_string(bibtex.dumps(works), "bibtex").entries.values())
    assert [(e.fields.get("volume"), e.fields.get("number"), e.fields.get("pages"))
            for e in entries] == [("137", "3", "401--419"), ("44", None, "23--35"),
                                  ("11", "4", "e0152831"), (None, None, None)]
    records = read_ris(ris.dumps(works))
    assert [(r.get("VL"), r.get("IS"), r.get("SP"), r.get("EP")) for r in records] == [
        (["137"], ["3"], ["401"], ["419"]), (["44"], None, ["23"], ["35"]),
        (["11"], ["4"], ["e0152831"], None), (None, None, None, None)]
    assert rispy.loads(ris.dumps(works))[0]["end_page"] == "419"
    items = csljson.to_csl(works)
    jsonschema.validate(items, {"type": "array", "items": CSL_ITEM_RULES})
    assert [(i.get("volume"), i.get("issue"), i.get("page")) for i in items] == [
        ("137", "3", "401-419"), ("44", None, "23-35"), ("11", "4", "e0152831"),
        (None, None, None)]


def test_the_apa_reference_says_where_in_the_journal_the_article_is() -> None:
    works = placed_works()
    assert format_reference(works[0]) == ("de la Cruz, M. (2019). Tau spreading in the "
                                          "entorhinal cortex. Acta Neuropathologica, 137(3), "
                                          "401\u2013419.")
    assert "PLoS ONE, 11(4), e0152831." in format_reference(works[2])
    assert format_reference(works[3]).endswith("Cell.")
    assert format_references(works[:2], "ieee")[1] == (
        "A. Okafor, \u201cSleep and memory\u201d, Journal of Sleep, vol. 44, pp. 23\u201335, 2021.")


# ---------------------------------------------------------------- citations resolve


def test_each_citation_of_the_review_resolves_to_one_entry_of_each_export(
        tmp_path: Path) -> None:
    """A scientist citing [2] of review.md in a manuscript must find that work in the file
    their reference manager imported: each reference of review.md and review.json names the
    key its work has in references.bib, references.ris (ID) and references.csl.json (id),
    including the suffixed keys of two works that share author, year and first word."""
    works = sample_works()
    cited = [works[5], works[0], works[6]]  # smith2020deep, muller2021crispr, smith2020deepb
    report = Report(question="Does it work?", papers=works,
                    references=[Reference(number=n, work_id=w.id)
                                for n, w in enumerate(cited, start=1)],
                    findings=[Finding(text="Deep nets fold proteins.", passage_ids=[],
                                      citations=[1, 3]),
                              Finding(text="Screens find repair genes.", passage_ids=[],
                                      citations=[2])])
    paths = report.write(tmp_path)
    review = json.loads(paths["review.json"].read_text(encoding="utf-8"))
    keys = {ref["number"]: ref["key"] for ref in review["references"]}
    assert keys == {1: "smith2020deep", 2: "muller2021crispr", 3: "smith2020deepb"}
    titles = {ref["number"]: next(p["title"] for p in review["papers"]
                                  if p["id"] == ref["work_id"]) for ref in review["references"]}
    bib = {key: entry.fields["title"] for key, entry in parse_string(
        paths["references.bib"].read_text(encoding="utf-8"), "bibtex").entries.items()}
    records = {r["ID"][0]: r["TI"][0] for r in read_ris(paths["references.ris"].read_text("utf-8"))}
    csl = json.loads(paths["references.csl.json"].read_text("utf-8"))
    items = {item["id"]: item["title"] for item in csl}
    reader = _latex_reader()
    markdown = paths["review.md"].read_text(encoding="utf-8")
    body = markdown.split("## References")[0]
    cited_numbers = {int(number) for group in re.findall(r"\[(\d+(?:, \d+)*)\]", body)
                     for number in group.split(", ")}
    assert cited_numbers == {1, 2, 3}
    for number in cited_numbers:
        key = keys[number]
        assert records[key] == items[key] == titles[number]
        assert _text(reader, bib[key]) == titles[number]
        assert re.search(rf"^{number}\. .*`{key}`$", markdown, re.MULTILINE)
    html_text = paths["review.html"].read_text(encoding="utf-8")
    assert re.search(r'<li id="ref-3">.*?<code class="key">smith2020deepb</code></li>', html_text)


@pytest.mark.parametrize("module", [bibtex, ris])
def test_no_works_give_an_empty_file(module: object) -> None:
    assert module.dumps([]).strip() == ""  # type: ignore[attr-defined]


def _as_sentence_case(title: str, abstract: str | None = None) -> str:
    """The title as pybtex's unsrt style prints it (lower case but the first letter, what the
    braces protect apart), from the BibTeX file written for it."""
    text = bibtex.dumps([Work(title=title, abstract=abstract, year=2021, venue="J Test",
                              authors=["Ada Lovelace"], publication_types=["journal-article"])])
    return format_from_string(text, style="unsrt", output_backend="text").split(". ")[1]


@pytest.mark.parametrize(("title", "abstract", "printed"), [
    # sentence case: every capital after the first word is the author's
    ("Bayesian inference of DNA methylation in COVID-19 patients treated in West Africa", None,
     "Bayesian inference of DNA methylation in COVID-19 patients treated in West Africa"),
    ("Thermal runaway of LiFePO4 cells under the Gaussian model of Arrhenius kinetics", None,
     "Thermal runaway of LiFePO4 cells under the Gaussian model of Arrhenius kinetics"),
    # Title Case: acronyms, formulas and possessive names kept; a name the abstract writes
    # capitalised inside its sentences kept; ordinary words lower-cased
    ("Deep Learning For Early Parkinson's Detection With Bayesian Priors And MRI",
     "We trained a network on MRI scans. Its weights had Bayesian priors, and the detection "
     "was early.",
     "Deep learning for early Parkinson's detection with Bayesian priors and MRI"),
    ("A Randomized Trial Of Metformin In Older Adults", "Metformin was given to adults.",
     "A randomized trial of metformin in older adults"),
    # one word left in lower case does not make a Title Case title sentence case
    ("Modelling The Structure Of Hospital Workflows using Petri Nets", None,
     "Modelling the structure of hospital workflows using petri nets"),
    # a subtitle's first capital is the title's, not a name's
    ("Cathode ageing: A review of lithium plating in Tesla packs", None,
     "Cathode ageing: a review of lithium plating in Tesla packs"),
])
def test_bibtex_titles_keep_the_capitals_of_names_and_acronyms(
        title: str, abstract: str | None, printed: str) -> None:
    """A style printing titles in sentence case lower-cases every letter BibTeX's braces do not
    protect: the capitals that are names (Bayesian, West Africa, Parkinson's) and acronyms
    (DNA, COVID-19, LiFePO4) must be braced, the others left to the style."""
    assert _as_sentence_case(title, abstract) == printed.removeprefix("[1] ")


def test_a_name_is_known_from_the_abstract_only_inside_its_sentences() -> None:
    """A capital opening a sentence says nothing; a word the abstract also writes in lower case
    is not a name."""
    prose = ("Gaussian processes were fitted. We compare a Gaussian kernel with Matern ones. "
             "Survival was longer; the Survival curves and survival tables agree.")
    assert bibtex.proper_words(prose) == {"gaussian", "matern"}


LIBRARY_BIB = r"""@article{fibrils,
  title = {Stability of $\alpha$-synuclein fibrils \& "quoted" aggregates in Parkinson's disease},
  author = {Smith, John and Doe, Jane}, journal = {J. Neurochem.}, year = {2020},
  abstract = {We measured the stability of alpha-synuclein fibrils in Parkinson's disease
              models and report their aggregation kinetics.}
}
"""
LIBRARY_TITLES = ['Synuclein & tau: "quoted" $\\beta$-sheet aggregation\nin Parkinson\'s disease',
                  "Alpha-synuclein aggregation, 50% faster at pH 5 ~ 6 #2 {seeded}"]


def test_titles_with_latex_and_special_characters_survive_the_review_files(
        tmp_path: Path) -> None:
    """A scientist's library titles holding LaTeX, '&', quotes and a line break: screening.csv,
    read back with the csv module, holds each title as the record has it (the line break is
    whitespace the record folds), nothing escaped; references.bib escapes its own way and reads
    back to the same title."""
    import csv

    from scholargraph import review

    library = tmp_path / "library"
    library.mkdir()
    (library / "fibrils.bib").write_text(LIBRARY_BIB, encoding="utf-8")
    with (library / "export.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Title", "Year", "Abstract"])
        for year, title in enumerate(LIBRARY_TITLES, 2019):
            writer.writerow([title, year, "Alpha-synuclein aggregation in Parkinson's disease "
                             "models, measured in seeded fibrils."])
    report = review("alpha-synuclein aggregation in Parkinson's disease", offline=True,
                    library=str(library), sources=["library"], out=tmp_path / "out")
    expected = {"Stability of α-synuclein fibrils & \"quoted\" aggregates in Parkinson's disease",
                *(" ".join(title.split()) for title in LIBRARY_TITLES)}
    assert {paper.title for paper in report.papers} == expected
    with (tmp_path / "out" / "screening.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {row["title"] for row in rows} == expected
    bib = parse_string((tmp_path / "out" / "references.bib").read_text("utf-8"), "bibtex")
    reader = _latex_reader()
    cited = {_text(reader, entry.fields["title"]) for entry in bib.entries.values()}
    assert cited and cited <= expected
