"""The local library: a scientist's own collection searched like any other source, and first.

``--library PATH`` (or ``SCHOLARGRAPH_LIBRARY``) names a file or a folder of files:

- ``.bib`` BibTeX (read with bibtexparser, LaTeX decoded with pylatexenc),
- ``.ris`` RIS (rispy),
- ``.json`` CSL-JSON (an array of items, as Zotero and pandoc write it),
- ``.jsonl`` one record per line: a CSL-JSON item or a record with this project's work fields,
- ``.pdf`` papers (pypdf): title and authors from the document's metadata or first page, the DOI
  from its first page, the abstract after an "Abstract" heading, and the whole text with its
  pages and section headings (:mod:`scholargraph.fulltext.pdf`), so passages cite "p. 6";
- ``.nxml`` / ``.xml`` JATS articles (a PMC download): metadata from the front matter, the body
  with its sections, captions and tables (:mod:`scholargraph.fulltext.jats`), so passages cite
  "Results > Subgroups";
- ``.csv`` exports with ``title`` and ``abstract`` columns, for a review (``with_csv``): read by
  ``scholargraph screen``'s own reader (:func:`csv_rows`, which ``screen`` uses too), so the
  two commands read the same files the same way.

Text files are read as UTF-8, else as Windows-1252 (with a warning). A file that cannot be decoded
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

import csv
import io
import json
import logging
import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any, get_args

from scholargraph.agents.schemas import Domain, Intent
from scholargraph.errors import ConfigurationError, InputError
from scholargraph.fulltext.jats import parse_jats
from scholargraph.fulltext.pdf import parse_pdf
from scholargraph.rag.ranking import LexicalIndex, tokenize
from scholargraph.records import Work
from scholargraph.sources.base import SearchRequest, SourceAgent, SourceResult

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
        works = [w for w in every if _in_window(w, request.since, request.until)]
        if request.query.startswith(EVERY_RECORD):
            return SourceResult(works=works, log_note=read_note(len(works), len(every), path))
        return SourceResult(works=match(works, request.query)[:request.limit])


def read_note(kept: int, total: int, path: Path) -> str:
    """The search log's word on a library read whole: how many records, and why not all."""
    if kept == total:
        return f"{total} records read from {path}"
    return (f"{kept} of the {total} records read from {path}: the others are outside the "
            "years asked for (a record without a year is left out when years are given)")


def _in_window(work: Work, since: int | None, until: int | None) -> bool:
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
    CSV exports too (a review does; ``screen`` reads them itself, keeping each row's id)."""
    readers = library_readers(with_csv)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix.lower() in readers)
    else:
        files = [path]
    signature = tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files)
    return list(_load(signature, with_csv))


@lru_cache(maxsize=8)
def _load(signature: tuple[tuple[str, int, int], ...], with_csv: bool) -> tuple[Work, ...]:
    """Works of the files in ``signature`` (name, mtime, size): re-read only when one changes."""
    works: list[Work] = []
    readers = library_readers(with_csv)
    for name, _, _ in signature:
        path = Path(name)
        reader = readers.get(path.suffix.lower())
        if reader is None:
            raise LibraryError(f"{path}: not a library file; use .bib, .ris, .json (CSL-JSON), "
                               ".jsonl, .pdf, a JATS .nxml/.xml"
                               + (" or a .csv with title and abstract columns" if with_csv
                                  else ""))
        works += _read_one(path, reader)
    return tuple(works)


def library_readers(with_csv: bool) -> dict[str, Reader]:
    """The readers by file suffix: :data:`READERS`, and the CSV reader when asked for."""
    return {**READERS, ".csv": read_csv_works} if with_csv else READERS


CSV_ID_COLUMNS = ("record_id", "id", "key")
CSV_VENUE_COLUMNS = ("journal", "venue", "secondary_title")


def csv_rows(path: Path) -> list[tuple[Work, str | None]]:
    """The rows of a CSV export that have a title (a header row names the columns), each as a
    work and the id its row gives it, if any: one reader for ``review --library`` and
    ``screen``, the same columns, the same refusal of a file with no 'title' column."""
    rows = list(csv.DictReader(io.StringIO(read_text(path))))
    if not rows or "title" not in {(name or "").strip().lower() for name in rows[0]}:
        raise LibraryError(f"{path}: a CSV library needs a header with a 'title' column (and "
                           "'abstract'); no such column was found")
    found = []
    for row in rows:
        cells = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items()
                 if isinstance(v, str)}
        if not cells.get("title"):
            continue
        own_id = next((cells[c] for c in CSV_ID_COLUMNS if cells.get(c)), None)
        venue = next((cells[c] for c in CSV_VENUE_COLUMNS if cells.get(c)), None)
        authors = [a.strip() for a in cells.get("authors", "").split(";") if a.strip()]
        year = cells.get("year", "")
        work = Work(title=cells["title"], abstract=cells.get("abstract") or None,
                    doi=cells.get("doi") or None, pmid=cells.get("pmid") or None,
                    year=int(year) if year.isdigit() else None, authors=authors, venue=venue,
                    sources=["library"])
        found.append((work, own_id))
    return found


def read_csv_works(path: Path) -> list[Work | None]:
    """A CSV export's rows with a title (:func:`csv_rows`)."""
    return [work for work, _ in csv_rows(path)]


PARSE_ERRORS = (ValueError, TypeError, KeyError, IndexError, AttributeError, csv.Error)
"""What the format libraries raise on a file they cannot make sense of (bibtexparser, rispy,
the csv module)."""


def _read_one(path: Path, reader: Reader) -> list[Work]:
    """One file's works; a file that cannot be parsed is a :class:`LibraryError` naming it.
    Records without a title are left out with a warning that counts them, so that a scientist
    comparing the export's size with PRISMA's "identified" knows where the difference went."""
    try:
        records = reader(path)
    except LibraryError:
        raise
    except PARSE_ERRORS as exc:
        detail = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise LibraryError(f"{path}: cannot be read as a {path.suffix.lower()} file ({detail}); "
                           "fix it, export it again, or leave it out of the library") from exc
    works = [work for work in records if work is not None]
    if untitled := len(records) - len(works):
        log.warning("%s: %d record(s) without a title left out (a record is cited and screened "
                    "by its title)", path, untitled)
    suffix = path.suffix.lower()
    if not works and suffix in LENIENT_FORMATS and read_text(path).strip():
        raise LibraryError(f"{path}: no record with a title could be read; is it really a "
                           f"{LENIENT_FORMATS[suffix]} file?")
    if not works and suffix in RECORD_FORMATS:
        raise LibraryError(f"{path}: no record has a title (a record is cited and screened by "
                           "its title); export the records with their titles")
    return works


LENIENT_FORMATS = {".bib": "BibTeX", ".ris": "RIS"}
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
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as utf8_error:
        try:
            text = data.decode(FALLBACK_ENCODING)
        except UnicodeDecodeError:
            raise LibraryError(
                f"{path}: not UTF-8 text (byte {utf8_error.start}) nor Windows-1252; export it "
                "again as UTF-8") from None
    log.warning("%s is not UTF-8; read as Windows-1252", path)
    return text


def _work(**fields: Any) -> Work | None:
    """A library work, or None for a record without a title (nothing to cite it by)."""
    if not (fields.get("title") or "").strip():
        return None
    fields["sources"] = ["library"]
    if fields.get("arxiv_id") and not fields.get("doi") and fields.get("kind") is None:
        fields["kind"] = "preprint"
    return Work(**{key: value for key, value in fields.items() if value not in (None, "", [])})


def _year(value: Any) -> int | None:
    found = re.search(r"\b(1[5-9]\d\d|20\d\d)\b", str(value or ""))
    return int(found.group(1)) if found else None


def _latex_text(value: str | None) -> str | None:
    """BibTeX's LaTeX ({\\"u}, \\&, braces) as plain text."""
    if not value:
        return None
    from pylatexenc.latex2text import LatexNodes2Text

    return re.sub(r"\s+", " ", LatexNodes2Text().latex_to_text(value)).strip()


def read_bibtex(path: Path) -> list[Work | None]:
    import bibtexparser
    from bibtexparser.bparser import BibTexParser

    parser = BibTexParser(common_strings=True, ignore_nonstandard_types=False)
    database = bibtexparser.loads(read_text(path), parser=parser)
    works: list[Work | None] = []
    for entry in database.entries:
        fields = {key.lower(): value for key, value in entry.items()}
        prefix = (fields.get("archiveprefix") or fields.get("eprinttype") or "arxiv").lower()
        arxiv = fields.get("eprint") if prefix == "arxiv" else None
        authors = [_latex_text(a) for a in re.split(r"\s+and\s+", fields.get("author", "")) if a]
        works.append(_work(
            title=_latex_text(fields.get("title")), authors=authors, year=_year(fields.get("year")),
            venue=_latex_text(fields.get("journal") or fields.get("booktitle")
                              or fields.get("publisher")),
            abstract=_latex_text(fields.get("abstract")), doi=fields.get("doi"),
            pmid=fields.get("pmid"), arxiv_id=arxiv, url=fields.get("url"),
            kind="preprint" if arxiv and fields.get("entrytype") in ("misc", "unpublished")
            else BIBTEX_KINDS.get(fields.get("entrytype", "").lower())))
    return works


BIBTEX_KINDS = {"incollection": "chapter", "inbook": "chapter", "book": "book"}
"""BibTeX types that say what a work is beyond 'an article': a chapter of a book (its
``booktitle`` the venue) and a whole book (its ``publisher``), as the BibTeX export writes them."""
RIS_KINDS = {"UNPB": "preprint", "ELEC": "web", "BLOG": "web", "WEB": "web", "CHAP": "chapter",
             "BOOK": "book", "EBOOK": "book", "ECHAP": "chapter", "EDBOOK": "book"}


def read_ris(path: Path) -> list[Work | None]:
    import rispy

    works: list[Work | None] = []
    for entry in rispy.loads(read_text(path)):
        notes = " ".join(entry.get("notes", []))
        pmid = re.search(r"PMID:\s*(\d+)", notes)
        arxiv = re.search(r"arXiv:\s*(\S+)", notes)
        works.append(_work(
            title=entry.get("title") or entry.get("primary_title"),
            authors=entry.get("authors") or entry.get("first_authors") or [],
            year=_year(entry.get("year") or entry.get("publication_year") or entry.get("date")),
            venue=entry.get("journal_name") or entry.get("secondary_title")
            or entry.get("publisher"),
            abstract=entry.get("abstract"), doi=entry.get("doi"),
            pmid=pmid.group(1) if pmid else None, arxiv_id=arxiv.group(1) if arxiv else None,
            url=(entry.get("urls") or [None])[0],
            kind=RIS_KINDS.get(entry.get("type_of_reference", ""))))
    return works


CSL_KINDS = {"article": "preprint", "webpage": "web", "post-weblog": "web", "chapter": "chapter",
             "book": "book"}


def csl_work(item: dict[str, Any]) -> Work | None:
    """A CSL-JSON item as a work."""
    names = [a.get("literal") or ", ".join(p for p in (a.get("family"), a.get("given")) if p)
             for a in item.get("author", []) if isinstance(a, dict)]
    issued = (item.get("issued") or {}).get("date-parts") or [[None]]
    number = str(item.get("number") or "")
    return _work(
        title=item.get("title"), authors=[n for n in names if n], year=_year(issued[0][0]),
        venue=item.get("container-title") or item.get("publisher"),
        abstract=item.get("abstract"), doi=item.get("DOI"), pmid=item.get("PMID"),
        pmcid=item.get("PMCID"), url=item.get("URL"),
        arxiv_id=number.removeprefix("arXiv:") if number.startswith("arXiv:") else None,
        kind=CSL_KINDS.get(item.get("type", "")))


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


def read_pdf(path: Path) -> list[Work | None]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        data = path.read_bytes()
        reader = PdfReader(io.BytesIO(data))
        pages = [page.extract_text() or "" for page in reader.pages[:PDF_PAGES]]
        document = parse_pdf(data)
    except (PdfReadError, OSError, ValueError) as exc:
        raise LibraryError(f"{path}: cannot read this PDF ({exc})") from exc
    meta: Any = reader.metadata or {}
    text = "\n".join(pages)
    first_lines = [line.strip() for line in (pages[0] if pages else "").splitlines()
                   if line.strip()]
    title = (meta.get("/Title") or "").strip() or (first_lines[0] if first_lines else path.stem)
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
    """A JATS article (``.nxml`` from the PMC OA package, an efetch or Europe PMC ``.xml``)."""
    try:
        document = parse_jats(path.read_bytes())
    except (InputError, OSError) as exc:
        raise LibraryError(f"{path}: cannot read this JATS article ({exc})") from exc
    full_text, spans = document.joined()
    return [_work(
        title=document.title or path.stem, authors=document.authors, year=document.year,
        venue=document.venue, abstract=document.abstract, doi=document.doi,
        pmid=document.pmid, pmcid=document.pmcid, licence=document.licence,
        full_text=full_text or None, full_text_spans=spans,
        full_text_source=f"library file {path.name}", url=path.resolve().as_uri())]


def _pdf_year(value: Any) -> int | None:
    """The year of a PDF date string ("D:20220301120000Z")."""
    found = re.match(r"(?:D:)?(\d{4})", str(value or ""))
    return _year(found.group(1)) if found else None


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


READERS: dict[str, Reader] = {
    ".bib": read_bibtex, ".ris": read_ris, ".json": read_csl_json, ".jsonl": read_jsonl,
    ".pdf": read_pdf, ".nxml": read_jats, ".xml": read_jats,
}
