"""Offline testing for scholargraph and its plug-ins: a loopback server of recorded responses.

``ReplayServer.default()`` serves real responses recorded from PubMed, arXiv, OpenAlex and
DuckDuckGo, and schema-built stand-ins for the Materials Project (see ``fixtures/PROVENANCE.md``).
A plug-in author mounts a handler of their own beside them::

    from scholargraph.testing import ReplayServer, ReplayResponse, fixture_bytes

    class EuropePMC:
        prefix = "europepmc"
        def handle(self, request):
            return ReplayResponse(body=fixture_bytes("europepmc/search.json"))

    with ReplayServer.default(extra=[EuropePMC()]) as server, server.environment():
        ...
"""

from scholargraph.testing.fixtures import fixture_bytes, fixture_path
from scholargraph.testing.server import (
    Fault,
    ReplayRequest,
    ReplayResponse,
    ReplayServer,
    ServiceHandler,
)

__all__ = [
    "Fault",
    "ReplayRequest",
    "ReplayResponse",
    "ReplayServer",
    "ServiceHandler",
    "fixture_bytes",
    "fixture_path",
]
