"""The arXiv export API (``/arxiv/api/query``) answered from real recorded Atom feeds.

- A request identical to a recorded one (``search_query=testing``, pages 0-10, 10-20, 0-100, or
  one of the recorded ``id_list`` look-ups) gets the recorded body byte for byte; ``id_list=abc``
  gets the recorded HTTP 400 error feed.
- Any other ``search_query`` is matched against the pool of recorded entries (ti:, abs:, au:,
  cat:, all:, phrases, AND/OR/ANDNOT, ``submittedDate:[... TO ...]``), best match first, and the
  page asked for (``start``/``max_results``) is served in a feed whose header follows the recorded
  shape; the entries themselves are the recorded ``<entry>`` elements byte for byte.
- A query that matches nothing gets the recorded empty feed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from xml.sax.saxutils import escape

from scholargraph.testing.fixtures import fixture_bytes
from scholargraph.testing.messages import ReplayRequest, ReplayResponse, not_recorded
from scholargraph.testing.services import querymatch
from scholargraph.testing.services.querymatch import Doc, Range, Term, Token

ATOM = "application/atom+xml; charset=utf-8"
POOL = "arxiv/q_testing_s0_m100_cfe7536492ca.atom.xml"
EMPTY = "arxiv/id_0000.0000_s0_m100_8b51d9633a68.atom.xml"
RECORDED_QUERIES = {
    ("testing", "0", "10"): "arxiv/q_testing_s0_m10_bc5a6c384fe9.atom.xml",
    ("testing", "10", "10"): "arxiv/q_testing_s10_m10_34e56e15aaac.atom.xml",
    ("testing", "0", "100"): POOL,
}
RECORDED_IDS = {
    "1605.08386": ("arxiv/id_1605.08386_s0_m100_199195aa31ad.atom.xml", 200),
    "0000.0000": (EMPTY, 200),
    "abc": ("arxiv/id_abc_s0_m100_b79c8dcf6bc3.atom.xml", 400),
}

_ENTRY = re.compile(rb"<entry>.*?</entry>", re.DOTALL)
_TOKEN = re.compile(
    r'''(?P<range>(?P<rfield>submittedDate|lastUpdatedDate):\s*\[\s*(?P<lo>\d{4,14})\s+TO\s+(?P<hi>\d{4,14})\s*\])
      |(?P<paren>[()])
      |(?:(?P<field>ti|abs|au|cat|all|co|jr|rn|id):)?(?:"(?P<phrase>[^"]*)"|(?P<word>[^\s()"]+))
    ''', re.VERBOSE)
_FIELDS: dict[str | None, tuple[str, ...]] = {
    None: ("title", "abstract", "authors", "comment"),
    "all": ("title", "abstract", "authors", "comment"),
    "ti": ("title",),
    "abs": ("abstract",),
    "au": ("authors",),
    "co": ("comment",),
    "jr": ("journal",),
    "cat": ("categories",),
    "id": ("ids",),
}


def _tokenize(query: str) -> list[Token]:
    tokens: list[Token] = []
    for match in _TOKEN.finditer(query):
        if match.group("range"):
            tokens.append(Range("date", match.group("lo"), match.group("hi")))
        elif match.group("paren"):
            tokens.append(match.group("paren"))
        elif match.group("phrase") is not None:
            tokens.append(Term(match.group("field"), match.group("phrase"), quoted=True))
        elif match.group("word") in ("AND", "OR", "ANDNOT") and not match.group("field"):
            tokens.append("NOT" if match.group("word") == "ANDNOT" else match.group("word"))
        else:
            tokens.append(Term(match.group("field"), match.group("word"), quoted=False))
    return tokens


SYNTAX = querymatch.Syntax(tokenize=_tokenize, fields=_FIELDS)


@dataclass(frozen=True)
class Entry:
    raw: bytes
    doc: Doc


def _text(raw: bytes, tag: bytes) -> str:
    return " ".join(part.decode("utf-8", "replace")
                    for part in re.findall(rb"<" + tag + rb"[^>]*>(.*?)</" + tag + rb">", raw,
                                           re.DOTALL))


def _entry(raw: bytes) -> Entry:
    published = _text(raw, b"published")
    date = re.sub(r"\D", "", published)[:12]
    fields = {
        "title": _text(raw, b"title"),
        "abstract": _text(raw, b"summary"),
        "authors": _text(raw, b"name"),
        "comment": _text(raw, b"arxiv:comment"),
        "journal": _text(raw, b"arxiv:journal_ref"),
        "ids": _text(raw, b"id"),
    }
    categories = [term.decode() for term in re.findall(rb'<category term="([^"]+)"', raw)]
    return Entry(raw, Doc({name: querymatch.words(text) for name, text in fields.items()},
                          date=date, extra={"categories": categories}))


class ArxivService:
    """The arXiv API at ``/arxiv/api/query``."""

    prefix = "arxiv"

    def __init__(self, as_of: date | None = None) -> None:
        """``as_of``: serve only the entries submitted by that day (``<published>``), as arXiv
        held them then (a search recorded verbatim is still answered verbatim)."""
        self.as_of = as_of

    @cached_property
    def entries(self) -> list[Entry]:
        entries = [_entry(raw) for raw in _ENTRY.findall(fixture_bytes(POOL))]
        if self.as_of is None:
            return entries
        last = f"{self.as_of:%Y%m%d}2359"
        return [entry for entry in entries if entry.doc.date <= last]

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        if request.path.rstrip("/") != "/api/query":
            return not_recorded()  # a PDF (/pdf/{id}) or a page: no PDF is recorded here
        query = (request.param("search_query") or "").strip()
        ids = (request.param("id_list") or "").strip()
        start = request.param("start", "0") or "0"
        size = request.param("max_results", "10") or "10"
        if ids and not query:
            return self._ids(ids)
        recorded = RECORDED_QUERIES.get((query, start, size))
        if recorded:
            return ReplayResponse(body=fixture_bytes(recorded), content_type=ATOM)
        return self._search(query, int(start), int(size))

    def search(self, query: str) -> list[Entry]:
        """The pool's entries that ``query`` matches, best match first."""
        try:
            tree = querymatch.parse(query, SYNTAX)
        except querymatch.QueryError:
            return []
        hits = [entry for entry in self.entries if querymatch.matches(tree, entry.doc, SYNTAX)]
        hits.sort(key=lambda entry: -querymatch.score(tree, entry.doc, SYNTAX))
        return hits

    def _ids(self, ids: str) -> ReplayResponse:
        recorded = RECORDED_IDS.get(ids)
        if recorded is None:
            return ReplayResponse(body=fixture_bytes(EMPTY), content_type=ATOM)
        name, status = recorded
        return ReplayResponse(status, fixture_bytes(name), ATOM)

    def _search(self, query: str, start: int, size: int) -> ReplayResponse:
        hits = self.search(query)
        if not hits:
            return ReplayResponse(body=fixture_bytes(EMPTY), content_type=ATOM)
        page = hits[start:start + size]
        return ReplayResponse(body=_feed(query, start, size, len(hits), page), content_type=ATOM)


def _feed(query: str, start: int, size: int, total: int, page: list[Entry]) -> bytes:
    """A feed in the recorded header's shape around recorded entries."""
    escaped = escape(query, {'"': "&quot;"})
    args = f"search_query={escaped}&amp;id_list=&amp;start={start}&amp;max_results={size}"
    header = (
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        '<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">\n'
        "  <id>https://arxiv.org/api/replay</id>\n"
        f"  <title>arXiv Query: {args}</title>\n"
        "  <updated>2026-04-12T22:09:27Z</updated>\n"
        f'  <link href="https://arxiv.org/api/query?{args}" type="application/atom+xml"/>\n'
        f"  <opensearch:itemsPerPage>{size}</opensearch:itemsPerPage>\n"
        f"  <opensearch:totalResults>{total}</opensearch:totalResults>\n"
        f"  <opensearch:startIndex>{start}</opensearch:startIndex>\n"
    ).encode()
    return header + b"".join(b"  " + entry.raw + b"\n" for entry in page) + b"</feed>\n"
