"""The run context: per-run options every node reads through ``Runtime[ReviewContext]``.

LangGraph Studio shows these fields as the assistant's configuration. A value given for the run
wins over the environment: ``model`` falls back to ``SCHOLARGRAPH_MODEL`` only when left unset.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any


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
    library: str | None = field(
        default=None,
        metadata={"description": "Your own records (a BibTeX, RIS, CSL-JSON or JSONL file, PDFs, "
                  "or a folder of them), searched first; unset: SCHOLARGRAPH_LIBRARY"},
    )
    citation_style: str = field(
        default="apa",
        metadata={"description": "Reference list style: 'apa' or a CSL style name ('ieee')"},
    )
    structured_output: str | None = field(
        default=None,
        metadata={"description": "How to ask the model for structured output: 'json_schema', "
                  "'tools' or 'json_object'; unset: SCHOLARGRAPH_STRUCTURED_OUTPUT, else chosen "
                  "per server (the first it accepts)"},
    )
    model_context: int | None = field(
        default=None,
        metadata={"description": "The model's context size in tokens; unset: asked of the "
                  "server where it says, else 4096; SCHOLARGRAPH_MODEL_CONTEXT sets it too"},
    )
    chat_model: Any = field(
        default=None,
        metadata={"description": "A chat model object (Python callers, tests); wins over model"},
    )

    def model_name(self) -> str | None:
        """The configured model name: the run's own, else ``SCHOLARGRAPH_MODEL``."""
        return self.model or os.environ.get("SCHOLARGRAPH_MODEL") or None

    def library_path(self) -> str | None:
        """The local library to search: the run's own, else ``SCHOLARGRAPH_LIBRARY``."""
        return self.library or os.environ.get("SCHOLARGRAPH_LIBRARY") or None

    def structured_output_method(self) -> str | None:
        """The structured-output method asked for: the run's own, else
        ``SCHOLARGRAPH_STRUCTURED_OUTPUT``; None lets the engine choose per server."""
        return self.structured_output or os.environ.get("SCHOLARGRAPH_STRUCTURED_OUTPUT") or None

    def model_context_size(self) -> int | None:
        """The model's context size given for the run, else ``SCHOLARGRAPH_MODEL_CONTEXT``."""
        given = self.model_context or os.environ.get("SCHOLARGRAPH_MODEL_CONTEXT")
        return int(given) if given else None
