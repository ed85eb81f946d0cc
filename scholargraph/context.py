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

from scholargraph.settings import Settings, get_settings


def option(default: Any, description: str, *, cli: dict[str, Any] | None = None,
           form: bool = False) -> Any:
    """A run option, written once: its default and description serve Studio's context form, the
    Python API and, with ``cli`` (extra ``argparse`` settings; ``{}`` for none), the command
    line (``--max-results`` from ``max_results``); ``form``: the live page may set it."""
    return field(default=default, metadata={"description": description, "cli": cli,
                                            "form": form})


@dataclass(kw_only=True)
class ReviewContext:
    """Options of one review run: the one schema of the CLI, the Python API, the live page and
    Studio (see :func:`option`; :class:`~scholargraph.options.ReviewOptions` adds the options
    that only start a run)."""

    model: str | None = option(
        None, "chat model for the LLM engine, e.g. openai:gpt-4o-mini (unset: "
        "SCHOLARGRAPH_MODEL, else the deterministic engine)", cli={})
    sources: list[str] | None = option(
        None, "sources to search, comma-separated on the command line: pubmed, arxiv, openalex, "
        "materials, web and plug-ins (unset: chosen from the question)",
        cli={"type": "source_list"}, form=True)
    max_results: int = option(20, "records asked of each source per query (1-2000)",
                              cli={"type": int})
    since: int | None = option(None, "earliest publication year", cli={"type": int}, form=True)
    until: int | None = option(None, "latest publication year", cli={"type": int}, form=True)
    max_iterations: int = option(2, "rounds of search and synthesis at most (1-10)",
                                 cli={"type": int})
    passages_per_question: int = option(6, "passages kept per sub-question by the RAG filter",
                                        cli={"type": int})
    snowball: bool = option(
        False, "also follow citations one step from the works found (the works they cite and "
        "the works citing them), through OpenAlex", cli={})
    approve_plan: bool = option(
        False, "pause after planning to accept, edit or reject the sub-questions and sources "
        "(on the command line, answered on standard input)", cli={}, form=True)
    judge: bool = option(
        False, "with a model: also ask it whether each finding it wrote is stated by the "
        "passages it cites, and remove those it is not (one more call)", cli={})
    library: str | None = option(
        None, "your own records, read whole (every record screened, whatever --max-results): "
        "a BibTeX .bib, RIS .ris, MEDLINE .nbib, EndNote .enw, tagged .txt, CSL-JSON .json, "
        ".jsonl or .pdf file, a PubMed, EndNote or JATS .xml/.nxml file, a .csv/.tsv with title "
        "and abstract columns, or a folder of them (unset: SCHOLARGRAPH_LIBRARY); PDFs and JATS "
        "are read in full",
        cli={"metavar": "PATH"})
    criteria: str | None = option(
        None, "eligibility criteria, as text or a file: records are screened against them as "
        "well as the question (the study designs they include or exclude, and what they are "
        "about); with a model, it also judges each record the rules keep against them",
        cli={"metavar": "TEXT|FILE"}, form=True)
    full_text: int = option(
        10, "included works read in full where they are open access (PMC, arXiv, open-access "
        "copies), best ranked first (0-200; 0: abstracts only)",
        cli={"type": int, "metavar": "N"})
    citation_style: str = option(
        "apa", "citation style of the reference lists: apa or a CSL style name such as ieee, "
        "nature, chicago-author-date", cli={"flag": "--style", "metavar": "NAME"})
    structured_output: str | None = option(
        None, "how to ask the model for structured output: json_schema, tools or json_object "
        "(unset: SCHOLARGRAPH_STRUCTURED_OUTPUT, else the first the server accepts)", cli={})
    model_context: int | None = option(
        None, "the model's context size in tokens (unset: SCHOLARGRAPH_MODEL_CONTEXT, else asked "
        "of the server where it says, else 4096)", cli={"type": int})
    chat_model: Any = option(None, "a chat model object (Python callers, tests); wins over model")
    added_since: str | None = option(
        None, "only records the services added on or after this day, YYYY-MM-DD (what "
        "`scholargraph update` sets: PubMed's Entrez date, arXiv's submission date, OpenAlex's "
        "creation date, the web's time window)")

    settings: Settings | dict[str, Any] | None = field(
        default=None,
        metadata={"description": "The run's endpoints, keys and cache policy; unset: the "
                  "environment's; an object: overrides of it (field names of Settings)"},
    )

    def __post_init__(self) -> None:
        if not isinstance(self.settings, Settings):
            self.settings = get_settings(**(self.settings or {}))

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
