"""Open-access full texts for the replay server: PMC ``efetch db=pmc`` and open-access copies.

``efetch.fcgi?db=pmc&id=N`` (answered by :class:`~scholargraph.testing.services.pubmed.
PubMedService`, which hands ``db=pmc`` requests here) returns the recorded JATS article whose
PMCID is N, inside the ``<pmc-articleset>`` envelope efetch uses (the efetch recording is sent
byte for byte; an OA-package ``.nxml`` or an OAI-PMH record is sent as it was recorded, since the
client reads any of these shapes). An id with no recording gets an empty ``<pmc-articleset/>``:
a stand-in, no such answer was recorded.

:data:`OPEN_ACCESS_SITES` adds to the web mirror the hosts of open-access copies: the ACL
Anthology serving a recorded CC BY PDF (robots.txt allows it) and a hand-written landing
page naming it in ``citation_pdf_url``, and ``www.pnas.org`` whose
robots.txt (hand-written, like every robots.txt of the mirror) disallows scholargraph; and
``doi.org`` (no robots.txt) redirecting the two DOIs there. See
``fixtures/fulltext/PROVENANCE.md``.
"""

from __future__ import annotations

import re
from functools import cache

from scholargraph.http.policy import NOT_RECORDED_HEADER
from scholargraph.testing.fixtures import fixture_bytes, fixture_path
from scholargraph.testing.messages import ReplayRequest, ReplayResponse
from scholargraph.testing.services.ddg import Site

PMC_FOLDER = "fulltext/pmc"
XML = "text/xml; charset=UTF-8"
EMPTY_SET = b'<?xml version="1.0" ?>\n<pmc-articleset></pmc-articleset>\n'
_PMC_ID = re.compile(rb'<article-id pub-id-type="pmc(?:id)?">(?:PMC)?(\d+)</article-id>')

OPEN_ACCESS_SITES: dict[str, Site] = {
    "aclanthology.org": Site(
        robots="/fulltext/sites/aclanthology.org.robots.txt",
        pages={"/N18-3011.pdf": "/fulltext/publisher/s2orc-doc2json_N18-3011.pdf",
               "/N18-3011/": "/fulltext/sites/aclanthology.org.N18-3011.html"},
    ),
    "www.pnas.org": Site(
        robots="/fulltext/sites/www.pnas.org.robots.txt",
        pages={"/content/pnas/111/45/E4832.full.pdf":
               "/fulltext/publisher/s2orc-doc2json_N18-3011.pdf"},
    ),
    "doi.org": Site(
        robots=404,
        redirects={"/10.18653/v1/N18-3011": "https://aclanthology.org/N18-3011.pdf",
                   "/10.1073/pnas.1414271111":
                   "https://www.pnas.org/content/pnas/111/45/E4832.full.pdf"},
    ),
}
"""Hosts of open-access copies: path -> file (a leading '/' names a file under fixtures/);
``doi.org`` redirects two DOIs to the copies, as the resolver does."""


@cache
def recorded_pmc_articles() -> dict[str, str]:
    """PMCID digits -> fixture path of the recorded JATS article."""
    articles: dict[str, str] = {}
    for entry in fixture_path(PMC_FOLDER).iterdir():
        if entry.name.endswith((".xml", ".nxml")):
            match = _PMC_ID.search(entry.read_bytes())
            if match:
                articles[match.group(1).decode()] = f"{PMC_FOLDER}/{entry.name}"
    return articles


NOT_RECORDED = NOT_RECORDED_HEADER
"""Header naming the ids asked for that have no recording (comma-separated): a stand-in answer
says so, since PMC would have answered for them."""
_ARTICLE = re.compile(rb"<article[\s>].*</article>", re.DOTALL)


def pmc_efetch(request: ReplayRequest) -> ReplayResponse:
    """The recorded articles for ``id`` (a comma-separated list of PMCIDs, digits with or
    without 'PMC'). One id: its recording byte for byte (or the empty set). Several: each
    recorded ``<article>`` element, byte for byte, inside one ``<pmc-articleset>`` as efetch
    wraps many (the envelope is a stand-in). Ids with no recording are left out and named in
    :data:`NOT_RECORDED`."""
    ids = [part.strip().upper().removeprefix("PMC")
           for part in (request.param("id", "") or "").split(",") if part.strip()]
    recorded = recorded_pmc_articles()
    missing = {NOT_RECORDED: ",".join(i for i in ids if i not in recorded)}
    headers = missing if missing[NOT_RECORDED] else {}
    if len(ids) == 1:
        path = recorded.get(ids[0])
        return ReplayResponse(body=fixture_bytes(path) if path else EMPTY_SET,
                              content_type=XML, headers=headers)
    articles = [_ARTICLE.search(fixture_bytes(recorded[i])) for i in ids if i in recorded]
    body = (b'<?xml version="1.0" ?>\n<pmc-articleset>'
            + b"\n".join(match.group(0) for match in articles if match)
            + b"</pmc-articleset>\n")
    return ReplayResponse(body=body, content_type=XML, headers=headers)
