"""Crossref's ``/works`` answered from real recorded responses, for the plug-in's tests.

The recordings (``scholargraph/testing/fixtures/crossref/``, from paper-qa's test cassettes,
Apache-2.0) are one work list of a title search and one single work. ``/works/{doi}`` serves the
single work as recorded, or the listed work in the single-work envelope; ``/works?query=...``
serves the recorded works sharing a word with the query, most shared words first, in the
recorded list envelope (``total-results``, ``items``, ``items-per-page``, ``query``), honouring
``rows``, ``offset``, ``select`` and the ``from-pub-date``/``until-pub-date`` filters. Mount it
with ``ReplayServer.default(extra=[CrossrefService()])``; its :meth:`endpoint_env` points the
agent at it.
"""

from __future__ import annotations

import json
import re
from functools import cached_property
from typing import Any
from urllib.parse import unquote

from scholargraph.testing import ReplayRequest, ReplayResponse, fixture_bytes
from scholargraph.testing.services.querymatch import STOP_WORDS, words

LIST_FILE = "crossref/paperqa_title_search.works.json"
SINGLE_FILE = "crossref/paperqa_doi_search.work.json"
MAX_ROWS = 1000


class CrossrefService:
    """The Crossref REST API under ``/crossref/``."""

    prefix = "crossref"

    def endpoint_env(self, service_url: str) -> dict[str, str]:
        """The variable that points the Crossref agent at this handler."""
        return {"SCHOLARGRAPH_CROSSREF_URL": service_url.rstrip("/")}

    @cached_property
    def pool(self) -> list[dict[str, Any]]:
        listed = json.loads(fixture_bytes(LIST_FILE))["message"]["items"]
        single = json.loads(fixture_bytes(SINGLE_FILE))["message"]
        return [*listed, single]

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        path = request.path.rstrip("/")
        if path == "/works":
            return self._search(request)
        if path.startswith("/works/"):
            return self._single(unquote(path.removeprefix("/works/")))
        return _error(404, f"{path} is not served by the replay")

    def _single(self, doi: str) -> ReplayResponse:
        recorded = fixture_bytes(SINGLE_FILE)
        if json.loads(recorded)["message"]["DOI"].lower() == doi.lower():
            return ReplayResponse(body=recorded)
        for item in self.pool:
            if item["DOI"].lower() == doi.lower():
                return ReplayResponse(body=_envelope("work", item))
        return ReplayResponse(404, b"Resource not found.", "text/plain")

    def _search(self, request: ReplayRequest) -> ReplayResponse:
        try:
            rows = int(request.param("rows") or 20)
            offset = int(request.param("offset") or 0)
        except ValueError:
            return _error(400, "rows and offset must be integers")
        if not 0 <= rows <= MAX_ROWS:
            return _error(400, f"rows must be between 0 and {MAX_ROWS}")
        query = request.param("query") or ""
        hits = [item for item in self.pool if _in_window(item, request.param("filter") or "")]
        hits = _ranked(hits, query)
        page = [_selected(item, request.param("select")) for item in hits[offset:offset + rows]]
        message = {"facets": {}, "total-results": len(hits), "items": page,
                   "items-per-page": rows, "query": {"start-index": offset,
                                                     "search-terms": query or None}}
        return ReplayResponse(body=_envelope("work-list", message))


def _ranked(items: list[dict[str, Any]], query: str) -> list[dict[str, Any]]:
    wanted = {word for word in words(query) if word not in STOP_WORDS}
    if not wanted:
        return items
    scored = [(len(wanted & set(_text_words(item))), item) for item in items]
    return [item for score, item in sorted(scored, key=lambda pair: -pair[0]) if score]


def _text_words(item: dict[str, Any]) -> list[str]:
    text = " ".join([*(item.get("title") or []), re.sub(r"<[^>]+>", " ", item.get("abstract")
                                                        or "")])
    return words(text)


def _in_window(item: dict[str, Any], spec: str) -> bool:
    year = ((item.get("issued") or {}).get("date-parts") or [[None]])[0][0]
    for part in (piece for piece in spec.split(",") if piece):
        name, _, value = part.partition(":")
        bound = int(value[:4])
        if name == "from-pub-date" and (year is None or year < bound):
            return False
        if name == "until-pub-date" and (year is None or year > bound):
            return False
    return True


def _selected(item: dict[str, Any], select: str | None) -> dict[str, Any]:
    if not select:
        return item
    fields = select.split(",")
    return {name: item[name] for name in fields if name in item}


def _envelope(kind: str, message: Any) -> bytes:
    return json.dumps({"status": "ok", "message-type": kind, "message-version": "1.0.0",
                       "message": message}).encode()


def _error(status: int, text: str) -> ReplayResponse:
    body = {"status": "failed", "message-type": "validation-failure",
            "message": [{"type": "parameter-not-valid", "message": text}]}
    return ReplayResponse(status, json.dumps(body).encode())
