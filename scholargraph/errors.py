"""The exceptions scholargraph raises, each saying what went wrong and what to do about it.

::

    ScholargraphError
    ├── InputError              bad question or option; the CLI exits 2
    │   └── OutputDirError      --out cannot be created or written
    ├── ConfigurationError      a model or key is missing or malformed; the CLI exits 2
    ├── SourceError             one source agent failed; recorded in the search log, the run goes on
    │   ├── SourceUnavailable   network, timeout, 429 or 5xx after retries (retryable later)
    │   │   └── SourceUnreachable  connection refused or host not found: not retried, and the
    │   │                          source's other queries of the round are skipped
    │   └── SourceResponseError the service answered with a body that cannot be parsed
    ├── SourceAgentError        a source agent's own code failed outside a search (writing its
    │                           query): the message names its class; the run stops
    ├── ModelError              the chat model's reply stayed unusable after a retry
    └── FilesNotWritten         some of a review's files could not be written (the others were)

``retryable`` tells a caller whether the same call may succeed later.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class ScholargraphError(Exception):
    """Base of every scholargraph error."""

    retryable: bool = False


class InputError(ScholargraphError, ValueError):
    """The question or an option cannot be used; the message says which and why."""


class OutputDirError(InputError):
    """The output directory cannot be created or written."""


class ConfigurationError(ScholargraphError):
    """A chat model, key or endpoint is missing or malformed."""


class SourceError(ScholargraphError):
    """A source agent could not complete a search."""

    def __init__(self, source: str, message: str) -> None:
        super().__init__(f"{source}: {message}")
        self.source = source
        self.message = message


class SourceUnavailable(SourceError):
    """The service did not answer usefully (network, timeout, 429, 5xx) after retries."""

    retryable = True


class SourceUnreachable(SourceUnavailable):
    """No connection could be made (refused, host not found, network down): asking again at
    once would fail the same way, so it is not retried."""


class SourceResponseError(SourceError):
    """The service answered, but with a body that is not what its API documents."""


class SourceAgentError(ScholargraphError):
    """A source agent's own code raised outside :meth:`SourceAgent.search` (``build_query``,
    ``named_queries``, ``is_relevant``...): a bug in that module, which the message names, so its
    author is not left with an ``IndexError`` from inside the graph."""


class ModelError(ScholargraphError):
    """The chat model's reply could not be parsed into the expected structure, even after a
    retry."""

    retryable = True


@dataclass(frozen=True)
class NotWritten:
    """One file of a review that could not be written, and why (one line)."""

    path: Path
    reason: str


class FilesNotWritten(ScholargraphError):
    """Some of a review's files could not be written; every other file was. ``not_written``
    names each with its reason, ``written`` maps the names of those written to their paths.
    The same ``--thread`` with another ``--out`` writes them all again without a request."""

    def __init__(self, not_written: list[NotWritten], written: dict[str, Path]) -> None:
        names = ", ".join(f"{item.path.name} ({item.reason})" for item in not_written)
        super().__init__(f"{len(not_written)} of the review's files not written: {names}")
        self.not_written = not_written
        self.written = written
        self.report: object | None = None
        """The review whose files these are (set by :func:`scholargraph.review`), so a caller
        keeps it in hand."""
