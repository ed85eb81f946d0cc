"""What a parsed full text is: blocks of text that know their section, page and kind.

A parser (:mod:`scholargraph.fulltext.jats`, :mod:`scholargraph.fulltext.pdf`) turns a file into a
:class:`FullTextDocument`; :func:`FullTextDocument.joined` lays its blocks end to end into one text
with each block's offsets (:class:`~scholargraph.records.TextSpan`), which is what a
:class:`~scholargraph.records.Work` keeps, so passages can be cut from the text and still say which
section and page they came from.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from scholargraph.deterministic.text import clean_text
from scholargraph.records import TextSpan

BlockKind = Literal["paragraph", "caption", "table"]
BLOCK_SEPARATOR = "\n\n"


class TextBlock(BaseModel):
    """One paragraph, figure or table caption, or table row, with where it sits."""

    model_config = ConfigDict(extra="forbid")

    text: str
    section: str = Field(description="Title path of its section: 'Results > Subgroups'")
    page: int | None = Field(None, description="1-based page of a PDF; None for XML")
    kind: BlockKind = "paragraph"

    @field_validator("text", "section", mode="before")
    @classmethod
    def _clean(cls, value: object) -> object:
        """Cleaned as every record's text is (:func:`~scholargraph.deterministic.text.clean_text`),
        here, before the offsets of the joined text are taken, so a ``Work`` keeping the text does
        not shift them by cleaning it again."""
        return clean_text(value) if isinstance(value, str) else value


class Table(BaseModel):
    """A table as rows of cells, with its label and caption (JATS ``<table-wrap>``)."""

    model_config = ConfigDict(extra="forbid")

    label: str = ""
    caption: str = ""
    section: str = ""
    header: list[str] = Field(default_factory=list, description="One label per column")
    rows: list[list[str]] = Field(default_factory=list)


class FullTextDocument(BaseModel):
    """A parsed article: metadata where the file states it, and its text as blocks."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["jats", "pdf"]
    title: str | None = None
    abstract: str | None = None
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    licence: str | None = Field(None, description="Licence URL or statement, as the file says")
    blocks: list[TextBlock] = Field(default_factory=list)
    tables: list[Table] = Field(default_factory=list)
    pages: int | None = None

    @property
    def has_body(self) -> bool:
        """Whether there is text beyond the front matter (a scanned article's record has none)."""
        return any(block.kind == "paragraph" for block in self.blocks)

    def joined(self) -> tuple[str, list[TextSpan]]:
        """The blocks as one text, and each block's span in it."""
        parts: list[str] = []
        spans: list[TextSpan] = []
        offset = 0
        for block in self.blocks:
            if parts:
                offset += len(BLOCK_SEPARATOR)
            spans.append(TextSpan(start=offset, end=offset + len(block.text),
                                  section=block.section, page=block.page, kind=block.kind))
            parts.append(block.text)
            offset += len(block.text)
        return BLOCK_SEPARATOR.join(parts), spans
