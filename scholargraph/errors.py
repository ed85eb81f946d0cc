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
    └── ModelError              the chat model's reply stayed unusable after a retry

``retryable`` tells a caller whether the same call may succeed later.
"""

from __future__ import annotations


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


class ModelError(ScholargraphError):
    """The chat model's reply could not be parsed into the expected structure, even after a retry."""

    retryable = True
