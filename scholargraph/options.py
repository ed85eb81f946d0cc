"""The options of a review, checked together before any request is sent.

:class:`ReviewOptions` is what the Python API (:func:`scholargraph.review`), the CLI and the web
page hand to a run; it turns into the run's :class:`~scholargraph.context.ReviewContext` and its
:class:`~scholargraph.settings.Settings`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from scholargraph.context import ReviewContext, option
from scholargraph.engines import load_chat_model, parse_method
from scholargraph.errors import InputError
from scholargraph.exports.styles import check_style
from scholargraph.screening.relevance import read_criteria
from scholargraph.settings import Settings
from scholargraph.sources.library import load_library


@dataclass(kw_only=True)
class ReviewOptions(ReviewContext):
    """The options of a review: the run's context (:class:`ReviewContext`, written once) and
    those that only start a run, checked together."""

    thread: str | None = option(
        None, "name the run; it is checkpointed after every step and the same name resumes it",
        cli={})
    offline: bool = option(
        False, "search the small recorded corpus shipped with scholargraph instead of the live "
        "services (no network needed)", cli={}, form=True)
    no_cache: bool = option(
        False, "ask the services afresh: neither read nor write the on-disk cache of their "
        "answers", cli={})

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.no_cache:
            self.settings = self.run_settings.model_copy(update={"no_cache": True})

    def check(self) -> None:
        """Raise :class:`InputError` for an option that cannot work (the context's own values
        are checked when it is made: :meth:`ReviewContext.check_values`)."""
        if self.added_since is not None:
            check_day(self.added_since, "added since")
        if self.plan is not None:
            from scholargraph.agents.approval import decision_from_text

            decision_from_text(self.plan)  # a plan that cannot be read is refused before a search
        if self.criteria is not None:
            read_criteria(self.criteria)  # a missing or empty criteria file says so
        # a typo in the option or its variable is refused before any request
        parse_method(self.structured_output_method())
        model_context = self.model_context_size()
        if model_context is not None and model_context < 512:
            raise InputError("model context must be at least 512 tokens")
        if self.model and self.chat_model is None:
            self.chat_model = load_chat_model(self.model, self.run_settings.model_timeout)
        self.citation_style = check_style(self.citation_style)
        if self.library is not None:
            if not Path(self.library).expanduser().exists():
                raise InputError(f"--library {self.library} does not exist")
            # unreadable files say so
            if not load_library(Path(self.library).expanduser(), with_csv=True):
                raise InputError(f"--library {self.library} holds no library file (.bib, .ris, "
                                 ".nbib, .enw, .txt, .json, .jsonl, .pdf, .nxml, .xml, .csv "
                                 "or .tsv)")
            if self.sources is not None and "library" not in self.sources:
                self.sources = ["library", *self.sources]
        elif "library" in (self.sources or []) and not self.library_path():
            raise InputError("--sources library needs your records: give --library PATH (a file "
                             "or folder of BibTeX, RIS, MEDLINE, EndNote, CSL-JSON, JSONL, PDF, "
                             "JATS or CSV)")

    def context(self, settings: Settings) -> ReviewContext:
        """The run's context: these options without the starting ones, with ``settings`` (the
        run's own, its endpoints swapped while an offline run goes)."""
        values = {f.name: getattr(self, f.name) for f in fields(ReviewContext)}
        return ReviewContext(**{**values, "settings": settings})


def check_day(text: str, label: str) -> date:
    """``text`` as a day (YYYY-MM-DD) no later than today, or :class:`InputError` saying so."""
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise InputError(f"{label} {text!r} is not a date; write it as YYYY-MM-DD") from None
    if day > datetime.now(UTC).date():
        raise InputError(f"{label} {text} is in the future")
    return day


def options_from(values: dict[str, Any]) -> ReviewOptions:
    """:class:`ReviewOptions` from keyword options (``style`` is ``citation_style``'s short
    name), or :class:`InputError` naming an unknown one."""
    values = dict(values)
    if "style" in values:
        values["citation_style"] = values.pop("style")
    try:
        return ReviewOptions(**values)
    except TypeError as exc:
        raise InputError(f"unknown option: {exc}") from exc
