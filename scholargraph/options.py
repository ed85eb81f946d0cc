"""The options of a review, checked together before any request is sent.

:class:`ReviewOptions` is what the Python API (:func:`scholargraph.review`), the CLI and the web
page hand to a run; it turns into the run's :class:`~scholargraph.context.ReviewContext` and its
:class:`~scholargraph.settings.Settings`. The schema also says how each option is typed
(:func:`option_flag`, :func:`option_words`) and which ``scholargraph update`` takes
(:func:`update_options`), so the review's command line, the update's and the recorded re-run
commands are made from the one declaration.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from scholargraph.context import CARRIED, GIVEN, UPDATE_ROLES, ReviewContext, option
from scholargraph.engines import load_chat_model, parse_method
from scholargraph.errors import InputError
from scholargraph.exports.styles import check_style
from scholargraph.screening.relevance import read_criteria
from scholargraph.settings import Settings
from scholargraph.sources.library import load_library
from scholargraph.wording import option_value


@dataclass(kw_only=True)
class ReviewOptions(ReviewContext):
    """The options of a review: the run's context (:class:`ReviewContext`, written once) and
    those that only start a run, checked together."""

    thread: str | None = option(
        None, "name the run; it is checkpointed after every step and the same name resumes it",
        cli={})
    offline: bool = option(
        False, "search the small recorded corpus shipped with scholargraph instead of the live "
        "services (no network needed)", cli={}, form=True, update=CARRIED, negation="--online")
    no_cache: bool = option(
        False, "ask the services afresh: neither read nor write the on-disk cache of their "
        "answers", cli={}, update=GIVEN)

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


def option_flag(name: str, on_update: bool = False) -> str:
    """The command-line flag of run option ``name`` (``--style`` for ``citation_style``);
    ``on_update``: on ``scholargraph update`` (``--from-year`` for ``since``)."""
    for item in fields(ReviewOptions):
        if item.name == name:
            if on_update and item.metadata.get("update_flag"):
                return str(item.metadata["update_flag"])
            return str((item.metadata.get("cli") or {}).get("flag", _flag(name)))
    return _flag(name)


def negation_flag(name: str) -> str:
    """The flag that turns yes/no option ``name`` off on ``scholargraph update``: the one the
    schema declares (``--online`` for ``offline``), else ``--no-NAME``."""
    return declared_negation(name) or "--no-" + name.replace("_", "-")


def declared_negation(name: str) -> str | None:
    """The "no" flag the schema declares for yes/no option ``name``, or None."""
    for item in fields(ReviewOptions):
        if item.name == name:
            return item.metadata.get("negation")
    return None


def update_options(*roles: str) -> tuple[str, ...]:
    """The run options ``scholargraph update`` takes in ``roles`` (all three unless named), in
    the schema's order: the one list the update's command line, its carrying and its recorded
    command are made from."""
    wanted = roles or UPDATE_ROLES
    return tuple(item.name for item in fields(ReviewOptions)
                 if item.metadata.get("update") in wanted)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def option_words(name: str, value: Any) -> str:
    """A run option as a reviewer would type it: '--max-results 50', '--style ieee',
    '--snowball', 'without --snowball', '--online' (a switch's own "no" flag where the schema
    declares one)."""
    flag = option_flag(name)
    if value is True:
        return flag
    if value is False:
        return declared_negation(name) or f"without {flag}"
    return f"{flag} {option_value(value)}"
