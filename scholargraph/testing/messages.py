"""What a recorded service handler sees and answers: one request, one response.

Apart from :mod:`scholargraph.testing.server` so that handlers (the built-in services and a
plug-in's) depend on these types only, and the server may mount them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class ReplayRequest:
    """One request as the server saw it, with form fields and query parameters merged."""

    service: str
    method: str
    path: str
    params: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    at: float

    def param(self, name: str, default: str | None = None) -> str | None:
        values = self.params.get(name)
        return values[0] if values else default


@dataclass
class ReplayResponse:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


def not_recorded(body: bytes = b"Not Found", content_type: str = "text/plain",
                 status: int = 404) -> ReplayResponse:
    """The answer for something the replay holds no recording of, marked so
    (:data:`~scholargraph.http.policy.NOT_RECORDED_HEADER`): an offline run reports the full
    text "not in the recorded corpus" rather than failed."""
    from scholargraph.http.policy import NOT_RECORDED_HEADER

    return ReplayResponse(status, body, content_type, headers={NOT_RECORDED_HEADER: "yes"})


class ServiceHandler(Protocol):
    """A recorded service: ``prefix`` is its path segment, ``handle`` answers one request.

    A handler may also define ``endpoint_env(service_url) -> dict[str, str]``: the environment
    variables that point its client at ``service_url`` (a plug-in's own endpoint variable), which
    :meth:`ReplayServer.environment` then sets with the built-in ones.
    """

    prefix: str

    def handle(self, request: ReplayRequest) -> ReplayResponse: ...
