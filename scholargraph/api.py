"""The Python API: ``review(question, **options) -> Report``.

It checks the options before any request is sent (a typed :class:`InputError` says what is wrong),
runs the graph, and turns the final state into a :class:`Report`, numbering references in the
order the findings first cite them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scholargraph.agents.clean_query import clean_question
from scholargraph.context import ReviewContext
from scholargraph.engines import load_chat_model, parse_method
from scholargraph.errors import InputError
from scholargraph.exports.styles import check_style
from scholargraph.report import Report, prepare_out_dir
from scholargraph.runs import PendingApproval, ProgressCallback, ReviewRun
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
    structured_output: str | None = None
    model_context: int | None = None

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
        # a typo in the option or its variable is refused before any request
        parse_method(self.context().structured_output_method())
        if self.model_context is not None and self.model_context < 512:
            raise InputError("model context must be at least 512 tokens")
        if self.model and self.chat_model is None:
            self.chat_model = load_chat_model(self.model)
        self.style = check_style(self.style)
        if self.library is not None:
            if not Path(self.library).expanduser().exists():
                raise InputError(f"--library {self.library} does not exist")
            if self.sources is not None and "library" not in self.sources:
                self.sources = ["library", *self.sources]

    def context(self) -> ReviewContext:
        return ReviewContext(model=self.model, sources=self.sources, max_results=self.max_results,
                             since=self.since, until=self.until,
                             max_iterations=self.max_iterations,
                             passages_per_question=self.passages_per_question,
                             approve_plan=self.approve_plan, snowball=self.snowball,
                             judge=self.judge, citation_style=self.style,
                             library=self.library,
                             structured_output=self.structured_output,
                             model_context=self.model_context,
                             chat_model=self.chat_model)


def _checked(question: str, options: dict[str, Any]) -> tuple[str, ReviewOptions]:
    try:
        settings = ReviewOptions(**options)
    except TypeError as exc:
        raise InputError(f"unknown option: {exc}") from exc
    cleaned = clean_question(question)
    settings.check()
    return cleaned, settings


def start_review(question: str, *, on_progress: ProgressCallback | None = None,
                 **options: Any) -> ReviewRun:
    """A :class:`ReviewRun` for the question, options checked; call ``.start()`` to run it.

    Use it for plan approval: with ``approve_plan=True``, ``start()`` returns a
    :class:`PendingApproval` and ``resume(Command(resume={"action": "accept"}))`` continues.
    """
    cleaned, settings = _checked(question, options)
    return ReviewRun(cleaned, settings, on_progress)


def review(question: str, *, out: str | Path | None = None,
           on_progress: ProgressCallback | None = None, **options: Any) -> Report:
    """Run a literature review and return its :class:`Report` (written to ``out`` if given).

    Options: ``sources`` (list of names), ``max_results``, ``since``, ``until``, ``model``
    (a model name) or ``chat_model`` (a LangChain chat model object), ``max_iterations``,
    ``passages_per_question``, ``thread`` (names a resumable run: the same thread resumes it),
    ``snowball`` (follow citations one step through OpenAlex), ``judge`` (with a model, also
    have it judge each written finding against its passages), ``style`` (the reference list's
    citation style: ``apa`` or a CSL style name), ``library`` (a file or folder of your own
    records, searched first),
    ``offline`` (use the recorded corpus of :mod:`scholargraph.testing` instead of the live
    services). ``on_progress`` is called with each node's name and update as the run goes.
    For plan approval use :func:`start_review`.
    """
    if options.get("approve_plan"):
        raise InputError("plan approval needs a person: use start_review(), which returns the "
                         "plan to accept, edit or reject")
    cleaned, settings = _checked(question, options)
    if out is not None:
        prepare_out_dir(out)
    outcome = ReviewRun(cleaned, settings, on_progress).start()
    if isinstance(outcome, PendingApproval):
        raise InputError(f"thread {outcome.thread!r} is waiting for plan approval; "
                         "resume it with start_review(..., approve_plan=True)")
    if out is not None:
        outcome.write(out)
    return outcome
