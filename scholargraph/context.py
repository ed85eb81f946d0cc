"""The run context: per-run options every node reads through ``Runtime[ReviewContext]``.

LangGraph Studio shows these fields as the assistant's configuration. ``settings`` is the run's
configuration (endpoints, keys, cache policy, rate scale: :class:`~scholargraph.settings.Settings`),
built once when the context is made: the CLI and the Python API pass theirs; a LangGraph Server
run may give a JSON object of overrides (``{"settings": {"openalex_url": "..."}}``) on top of the
server's environment. A value given for the run wins over the environment: ``model`` falls back
to the settings' model (``SCHOLARGRAPH_MODEL``) only when left unset.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from pydantic.json_schema import SkipJsonSchema

from scholargraph.errors import InputError
from scholargraph.settings import Settings, env_fields, get_settings

MAX_RESULTS_LIMIT = 2000
"""Records one query may ask of a source at most: beyond, a query is a download."""
MAX_ITERATIONS_LIMIT = 10
"""Rounds of search and synthesis one run may take at most."""
MAX_FULL_TEXTS = 200
"""Full texts one review may read at most: beyond, the run would be a crawl."""


CARRIED = "carried"
"""An option ``scholargraph update`` takes from the review's run (``run.options``) unless it is
given one (:func:`scholargraph.updating.review_options`)."""
OWN = "own"
"""An option an update takes from the review by a rule of its own unless given (the sources it
searched, its criteria: :func:`scholargraph.updating.update`)."""
GIVEN = "given"
"""An option an update takes only when given (a new library export, the cache policy)."""
UPDATE_ROLES = (CARRIED, OWN, GIVEN)


def option(default: Any, description: str, *, cli: dict[str, Any] | None = None,
           form: bool = False, update: str | None = None, negation: str | None = None,
           update_help: str | None = None, update_flag: str | None = None) -> Any:
    """A run option, written once: its default and description serve Studio's context form, the
    Python API and, with ``cli`` (extra ``argparse`` settings; ``{}`` for none), the command
    line (``--max-results`` from ``max_results``); ``form``: the live page may set it;
    ``update``: how ``scholargraph update`` takes it (:data:`CARRIED`, :data:`OWN`,
    :data:`GIVEN`; unset: not at all), so its command line offers it; ``negation``: a carried
    yes/no option's flag for "no" on ``update`` (default ``--no-NAME``); ``update_help``: what
    it means there, where that is not ``description``; ``update_flag``: its flag there, where
    the review's means something else on ``update`` (``--since`` is a day there)."""
    assert update is None or update in UPDATE_ROLES, update
    return field(default=default, metadata={"description": description, "cli": cli,
                                            "form": form, "update": update,
                                            "negation": negation, "update_help": update_help,
                                            "update_flag": update_flag})


@dataclass(kw_only=True)
class ReviewContext:
    """Options of one review run: the one schema of the CLI, the Python API, the live page and
    Studio (see :func:`option`; :class:`~scholargraph.options.ReviewOptions` adds the options
    that only start a run)."""

    model: str | None = option(
        None, "chat model for the LLM engine, e.g. openai:gpt-4o-mini (unset: "
        "SCHOLARGRAPH_MODEL, else the deterministic engine)", cli={}, update=CARRIED)
    sources: list[str] | None = option(
        None, "sources to search, comma-separated on the command line: library, pubmed, arxiv, "
        "openalex, materials, web and plug-ins (unset: chosen from the question)",
        cli={"type": "source_list"}, form=True, update=OWN,
        update_help="services to search for new records, comma-separated (default: those the "
        "review searched; needed for a review of a library alone)")
    max_results: int = option(20, "records asked of each source per query (1-2000)",
                              cli={"type": int}, update=CARRIED)
    since: int | None = option(None, "earliest publication year", form=True, update=OWN,
                               cli={"type": int, "metavar": "YEAR"}, update_flag="--from-year")
    until: int | None = option(None, "latest publication year", form=True, update=OWN,
                               cli={"type": int, "metavar": "YEAR"})
    max_iterations: int = option(2, "rounds of search and synthesis at most (1-10)",
                                 cli={"type": int}, update=CARRIED)
    passages_per_question: int = option(6, "passages kept per sub-question by the RAG filter",
                                        cli={"type": int}, update=CARRIED)
    snowball: bool = option(
        False, "also follow citations one step from the works found (the works they cite and "
        "the works citing them), through OpenAlex", cli={}, update=CARRIED)
    approve_plan: bool = option(
        False, "pause after planning to accept, edit or reject the sub-questions and sources "
        "(on the command line, answered on standard input)", cli={}, form=True)
    plan: str | None = option(
        None, "a plan decided beforehand, run without asking: the decision --approve-plan "
        "took, as JSON ({\"action\": \"edit\", \"sub_questions\": [...], \"sources\": [...]}, "
        "or accept, or reject with a reason); review.json's run.command carries the one taken",
        cli={"metavar": "JSON"})
    judge: bool = option(
        False, "with a model: also ask it whether each finding it wrote is stated by the "
        "passages it cites, and remove those it is not (one more call)", cli={},
        update=CARRIED)
    library: str | None = option(
        None, "your own records, read whole (every record screened, whatever --max-results): "
        "a BibTeX .bib, RIS .ris, MEDLINE .nbib, EndNote .enw, tagged .txt, CSL-JSON .json, "
        ".jsonl or .pdf file, a PubMed, EndNote or JATS .xml/.nxml file, a .csv/.tsv with title "
        "and abstract columns, or a folder of them (unset: SCHOLARGRAPH_LIBRARY); PDFs and JATS "
        "are read in full",
        cli={"metavar": "PATH"}, update=GIVEN,
        update_help="the new export of your search (a file or folder, as for a review), "
        "screened whole: the records the review holds are counted as such, the others added")
    criteria: str | None = option(
        None, "eligibility criteria, as text or a file: records are screened against them as "
        "well as the question (the study designs they include or exclude, and what they are "
        "about); with a model, it also judges each record the rules keep against them",
        cli={"metavar": "TEXT|FILE"}, form=True, update=OWN)
    full_text: int = option(
        10, "included works read in full where they are open access (PMC, arXiv, open-access "
        "copies), best ranked first (0-200; 0: abstracts only)",
        cli={"type": int, "metavar": "N"}, update=CARRIED)
    citation_style: str = option(
        "apa", "citation style of the reference lists: apa or a CSL style name such as ieee, "
        "nature, chicago-author-date", cli={"flag": "--style", "metavar": "NAME"},
        update=CARRIED)
    structured_output: str | None = option(
        None, "how to ask the model for structured output: json_schema, tools or json_object "
        "(unset: SCHOLARGRAPH_STRUCTURED_OUTPUT, else the first the server accepts)", cli={},
        update=CARRIED)
    model_context: int | None = option(
        None, "the model's context size in tokens (unset: SCHOLARGRAPH_MODEL_CONTEXT, else asked "
        "of the server where it says, else 4096)", cli={"type": int}, update=CARRIED)
    chat_model: SkipJsonSchema[Any] = option(
        None, "a chat model object (Python callers, tests); wins over model")
    """Left out of the JSON schema: Studio's form and a Server run's JSON context cannot hold
    an object, so the field would only be a box that nothing typed into it can fill."""
    decided_before: dict[str, int] | None = option(
        None, "what `scholargraph update` sets: the digests of the records an earlier run "
        "screened under the same question and criteria (each with how many records said it), "
        "whose decisions stand: a work whose record says the same is not screened again")
    added_since: str | None = option(
        None, "only records the services added on or after this day, YYYY-MM-DD (what "
        "`scholargraph update` sets: PubMed's Entrez date, arXiv's submission date, OpenAlex's "
        "creation date, the web's time window)")

    settings: Settings | dict[str, Any] | None = field(
        default=None,
        metadata={"description": "The run's endpoints, keys and cache policy; unset: the "
                  "environment's; an object: overrides of it, by variable name (as the form "
                  "shows them: SCHOLARGRAPH_OPENALEX_URL) or by field name of Settings "
                  "(openalex_url); a plug-in's endpoint variable goes under 'endpoints'"},
    )

    def __post_init__(self) -> None:
        """Check the values every way of starting a run shares, so a LangGraph Server or Studio
        run, whose context arrives as JSON without the CLI's checks, is refused with the same
        one-line :class:`InputError` before any request (a misspelt source searched nothing, a
        misspelt setting left the official service in place)."""
        if not isinstance(self.settings, Settings):
            overrides = self.settings or {}
            unknown = sorted(set(overrides) - set(env_fields()) - set(Settings.model_fields))
            if unknown:
                raise InputError(f"settings: unknown {', '.join(map(repr, unknown))}; give a "
                                 "variable (SCHOLARGRAPH_OPENALEX_URL) or a field of "
                                 "scholargraph.settings.Settings (openalex_url)")
            self.settings = get_settings(**overrides)
        self.check_values()

    def check_values(self) -> None:
        """Raise :class:`InputError` for a source that is not registered or a number out of its
        range."""
        from scholargraph.sources.registry import source_names  # the registry imports sources

        known = source_names()
        unknown = [name for name in self.sources or [] if name not in known]
        if unknown:
            raise InputError(f"unknown source {unknown[0]!r}; choose from {', '.join(known)}")
        if self.sources is not None and not self.sources:
            raise InputError("no source given; choose from " + ", ".join(known))
        _in_range("--max-results", self.max_results, 1, MAX_RESULTS_LIMIT)
        _in_range("--max-iterations", self.max_iterations, 1, MAX_ITERATIONS_LIMIT)
        _in_range("--full-text", self.full_text, 0, MAX_FULL_TEXTS)
        _in_range("--passages-per-question", self.passages_per_question, 1, None)
        for label, year in (("since", self.since), ("until", self.until)):
            if year is not None:
                _in_range(f"--{label}", year, None, None)
                if not 1800 <= year <= 2100:
                    raise InputError(f"--{label} {year} is not a plausible publication year")
        this_year = datetime.now(UTC).year
        if self.since is not None and self.since > this_year:
            raise InputError(f"--since {self.since} is after this year ({this_year}): no work "
                             "is published yet; give the first year of publication to include")
        if self.since and self.until and self.since > self.until:
            raise InputError(f"--since {self.since} is after --until {self.until}")

    @property
    def run_settings(self) -> Settings:
        """The run's configuration (always a :class:`Settings` once the context is made)."""
        assert isinstance(self.settings, Settings)
        return self.settings

    def added_window(self) -> tuple[date, date] | None:
        """The days an update's searches cover (``added_since`` to today, UTC), or ``None``."""
        if not self.added_since:
            return None
        return date.fromisoformat(self.added_since), datetime.now(UTC).date()

    def model_name(self) -> str | None:
        """The configured model name: the run's own, else the settings' (``SCHOLARGRAPH_MODEL``)."""
        return self.model or self.run_settings.model or None

    def library_path(self) -> str | None:
        """The local library to search: the run's own, else ``SCHOLARGRAPH_LIBRARY``."""
        return self.library or self.run_settings.library or None

    def structured_output_method(self) -> str | None:
        """The structured-output method asked for: the run's own, else the settings'
        (``SCHOLARGRAPH_STRUCTURED_OUTPUT``); None lets the engine choose per server."""
        return self.structured_output or self.run_settings.structured_output or None

    def model_context_size(self) -> int | None:
        """The model's context size given for the run, else the settings'
        (``SCHOLARGRAPH_MODEL_CONTEXT``)."""
        return self.model_context or self.run_settings.model_context or None


def _in_range(label: str, value: object, low: int | None, high: int | None) -> None:
    """Refuse ``value`` unless it is a whole number from ``low`` to ``high`` (no bound: None):
    a JSON context may carry "20" where the CLI's parser would have made 20."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{label} must be a whole number, not {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise InputError(f"{label} must be {bounds}")
