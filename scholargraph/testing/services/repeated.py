"""Services that find as many records as asked: recorded records repeated under synthetic ids.

The recorded corpus is small (PubMed 7 articles, arXiv 100 entries, OpenAlex 34 works, a few
Materials Project documents, one DuckDuckGo page). Measuring a review of 200 or 1,000 records a
source (``bench/sizes.py``, ``bench/sources.py``, ``tests/test_sizes.py``) needs more, so these
services answer any query with ``total`` records made by repeating recorded ones, byte for byte,
under synthetic ids: PMIDs 90000000+, arXiv ids 9901.xxxxx, OpenAlex ids W9xxxxxxxxx, material
ids mp-9xxxxxx, result links with ``?bench=page``. Their content is recorded; their ids and
counts are not.

What changes with only the ids changed is said here, because it shapes what a review sees:
a repeated PubMed article keeps its DOI, so a run holds many records under one DOI with
different PMIDs (two PMIDs veto a merge, so they stay apart: different works sharing an id, as
a DOI pasted into the wrong record makes them in real data); a repeated arXiv entry keeps its
title and authors (one source, so never merged by title); a repeated OpenAlex work has its DOI
removed. Look-ups by filter (``doi:``, ``openalex:``, ``cites:``) are answered from the recorded
pool, so enrichment finds what it would find there.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from typing import Any

from scholargraph.testing.fixtures import fixture_bytes
from scholargraph.testing.messages import ReplayRequest, ReplayResponse
from scholargraph.testing.server import RateLimit, ReplayServer
from scholargraph.testing.services.arxiv import ATOM, ArxivService, _feed
from scholargraph.testing.services.ddg import HTML, RESULTS_PAGE, DuckDuckGoService
from scholargraph.testing.services.materials import MaterialsService, load_documents
from scholargraph.testing.services.openalex import OpenAlexService, Recorded
from scholargraph.testing.services.pubmed import PubMedService

TOTAL = 100_000
"""Records any query finds, unless a service is made with another total."""


class RepeatedPubMed(PubMedService):
    """Any term finds ``total`` synthetic PMIDs; EFetch serves recorded articles under them.
    ESearch answers JSON when asked (``retmode=json``, as langchain's PubMedAPIWrapper asks)."""

    def __init__(self, total: int = TOTAL) -> None:
        super().__init__()
        self.total = total

    def _esearch(self, request: ReplayRequest) -> ReplayResponse:
        start = int(request.param("retstart") or 0)
        size = int(request.param("retmax") or 20)
        ids = [str(90_000_000 + i) for i in range(start, min(start + size, self.total))]
        if request.param("retmode") == "json":
            result = {"count": str(self.total), "retmax": str(len(ids)), "retstart": str(start),
                      "querykey": "1", "webenv": "MCID_bench", "idlist": ids}
            return ReplayResponse(body=json.dumps({"esearchresult": result}).encode())
        body = (f"<eSearchResult><Count>{self.total}</Count><RetMax>{len(ids)}</RetMax>"
                f"<RetStart>{start}</RetStart><QueryKey>1</QueryKey><WebEnv>MCID_bench</WebEnv>"
                "<IdList>" + "".join(f"<Id>{i}</Id>" for i in ids) + "</IdList>"
                "<TranslationSet/></eSearchResult>")
        prolog = fixture_bytes("pubmed/biopython_esearch2.xml").split(b"<eSearchResult>")[0]
        return ReplayResponse(body=prolog + body.encode(), content_type="text/xml")

    def _efetch(self, request: ReplayRequest) -> ReplayResponse:
        if request.param("id"):
            wanted = [int(i) for i in (request.param("id") or "").split(",") if i.strip()]
        else:
            start = int(request.param("retstart") or 0)
            end = min(start + int(request.param("retmax") or 20), self.total)
            wanted = [90_000_000 + i for i in range(start, end)]
        articles = [self._synthetic(pmid) for pmid in wanted]
        prolog = fixture_bytes("pubmed/biopython_pubmed1.xml").split(b"<PubmedArticleSet>")[0]
        body = prolog + b"<PubmedArticleSet>\n" + b"\n".join(articles) + b"\n</PubmedArticleSet>\n"
        return ReplayResponse(body=body, content_type="text/xml")

    def _synthetic(self, pmid: int) -> bytes:
        article = self.articles[pmid % len(self.articles)]
        raw = re.sub(rb"<PMID Version=\"1\">\d+</PMID>", f'<PMID Version="1">{pmid}</PMID>'
                     .encode(), article.raw, count=1)
        return raw.replace(f'<ArticleId IdType="pubmed">{article.pmid}</ArticleId>'.encode(),
                           f'<ArticleId IdType="pubmed">{pmid}</ArticleId>'.encode())


class RepeatedArxiv(ArxivService):
    """Any query finds ``total`` entries: the recorded 100, again and again, synthetic ids."""

    def __init__(self, total: int = TOTAL) -> None:
        super().__init__()
        self.total = total

    def _search(self, query: str, start: int, size: int) -> ReplayResponse:
        pool = self.entries
        page = []
        for index in range(start, min(start + size, self.total)):
            entry = pool[index % len(pool)]
            raw = re.sub(rb"<id>http://arxiv.org/abs/[^<]+</id>",
                         f"<id>http://arxiv.org/abs/9901.{index:05d}v1</id>".encode(), entry.raw,
                         count=1)
            page.append(type(entry)(**{**entry.__dict__, "raw": raw}))
        return ReplayResponse(body=_feed(query, start, size, self.total, page), content_type=ATOM)


class RepeatedOpenAlex(OpenAlexService):
    """Any search finds ``total`` works: the recorded ones, again and again, synthetic ids and
    no DOI. A filter look-up (enrichment, snowballing) is answered from the recorded pool."""

    def __init__(self, total: int = TOTAL) -> None:
        super().__init__()
        self.total = total

    def search(self, query: str, filters: str = "") -> list:
        if filters and not query:
            return super().search(query, filters)
        return _Repeated(self.pool, self.total)  # type: ignore[return-value]


class _Repeated:
    """A lazily built list of recorded works under synthetic ids (only the pages asked for)."""

    def __init__(self, pool: list[Recorded], total: int) -> None:
        self._pool, self._total = pool, total

    def __len__(self) -> int:
        return self._total

    def __getitem__(self, window: slice) -> list[Recorded]:
        return [self._one(index) for index in range(*window.indices(self._total))]

    def _one(self, index: int) -> Recorded:
        item = self._pool[index % len(self._pool)]
        work = dict(item.work, id=f"https://openalex.org/W9{index:09d}", doi=None)
        return type(item)(json.dumps(work).encode(), work, item.doc)


def repeated_materials(total: int = 5_000) -> MaterialsService:
    """``total`` documents: the recorded TiO2 summary under synthetic material ids."""
    tio2 = next(doc for doc in load_documents() if doc.get("formula_pretty") == "TiO2")
    return MaterialsService([dict(copy.deepcopy(tio2), material_id=f"mp-9{i:06d}")
                             for i in range(total)])


class RepeatedDuckDuckGo(DuckDuckGoService):
    """The recorded results page, its links made distinct per results page (``?bench=s``)."""

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        if request.path.rstrip("/") != "/html":
            return super().handle(request)
        offset = request.param("s") or "0"
        page = re.sub(rb"uddg=([^&\"]+)", lambda m: m.group(0) + f"%3Fbench%3D{offset}".encode(),
                      fixture_bytes(RESULTS_PAGE))
        return ReplayResponse(200, page, HTML)


def repeated_server(total: int = TOTAL, *, latency: Mapping[str, float] | None = None,
                    rate_limits: Mapping[str, RateLimit] | None = None,
                    **options: Any) -> ReplayServer:
    """A replay server whose five services each find ``total`` records for any query (the
    web's one page of results aside), beside the recorded full texts and web pages."""
    from scholargraph.testing.services import default_handlers

    handlers = [*default_handlers(), RepeatedPubMed(total), RepeatedArxiv(total),
                RepeatedOpenAlex(total), repeated_materials(min(total, 5_000)),
                RepeatedDuckDuckGo()]
    return ReplayServer(handlers, latency=latency, rate_limits=rate_limits, **options)
