"""The fields of records in the reference files a scientist exports, beyond BibTeX, RIS and CSV.

- MEDLINE / ``.nbib`` (PubMed's "Send to: Citation manager" and "PubMed format"), read with
  Biopython's :mod:`Bio.Medline`;
- Web of Science "plain text" (tags ``FN``, ``PT``, ``TI``, ``SO``...; ``savedrecs.txt``), read
  with rispy's ``WokParser``;
- EndNote XML (``<xml><records><record>``), read with lxml;
- EndNote's tagged text (``.enw``: ``%0 Journal Article``, ``%T``, ``%A``...), the "EndNote"
  citation a publisher's page or Google Scholar downloads, read line by line.

Each reader gives one dict per record with the keyword arguments of a library work (``title``,
``authors``, ``year``, ``venue``, ``abstract``, ``doi``, ``pmid``, ``pmcid``, ``kind``,
``publication_types``), so that :mod:`scholargraph.sources.library` builds every format's works
the same way (this module imports nothing of it). :func:`sniff_text` and :func:`xml_kind` tell
the shapes apart by their content, as exporters save several of them as ``.txt`` or ``.xml``.
"""

from __future__ import annotations

import io
import re
from typing import Any, Literal

from lxml import etree

from scholargraph.identifiers import normalize_doi

Fields = dict[str, Any]
TextKind = Literal["ris", "medline", "wos", "enw"]
XmlKind = Literal["pubmed", "endnote", "jats"]

_MEDLINE_START = re.compile(r"^\s*PMID- ", re.MULTILINE)
_RIS_START = re.compile(r"^\s*TY  - ", re.MULTILINE)
_WOS_START = re.compile(r"^\s*(?:FN |PT [A-Z]\s*$)", re.MULTILINE)
_ENW_START = re.compile(r"^\s*%0 ", re.MULTILINE)


def sniff_text(text: str) -> TextKind | None:
    """Which tagged format ``text`` is, by the tag its records start with; None for none."""
    head = text.lstrip("\ufeff")[:20_000]
    starts = {kind: pattern.search(head) for kind, pattern in
              (("ris", _RIS_START), ("medline", _MEDLINE_START), ("wos", _WOS_START),
               ("enw", _ENW_START))}
    found = [(match.start(), kind) for kind, match in starts.items() if match]
    return min(found)[1] if found else None  # type: ignore[return-value]


def year_in(value: Any) -> int | None:
    """The first plausible publication year (1500-2099) a field's value names."""
    found = re.search(r"\b(1[5-9]\d\d|20\d\d)\b", str(value or ""))
    return int(found.group(1)) if found else None


def listed(value: Any) -> list[str]:
    """A field's values (one value or a list of them), each with its whitespace collapsed;
    empty ones left out."""
    if value is None:
        return []
    values = value if isinstance(value, list) else [value]
    return [" ".join(str(item).split()) for item in values if str(item).strip()]


# ---------------------------------------------------------------- MEDLINE (.nbib)


def medline_fields(text: str) -> list[Fields]:
    """Each MEDLINE record's fields: full author names (``FAU``, else ``AU``) and collective
    authors (``CN``), the DOI from ``LID``/``AID`` ('10.1/x [doi]'), a chapter's book title
    (``BTI``) as its venue, the publication types (``PT``)."""
    from Bio import Medline

    separated = _UNSEPARATED_PMID.sub("\n\nPMID- ", text)
    return [_medline_record(dict(record)) for record in Medline.parse(io.StringIO(separated))]


_UNSEPARATED_PMID = re.compile(r"(?<=\S)[ \t]*\n[ \t]*PMID- ")
"""A record's first line right under the previous record's last (no blank line between them,
as when records are pasted together): Biopython's reader would take the whole run for one
record, keeping the first record and losing the others."""


def _medline_record(record: dict[str, Any]) -> Fields:
    ids = listed(record.get("AID")) + listed(record.get("LID"))
    doi = next((normalize_doi(i) for i in ids if i.endswith("[doi]") and normalize_doi(i)), None)
    types = listed(record.get("PT"))
    book, chapter = " ".join(listed(record.get("BTI"))), " ".join(listed(record.get("TI")))
    is_book = bool(book) or "Book" in " ".join(types)
    return {
        "title": chapter or book,
        "authors": (listed(record.get("FAU")) or listed(record.get("AU")))
        + listed(record.get("CN")),
        "year": year_in(record.get("DP")),
        "venue": (book if chapter else " ".join(listed(record.get("PB")))) if is_book
        else " ".join(listed(record.get("JT")) or listed(record.get("TA"))),
        "abstract": " ".join(listed(record.get("AB"))),
        "doi": doi,
        "pmid": " ".join(listed(record.get("PMID"))),
        "pmcid": " ".join(listed(record.get("PMC"))),
        "kind": ("chapter" if chapter else "book") if is_book else None,
        "publication_types": types,
        "volume": " ".join(listed(record.get("VI"))),
        "issue": " ".join(listed(record.get("IP"))),
        "pages": " ".join(listed(record.get("PG"))),
    }


# ---------------------------------------------------------------- Web of Science plain text

WOS_KINDS = {"B": "book"}
"""Web of Science's ``PT`` publication types that are not journal articles (a chapter is a
``PT B`` record with a ``DT`` 'Book Chapter' or a series title)."""


def wos_fields(text: str) -> list[Fields]:
    """Each Web of Science record's fields: ``AF`` (full names) else ``AU``, ``SO`` the
    source, ``DI`` the DOI, ``PM`` the PMID, ``DT`` the document types."""
    import rispy

    return [_wos_record(entry) for entry in rispy.loads(text, implementation=rispy.WokParser)]


def _wos_record(entry: dict[str, Any]) -> Fields:
    types = listed(entry.get("document_type"))
    chapter = any("chapter" in kind.lower() for kind in types)
    return {
        "title": " ".join(listed(entry.get("document_title"))),
        "authors": listed(entry.get("author_full_name")) or listed(entry.get("authors")),
        "year": year_in(entry.get("publication_year") or entry.get("publication_date")),
        "venue": " ".join(listed(entry.get("publication_name"))),
        "abstract": " ".join(listed(entry.get("abstract"))),
        "doi": normalize_doi(" ".join(listed(entry.get("doi")))),
        "pmid": " ".join(listed(entry.get("pubmed_id"))),
        "kind": "chapter" if chapter else WOS_KINDS.get(str(entry.get("publication_type"))),
        "publication_types": types,
        "volume": " ".join(listed(entry.get("volume"))),
        "issue": " ".join(listed(entry.get("issue"))),
        "pages": "-".join(listed(entry.get("beginning_page")) + listed(entry.get("ending_page")))
        or " ".join(listed(entry.get("article_number"))),
    }


# ---------------------------------------------------------------- XML: which kind

def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True,
                           remove_comments=True, recover=True)


def parse_xml(data: bytes) -> etree._Element | None:
    """The root of ``data`` (entities never resolved, no DTD, no network); None when it holds
    no XML element."""
    try:
        return etree.fromstring(data, _parser())
    except etree.XMLSyntaxError:
        return None


PUBMED_ROOTS = ("PubmedArticleSet", "PubmedArticle", "PubmedBookArticleSet", "PubmedBookArticle")
JATS_ROOTS = ("article", "pmc-articleset", "OAI-PMH", "articles", "responseWrapper")


def xml_kind(root: etree._Element) -> XmlKind | None:
    """What an XML file's root says it is: PubMed records, an EndNote export or JATS."""
    tag = etree.QName(root).localname if isinstance(root.tag, str) else ""
    if tag in PUBMED_ROOTS:
        return "pubmed"
    if tag == "xml" and root.find("records") is not None or tag == "records":
        return "endnote"
    if tag in JATS_ROOTS or root.find(".//{*}article") is not None:
        return "jats"
    return None


# ---------------------------------------------------------------- EndNote XML

ENDNOTE_KINDS = {"book section": "chapter", "book": "book", "edited book": "book",
                 "electronic book": "book", "electronic book section": "chapter"}
"""EndNote reference types (``ref-type``'s name) that are a chapter or a whole book."""
ENDNOTE_VENUES = ("periodical/full-title", "titles/secondary-title", "alt-periodical/full-title",
                  "periodical/abbr-1")
"""Where EndNote puts the journal: its full title, else the secondary title, else others."""
PUBMED_PROVIDERS = re.compile(r"pubmed|medline|\bnlm\b", re.IGNORECASE)


def _text(element: etree._Element | None) -> str:
    """All the text of an element (EndNote wraps each value in ``<style>``), spaces folded."""
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def endnote_fields(root: etree._Element) -> list[Fields]:
    """Each EndNote XML record's fields."""
    records = root.iterfind(".//record")
    return [_endnote_record(record) for record in records]


def _endnote_record(record: etree._Element) -> Fields:
    kind = (record.find("ref-type").get("name", "") if record.find("ref-type") is not None
            else "").lower()
    provider = " ".join(_text(record.find(tag)) for tag in
                        ("remote-database-name", "remote-database-provider"))
    accession = _text(record.find("accession-num"))
    venue = next((_text(record.find(where)) for where in ENDNOTE_VENUES
                  if _text(record.find(where))), "")
    urls = [_text(url) for url in record.iterfind("urls//url")]
    doi = normalize_doi(_text(record.find("electronic-resource-num"))) \
        or next((normalize_doi(url) for url in urls if "doi.org/" in url), None)
    return {
        "title": _text(record.find("titles/title")),
        "authors": [_text(a) for a in record.iterfind("contributors/authors/author")],
        "year": year_in(_text(record.find("dates/year")) or _text(record.find("dates/pub-dates"))),
        "venue": venue or _text(record.find("publisher")),
        "abstract": _text(record.find("abstract")),
        "doi": doi,
        "pmid": accession if accession.isdigit() and PUBMED_PROVIDERS.search(provider) else None,
        "url": urls[0] if urls else None,
        "kind": ENDNOTE_KINDS.get(kind),
        "publication_types": [kind] if kind else [],
        "volume": _text(record.find("volume")),
        "issue": _text(record.find("number")),
        "pages": _text(record.find("pages")),
    }


# ---------------------------------------------------------------- EndNote tagged text (.enw)

_ENW_TAG = re.compile(r"^%([0-9A-Z@!#$&()*+^\[\]=~>|])(?: (.*))?$")
"""One line of EndNote's tagged format: ``%`` and one character, a space, the value."""
ENW_KINDS = {"book section": "chapter", "electronic book section": "chapter", "book": "book",
             "edited book": "book", "electronic book": "book"}
"""EndNote reference types (``%0``) that are a chapter or a whole book."""


def enw_fields(text: str) -> list[Fields]:
    """Each record of an EndNote tagged file: a record starts at ``%0`` (its type); a line
    without a tag continues the value above it (a long abstract wrapped)."""
    records: list[dict[str, list[str]]] = []
    last: list[str] | None = None
    for line in text.splitlines():
        found = _ENW_TAG.match(line.rstrip())
        if found is None:
            if last is not None and line.strip():
                last[-1] = f"{last[-1]} {line.strip()}"
            continue
        tag, value = found.group(1), (found.group(2) or "").strip()
        if tag == "0" or not records:
            records.append({})
        last = records[-1].setdefault(tag, [])
        last.append(value)
    return [_enw_record(record) for record in records]


def _enw_record(record: dict[str, list[str]]) -> Fields:
    def one(tag: str) -> str:
        return " ".join(value for value in record.get(tag, []) if value)

    kind = one("0").lower()
    chapter_of = one("B") if "section" in kind else ""
    dois = [normalize_doi(value) for value in record.get("R", []) + record.get("U", [])]
    accession, provider = one("M"), one("~") + " " + one("W")
    return {
        "title": one("T"),
        "authors": listed(record.get("A")),
        "year": year_in(one("D")) or year_in(one("8")),
        "venue": one("J") or chapter_of or one("B") or (one("I") if "book" in kind else ""),
        "abstract": one("X"),
        "doi": next((doi for doi in dois if doi), None),
        "pmid": accession if accession.isdigit() and PUBMED_PROVIDERS.search(provider) else None,
        "url": next(iter(record.get("U", [])), None),
        "kind": ENW_KINDS.get(kind),
        "publication_types": [one("0")] if kind else [],
        "volume": one("V"),
        "issue": one("N"),
        "pages": one("P"),
    }
