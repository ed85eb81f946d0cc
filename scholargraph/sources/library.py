"""The local library: a scientist's own collection searched like any other source, and first.

``--library PATH`` (or ``SCHOLARGRAPH_LIBRARY``) names a file or a folder of files:

- ``.bib`` BibTeX and biblatex (read with bibtexparser, LaTeX decoded with pylatexenc; an
  entry without a key and an abbreviation no ``@string`` defines are kept),
- ``.ris`` RIS (rispy), each field read where EndNote, Zotero, Mendeley, Scopus, Embase, Ovid
  and Web of Science put it (:func:`ris_work`); a Web of Science "plain text" file under
  ``.ris`` is read as what it is,
- ``.nbib`` / ``.medline`` MEDLINE (PubMed's export), ``.enw`` EndNote's tagged citations (a
  publisher's or Google Scholar's "EndNote" download), and ``.txt`` exports read as the tagged
  format their records start with (RIS, MEDLINE, Web of Science plain text or EndNote;
  :mod:`scholargraph.sources.reference_files`); in a folder, other ``.txt`` files are passed
  over,
- ``.json`` CSL-JSON (an array of items, as Zotero and pandoc write it),
- ``.jsonl`` one record per line: a CSL-JSON item or a record with this project's work fields,
- ``.pdf`` papers (pypdf): title and authors from the document's metadata or first page, the DOI
  from its first page, the abstract after an "Abstract" heading, and the whole text with its
  pages and section headings (:mod:`scholargraph.fulltext.pdf`), so passages cite "p. 6";
- ``.nxml`` / ``.xml`` JATS articles (a PMC download; every article of a ``pmc-articleset``):
  metadata from the front matter, the body with its sections, captions and tables
  (:mod:`scholargraph.fulltext.jats`), so passages cite "Results > Subgroups"; an ``.xml`` whose
  root is PubMed's (``PubmedArticleSet``, a saved record) or EndNote's (``<xml><records>``) is
  read as those records;
- ``.csv`` / ``.tsv`` table exports (comma, semicolon or tab), their columns by the names
  exporters give them (:data:`CSV_COLUMNS`), for a review (``with_csv``): read by
  ``scholargraph screen``'s own reader (:func:`csv_rows`, which ``screen`` uses too), so the
  two commands read the same files the same way.

Text files are read as UTF-8 (or UTF-16 with its mark), else in the encoding the file declares
or charset detection finds among East Asian and Cyrillic ones, else as Windows-1252 (with a
warning). A record's field that cannot be used (a year that is not a number) is left out with a
warning and the record kept. A file that cannot be decoded
or parsed, or in which no record has a title, stops the run before any search with a
:class:`LibraryError` naming it (the CLI exits 2). A record without a title is left out (there
is nothing to cite or screen it by).

The agent is a built-in plug-in of the source registry (``order`` 5: before PubMed), active only
when a library is given. A library is the scientist's own search result, not a service to query
with generated words: a review reads it whole, once a run (:meth:`LibraryAgent.named_queries`
writes its one query, :data:`EVERY_RECORD`, in the first round; a refinement round has nothing
new to ask of it), every record within the ``--since``/``--until`` window and however many
``--max-results`` allows elsewhere, one search-log entry saying how many records were read.
Screening then judges each record (:mod:`scholargraph.screening.relevance`), and PRISMA counts
them as identified from the library. (A real review's 952 records, queried with the question's
words, gave 2 records naming "specialized psychotherapies"; read whole, all 952 are judged.)

A query other than :data:`EVERY_RECORD` (a script asking the agent directly) is plain words and
"quoted phrases": a record answers it when one of them occurs in its title, abstract, keywords or
authors (stemmed, so "screen" finds "screening"), those naming more of them first, then by
BM25, up to the request's limit. The path comes from the run's context
(``ReviewContext.library``) when a graph run is under way, else from ``SCHOLARGRAPH_LIBRARY``.
"""

from __future__ import annotations

import ast
import codecs
import csv
import io
import json
import logging
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

from lxml import etree
from pydantic import ValidationError

from scholargraph.agents.schemas import Domain, Intent
from scholargraph.errors import ConfigurationError, InputError
from scholargraph.fulltext.jats import parse_jats, split_articles
from scholargraph.fulltext.model import FullTextDocument
from scholargraph.fulltext.pdf import parse_pdf
from scholargraph.identifiers import identifiers_in_url, normalize_doi
from scholargraph.rag.ranking import LexicalIndex, tokenize
from scholargraph.records import Work
from scholargraph.sources.base import SearchRequest, SourceAgent, SourceResult
from scholargraph.sources.pubmed import UNTITLED, pubmed_records
from scholargraph.sources.reference_files import (
    endnote_fields,
    enw_fields,
    listed,
    medline_fields,
    parse_xml,
    sniff_text,
    wos_fields,
    xml_kind,
    year_in,
)

if TYPE_CHECKING:
    from pylatexenc.latex2text import LatexNodes2Text

log = logging.getLogger(__name__)

LIBRARY_ENV = "SCHOLARGRAPH_LIBRARY"
PDF_PAGES = 20
PDF_ABSTRACT_CHARS = 2000
_DOI = re.compile(r"\b10\.\d{4,9}/[^\s\"<>]+", re.IGNORECASE)
_PHRASE = re.compile(r'"([^"]+)"|(\S+)')
EVERY_RECORD = "every record of"
"""The start of a review's one library query, ``every record of records.ris``: all the
library's records in the run's years, not capped by ``--max-results``."""


class LibraryError(ConfigurationError):
    """The library cannot be read: a missing path or a file that is not what its name says."""


def run_library_path() -> str | None:
    """The library of the graph run under way (its context), if any."""
    from langgraph.runtime import get_runtime

    try:
        context = get_runtime().context
    except RuntimeError:  # not inside a graph run: a script or a test calling the agent
        context = None
    path = getattr(context, "library_path", None)
    return path() if callable(path) else None


class LibraryAgent(SourceAgent):
    """Searches the scientist's own records (BibTeX, RIS, CSL-JSON, JSONL, PDFs, JATS, CSV)."""

    name = "library"
    order = 5
    label = "Local library"
    domains = frozenset(get_args(Domain))
    query_syntax = ("none: the library is read whole, every record a candidate for screening "
                    "(no query to write)")
    named_by = "once, every record read"

    def __init__(self, settings: Any = None, path: str | Path | None = None) -> None:
        super().__init__(settings)
        self._path = path

    def path(self) -> Path | None:
        given = self._path or run_library_path() or self.settings.library
        return Path(given).expanduser() if given else None

    def is_relevant(self, intent: Intent) -> bool:
        """Active whenever a library is given, whatever the question's field."""
        return self.path() is not None

    def unavailable_reason(self) -> str | None:
        path = self.path()
        if path is None:
            return f"no library given (--library PATH or {LIBRARY_ENV})"
        if not path.exists():
            return f"the library {path} does not exist"
        return None

    def build_query(self, terms: list[str], intent: Intent) -> str:
        return " ".join(f'"{term}"' if " " in term else term for term in terms)

    def named_queries(self, question: str, intent: Intent) -> list[str]:
        """The one query a review sends: every record of the library (:data:`EVERY_RECORD`),
        whatever the question's words; sent once a run, as any query is."""
        path = self.path()
        return [f"{EVERY_RECORD} {path.name}"] if path is not None else []

    def _search(self, request: SearchRequest) -> SourceResult:
        path = self.path()
        if path is None:
            raise LibraryError(f"no library given (--library PATH or {LIBRARY_ENV})")
        every = load_library(path, with_csv=True)
        works = [w for w in every if in_window(w, request.since, request.until)]
        if request.query.startswith(EVERY_RECORD):
            return SourceResult(works=works, log_note=read_note(len(works), len(every), path))
        return SourceResult(works=match(works, request.query)[:request.limit])


def read_note(kept: int, total: int, path: Path) -> str:
    """The search log's word on a library read whole: how many records, and why not all."""
    if kept == total:
        return f"{total} records read from {path}"
    return (f"{kept} of the {total} records read from {path}: the others are outside the "
            "years asked for (a record without a year is left out when years are given)")


def in_window(work: Work, since: int | None, until: int | None) -> bool:
    """Whether the work's year is within ``since``-``until`` (an undated work is not, when
    years are given: it cannot be shown to be)."""
    if work.year is None:
        return since is None and until is None
    return (since is None or work.year >= since) and (until is None or work.year <= until)


def query_terms(query: str) -> list[list[str]]:
    """The query's words and phrases, each as its stemmed tokens."""
    terms = []
    for phrase, word in _PHRASE.findall(query):
        tokens = tokenize(phrase or word)
        if tokens:
            terms.append(tokens)
    return terms


def _searchable(work: Work, keywords: Iterable[str] = ()) -> str:
    return " ".join([work.title, work.abstract or "", " ".join(work.authors), *keywords])


def match(works: list[Work], query: str) -> list[Work]:
    """The works naming at least one term of the query, those naming more terms first, then by
    BM25 score."""
    terms = query_terms(query)
    if not works or not terms:
        return []
    texts = [_searchable(work) for work in works]
    tokens = [tokenize(text) for text in texts]
    scores = LexicalIndex(texts).scores(" ".join(t for term in terms for t in term))
    named = [sum(_contains(found, term) for term in terms) for found in tokens]
    hits = [i for i, count in enumerate(named) if count]
    return [works[i] for i in sorted(hits, key=lambda i: (-named[i], -scores[i], i))]


def _contains(tokens: list[str], phrase: list[str]) -> bool:
    if len(phrase) == 1:
        return phrase[0] in tokens
    width = len(phrase)
    return any(tokens[i:i + width] == phrase for i in range(len(tokens) - width + 1))


# ---------------------------------------------------------------- reading the library

Reader = Callable[[Path], list[Work | None]]
"""A format's reader: one entry per record of the file, None for a record without a title."""

def load_library(path: Path, *, with_csv: bool = False) -> list[Work]:
    """Every record of the library file or folder (recursively), as works; ``with_csv`` reads
    CSV exports too (a review does)."""
    return [work for work, _ in library_records(path, with_csv=with_csv)]


OwnId = str | None
"""The id a library file gives a record, if any: an RIS record's ``ID``, a BibTeX entry's
citation key, a table row's record id. ``screen`` names the record by it, and a label names it
so (``to-screen.ris`` carries it in ``ID``, and a reference manager shows it)."""


def library_records(path: Path, *, with_csv: bool = False) -> list[tuple[Work, OwnId]]:
    """Every record of the library file or folder, as :func:`load_library` reads them, each
    with the id its file gives it (:data:`OwnId`)."""
    readers = library_readers(with_csv)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix.lower() in readers
                       and (p.suffix.lower() != ".txt" or _is_tagged_export(p)))
    else:
        files = [path]
    signature = tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files)
    return list(_load(signature, with_csv).records)


def outside_window(path: Path, since: int | None, until: int | None) -> int:
    """How many titled records of the library file or folder a review with the years
    ``since``-``until`` leaves out (:func:`in_window`): identified, then set aside by date
    before screening, as PRISMA counts them."""
    if since is None and until is None:
        return 0
    return sum(not in_window(work, since, until)
               for work in load_library(path, with_csv=True))


def untitled_records(path: Path, *, with_csv: bool = True) -> int:
    """How many records of the library file or folder have no title: read from it, as the
    others were, and left out of screening (a record is screened by its title). PRISMA counts
    them among the records identified and removed before screening, so that "identified" is
    the size of the export the scientist gave."""
    path = path.expanduser()
    readers = library_readers(with_csv)
    files = sorted(p for p in path.rglob("*") if p.suffix.lower() in readers
                   and (p.suffix.lower() != ".txt" or _is_tagged_export(p))) \
        if path.is_dir() else [path]
    signature = tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files)
    return _load(signature, with_csv).untitled


@dataclass(frozen=True)
class LibraryRead:
    """A library's records as read (each with its own id), and how many had no title."""

    records: tuple[tuple[Work, OwnId], ...]
    untitled: int = 0


@lru_cache(maxsize=8)
def _load(signature: tuple[tuple[str, int, int], ...], with_csv: bool) -> LibraryRead:
    """Works of the files in ``signature`` (name, mtime, size), with their own ids: re-read
    only when one changes."""
    works: list[tuple[Work, OwnId]] = []
    untitled = 0
    readers = library_readers(with_csv)
    for name, _, _ in signature:
        path = Path(name)
        reader = readers.get(path.suffix.lower())
        if reader is None:
            raise LibraryError(f"{path}: not a library file; use .bib, .ris, .nbib (MEDLINE), "
                               ".enw (EndNote), .txt (RIS, MEDLINE, Web of Science or "
                               "EndNote), .json (CSL-JSON), "
                               ".jsonl, .pdf, .xml (PubMed, EndNote or JATS), .nxml"
                               + (" or a .csv/.tsv with title and abstract columns" if with_csv
                                  else ""))
        found, left_out = _read_one(path, reader)
        works += found
        untitled += left_out
    return LibraryRead(tuple(works), untitled)


def library_readers(with_csv: bool) -> dict[str, Reader]:
    """The readers by file suffix: :data:`READERS`, and the CSV reader when asked for."""
    return {**READERS, **dict.fromkeys(CSV_SUFFIXES, read_csv_works)} if with_csv else READERS


CSV_SUFFIXES = (".csv", ".tsv", ".tab")
"""Table exports: comma-, semicolon- or tab-separated (the separator is read off the header)."""
CSV_COLUMNS: dict[str, tuple[str, ...]] = {
    "title": ("title", "article title", "document title", "primary title", "primary_title",
              "ti"),
    "abstract": ("abstract", "abstract note", "notes_abstract", "ab"),
    "authors": ("authors", "author", "author names", "author full names", "author/s",
                "first_authors", "au"),
    "year": ("year", "publication year", "publication_year", "published year", "pubyear", "py",
             "publication date", "date published", "date"),
    "venue": ("journal", "venue", "secondary_title", "source title", "publication title",
              "journal/book", "journal title", "journal_name", "so"),
    "doi": ("doi", "di"),
    "pmid": ("pmid", "pubmed id", "pubmed_id", "pm"),
    "pmcid": ("pmcid", "pmc id", "pmc"),
    "publication_types": ("publication type", "publication types", "document type", "dt"),
    "id": ("record_id", "id", "key", "covidence #", "lens id", "publication id"),
}
"""The columns each field is read from, first found first, by their lower-cased header: this
project's and ASReview's names, Zotero's ('Abstract Note', 'Publication Title'), Scopus's
('Source title', 'PubMed ID', 'Document Type'), PubMed's ('Journal/Book', 'Publication
Year'), Embase's ('Author Names'), Web of Science's tab-delimited tags (TI, AB, AU, PY, SO, DI,
PM, DT), Lens's ('Author/s', 'Date Published', 'Lens ID'), Dimensions's ('PubYear',
'Publication ID', 'PMCID') and Covidence's ('Published Year', 'Covidence #'). With no year
column, the year is read from a 'Source' citation ('Endoscopic Ultrasound (2014) 3:3',
Embase's)."""
HEADER_LINES = 10
"""How far down a table export its header may start: Dimensions writes a line 'About the data:
Exported on ...' above it, some exporters a title or a blank line."""
_SURNAME_INITIALS = re.compile(r"^[^\s,]+(?:[\s-][^\s,]+)*\s+[A-Z][A-Z.\-]*$")
"""'Liu R.', 'Adler D.G.', 'van der Berg JM': a name written surname first, initials after,
as Embase, Scopus and PubMed list authors separated by commas."""


def csv_rows(path: Path) -> list[tuple[Work, str | None]]:
    """The rows of a table export that have a title, each with its id (:func:`table_rows`)."""
    return table_rows(path)[0]


def table_rows(path: Path) -> tuple[list[tuple[Work, str | None]], int]:
    """The rows of a table export that have a title (a header row names the columns), each as
    a work and the id its row gives it, if any: one reader for ``review --library`` and
    ``screen``, the same columns (:data:`CSV_COLUMNS`), the same refusal of a file with no
    title column; and how many rows with some cell filled had no title."""
    whole = read_text(path)
    text = whole
    if declared := _SEPARATOR_LINE.match(text):  # Excel's 'sep=;' first line
        text = text[declared.end():]
    text = _from_header(text, declared.group(1) if declared else None)
    skipped = whole.count("\n") - text.count("\n")  # lines above the header
    reader = csv.DictReader(io.StringIO(text), delimiter=declared.group(1) if declared
                            else _delimiter(text))
    rows, lines = [], []
    for row in reader:  # each row's first line: where it ends, less the line breaks it holds
        rows.append(row)
        breaks = sum(cell.count("\n") for cell in row.values() if isinstance(cell, str))
        lines.append(skipped + reader.line_num - breaks)
    header = {(name or "").strip().lower() for name in (rows[0] if rows else {})}
    if not header & set(CSV_COLUMNS["title"]):
        raise LibraryError(f"{path}: a table library needs a header with a 'title' column (and "
                           "'abstract'); no such column was found (comma-, semicolon- or "
                           "tab-separated)")
    found = []
    untitled = []
    for row, line in zip(rows, lines, strict=True):
        cells = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items()
                 if isinstance(v, str)}
        value = {field: next((cells[c] for c in columns if cells.get(c)), "")
                 for field, columns in CSV_COLUMNS.items()}
        work = _work(title=value["title"], abstract=value["abstract"], doi=value["doi"],
                     pmid=value["pmid"], pmcid=value["pmcid"],
                     year=year_in(value["year"] or cells.get("source")),
                     authors=csv_authors(value["authors"]), venue=value["venue"],
                     publication_types=[kind.strip() for kind in
                                        value["publication_types"].split(";") if kind.strip()],
                     found_via=f"library file {path.name}")
        if work is not None:
            found.append((work, value["id"] or None))
        elif any(cells.values()):
            untitled.append(line)
    if untitled and found:  # none at all is refused by the caller, in one line
        _warn_untitled_rows(path, untitled)
    return found, len(untitled)


UNTITLED_SHOWN = 5
"""Lines named in the warning about rows without a title; the rest are counted."""


def _warn_untitled_rows(path: Path, lines: list[int]) -> None:
    """Say which rows of a table were left out for want of a title, by line, as the other
    formats' readers count theirs: a row a reviewer exported is a record they expect screened,
    and one left out silently is a record never judged."""
    shown = ", ".join(str(line) for line in lines[:UNTITLED_SHOWN])
    more = f" and {len(lines) - UNTITLED_SHOWN} more" if len(lines) > UNTITLED_SHOWN else ""
    log.warning("%s: %d record(s) without a title left out (line %s%s; a record is cited and "
                "screened by its title)", path, len(lines), shown, more)


_SEPARATOR_LINE = re.compile(r"\A\s*sep=(.)\s*\n", re.IGNORECASE)
"""The first line Excel writes and reads to name a table's separator ('sep=;')."""


def _header_names(line: str, delimiter: str) -> set[str]:
    """The lower-cased column names of a header line (quotes and a byte-order mark off)."""
    return {name.strip().strip('"').strip().lower() for name in line.lstrip("\ufeff")
            .split(delimiter)}


def _from_header(text: str, delimiter: str | None = None) -> str:
    """The table from its header line on: the first of the first :data:`HEADER_LINES` lines
    that names a title column, so that a line above the header (Dimensions' 'About the data:
    Exported on ...') is not taken for the header and the file refused; the text unchanged when
    no line does (the caller then says no title column was found)."""
    lines = text.split("\n")
    for number, line in enumerate(lines[:HEADER_LINES]):
        separator = delimiter or max((",", ";", "\t"), key=line.count)
        if _header_names(line, separator) & set(CSV_COLUMNS["title"]):
            return "\n".join(lines[number:])
    return text


def _delimiter(text: str) -> str:
    """The separator of a table export: the one of comma, semicolon and tab its header line
    holds most of (Excel writes semicolons where the decimal mark is a comma)."""
    header = next((line for line in text.splitlines() if line.strip()), "")
    return max((",", ";", "\t"), key=header.count)


def csv_authors(cell: str) -> list[str]:
    """A table's author cell as names: separated by semicolons when it has any ('Rossi, Marco;
    Bianchi, Lia'), else by commas when every part is a surname with initials ('Liu R., Adler
    D.G.'), else one name. An author id after a name ('Rossi, Marco (57193453000)', Scopus's
    'Author full names') is not part of it."""
    if cell.startswith("[") and cell.endswith("]"):
        parts = _listed_cell(cell)
    elif ";" in cell:
        parts = cell.split(";")
    elif "," in cell and all(_SURNAME_INITIALS.match(p.strip()) for p in cell.split(",")):
        parts = cell.split(",")
    elif pairs := _surname_initials_pairs(cell):
        parts = pairs
    else:
        parts = [cell]
    names = (_AUTHOR_ID.sub("", part) for part in parts)
    return [" ".join(name.split()) for name in names if name.strip()]


_INITIALS = re.compile(r"^(?:[A-Z][a-z]?\.[\s-]?)+$")
"""Initials alone, each with its full stop: 'R.', 'D.G.', 'J.-P.', 'Ch.' (not 'Li', 'Xu')."""


def _surname_initials_pairs(cell: str) -> list[str]:
    """'Liu, R., Adler, D.G.' (Scopus's tables before 2023, every comma alike) as 'Liu, R.' and
    'Adler, D.G.': parts that alternate a surname and its initials; else nothing."""
    parts = [part.strip() for part in cell.split(",")]
    if len(parts) < 4 or len(parts) % 2:
        return []
    surnames, initials = parts[0::2], parts[1::2]
    if not all(_INITIALS.match(part) for part in initials) \
            or any(_INITIALS.match(part) for part in surnames):
        return []
    return [f"{surname}, {given}" for surname, given in zip(surnames, initials, strict=True)]


_AUTHOR_ID = re.compile(r"\s*\(\d{5,}\)\s*$")
"""A database's author id in brackets after the name (Scopus: 'Rossi, Marco (57193453000)')."""


def _listed_cell(cell: str) -> list[str]:
    """A cell holding a Python list of names ("['Marx, Karl', 'Lindgren, Astrid']"), as a
    table written from pandas (ASReview's export) has; read as a literal, never run."""
    try:
        value = ast.literal_eval(cell)
    except (ValueError, SyntaxError):
        return [cell.strip("[]")]
    return [str(item) for item in value] if isinstance(value, list) else [cell]


def read_csv_works(path: Path) -> list[Work | None]:
    """A CSV export's rows with a title (:func:`csv_rows`)."""
    return [work for work, _ in csv_rows(path)]


def csv_records(path: Path) -> list[tuple[Work | None, OwnId]]:
    """A CSV export's rows, each with its record id (:func:`table_rows`); a row without a
    title is None."""
    found, untitled = table_rows(path)
    return [*found, *[(None, None)] * untitled]


PARSE_ERRORS = (ValueError, TypeError, KeyError, IndexError, AttributeError, csv.Error)
"""What the format libraries raise on a file they cannot make sense of (bibtexparser, rispy,
the csv module)."""


def _read_one(path: Path, reader: Reader) -> tuple[list[tuple[Work, OwnId]], int]:
    """One file's works with their own ids (:data:`OWN_ID_READERS`), and how many of its
    records had no title; a file that cannot be
    parsed is a :class:`LibraryError` naming it. Records without a title are left out with a
    warning that counts them, so that a scientist comparing the export's size with PRISMA's
    "identified" knows where the difference went."""
    identified = OWN_ID_READERS.get(reader)
    try:
        pairs = identified(path) if identified else [(work, None) for work in reader(path)]
    except LibraryError:
        raise
    except PARSE_ERRORS as exc:
        detail = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise LibraryError(f"{path}: cannot be read as a {path.suffix.lower()} file ({detail}); "
                           "fix it, export it again, or leave it out of the library") from exc
    found_via = f"library file {path.name}"
    works = [(work if work.found_via else work.model_copy(update={"found_via": found_via}), own)
             for work, own in pairs if work is not None]
    untitled = len(pairs) - len(works)
    suffix = path.suffix.lower()
    if not works and suffix in LENIENT_FORMATS and read_text(path).strip():
        found = f" ({untitled} record(s) had none)" if untitled else ""
        raise LibraryError(f"{path}: no record with a title could be read{found}; is it really "
                           f"{LENIENT_FORMATS[suffix]} file?")
    if not works and suffix in RECORD_FORMATS:
        raise LibraryError(f"{path}: no record has a title (a record is cited and screened by "
                           "its title); export the records with their titles")
    table = identified is csv_records or (identified is tagged_text_records
                                          and _is_table(read_text(path)))
    if untitled and not table:  # after the refusals, which say it themselves; a table's
        # reader names the rows' lines itself (:func:`csv_rows`)
        log.warning("%s: %d record(s) without a title left out (a record is cited and screened "
                    "by its title)", path, untitled)
    return works, untitled


LENIENT_FORMATS = {".bib": "a BibTeX", ".ris": "an RIS", ".enw": "an EndNote"}
"""Formats whose parsers skip what they cannot read instead of failing: a file of them that
gives no record at all is reported rather than silently contributing nothing."""
RECORD_FORMATS = (".json", ".jsonl")
"""Formats of records with named fields: a file of them in which no record has a title (or
that holds no record) contributes nothing to screen, and is reported, naming the file."""


FALLBACK_ENCODING = "cp1252"
"""Text files are read as UTF-8 (a byte-order mark is allowed); one that is not valid UTF-8 is
read as Windows-1252, which older reference-manager exports use, with a warning."""


def read_text(path: Path) -> str:
    """The text of a library file: UTF-8, else Windows-1252, else a :class:`LibraryError`."""
    data = path.read_bytes()
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:  # Excel's "Unicode text", EndNote and JabRef can write UTF-16 with its mark
            return _newlines(data.decode("utf-16"))
        except UnicodeDecodeError:
            raise LibraryError(f"{path}: starts as UTF-16 but is not; export it again as "
                               "UTF-8") from None
    if wide := _utf16_without_mark(data):
        try:
            return _newlines(data.decode(wide))
        except UnicodeDecodeError:
            pass
    try:
        return _newlines(data.decode("utf-8-sig"))
    except UnicodeDecodeError as utf8_error:
        encoding = _other_encoding(data)
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            raise LibraryError(
                f"{path}: not UTF-8 text (byte {utf8_error.start}) nor "
                f"{ENCODING_NAMES.get(encoding, encoding)}; export it "
                "again as UTF-8") from None
    log.warning("%s is not UTF-8; read as %s", path, ENCODING_NAMES.get(encoding, encoding))
    return _newlines(text)


def _utf16_without_mark(data: bytes) -> str | None:
    """'utf-16-le' or 'utf-16-be' for UTF-16 text without its byte-order mark (Windows'
    "Unicode" saved by some programs), told by its zero bytes: Latin text in UTF-16 has one in
    every other byte, which UTF-8 text never has; else None. Read as UTF-8, such a file gave
    no record and was refused as 'not BibTeX'."""
    head = data[:4000]
    if len(head) < 8 or b"\x00" not in head:
        return None
    half = len(head) // 2
    odd, even = head[1::2].count(0), head[0::2].count(0)
    if odd > 0.3 * half and even < 0.05 * half:
        return "utf-16-le"
    if even > 0.3 * half and odd < 0.05 * half:
        return "utf-16-be"
    return None


def _newlines(text: str) -> str:
    """Line ends as ``\n``: a file from a classic Mac OS program (EndNote, JabRef) ends its
    lines with a lone ``\r``, which BibTeX's ``%`` comments and RIS's tags do not see as an
    end, so the whole file would read as one line."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


ENCODING_NAMES = {FALLBACK_ENCODING: "Windows-1252"}
EAST_ASIAN_AND_CYRILLIC = ("gb2312", "gbk", "gb18030", "big5", "shift_jis", "cp932", "euc_jp",
                           "euc_kr", "cp949", "cp1251", "koi8_r")
"""Encodings of exports from Chinese, Japanese, Korean and Russian databases and systems
(CNKI's exports are GBK, eLIBRARY's Windows-1251): read as such when charset detection names
one of them, since as Windows-1252 their every letter would become two wrong ones."""


_DECLARED = re.compile(rb"\A(?:\xef\xbb\xbf)?%\s*Encoding:\s*([\w.:-]+)", re.IGNORECASE)
"""JabRef's first line, ``% Encoding: GBK``: the encoding the file says it is in."""


def _other_encoding(data: bytes) -> str:
    """The encoding of a non-UTF-8 file: the one its first line declares (JabRef's
    ``% Encoding:``), else one of :data:`EAST_ASIAN_AND_CYRILLIC` when charset-normalizer finds
    it the best fit, else :data:`FALLBACK_ENCODING`."""
    from charset_normalizer import from_bytes

    if declared := _DECLARED.match(data):
        try:
            name = codecs.lookup(declared.group(1).decode("ascii")).name
        except LookupError:
            name = "utf-8"
        if name != "utf-8":  # a file saying UTF-8 that is not is read as the others are
            return name

    best = from_bytes(data[:200_000]).best()
    guess = (best.encoding if best is not None else "").lower()
    return guess if guess in EAST_ASIAN_AND_CYRILLIC else FALLBACK_ENCODING


def _work(**fields: Any) -> Work | None:
    """A library work, or None for a record without a title (nothing to cite it by)."""
    title = fields.get("title")
    if not isinstance(title, str) or not title.strip():
        return None
    fields["sources"] = ["library"]
    if fields.get("arxiv_id") and not fields.get("doi") and fields.get("kind") is None:
        fields["kind"] = "preprint"
    given = {key: value for key, value in fields.items() if value not in (None, "", [])}
    try:
        return Work(**given)
    except ValidationError as exc:
        bad = {str(error["loc"][0]) for error in exc.errors() if error["loc"]}
        if "title" in bad:
            return None
        log.warning("%r: %s left out (%s); the record's other fields are kept",
                    str(given["title"])[:60], ", ".join(sorted(bad)),
                    exc.errors()[0]["msg"])
        return Work(**{key: value for key, value in given.items() if key not in bad})


def _latex_text(value: str | None) -> str | None:
    """BibTeX's LaTeX ({\\"u}, \\&, braces) as plain text; a value with no LaTeX in it
    (:data:`_LATEX_MARKUP`, most titles and abstracts) as it is, its spaces collapsed, which is
    what the converter makes of it: the converter read a 3,000-entry export's titles and
    abstracts in about 70 s of a 90 s ``screen`` run, and a value without markup in none."""
    if not value:
        return None
    if not _LATEX_MARKUP.search(value):
        return " ".join(value.split())
    return re.sub(r"\s+", " ", _latex_converter().latex_to_text(value)).strip()


TEXT_SYMBOLS: dict[str, str] = {
    "textless": "<", "textgreater": ">", "textbar": "|", "textminus": "\u2212",
    "textquotedbl": '"', "textunderscore": "_", "textbraceleft": "{", "textbraceright": "}",
    "textperiodcentered": "\u00b7",
}
"""Text-mode symbol macros BibTeX exports write that pylatexenc 2.x does not know, or knows
wrongly: without them it drops the macro, and Zotero's "P {\\textless} 0.001" was read "P
0.001", a result's bound lost from the sentence a finding quotes ("textperiodcentered" it
reads as a dot above, "\u02d9")."""


@lru_cache(maxsize=1)
def _latex_converter() -> LatexNodes2Text:
    """pylatexenc's LaTeX-to-text converter, knowing :data:`TEXT_SYMBOLS` as well (imported
    here: a library without LaTeX in it never needs it)."""
    from pylatexenc.latex2text import (
        LatexNodes2Text,
        MacroTextSpec,
        get_default_latex_context_db,
    )

    context = get_default_latex_context_db()
    context.add_context_category("bibtex-text-symbols", prepend=True, macros=[
        MacroTextSpec(name, symbol) for name, symbol in TEXT_SYMBOLS.items()])
    return LatexNodes2Text(latex_context=context)


_LATEX_MARKUP = re.compile(r"[\\{}$~%^_&#]|--|``|''|<<|>>|!`|\?`")
"""What LaTeX reads as more than its letters: a command or a special character, the dashes and
quotes it ligates ('--', '``', "''"), and the guillemets and inverted marks of some fonts."""


def read_bibtex(path: Path) -> list[Work | None]:
    """A BibTeX or biblatex file (Zotero, Mendeley, JabRef, Google Scholar, a LaTeX project).
    Entries the parser passes over (an unbalanced brace swallows the entry) are counted in a
    warning, so that a shorter library than the file's entries does not go unexplained."""
    return [work for work, _ in bibtex_records(path)]


def bibtex_records(path: Path) -> list[tuple[Work | None, OwnId]]:
    """The entries of a BibTeX file (:func:`read_bibtex`), each with its citation key (none for
    an entry that had none, :data:`_UNKEYED`)."""
    text = read_text(path)
    entries = _bibtex_entries(text)
    if (written := len(_BIBTEX_ENTRY.findall(text))) > len(entries):
        log.warning("%s: %d of its %d entries could not be read (an unbalanced brace or a "
                    "malformed key?); fix them to include them", path, written - len(entries),
                    written)
    return [(bibtex_work({key.lower(): value for key, value in entry.items()}),
             _own_key(entry.get("ID"))) for entry in entries]


def _own_key(key: object) -> OwnId:
    """A BibTeX entry's key as its own id; None for the key given to an unkeyed entry."""
    text = str(key or "").strip()
    return None if not text or _GIVEN_KEY.fullmatch(text) else text


_GIVEN_KEY = re.compile(r"unkeyed-\d+")
"""The key :func:`_bibtex_entries` gives an entry that had none: not the file's."""


_BIBTEX_ENTRY = re.compile(r"^[ \t]*@(?!string\b|comment\b|preamble\b)[a-z]+[ \t]*[{(]",
                           re.IGNORECASE | re.MULTILINE)
"""The start of an entry (not of an ``@string``, ``@comment`` or ``@preamble``)."""


_UNKEYED = re.compile(r"(@(?!string\b|preamble\b|comment\b)[A-Za-z]+\s*[{(])\s*"
                      r"(?:,|(?=[A-Za-z][\w-]*\s*=))", re.IGNORECASE)
"""An entry without a key: ``@article{,`` (JabRef) or ``@article{`` and the first field on the
next line (EndNote's BibTeX export)."""
_ANNOTATION_FIELD = re.compile(r"^([ \t]*[A-Za-z][\w-]*)\+an(?::[\w-]+)?([ \t]*=)",
                               re.MULTILINE)
"""A biblatex data annotation's field name, ``author+an:role =`` (Better BibLaTeX writes them):
bibtexparser drops the whole entry at the ``+``, so the name becomes ``author_an``, which is
not read."""
UNDEFINED_STRINGS = 200
"""How many undefined ``@string`` abbreviations a file may use before it is refused."""


def _bibtex_entries(text: str) -> list[dict[str, str]]:
    """The entries of a BibTeX text. An entry without a key (``@article{,``, as JabRef and
    some exporters write) is given one, where bibtexparser would drop it; an abbreviation no
    ``@string`` defines (``journal = jomch``, defined in another file) is read as its name,
    where bibtexparser would refuse the whole file."""
    import bibtexparser
    from bibtexparser.bibdatabase import UndefinedString
    from bibtexparser.bparser import BibTexParser

    numbers = iter(range(1, 10**9))
    text = _UNKEYED.sub(lambda m: f"{m.group(1)}unkeyed-{next(numbers)},", text)
    text = _ANNOTATION_FIELD.sub(r"\1_an\2", text)
    undefined: list[str] = []
    while True:
        parser = BibTexParser(common_strings=True, ignore_nonstandard_types=False)
        strings = "".join(f"@string{{{name} = {{{name}}}}}\n" for name in undefined)
        try:
            return list(bibtexparser.loads(strings + text, parser=parser).entries)
        except UndefinedString as exc:
            name = str(exc.args[0] if exc.args else exc)
            if name in undefined or len(undefined) >= UNDEFINED_STRINGS:
                raise
            undefined.append(name)


def bibtex_work(fields: dict[str, str]) -> Work | None:
    """One BibTeX/biblatex entry (field names lower-cased) as a work."""
    prefix = (fields.get("archiveprefix") or fields.get("eprinttype") or "arxiv").lower()
    eprint = fields.get("eprint") if prefix == "arxiv" else None
    pmid = fields.get("pmid") or (fields.get("eprint") if prefix == "pubmed" else None)
    found = dict(identifiers_in_url(fields.get("url")))
    arxiv = eprint or fields.get("arxivid") or found.get("arxiv") \
        or _arxiv_in(fields.get("journal"), fields.get("note"))
    names = re.split(r"\s+and\s+", fields.get("author", "").strip())
    authors = [name for name in map(_latex_text, map(biblatex_name, names))
               if name and name != "others"]
    kind = fields.get("entrytype", "").lower()
    return _work(
        title=_latex_text(fields.get("title")), authors=authors,
        year=year_in(fields.get("year") or fields.get("date")),
        venue=_latex_text(fields.get("journal") or fields.get("journaltitle")
                          or fields.get("booktitle") or fields.get("publisher")),
        abstract=_latex_text(fields.get("abstract")), doi=fields.get("doi") or found.get("doi"),
        pmid=pmid or found.get("pmid"), pmcid=fields.get("pmcid") or found.get("pmcid"),
        arxiv_id=arxiv, url=fields.get("url"), volume=fields.get("volume"),
        issue=fields.get("number") or fields.get("issue"),
        pages=re.sub(r"\s*-+\s*", "-", fields.get("pages") or "") or None,
        kind="preprint" if arxiv and kind in ("misc", "unpublished", "online")
        else BIBTEX_KINDS.get(kind))


_NAME_PART = re.compile(r"\s*([a-z][a-z-]*)\s*=\s*"
                        r"(\{(?:[^{}]|\{[^{}]*\})*\}|[^,]*)\s*(?:,|$)", re.IGNORECASE)
"""One ``key=value`` part of biblatex's extended name format (a value braced or up to the next
comma)."""


def biblatex_name(name: str) -> str:
    """A name in biblatex's extended format, as Better BibLaTeX writes a name with a particle
    ('family=Oord, given=Aaron, prefix=van den, useprefix=true'), as 'van den Oord, Aaron'; any
    other name unchanged. Read as it is, the whole string became the author's name, and the
    first author's surname (which deduplication compares) was 'family=Oord'."""
    text = name.strip()
    parts = {key.lower(): value.strip() for key, value in _NAME_PART.findall(text)}
    if not {"family", "given"} & parts.keys() or _NAME_PART.sub("", text).strip():
        return name
    family = " ".join(part for part in (parts.get("prefix"), parts.get("family")) if part)
    if not family:
        return parts["given"]
    given = ", ".join(part for part in (parts.get("given"), parts.get("suffix")) if part)
    return f"{family}, {given}" if given else family


BIBTEX_KINDS = {"incollection": "chapter", "inbook": "chapter", "book": "book"}
"""BibTeX types that say what a work is beyond 'an article': a chapter of a book (its
``booktitle`` the venue) and a whole book (its ``publisher``), as the BibTeX export writes them."""
RIS_KINDS = {"UNPB": "preprint", "ELEC": "web", "BLOG": "web", "WEB": "web", "CHAP": "chapter",
             "BOOK": "book", "EBOOK": "book", "ECHAP": "chapter", "EDBOOK": "book"}


def read_ris(path: Path) -> list[Work | None]:
    """An RIS export (EndNote, Zotero, Mendeley, Scopus, Web of Science, Embase, Ovid, Rayyan);
    a Web of Science "plain text" export (``FN``/``PT`` tags) saved under ``.ris`` is read as
    what it is (:func:`read_wos`)."""
    return [work for work, _ in ris_records(path)]


def ris_records(path: Path) -> list[tuple[Work | None, OwnId]]:
    """The records of an RIS export (:func:`read_ris`), each with its ``ID`` (EndNote's record
    number, the id ``to-screen.ris`` writes)."""
    import rispy

    text = read_text(path)
    if _is_wos_tagged(text):
        return [(work, None) for work in read_wos(path)]
    return [(ris_work(entry), _joined(entry.get("id")) or None)
            for entry in rispy.loads(closed_records(text))]


_RIS_TY = re.compile(r"^\s*TY  -")
_RIS_ER = re.compile(r"^\s*ER  -")


def closed_records(text: str) -> str:
    """RIS text in which every record ends with ``ER  -``: a record left open (an export cut
    short, a record pasted in by hand) is closed before the next ``TY  -`` and at the end.
    Left open, the last record was dropped, and one missing ``ER`` ran two records into one."""
    lines = text.split("\n")
    closed: list[str] = []
    open_record = False
    for line in lines:
        if _RIS_TY.match(line):
            if open_record:
                closed.append("ER  - ")
            open_record = True
        elif _RIS_ER.match(line):
            open_record = False
        closed.append(line)
    if open_record:
        closed.append("ER  - ")
    return "\n".join(closed)


RIS_TITLES = ("title", "primary_title")
"""Where exports put the title: ``TI`` (Zotero, Scopus, EndNote) or ``T1`` (Mendeley, Ovid)."""
RIS_FALLBACK_TITLES = ("BT", "CT")
"""Older RIS tags for a title (a book's, an unpublished work's), kept by rispy as unknown tags;
read, with the short title ``ST``, only when neither ``TI`` nor ``T1`` is given."""
RIS_VENUES = ("alternate_title3", "secondary_title", "journal_name", "alternate_title2",
              "alternate_title1")
"""The journal: ``JF`` (its full name: Ovid, Embase), else ``T2`` (Zotero, EndNote, Scopus; a
chapter's book), else ``JO`` (full or abbreviated, as the exporter chose: 'J. Chem. Phys.'),
else the abbreviations ``JA`` and ``J2``; the publisher only when none is given (a book)."""
PUBMED_DATABASES = re.compile(r"pubmed|medline|\bnlm\b", re.IGNORECASE)
"""The ``DB``/``DP`` names under which an RIS record's accession number ``AN`` is its PMID
(EndNote's PubMed import); other databases' accession numbers are digits too (ProQuest)."""


def ris_work(entry: dict[str, Any]) -> Work | None:
    """One RIS record as a work, reading each field where the different exporters put it."""
    unknown = entry.get("unknown_tag") or {}
    notes = _joined(entry.get("notes"))
    urls = [url for url in entry.get("urls") or [] if isinstance(url, str)]
    database = f"{entry.get('name_of_database', '')} {entry.get('database_provider', '')}"
    found = dict(pair for url in urls for pair in identifiers_in_url(url))
    title = next((_joined(entry.get(key)) for key in RIS_TITLES if entry.get(key)), None) \
        or next((_joined(unknown.get(tag)) for tag in RIS_FALLBACK_TITLES if unknown.get(tag)),
                None) or _joined(entry.get("short_title"))
    return _work(
        title=title,
        authors=listed(entry.get("authors") or entry.get("first_authors")),
        year=year_in(entry.get("year") or entry.get("publication_year") or entry.get("date")),
        venue=next((_joined(entry.get(key)) for key in RIS_VENUES if entry.get(key)), None)
        or _joined(entry.get("publisher")),
        abstract=_joined(entry.get("abstract")) or _joined(entry.get("notes_abstract")),
        doi=_first_doi(entry.get("doi"), entry.get("type_of_work"), found.get("doi"), notes),
        pmid=_ris_pmid(entry, database, notes) or found.get("pmid"),
        pmcid=_pmcid_in(entry.get("custom2"), entry.get("accession_number"), notes)
        or found.get("pmcid"),
        arxiv_id=found.get("arxiv") or _arxiv_in(notes, _joined(entry.get("accession_number"))),
        url=urls[0] if urls else None,
        volume=_joined(entry.get("volume")), issue=_joined(entry.get("number")),
        pages=_page_range(_joined(entry.get("start_page")), _joined(entry.get("end_page"))),
        kind=RIS_KINDS.get(str(entry.get("type_of_reference", "")).strip().upper()))


def _page_range(first: str | None, last: str | None) -> str | None:
    """'23-35' from a first and a last page; the first alone when there is no last (an article
    number), or when the first already is a range (some exporters write 'SP - 23-35')."""
    if not first:
        return None
    return f"{first}-{last}" if last and last != first and "-" not in first else first


def _joined(value: Any) -> str | None:
    """A field's text: a repeated tag (a list) joined, stripped; None when empty."""
    if isinstance(value, (list, tuple)):
        value = " ".join(str(part) for part in value if part)
    text = re.sub(r"\s+", " ", str(value or "")).strip()
    return text or None


def _first_doi(*candidates: Any) -> str | None:
    """The first candidate naming a DOI (``DO``, then ``M3``, where some exporters put it,
    then a doi.org address, then the notes)."""
    for candidate in candidates:
        doi = normalize_doi(_joined(candidate))
        if doi:
            return doi
    return None


def _ris_pmid(entry: dict[str, Any], database: str, notes: str | None) -> str | None:
    """The PMID: 'PMID: 123' in the notes (Zotero), the accession number of a record from
    PubMed (EndNote), or ``C2`` in a Scopus export (its 'PubMed ID')."""
    if found := re.search(r"\bPMID:?\s*(\d+)", notes or ""):
        return found.group(1)
    accession = _joined(entry.get("accession_number")) or ""
    if PUBMED_DATABASES.search(database) and accession.isdigit():
        return accession
    custom2 = _joined(entry.get("custom2")) or ""
    if "scopus" in database.lower() and custom2.isdigit():
        return custom2
    return None


def _pmcid_in(*values: Any) -> str | None:
    for value in values:
        if found := re.search(r"\bPMC\d+\b", _joined(value) or ""):
            return found.group(0)
    return None


def _arxiv_in(*texts: str | None) -> str | None:
    for text in texts:
        if found := re.search(r"\barXiv:\s*([\w.\-/]+\d)", text or "", re.IGNORECASE):
            return found.group(1)
    return None


CSL_KINDS = {"article": "preprint", "webpage": "web", "post-weblog": "web", "chapter": "chapter",
             "book": "book"}


def csl_work(item: dict[str, Any]) -> Work | None:
    """A CSL-JSON item as a work (Zotero's, pandoc's, Mendeley's; a Crossref work too, whose
    titles are lists and whose dates may be ``raw`` text)."""
    names = [_csl_name(a) for a in item.get("author") or [] if isinstance(a, dict)]
    issued = item.get("issued") or {}
    parts = issued.get("date-parts") if isinstance(issued, dict) else None
    first = parts[0][0] if parts and isinstance(parts[0], list) and parts[0] else None
    raw = (issued.get("raw") or issued.get("literal")) if isinstance(issued, dict) else issued
    number = str(item.get("number") or "")
    return _work(
        title=_csl_text(item.get("title")), authors=[n for n in names if n],
        year=year_in(first) or year_in(raw),
        venue=_csl_text(item.get("container-title")) or _csl_text(item.get("publisher")),
        abstract=_csl_text(item.get("abstract")), doi=_csl_text(item.get("DOI")),
        pmid=_csl_text(item.get("PMID")), pmcid=_csl_text(item.get("PMCID")),
        url=_csl_text(item.get("URL")), volume=_csl_text(item.get("volume")),
        issue=_csl_text(item.get("issue")), pages=_csl_text(item.get("page")),
        arxiv_id=number.removeprefix("arXiv:") if number.startswith("arXiv:") else None,
        kind=CSL_KINDS.get(str(item.get("type", ""))))


def _csl_text(value: Any) -> str | None:
    """A CSL field's text: a string or number as it is, a list (Crossref's titles) by its first
    element."""
    if isinstance(value, list):
        value = value[0] if value else None
    return str(value).strip() or None if isinstance(value, (str, int, float)) else None


def _csl_name(name: dict[str, Any]) -> str:
    """'Family, Given' with the particle kept ('van Gogh, Vincent'), or a group's literal."""
    family = " ".join(str(part) for part in (name.get("non-dropping-particle"),
                                             name.get("family")) if part)
    given = " ".join(str(part) for part in (name.get("given"), name.get("dropping-particle"))
                     if part)
    return str(name.get("literal") or ", ".join(p for p in (family, given) if p))


def read_csl_json(path: Path) -> list[Work | None]:
    data = _json(path, read_text(path))
    items = data.get("items", []) if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise LibraryError(f"{path}: CSL-JSON is an array of items")
    return [csl_work(item) for item in items if isinstance(item, dict)]


WORK_FIELDS = ("title", "authors", "year", "venue", "abstract", "doi", "pmid", "pmcid",
               "arxiv_id", "openalex_id", "url", "full_text")


def read_jsonl(path: Path) -> list[Work | None]:
    """One record a line: a CSL-JSON item (it has ``issued`` or name objects), else work fields."""
    works: list[Work | None] = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        item = _json(path, line, number)
        if not isinstance(item, dict):
            raise LibraryError(f"{path}:{number}: a record must be a JSON object")
        is_csl = "issued" in item or any(isinstance(a, dict) for a in item.get("author", []))
        works.append(csl_work(item) if is_csl
                     else _work(**{key: item.get(key) for key in WORK_FIELDS}))
    return works


def _json(path: Path, text: str, line: int | None = None) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"{path}:{line}" if line else str(path)
        raise LibraryError(f"{where}: not valid JSON ({exc.msg}); fix or remove it") from exc


@contextmanager
def _pypdf_quiet() -> Iterator[None]:
    """pypdf's warnings ('invalid pdf header', 'EOF marker not found') kept off the terminal
    while a library PDF is read: a PDF that cannot be read is reported in one line that says
    what to do, and the warnings of one that can be read are not the scientist's concern."""
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def read_pdf(path: Path) -> list[Work | None]:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    try:
        with _pypdf_quiet():
            data = path.read_bytes()
            reader = PdfReader(io.BytesIO(data))
            pages = [page.extract_text() or "" for page in reader.pages[:PDF_PAGES]]
            document = parse_pdf(data)
    except FileNotDecryptedError:
        raise LibraryError(f"{path}: the PDF is password-protected; give a copy without a "
                           "password or leave it out of the library") from None
    except (PdfReadError, OSError, ValueError) as exc:
        raise LibraryError(f"{path}: cannot read this PDF ({exc}); it may be empty, cut short or "
                           "not a PDF (a reference manager's placeholder): download it again "
                           "or leave it out of the library") from exc
    meta: Any = reader.metadata or {}
    text = "\n".join(pages)
    title = document.title or path.stem
    authors = pdf_authors(meta.get("/Author") or "")
    doi = _DOI.search(pages[0] if pages else "")
    full_text, spans = document.joined()
    return [_work(
        title=title, authors=authors, year=_pdf_year(meta.get("/CreationDate")),
        abstract=document.abstract or pdf_abstract(text),
        doi=doi.group(0).rstrip(".,;)") if doi else None,
        full_text=full_text or None, full_text_spans=spans,
        full_text_source=f"library file {path.name}",
        url=path.resolve().as_uri())]


def read_jats(path: Path) -> list[Work | None]:
    """JATS articles (``.nxml`` from the PMC OA package, an efetch or Europe PMC ``.xml``):
    every article of a file that holds several (an efetch ``<pmc-articleset>``)."""
    data = path.read_bytes()
    try:
        articles = list(split_articles(data).values()) or [data]
        return [_jats_work(path, parse_jats(article)) for article in articles]
    except InputError as exc:
        raise LibraryError(f"{path}: cannot read this JATS article ({exc})") from exc


def _jats_work(path: Path, document: FullTextDocument) -> Work | None:
    full_text, spans = document.joined()
    return _work(
        title=document.title or path.stem, authors=document.authors, year=document.year,
        venue=document.venue, abstract=document.abstract, doi=document.doi,
        pmid=document.pmid, pmcid=document.pmcid, licence=document.licence,
        full_text=full_text or None, full_text_spans=spans,
        full_text_source=f"library file {path.name}", url=path.resolve().as_uri())


def read_xml(path: Path) -> list[Work | None]:
    """An XML file, read as what its root says it is: PubMed records (an efetch answer or a
    saved ``PubmedArticleSet``), an EndNote XML export, or JATS articles."""
    root = parse_xml(path.read_bytes())
    kind = xml_kind(root) if root is not None else None
    if root is None or kind is None:
        found = (f"its root is <{etree.QName(root).localname}>" if root is not None
                 else "it is not readable XML")
        raise LibraryError(f"{path}: not an XML this library reads ({found}); give PubMed XML "
                           "(PubmedArticleSet), an EndNote XML export or a JATS article")
    if kind == "pubmed":
        return [work.model_copy(update={"sources": ["library"]})
                if work.title != UNTITLED else None for work in pubmed_records(root)]
    if kind == "endnote":
        return [_work(**fields) for fields in endnote_fields(root)]
    return read_jats(path)


def read_medline(path: Path) -> list[Work | None]:
    """A MEDLINE file (PubMed's ``.nbib`` "citation manager" export, its "PubMed format")."""
    return [_work(**fields) for fields in medline_fields(read_text(path))]


def read_wos(path: Path) -> list[Work | None]:
    """A Web of Science "plain text" export (``savedrecs.txt``)."""
    return [_work(**fields) for fields in wos_fields(read_text(path))]


def read_enw(path: Path) -> list[Work | None]:
    """An EndNote tagged file (``.enw``, the "EndNote" citation a publisher's page downloads)."""
    return [_work(**fields) for fields in enw_fields(read_text(path))]


TEXT_READERS: dict[str, Reader] = {"ris": read_ris, "medline": read_medline, "wos": read_wos,
                                   "enw": read_enw}


def read_tagged_text(path: Path) -> list[Work | None]:
    """A ``.txt`` export, read as the tagged format its records start with: RIS (``TY  -``),
    MEDLINE (``PMID-``), Web of Science (``FN``/``PT``) or EndNote (``%0``); or as a table when
    its first line
    is a tab- or comma-separated header with a title column (Web of Science's tab-delimited
    ``savedrecs.txt``)."""
    return [work for work, _ in tagged_text_records(path)]


def tagged_text_records(path: Path) -> list[tuple[Work | None, OwnId]]:
    """The records of a ``.txt`` export (:func:`read_tagged_text`), with the ids an RIS record
    or a table row gives them."""
    text = read_text(path)
    kind = sniff_text(text)
    if kind is None and _is_table(text):
        return csv_records(path)
    if kind is None:
        raise LibraryError(f"{path}: a .txt library file must be an RIS, MEDLINE (PubMed), "
                           "Web of Science or EndNote export; no record tag (TY  -, PMID-, PT, "
                           "%0) was found")
    if kind == "ris":
        return ris_records(path)
    return [(work, None) for work in TEXT_READERS[kind](path)]


def _is_table(text: str) -> bool:
    """Whether ``text`` starts with a table header naming a title column (:data:`CSV_COLUMNS`)."""
    text = _from_header(text)
    header = next((line for line in text.splitlines() if line.strip()), "")
    names = _header_names(header, _delimiter(text))
    return len(names) > 1 and bool(names & set(CSV_COLUMNS["title"]))


def _is_tagged_export(path: Path) -> bool:
    """Whether a ``.txt`` file in a library folder is an export (RIS, MEDLINE, Web of
    Science): other text files there (notes, a README) are not records, and are passed over."""
    try:
        text = read_text(path)
        return sniff_text(text) is not None or _is_table(text)
    except LibraryError:
        return False


def _is_wos_tagged(text: str) -> bool:
    return sniff_text(text) == "wos"


def _pdf_year(value: Any) -> int | None:
    """The year of a PDF date string ("D:20220301120000Z")."""
    found = re.match(r"(?:D:)?(\d{4})", str(value or ""))
    return year_in(found.group(1)) if found else None


def pdf_authors(field: str) -> list[str]:
    """The /Author field's names: separated by semicolons when there are any ("Rossi, Marco;
    Bianchi, Lia"), else by commas and "and" ("Marco Rossi, Lia Bianchi and Bo Lee")."""
    separator = r";" if ";" in field else r",|\band\b"
    return [name.strip() for name in re.split(separator, field) if name.strip()]


def pdf_abstract(text: str) -> str | None:
    """The paragraph after an "Abstract" heading, else the start of the text."""
    found = re.search(r"\babstract\b[\s.:—-]*(.+)", text, re.IGNORECASE | re.DOTALL)
    body = (found.group(1) if found else text).strip()
    end = re.search(r"\n\s*(?:\d\.?\s+)?(?:introduction|keywords|background)\b", body,
                    re.IGNORECASE)
    body = body[:end.start()] if end else body
    return re.sub(r"\s+", " ", body[:PDF_ABSTRACT_CHARS]).strip() or None


OWN_ID_READERS: dict[Reader, Callable[[Path], list[tuple[Work | None, OwnId]]]] = {
    read_ris: ris_records, read_bibtex: bibtex_records, read_csv_works: csv_records,
    read_tagged_text: tagged_text_records,
}
"""The readers of formats whose records carry an id of their own, and the same readers with
the ids (:data:`OwnId`); the others' records have none."""
READERS: dict[str, Reader] = {
    ".bib": read_bibtex, ".ris": read_ris, ".json": read_csl_json, ".jsonl": read_jsonl,
    ".pdf": read_pdf, ".nxml": read_jats, ".xml": read_xml, ".nbib": read_medline,
    ".medline": read_medline, ".txt": read_tagged_text, ".enw": read_enw,
}
