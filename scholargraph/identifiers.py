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


PREPRINT_SERVERS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern)) for name, pattern in (
        ("arXiv", r"10\.48550/arxiv\."),
        ("bioRxiv/medRxiv", r"10\.1101/\d"),
        ("Research Square", r"10\.21203/rs\."),
        ("Preprints.org", r"10\.20944/preprints"),
        ("SSRN", r"10\.2139/ssrn\."),
        ("OSF Preprints", r"10\.312\d\d/osf\.io/|10\.35542/osf\.io/"),
        ("ChemRxiv", r"10\.26434/chemrxiv"),
        ("TechRxiv", r"10\.36227/techrxiv"),
        ("Authorea", r"10\.22541/au\."),
        ("JMIR Preprints", r"10\.2196/preprints\."),
    ))
"""Preprint servers and the DOIs they register. A DOI is matched from its start, prefix and the
first characters of the suffix, because some prefixes are shared: Cold Spring Harbor gives
bioRxiv and medRxiv '10.1101/2020.05.01.123456' but its journals '10.1101/gr.123.1', JMIR
gives its preprints '10.2196/preprints.28749' and its articles '10.2196/28749'. OSF hosts
several servers (OSF Preprints 10.31219, PsyArXiv 10.31234, SocArXiv 10.31235, EdArXiv
10.35542), all under OSF ids."""

_OSF_ID = re.compile(r"(?:^10\.\d+/|^(?:https?://)?(?:www\.)?)osf\.io/([a-z0-9]{5,})",
                     re.IGNORECASE)
_JMIR_PREPRINT = re.compile(r"10\.2196/preprints\.(\d+)$")
_DOI_VERSION = re.compile(r"(?:/v|\.v)\d+$")


def preprint_server(doi: str | None) -> str | None:
    """The preprint server that registered ``doi`` ('SSRN', 'JMIR Preprints'), or None for a
    DOI of a journal, a book or a proceedings."""
    doi = normalize_doi(doi)
    if not doi:
        return None
    return next((name for name, pattern in PREPRINT_SERVERS if pattern.match(doi)), None)


def is_preprint_doi(doi: str | None) -> bool:
    return preprint_server(doi) is not None


PREPRINT_VENUE = re.compile(
    r"^\s*(?:arxiv|biorxiv|medrxiv|chemrxiv|techrxiv|psyarxiv|socarxiv|ssrn(?: electronic "
    r"journal)?|social science research network|research square|preprints(?:\.org)?"
    r"|osf preprints|jmir preprints)\b", re.IGNORECASE)
"""A venue that names a preprint server, as exports record a preprint without its server's
DOI ('medRxiv', 'SSRN Electronic Journal', 'Research Square'): the whole venue, not a journal
whose name contains one of these words."""


def is_preprint_venue(venue: str | None) -> bool:
    """Whether ``venue`` is a preprint server's name (:data:`PREPRINT_VENUE`)."""
    return bool(venue and PREPRINT_VENUE.match(venue))


def osf_id(value: str | None) -> str | None:
    """The OSF id of an OSF-hosted preprint, from its DOI or its address ('ndp8m' from
    '10.31219/osf.io/ndp8m' or 'https://osf.io/ndp8m/'): every OSF server registers its
    preprints under these ids, so the id names the preprint whichever way it is written."""
    match = _OSF_ID.search(value or "")
    return match.group(1).lower() if match else None


def without_version(doi: str) -> str:
    """A preprint DOI without its version suffix (Research Square's '.../v2')."""
    return _DOI_VERSION.sub("", doi)


def published_doi_of_preprint(doi: str | None) -> str | None:
    """The article DOI a preprint DOI announces, where the server numbers them alike: JMIR
    publishes preprint '10.2196/preprints.28749' as article '10.2196/28749'."""
    match = _JMIR_PREPRINT.match(doi or "")
    return f"10.2196/{match.group(1)}" if match else None


def identifiers_in_url(url: str | None) -> list[tuple[str, str]]:
    """The identifiers an address names: ('doi', ...) for doi.org links, ('arxiv', ...) for
    arXiv abstract and PDF pages, ('pmid', ...), ('pmcid', ...) and ('osf', ...)."""
    if not url:
        return []
    found: list[tuple[str, str]] = []
    host_path = re.sub(r"^https?://(?:www\.|dx\.)?", "", url.strip(), flags=re.IGNORECASE)
    if host_path.lower().startswith("doi.org/") and (doi := normalize_doi(host_path)):
        found.append(("doi", doi))
    arxiv_page = re.match(r"(?:export\.)?arxiv\.org/(?:abs|pdf)/", host_path, re.IGNORECASE)
    if arxiv_page and (arxiv := normalize_arxiv_id(url)):
        found.append(("arxiv", arxiv))
    if match := re.match(r"pubmed\.ncbi\.nlm\.nih\.gov/(\d+)", host_path, re.IGNORECASE):
        found.append(("pmid", match.group(1)))
    if match := re.search(r"/pmc/articles/(PMC\d+)", host_path, re.IGNORECASE):
        found.append(("pmcid", match.group(1).upper()))
    if host_path.lower().startswith("osf.io/") and (guid := osf_id(host_path)):
        found.append(("osf", guid))
    return found
