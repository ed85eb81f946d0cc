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

``ScriptedChatModel`` (with ``structured_reply`` and ``malformed_reply``) replays scripted replies
to test an agent's LLM engine without a model; see :mod:`scholargraph.testing.models`.
"""

from scholargraph.testing.fixtures import fixture_bytes, fixture_path
from scholargraph.testing.models import (
    ScriptedChatModel,
    ScriptExhaustedError,
    malformed_reply,
    structured_reply,
    tool_call_reply,
)
from scholargraph.testing.server import (
    Fault,
    RateLimit,
    ReplayRequest,
    ReplayResponse,
    ReplayServer,
    ServiceHandler,
)

__all__ = [
    "Fault",
    "RateLimit",
    "ReplayRequest",
    "ReplayResponse",
    "ReplayServer",
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "ServiceHandler",
    "fixture_bytes",
    "fixture_path",
    "malformed_reply",
    "structured_reply",
    "tool_call_reply",
]
