"""Recorded stand-ins for the five services, one module each, mounted by :class:`ReplayServer`."""

from __future__ import annotations

from datetime import date

from scholargraph.testing.messages import ServiceHandler


def default_handlers(as_of: date | None = None) -> list[ServiceHandler]:
    """Handlers for PubMed (with PMC full texts), arXiv, OpenAlex, the Materials Project and
    DuckDuckGo, plus web pages and open-access copies; with ``as_of``, PubMed, arXiv and
    OpenAlex serve only the records they had added by that day (the corpus as it was then)."""
    from scholargraph.testing.services.arxiv import ArxivService
    from scholargraph.testing.services.ddg import SITES, DuckDuckGoService, WebPagesService
    from scholargraph.testing.services.fulltext import OPEN_ACCESS_SITES
    from scholargraph.testing.services.materials import MaterialsService
    from scholargraph.testing.services.openalex import OpenAlexService
    from scholargraph.testing.services.pubmed import PubMedService

    return [PubMedService(as_of), ArxivService(as_of), OpenAlexService(as_of=as_of),
            MaterialsService(),
            DuckDuckGoService(), WebPagesService({**SITES, **OPEN_ACCESS_SITES})]
