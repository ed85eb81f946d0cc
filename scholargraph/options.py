"""The options of a review, checked together before any request is sent.

:class:`ReviewOptions` is what the Python API (:func:`scholargraph.review`), the CLI and the web
page hand to a run; it turns into the run's :class:`~scholargraph.context.ReviewContext` and its
:class:`~scholargraph.settings.Settings`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scholargraph.context import ReviewContext
from scholargraph.engines import load_chat_model
from scholargraph.errors import InputError
from scholargraph.exports.styles import check_style
from scholargraph.settings import Settings, get_settings
from scholargraph.tools.library import load_library
from scholargraph.tools.registry import source_names

MAX_RESULTS_LIMIT = 2000


@dataclass(kw_only=True)
class ReviewOptions:
    """The options of :func:`review`, checked together."""

    sources: list[str] | None = None
    max_results: int = 20
    since: int | None = None
    until: int | None = None
    model: str | None = None
    chat_model: Any = None
    max_iterations: int = 2
    passages_per_question: int = 6
    approve_plan: bool = False
    snowball: bool = False
    judge: bool = False
    thread: str | None = None
    offline: bool = False
    style: str = "apa"
    library: str | None = None
    no_cache: bool = False
    settings: Settings | None = None
    """The run's configuration; unset: the environment's (read once, when the run is made)."""

    def check(self) -> None:
        """Raise :class:`InputError` for an option that cannot work."""
        known = source_names()
        for name in self.sources or []:
            if name not in known:
                raise InputError(f"unknown source {name!r}; choose from {', '.join(known)}")
        if self.sources is not None and not self.sources:
            raise InputError("no source given; choose from " + ", ".join(known))
        if not 1 <= self.max_results <= MAX_RESULTS_LIMIT:
            raise InputError(f"max results must be between 1 and {MAX_RESULTS_LIMIT}")
        for label, year in (("since", self.since), ("until", self.until)):
            if year is not None and not 1800 <= year <= 2100:
                raise InputError(f"--{label} {year} is not a plausible publication year")
        if self.since and self.until and self.since > self.until:
            raise InputError(f"--since {self.since} is after --until {self.until}")
        if not 1 <= self.max_iterations <= 10:
            raise InputError("max iterations must be between 1 and 10")
        if self.model and self.chat_model is None:
            self.chat_model = load_chat_model(self.model)
        self.style = check_style(self.style)
        if self.library is not None:
            if not Path(self.library).expanduser().exists():
                raise InputError(f"--library {self.library} does not exist")
            load_library(Path(self.library).expanduser())  # a file that cannot be read says so
            if self.sources is not None and "library" not in self.sources:
                self.sources = ["library", *self.sources]

    def run_settings(self) -> Settings:
        """The run's configuration: the one given, else the environment's, with ``no_cache``."""
        settings = self.settings or get_settings()
        return settings.model_copy(update={"no_cache": True}) if self.no_cache else settings

    def context(self, settings: Settings) -> ReviewContext:
        return ReviewContext(settings=settings,
                             model=self.model, sources=self.sources, max_results=self.max_results,
                             since=self.since, until=self.until,
                             max_iterations=self.max_iterations,
                             passages_per_question=self.passages_per_question,
                             approve_plan=self.approve_plan, snowball=self.snowball,
                             judge=self.judge, citation_style=self.style,
                             library=self.library,
                             chat_model=self.chat_model)
