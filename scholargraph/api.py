"""The Python API: ``review(question, **options) -> Report``.

It checks the options before any request is sent (a typed :class:`InputError` says what is wrong),
runs the graph, and turns the final state into a :class:`Report`, numbering references in the
order the findings first cite them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scholargraph.agents.clean_query import clean_question
from scholargraph.errors import FilesNotWritten, InputError
from scholargraph.exports.files import prepare_out_dir
from scholargraph.options import ReviewOptions, options_from
from scholargraph.report import Report
from scholargraph.runs import PendingApproval, ProgressCallback, ReviewRun


def _checked(question: str, options: dict[str, Any]) -> tuple[str, ReviewOptions]:
    settings = options_from(options)
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
    records, read whole: every record screened),
    ``offline`` (use the recorded corpus of :mod:`scholargraph.testing` instead of the live
    services), ``no_cache`` (ask the services afresh), ``settings`` (the run's endpoints, keys
    and policies: a :class:`~scholargraph.settings.Settings`; unset: the environment's).
    ``on_progress`` is called with each node's name and update as the run goes.
    For plan approval use :func:`start_review`; ``plan`` (a decision as JSON, as
    ``review.json``'s ``run.options`` records the one taken) runs a plan decided beforehand.
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
        try:
            outcome.write(out)
        except FilesNotWritten as exc:  # the others are written; the report stays in hand
            exc.report = outcome
            raise
    return outcome
