"""The OpenAlex API (``/openalex/works``) answered from real recorded Work objects.

The pool is every recorded Work (the peneira list page, the paper-qa title search, and the two
single-work recordings), each kept as the exact bytes it was recorded with. ``/works/{id}`` (an
OpenAlex id or a DOI URL) serves one of them; ``/works?search=...&filter=...`` serves those that
match, best match first, in a list envelope composed in the recorded shape
(``{"meta": {...}, "results": [...], "group_by": []}``); ``cursor=*`` paging adds
``meta.next_cursor`` as the live API does, and ``page=`` paging sets ``meta.page``. Supported
filters: publication and creation dates (``from_created_date``, ``to_created_date``: the
live API keeps these for Premium keys; the replay answers them), years, DOI, OpenAlex id,
``cites`` (works whose ``referenced_works`` hold the id), ``title.search``/``abstract.search``/
``title_and_abstract.search``/``default.search``, ``type``, ``is_retracted``; an OR filter takes
up to 100 values; any other filter is refused with the live API's 400 error shape. ``sort`` by
citation count or date, and ``select`` of root fields (the results are then re-serialised from
the recorded objects, cut down to those fields). A query matching nothing gets ``meta.count`` 0.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from typing import Any
from urllib.parse import unquote

from scholargraph.identifiers import normalize_doi, normalize_openalex_id
from scholargraph.testing.fixtures import fixture_bytes
from scholargraph.testing.messages import ReplayRequest, ReplayResponse
from scholargraph.testing.services import querymatch
from scholargraph.testing.services.querymatch import Doc, Term, Token

LIST_FILES = (
    "openalex/peneira_works.json",
    "openalex/paperqa_test_title_search_paper_attributes2.openalex.json",
)
SINGLE_FILES = (
    "openalex/openalex-python_W2741809807.json",
    "openalex/paperqa_test_doi_search_paper_attributes0.openalex.json",
)
PER_PAGE_MAX = 200  # what the live API still accepts; the agent asks for 100 (current docs)
OR_LIMIT = 100  # values in one OR filter (current docs)
SORT_FIELDS = ("cited_by_count", "publication_date", "publication_year")
SELECTABLE = frozenset({
    "id", "doi", "title", "display_name", "publication_year", "publication_date", "ids",
    "language", "primary_location", "type", "open_access", "authorships", "cited_by_count",
    "is_retracted", "is_paratext", "referenced_works", "related_works", "abstract_inverted_index",
    "best_oa_location", "locations", "biblio", "concepts", "topics", "keywords", "updated_date",
    "created_date",
})
CURSOR_PREFIX = "replay:"

_TOKEN = re.compile(r'(?P<paren>[()])|"(?P<phrase>[^"]*)"|(?P<word>[^\s()"]+)')
SYNTAX = querymatch.Syntax(
    tokenize=lambda query: _tokenize(query),
    fields={None: ("title", "abstract"), "title": ("title",), "abstract": ("abstract",)},
)


def _tokenize(query: str) -> list[Token]:
    tokens: list[Token] = []
    for match in _TOKEN.finditer(query):
        if match.group("paren"):
            tokens.append(match.group("paren"))
        elif match.group("phrase") is not None:
            tokens.append(Term(None, match.group("phrase"), quoted=True))
        elif match.group("word") in ("AND", "OR", "NOT"):
            tokens.append(match.group("word"))
        else:
            tokens.append(Term(None, match.group("word"), quoted=False))
    return tokens


@dataclass(frozen=True)
class Recorded:
    """One recorded Work: its exact bytes and the parsed object the filters read."""

    raw: bytes
    work: dict[str, Any]
    doc: Doc

    @property
    def openalex_id(self) -> str:
        return normalize_openalex_id(self.work.get("id")) or ""


def _recorded(raw: bytes) -> Recorded:
    work = json.loads(raw)
    abstract = _abstract(work.get("abstract_inverted_index"))
    doc = Doc({"title": querymatch.words(work.get("title") or ""),
               "abstract": querymatch.words(abstract)},
              date=str(work.get("publication_date") or "").replace("-", ""))
    return Recorded(raw, work, doc)


def _abstract(index: dict[str, list[int]] | None) -> str:
    if not index:
        return ""
    positions = sorted((at, word) for word, ats in index.items() for at in ats)
    return " ".join(word for _, word in positions)


def _list_items(raw: bytes) -> list[bytes]:
    """The exact bytes of each object in a list response's ``results`` array."""
    text = raw.decode("utf-8")
    decoder = json.JSONDecoder()
    start = re.search(r'"results"\s*:\s*\[', text)
    if start is None:
        return []
    items: list[bytes] = []
    at = start.end()
    while True:
        at = len(text) - len(text[at:].lstrip(" \n\r\t,"))
        if text[at] == "]":
            return items
        _, end = decoder.raw_decode(text, at)
        items.append(text[at:end].encode("utf-8"))
        at = end


class FilterError(ValueError):
    """A filter the replay (like the live API) refuses."""


class OpenAlexService:
    """The OpenAlex API under ``/openalex/``.

    ``extra_works`` adds Work objects to the recorded pool: a test that needs what the
    recordings lack (a retraction, a citation between two pooled works) builds them, and says so.
    """

    prefix = "openalex"

    def __init__(self, extra_works: Iterable[dict[str, Any]] = (),
                 as_of: date | None = None) -> None:
        """``as_of``: serve only the works OpenAlex had created by that day (``created_date``;
        a work without one is kept)."""
        self._extra = [json.dumps(work).encode() for work in extra_works]
        self.as_of = as_of

    @cached_property
    def pool(self) -> list[Recorded]:
        seen: dict[str, Recorded] = {}
        raws = [item for name in LIST_FILES for item in _list_items(fixture_bytes(name))]
        raws += [fixture_bytes(name).strip() for name in SINGLE_FILES]
        last = self.as_of.isoformat() if self.as_of else None
        for raw in [*self._extra, *raws]:
            recorded = _recorded(raw)
            if last is None or str(recorded.work.get("created_date") or "")[:10] <= last:
                seen.setdefault(recorded.openalex_id, recorded)
        return list(seen.values())

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        path = request.path.rstrip("/")
        if path == "/works":
            return self._list(request)
        if path.startswith("/works/"):
            return self._single(unquote(path.removeprefix("/works/")))
        return _error(404, "Not found", f"{path} is not served by the replay")

    def search(self, query: str, filters: str = "") -> list[Recorded]:
        """Works that match ``query`` and every filter, best match first."""
        try:
            tree = querymatch.parse(query, SYNTAX) if query.strip() else None
        except querymatch.QueryError:
            return []
        checks = _filters(filters)
        hits = [item for item in self.pool
                if (tree is None or querymatch.matches(tree, item.doc, SYNTAX))
                and all(check(item) for check in checks)]
        if tree is not None:
            hits.sort(key=lambda item: -querymatch.score(tree, item.doc, SYNTAX))
        return hits

    def _single(self, key: str) -> ReplayResponse:
        doi = normalize_doi(key) if "10." in key else None
        wanted = None if doi else normalize_openalex_id(key)
        for item in self.pool:
            if (doi and normalize_doi(item.work.get("doi")) == doi) or (
                    wanted and item.openalex_id == wanted):
                return ReplayResponse(body=item.raw)
        return _error(404, "Not found", f"{key} is not a recorded work")

    def _list(self, request: ReplayRequest) -> ReplayResponse:
        per_page = int(request.param("per-page") or request.param("per_page") or 25)
        if not 1 <= per_page <= PER_PAGE_MAX:
            return _error(400, "Invalid query parameters error.",
                          f"per-page must be between 1 and {PER_PAGE_MAX}")
        try:
            hits = self.search(request.param("search") or "", request.param("filter") or "")
            offset, cursor_mode = _offset(request, per_page)
        except FilterError as exc:
            return _error(400, "Invalid query parameters error.", str(exc))
        try:
            hits = _sorted(hits, request.param("sort"))
            fields = _selected(request.param("select"))
        except FilterError as exc:
            return _error(400, "Invalid query parameters error.", str(exc))
        page = hits[offset:offset + per_page]
        meta: dict[str, Any] = {"count": len(hits), "db_response_time_ms": 1,
                                "page": None if cursor_mode else offset // per_page + 1,
                                "per_page": per_page}
        if cursor_mode:
            more = offset + per_page < len(hits)
            meta["next_cursor"] = _cursor(offset + per_page) if more else None
        meta["groups_count"] = None
        envelope = json.dumps({"meta": meta, "results": [], "group_by": []},
                              separators=(",", ":")).encode()
        items = [item.raw if fields is None else _select(item, fields) for item in page]
        body = envelope.replace(b'"results":[]', b'"results":[' + b",".join(items) + b"]", 1)
        return ReplayResponse(body=body)


def _offset(request: ReplayRequest, per_page: int) -> tuple[int, bool]:
    cursor = request.param("cursor")
    if cursor is not None:
        if cursor == "*":
            return 0, True
        try:
            decoded = base64.urlsafe_b64decode(cursor.encode()).decode()
        except (binascii.Error, UnicodeDecodeError):
            raise FilterError(f"cursor {cursor!r} is not valid") from None
        if not decoded.startswith(CURSOR_PREFIX) or not decoded[len(CURSOR_PREFIX):].isdigit():
            raise FilterError(f"cursor {cursor!r} is not valid")
        return int(decoded[len(CURSOR_PREFIX):]), True
    page = int(request.param("page") or 1)
    return (max(page, 1) - 1) * per_page, False


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"{CURSOR_PREFIX}{offset}".encode()).decode()


def _filters(spec: str) -> list[Any]:
    """One predicate per comma-separated filter; ``|`` inside a value means OR (up to 100)."""
    checks = []
    for part in (piece for piece in spec.split(",") if piece.strip()):
        key, _, value = part.partition(":")
        values = value.split("|")
        if len(values) > OR_LIMIT:
            raise FilterError(f"Maximum number of values exceeded for {key.strip()}. Decrease "
                              f"values to {OR_LIMIT} or below, or consider using a paging "
                              "technique.")
        checks.append(_filter(key.strip(), values))
    return checks


def _sorted(hits: list[Recorded], spec: str | None) -> list[Recorded]:
    """Hits in the order ``sort=field[:desc]`` asks (the fields the agents sort by)."""
    if not spec:
        return hits
    name, _, direction = spec.partition(":")
    if name not in SORT_FIELDS:
        raise FilterError(f"{name} is not a valid sort field")
    def key(item: Recorded) -> Any:
        return item.work.get(name) or 0

    return sorted(hits, key=key, reverse=direction == "desc")


def _selected(spec: str | None) -> list[str] | None:
    if spec is None:
        return None
    fields = [name.strip() for name in spec.split(",") if name.strip()]
    bad = [name for name in fields if name not in SELECTABLE]
    if bad:
        raise FilterError(f"{', '.join(bad)} is not a valid select field. Select takes root-level "
                          "fields only")
    return fields


def _select(item: Recorded, fields: list[str]) -> bytes:
    """The recorded work cut down to ``fields`` (composed: select changes the live API's bytes)."""
    return json.dumps({name: item.work.get(name) for name in fields},
                      ensure_ascii=False).encode("utf-8")


def _filter(key: str, values: list[str]) -> Any:
    def any_of(test: Any) -> Any:
        return lambda item: any(test(item, value) for value in values)

    def date(item: Recorded) -> str:
        return str(item.work.get("publication_date") or "")

    def created(item: Recorded) -> str:
        return str(item.work.get("created_date") or "")[:10]

    if key == "from_created_date":
        return any_of(lambda item, value: created(item) >= value)
    if key == "to_created_date":
        return any_of(lambda item, value: created(item) <= value)
    if key == "from_publication_date":
        return any_of(lambda item, value: date(item) >= value)
    if key == "to_publication_date":
        return any_of(lambda item, value: date(item) <= value)
    if key == "publication_year":
        if not all(re.fullmatch(r"[<>]?\d{1,4}|\d{1,4}-\d{0,4}", value) for value in values):
            raise FilterError(f"publication_year takes a year, a range or >/< a year: {values}")
        return any_of(lambda item, value: _year_matches(item.work.get("publication_year"), value))
    if key == "doi":
        return any_of(lambda item, value:
                      normalize_doi(item.work.get("doi")) == normalize_doi(value))
    if key in ("openalex", "openalex_id", "ids.openalex"):
        return any_of(lambda item, value: item.openalex_id == normalize_openalex_id(value))
    if key == "cites":
        return any_of(lambda item, value: normalize_openalex_id(value) in {
            normalize_openalex_id(ref) for ref in item.work.get("referenced_works") or []})
    if key in ("title.search", "display_name.search", "abstract.search",
               "title_and_abstract.search", "default.search"):
        field = {"title.search": "title", "display_name.search": "title",
                 "abstract.search": "abstract"}.get(key)
        return any_of(lambda item, value: _text_matches(item, value, field))
    if key == "type":
        return any_of(lambda item, value: item.work.get("type") == value)
    if key == "is_retracted":
        return any_of(lambda item, value: bool(item.work.get("is_retracted")) == (value == "true"))
    raise FilterError(f"{key} is not a valid field. Valid fields are listed at "
                      "https://docs.openalex.org/api-entities/works/filter-works")


def _year_matches(year: int | None, value: str) -> bool:
    if year is None:
        return False
    if value.startswith(">"):
        return year > int(value[1:])
    if value.startswith("<"):
        return year < int(value[1:])
    low, _, high = value.partition("-")
    return int(low or 0) <= year <= int(high or low or 9999)


def _text_matches(item: Recorded, value: str, field: str | None) -> bool:
    tree = querymatch.parse(value, SYNTAX)
    if field is None:
        return querymatch.matches(tree, item.doc, SYNTAX)
    return querymatch.matches(tree, Doc({field: item.doc.fields[field]}), SYNTAX)


def _error(status: int, error: str, message: str) -> ReplayResponse:
    return ReplayResponse(status, json.dumps({"error": error, "message": message}).encode())
