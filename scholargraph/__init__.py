"""scholargraph: cited, deduplicated, reproducible literature reviews from a LangGraph supervisor.

>>> from scholargraph import review                                   # doctest: +SKIP
>>> report = review("machine learning for public health surveillance", offline=True)
>>> report.write("review/")
>>> update("review/", offline=True)       # later: what the services added since  # doctest: +SKIP

``screen(library, question, criteria=None, labels=None, out=None)`` ranks a library for a person
screening it and learns from their labels (:mod:`scholargraph.screening.session`).

``graph`` (the compiled LangGraph graph that ``langgraph.json`` names) and ``screen`` are
imported lazily, so ``import scholargraph`` stays fast for the CLI's input checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scholargraph.api import review, start_review
from scholargraph.context import ReviewContext
from scholargraph.errors import (
    ConfigurationError,
    FilesNotWritten,
    InputError,
    ModelError,
    OutputDirError,
    ScholargraphError,
    SourceError,
)
from scholargraph.options import ReviewOptions
from scholargraph.report import Report
from scholargraph.runs import PendingApproval, ReviewRun
from scholargraph.updating import update

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph

    from scholargraph.screening.session import screen

    graph: CompiledStateGraph

__all__ = [
    "ConfigurationError",
    "FilesNotWritten",
    "InputError",
    "ModelError",
    "OutputDirError",
    "PendingApproval",
    "Report",
    "ReviewContext",
    "ReviewOptions",
    "ReviewRun",
    "ScholargraphError",
    "SourceError",
    "graph",
    "review",
    "screen",
    "start_review",
    "update",
]


def __getattr__(name: str) -> Any:
    if name == "graph":
        from scholargraph.graph import graph

        return graph
    if name == "screen":
        from scholargraph.screening.session import screen

        return screen
    raise AttributeError(name)
