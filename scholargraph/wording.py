"""Counts in prose: "1 new work", "3 new works", so a summary never reads "1 new versions"; and
the few sentences every rendering of a review says alike."""

from __future__ import annotations

from typing import Any


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``count`` followed by the noun phrase in the number it takes (``plural`` defaults to the
    singular with an s)."""
    return f"{count} {singular if count == 1 else (plural or singular + 's')}"


def answered_line(answered: int, total: int) -> str:
    """How many of a review's sub-questions have direct evidence, as its summary says it."""
    verb = "has" if answered == 1 else "have"
    return f"{answered} of {total} sub-questions {verb} direct evidence."


NO_PASSAGE = "No passage answered this sub-question."
"""What a sub-question without findings says in every rendering of a review (see
:meth:`scholargraph.report.Report.unanswered_note`)."""


def option_value(value: Any) -> str:
    """An option's value in words: 'none', 'on', 'off', or the value itself."""
    return "none" if value is None else "on" if value is True else "off" \
        if value is False else str(value)
