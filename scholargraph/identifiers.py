"""Normalisation of scholarly identifiers.

Every source spells identifiers its own way (``https://doi.org/10.1/X`` in OpenAlex, ``10.1/x`` in
PubMed, ``2101.00001v2`` in arXiv, ``https://openalex.org/W123``). Deduplication and citation both
need one spelling per identifier, so every record passes its identifiers through these functions
before it is stored. Each returns ``None`` for a value that is not a valid identifier of its kind.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

_DOI = re.compile(r"10\.\d{4,9}/\S+", re.IGNORECASE)
_ARXIV_NEW = re.compile(r"(\d{4}\.\d{4,5})(v\d+)?", re.IGNORECASE)
_ARXIV_OLD = re.compile(r"([a-z\-]+(?:\.[a-z]{2})?/\d{7})(v\d+)?", re.IGNORECASE)
_OPENALEX = re.compile(r"\b([WASIPCFT]\d{2,})\b", re.IGNORECASE)
_PMCID = re.compile(r"(?:PMC)?(\d{3,10})", re.IGNORECASE)


def normalize_doi(value: str | None) -> str | None:
    """A DOI in lower case without resolver prefix or ``doi:`` label (DOIs are case-insensitive)."""
    if not value:
        return None
    match = _DOI.search(unquote(value.strip()))
    if not match:
        return None
    return match.group(0).rstrip(".,;)]}>").lower()


def normalize_arxiv_id(value: str | None) -> str | None:
    """An arXiv id without version or URL (``2101.00001``, ``hep-th/9901001``)."""
    if not value:
        return None
    text = value.strip()
    text = re.sub(r"^(?:https?://)?(?:export\.)?arxiv\.org/(?:abs|pdf)/", "", text, flags=re.I)
    text = re.sub(r"^arxiv:", "", text, flags=re.I).removesuffix(".pdf")
    for pattern in (_ARXIV_NEW, _ARXIV_OLD):
        match = pattern.fullmatch(text)
        if match:
            return match.group(1).lower()
    doi = normalize_doi(text)
    if doi and doi.startswith("10.48550/arxiv."):
        return normalize_arxiv_id(doi.removeprefix("10.48550/arxiv."))
    return None


def normalize_pmid(value: str | int | None) -> str | None:
    """A PubMed id as a string of digits (accepts ``pubmed.ncbi.nlm.nih.gov/123`` URLs)."""
    if value is None:
        return None
    text = str(value).strip().rstrip("/")
    text = text.rsplit("/", 1)[-1]
    return text if text.isdigit() and text != "0" else None


def normalize_pmcid(value: str | None) -> str | None:
    """A PubMed Central id with its ``PMC`` prefix, upper case."""
    if not value:
        return None
    text = value.strip().rstrip("/").rsplit("/", 1)[-1]
    match = _PMCID.fullmatch(text)
    return f"PMC{match.group(1)}" if match else None


def normalize_openalex_id(value: str | None) -> str | None:
    """An OpenAlex id such as ``W2741809807``, taken from a bare id or an openalex.org URL."""
    if not value:
        return None
    match = _OPENALEX.search(value.strip().rsplit("/", 1)[-1])
    return match.group(1).upper() if match else None
