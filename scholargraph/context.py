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
from typing import Any

from scholargraph.settings import Settings, get_settings


@dataclass(kw_only=True)
class ReviewContext:
    """Options of one review run."""

    model: str | None = field(
        default=None,
        metadata={"description": "Chat model ('openai:gpt-4o-mini'); unset: deterministic engine"},
    )
    sources: list[str] | None = field(
        default=None,
        metadata={"description": "Sources to search; unset: the intent agent chooses"},
    )
    max_results: int = field(
        default=20, metadata={"description": "Records asked of each source per query"}
    )
    since: int | None = field(default=None, metadata={"description": "Earliest publication year"})
    until: int | None = field(default=None, metadata={"description": "Latest publication year"})
    max_iterations: int = field(
        default=2, metadata={"description": "Rounds of search and synthesis at most"}
    )
    passages_per_question: int = field(
        default=6, metadata={"description": "Passages kept per sub-question by the RAG filter"}
    )
    snowball: bool = field(
        default=False,
        metadata={"description": "Also follow citations one step (works cited by and citing "
                  "those found), through OpenAlex"},
    )
    approve_plan: bool = field(
        default=False,
        metadata={"description": "Pause after planning for a person to accept, edit or reject"},
    )
    judge: bool = field(
        default=False,
        metadata={"description": "With a model: also ask it whether each written finding is "
                  "stated by the passages it cites, and remove those it is not (one more call)"},
    )
    full_text: int = field(
        default=10,
        metadata={"description": "Included works read in full (open access only: PMC, arXiv, "
                  "open-access copies), best ranked first; 0: abstracts only"},
    )
    library: str | None = field(
        default=None,
        metadata={"description": "Your own records (a BibTeX, RIS, CSL-JSON or JSONL file, PDFs, "
                  "or a folder of them), searched first; unset: SCHOLARGRAPH_LIBRARY"},
    )
    citation_style: str = field(
        default="apa",
        metadata={"description": "Reference list style: 'apa' or a CSL style name ('ieee')"},
    )
    chat_model: Any = field(
        default=None,
        metadata={"description": "A chat model object (Python callers, tests); wins over model"},
    )

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

    def model_name(self) -> str | None:
        """The configured model name: the run's own, else the settings' (``SCHOLARGRAPH_MODEL``)."""
        return self.model or self.run_settings.model or None

    def library_path(self) -> str | None:
        """The local library to search: the run's own, else ``SCHOLARGRAPH_LIBRARY``."""
        return self.library or self.run_settings.library or None
