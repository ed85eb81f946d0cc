"""PubMed through NCBI's E-utilities: ESearch on the history server, then EFetch in large batches.

Requests go through the shared HTTP policy (limiter, timeout, retries, cache) to
``settings.pubmed_url``, always as POST, so the API key travels in a request body and never in a
URL that a log line or an error message could print. Bio.Entrez's own request functions are not
used for sending: they hard-code NCBI's URLs and add a second, stricter throttle of their own
(0.37 s between any two calls, measured as 0.12 s lost per chained request against the 3/s
limit the shared limiter already keeps) and a 15 s sleep on dropped connections.

ESearch's answer is parsed with ``Entrez.read`` against the DTDs Biopython bundles; parsing never
downloads a DTD (offline that would hang or fail late): a response whose DTD is not bundled is
reported as a :class:`SourceResponseError` that says to upgrade Biopython. EFetch's PubMed XML,
nearly all of the bytes, is read with lxml (:func:`works_from_efetch`), and its batches are
fetched one ahead of the one being read, so reading overlaps the wait for the next answer.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any, ClassVar

from Bio import Entrez
from Bio.Entrez import Parser as EntrezParser
from lxml import etree

from scholargraph.agents.schemas import Intent
from scholargraph.errors import SourceResponseError
from scholargraph.http.policy import (
    MiB,
    Politeness,
    http_session,
    install_secret_filter,
    talks_to_official,
    translate_errors,
)
from scholargraph.http.prefetch import one_ahead
from scholargraph.records import Work
from scholargraph.settings import Settings
from scholargraph.sources.base import (
    SearchRequest,
    SourceAgent,
    SourceResult,
    any_two,
    clean_terms,
    first_and_any,
)
from scholargraph.sources.markup import superscript

log = logging.getLogger(__name__)

ESEARCH_MAX = 10_000
EFETCH_BATCH = 1_000
"""Records per EFetch: up to 1,000 records is one request after the search. Larger batches would
save requests only past 1,000 records and make answers of tens of MB (PubMed XML with
references runs to 20 KB per article), held whole in memory while parsed."""
TOOL_NAME = "scholargraph"
PHRASE_WORDS = 2
STOP_WORDS = frozenset({"a", "an", "and", "for", "in", "of", "on", "or", "the", "to", "with"})
_DATE_TAG = re.compile(r"\[(dp|pdat|edat|mdat|crdt|publication date|date - publication)\]",
                       re.IGNORECASE)


class _EUtilities:
    """POSTs to the configured E-utilities base over the shared HTTP policy."""

    def __init__(self, settings: Settings) -> None:
        self._url = settings.pubmed_url
        self._session = http_session("pubmed", settings)

    def call(self, utility: str, **params: Any) -> io.BytesIO:
        response = self._session.post(f"{self._url}{utility}.fcgi", data=params)
        response.raise_for_status()
        return io.BytesIO(response.content)


_parsing: ContextVar[bool] = ContextVar("scholargraph_entrez_parsing", default=False)
_original_dtd_urlopen = EntrezParser.urlopen


def _dtd_urlopen(url: Any, *args: Any, **kwargs: Any) -> Any:
    if not _parsing.get():
        return _original_dtd_urlopen(url, *args, **kwargs)
    raise OSError(f"not downloading {url}: scholargraph parses only with bundled DTDs")


EntrezParser.urlopen = _dtd_urlopen


class PubMedAgent(SourceAgent):
    """Searches PubMed (MEDLINE and more) through NCBI's E-utilities."""

    name: ClassVar[str] = "pubmed"
    order: ClassVar[int] = 10
    politeness: ClassVar[Politeness] = Politeness(
        requests=3, keyed_requests=10, key_env="NCBI_API_KEY",  # NCBI: 3/s, 10/s with a key
        max_response_bytes=64 * MiB,  # EFetch batches of up to 1,000 records, 10-50 KB each
        official_hosts=("ncbi.nlm.nih.gov",), endpoint_envs=("SCHOLARGRAPH_PUBMED_URL",))
    label: ClassVar[str] = "PubMed"
    domains = frozenset({"biomedical", "chemistry"})
    query_syntax: ClassVar[str] = (
        'PubMed Boolean query: terms tagged [tiab] (title/abstract) or [mh] (MeSH), phrases in '
        'double quotes, AND/OR/NOT in capitals, dates as ("2015"[dp] : "2020"[dp])'
    )

    def __init__(self, settings: Settings | None = None, *, batch_size: int = EFETCH_BATCH) -> None:
        super().__init__(settings)
        self.batch_size = max(1, min(batch_size, ESEARCH_MAX))

    def is_relevant(self, intent: Intent) -> bool:
        """The life sciences, and chemistry unless the question reads as materials science.

        PubMed indexes the chemistry of drugs, cells and exposure, not the stability or
        structure of solids: "Which polymorph of TiO2 is most stable?" (chemistry by its
        meaning, materials by its formula) asked PubMed and screened its toxicology papers.
        A materials question about health reads as biomedical as well (toxicity, cells,
        implants: by its words or its meaning, :mod:`scholargraph.deterministic.fields`) and
        asks PubMed for that reading, whatever its materials side."""
        domains = set(intent.domains)
        return "biomedical" in domains or ("chemistry" in domains and "materials" not in domains)

    def build_query(self, terms: list[str], intent: Intent) -> str:
        """The first (most specific) term is required, any of the others may join it."""
        return first_and_any([_term_group(term) for term in clean_terms(terms, '"()[]')])

    def build_any_two_query(self, words: list[str], intent: Intent) -> str:
        """Plain ``[tiab]`` words, which keep fifteen pairs within a URL."""
        return any_two([f"{word}[tiab]" for word in clean_terms(words, '"()[]')])

    def _search(self, request: SearchRequest) -> SourceResult:
        settings = self.settings
        install_secret_filter()
        term = with_dates(request.query, request.since, request.until)
        limit = max(0, min(request.limit, ESEARCH_MAX))
        eutils, identity = _EUtilities(settings), _identity(settings)
        with translate_errors(self.name, settings):
            found = _read(eutils.call("esearch", db="pubmed", term=term, retmax=limit,
                                      usehistory="y", sort="relevance",
                                      **added_window(request), **identity))
            ids = [str(pmid) for pmid in found.get("IdList", [])]
            if ids and not found.get("WebEnv"):
                raise SourceResponseError(self.name, "ESearch gave ids but no history (WebEnv)")
            starts = range(0, len(ids), self.batch_size)
            fetches = [{"db": "pubmed", "retmode": "xml", "WebEnv": found.get("WebEnv"),
                        "query_key": found.get("QueryKey"), "retstart": start,
                        "retmax": min(self.batch_size, len(ids) - start), **identity}
                       for start in starts]
            works: list[Work] = []
            for answer in one_ahead(eutils.call("efetch", **params) for params in fetches):
                works.extend(works_from_efetch(answer))
        return SourceResult(works=_in_order(works, ids))

    def lookup(self, pmids: list[str]) -> list[Work]:
        """The records of these PMIDs as PubMed has them now (EFetch by id, in batches): what
        an update reads for retractions and corrections published since."""
        eutils, identity = _EUtilities(self.settings), _identity(self.settings)
        works: list[Work] = []
        with translate_errors(self.name, self.settings):
            for start in range(0, len(pmids), self.batch_size):
                batch = ",".join(pmids[start:start + self.batch_size])
                works.extend(works_from_efetch(eutils.call(
                    "efetch", db="pubmed", id=batch, retmode="xml", **identity)))
        return works


def added_window(request: SearchRequest) -> dict[str, str]:
    """ESearch's Entrez-date window for an update: the records PubMed added on or after
    ``added_since`` (``datetype=edat``; ESearch needs ``maxdate`` beside ``mindate``)."""
    if request.added_since is None:
        return {}
    until = request.added_until or request.added_since
    return {"datetype": "edat", "mindate": request.added_since.strftime("%Y/%m/%d"),
            "maxdate": until.strftime("%Y/%m/%d")}


def with_dates(query: str, since: int | None, until: int | None) -> str:
    """``query`` with a publication-date range, unless it already has a date tag."""
    if (since is None and until is None) or _DATE_TAG.search(query):
        return query
    window = f'("{since or 1800}"[dp] : "{until or 3000}"[dp])'
    return f"({query}) AND {window}" if query.strip() else window



def _term_group(term: str) -> str:
    """A short term as a phrase (text or MeSH); a long one as its words, all required.

    A three-word key phrase from a question is rarely written verbatim in an abstract.
    """
    words = [word for word in term.split() if word.lower() not in STOP_WORDS]
    if len(words) > PHRASE_WORDS:
        return "(" + " AND ".join(f"{word}[tiab]" for word in words) + ")"
    quoted = f'"{term}"'
    return f"({quoted}[tiab] OR {quoted}[mh])"


def _identity(settings: Settings) -> dict[str, str]:
    """``tool``, ``email`` and ``api_key`` as NCBI asks, passed per call (never set globally)."""
    if not settings.ncbi_email and talks_to_official("pubmed", settings):
        _warn_once("NCBI_EMAIL is not set: NCBI asks every E-utilities user for a contact email")
    identity = {"tool": TOOL_NAME, "email": settings.ncbi_email or ""}
    if settings.ncbi_api_key and settings.ncbi_api_key.get_secret_value():
        identity["api_key"] = settings.ncbi_api_key.get_secret_value()
    return identity


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        log.warning(message)


def _read(handle: Any) -> Any:
    """Parse one E-utilities answer, turning Biopython's parse failures into typed errors."""
    marker = _parsing.set(True)
    try:
        return Entrez.read(handle)
    except (ValueError, RuntimeError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "Failed to access" in text:
            raise SourceResponseError(
                "pubmed", f"{text}: the answer names a DTD Biopython does not bundle; "
                "upgrade biopython") from None
        raise SourceResponseError("pubmed",
                                  f"unreadable E-utilities answer ({text[:200]})") from None
    finally:
        _parsing.reset(marker)
        handle.close()


def _in_order(works: list[Work], ids: list[str]) -> list[Work]:
    """Works in ESearch's (relevance) order, whatever order EFetch returned them in."""
    rank = {pmid: index for index, pmid in enumerate(ids)}
    return sorted(works, key=lambda work: rank.get(work.pmid or "", len(rank)))


def works_from_efetch(answer: io.BytesIO) -> list[Work]:
    """The articles and book records of one EFetch answer (PubMed XML), in its order.

    Read with lxml, not ``Entrez.read``: Biopython's generic parser took 1.8 s of CPU per 1,000
    articles, most of a large fetch, against a tenth of that here. Entities are not resolved
    and no DTD is loaded, so an answer cannot make the parser read files or the network.
    """
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.parse(answer, parser).getroot()
    except etree.XMLSyntaxError as exc:
        raise SourceResponseError("pubmed", f"unreadable E-utilities answer ({exc})") from None
    if root.tag != "PubmedArticleSet":
        problem = _text(root.find(".//ERROR")) or f"<{root.tag}> where <PubmedArticleSet> was due"
        raise SourceResponseError("pubmed", f"unreadable E-utilities answer ({problem[:200]})")
    return pubmed_records(root)


RECORD_TAGS = ("PubmedArticle", "PubmedBookArticle")


def pubmed_records(root: etree._Element) -> list[Work]:
    """The articles and book records under ``root`` (a ``PubmedArticleSet``, a
    ``PubmedBookArticleSet`` or one record, as a saved file may hold), in order.

    A record PubMed's DTD would not allow (no ``MedlineCitation``, a field of the wrong shape)
    is left out with a warning naming its PMID: the batch's other records are kept."""
    elements = [root] if root.tag in RECORD_TAGS else \
        [element for element in root if element.tag in RECORD_TAGS]
    works: list[Work] = []
    for element in elements:
        try:
            works.append(_article_work(element) if element.tag == "PubmedArticle"
                         else _book_work(element))
        except (SourceResponseError, ValueError) as exc:
            pmid = element.findtext(".//PMID") or "without a PMID"
            log.warning("PubMed record %s left out: %s", pmid, _short(exc))
    return works


def _short(exc: Exception) -> str:
    """An error's first line, at most 200 characters (pydantic's run to many lines)."""
    return (str(exc).splitlines() or [type(exc).__name__])[0][:200]


NOTICE_KINDS = {"RetractionIn": "Retraction", "ExpressionOfConcernIn": "Expression of concern",
                "ErratumIn": "Erratum", "UpdateIn": "Update", "CommentIn": "Comment"}
"""PubMed's links from an article to what was later published about it, as notice labels."""


UNTITLED = "(untitled)"
"""The title of a record that has none in English nor in its own language (an empty
``ArticleTitle`` and no ``VernacularTitle``): kept from a search, since its PMID still names it;
a library file's reader leaves it out as it does any record without a title."""
RETRACTED_TYPE = "Retracted Publication"
"""The publication type PubMed gives an article once it is retracted (beside the link to the
retraction notice, which ``RetractionIn`` names)."""
PREPRINT_TYPE = "Preprint"
"""The publication type PubMed indexes preprints under (from PMC's preprint pilot); every other
article it lists is a journal's."""


def _notices(citation: etree._Element) -> list[str]:
    """'Erratum in: Gut. 2017 Jun;66(6):1 (PMID 27920200)' for each link PubMed lists."""
    notices = []
    for link in citation.iterfind("CommentsCorrectionsList/CommentsCorrections"):
        kind = NOTICE_KINDS.get(link.get("RefType", ""))
        if kind:
            pmid = _text(link.find("PMID"))
            where = _text(link.find("RefSource")) or "PubMed"
            notices.append(f"{kind} in: {where}" + (f" (PMID {pmid})" if pmid else ""))
    return notices


def _article_work(article: etree._Element) -> Work:
    citation = _required(article, "MedlineCitation")
    body = _required(citation, "Article")
    ids = _article_ids(article.find("PubmedData/ArticleIdList"))
    pmid = _text(citation.find("PMID"))
    notices = _notices(citation)
    kinds = {_text(kind) for kind in body.iterfind("PublicationTypeList/PublicationType")}
    if RETRACTED_TYPE in kinds and not any(n.startswith("Retraction in:") for n in notices):
        notices.append("Retracted publication (PubMed publication type)")
    return Work(
        title=_unbracketed(_text(body.find("ArticleTitle")))
        or _text(body.find("VernacularTitle")) or UNTITLED,
        authors=_authors(body.iterfind("AuthorList/Author")),
        year=_year(body),
        venue=_text(body.find("Journal/Title")) or None,
        abstract=_abstract(body) or _abstract(citation, ENGLISH_OTHER_ABSTRACT),
        doi=ids.get("doi") or _text(body.find("ELocationID[@EIdType='doi']")) or None,
        pmid=pmid,
        pmcid=ids.get("pmc"),
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/",
        sources=["pubmed"],
        kind="preprint" if PREPRINT_TYPE in kinds else "article",
        publication_types=sorted(kind for kind in kinds if kind),
        is_retracted=RETRACTED_TYPE in kinds
        or any(notice.startswith("Retraction in:") for notice in notices),
        notices=notices,
    )


PLACEHOLDER_TITLES = frozenset({"not available", "in process citation"})
"""What MEDLINE prints in square brackets where a record has no English title yet ('[Not
Available].', '[In Process Citation].'): no title, so the vernacular one (or none) is used."""


def _unbracketed(title: str) -> str:
    """A title without the square brackets MEDLINE puts around an English translation of a
    title first published in another language ('[Effects of smoking on cells].' is 'Effects of
    smoking on cells.'): they say where the title came from, not what it is, and a record of the
    same article from another source prints it without them. Brackets that close before the end
    ('[18F]FDG PET in lymphoma.') are part of the title and stay."""
    stripped = title.rstrip(".")
    if not (stripped.startswith("[") and stripped.endswith("]")):
        return title
    if stripped[1:-1].strip().lower() in PLACEHOLDER_TITLES:
        return ""
    depth = 0
    for position, char in enumerate(stripped):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth == 0 and position < len(stripped) - 1:
            return title
    inner = stripped[1:-1].strip()
    return inner + title[len(stripped):] if inner else title


def _book_work(book: etree._Element) -> Work:
    """A PubMed book or chapter record (GeneReviews, StatPearls, NCBI Bookshelf).

    A record with a chapter title (``ArticleTitle``) is a chapter, its book's title the venue;
    one without is the whole book, its publisher the venue (the book's title is its own)."""
    document = _required(book, "BookDocument")
    ids = _article_ids(document.find("ArticleIdList"))
    pmid = _text(document.find("PMID"))
    book_title = _text(document.find("Book/BookTitle"))
    chapter_title = _text(document.find("ArticleTitle"))
    year = (_text(document.find("Book/PubDate/Year"))
            or _text(document.find("Book/PubDate/MedlineDate"))[:4])
    publisher = _text(document.find("Book/Publisher/PublisherName"))
    return Work(
        title=chapter_title or book_title or UNTITLED,
        authors=_authors(document.iterfind("AuthorList/Author")),
        year=int(year) if year.isdigit() else None,
        venue=(book_title if chapter_title else publisher) or None,
        abstract=_abstract(document),
        doi=ids.get("doi"),
        pmid=pmid,
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/",
        sources=["pubmed"],
        kind="chapter" if chapter_title else "book",
        publication_types=sorted({_text(kind) for kind in document.iterfind("PublicationType")
                                  if _text(kind)}),
    )


def _required(element: etree._Element, path: str) -> etree._Element:
    found = element.find(path)
    if found is None:
        raise SourceResponseError("pubmed", f"a {element.tag} record without {path}")
    return found


MATHML = "{http://www.w3.org/1998/Math/MathML}math"
SUPERSCRIPT = "sup"


def _text(element: etree._Element | None) -> str:
    """All the text inside ``element``, inline markup (<i>, <sub>) dropped; a superscript
    exponent marked ('10<sup>7</sup>' is '10^7', :func:`~scholargraph.sources.markup.superscript`);
    a MathML formula (which PubMed prints one symbol a line) read as its symbols run together,
    'VO2max', not 'V . O 2 m a x'."""
    if element is None:
        return ""
    if next(element.iter(MATHML, SUPERSCRIPT), None) is None:
        return "".join(element.itertext()).strip()
    return " ".join(_with_formulas(element, []).split())


def _with_formulas(element: etree._Element, parts: list[str]) -> str:
    """``element``'s text appended to ``parts`` (the text before it), formulas and
    superscripts read as :func:`_text` says; the element's own text is returned."""
    start = len(parts)
    if element.tag == MATHML:
        parts.append("".join(part.strip() for part in element.itertext()))
        return parts[-1]
    parts.append(element.text or "" if isinstance(element.tag, str) else "")
    for child in element:
        _with_formulas(child, parts)
        parts.append(child.tail or "")
    own = "".join(parts[start:])
    if element.tag == SUPERSCRIPT:
        own = superscript("".join(parts[:start]), own)
        parts[start:] = [own]
    return own


def _article_ids(id_list: etree._Element | None) -> dict[str, str]:
    if id_list is None:
        return {}
    return {str(item.get("IdType", "")): _text(item) for item in id_list.iterfind("ArticleId")}


def _authors(authors: Iterator[etree._Element]) -> list[str]:
    """'Family, Given' (or a group's name) for each author, but those PubMed marks as not valid
    (``ValidYN="N"``: a name printed wrongly, kept beside the corrected one)."""
    names = []
    for author in authors:
        if author.get("ValidYN") == "N":
            continue
        family = _text(author.find("LastName"))
        given = _text(author.find("ForeName")) or _text(author.find("Initials"))
        name = _text(author.find("CollectiveName")) or (
            f"{family}, {given}" if family and given else family)
        if name:
            names.append(name)
    return names


def _year(body: etree._Element) -> int | None:
    date = body.find("Journal/JournalIssue/PubDate")
    text = _text(date.find("Year")) or _text(date.find("MedlineDate")) if date is not None else ""
    match = re.search(r"\b(1[89]\d\d|20\d\d)\b", text)
    if match:
        return int(match.group(1))
    for year in body.iterfind("ArticleDate/Year"):
        if _text(year).isdigit():
            return int(_text(year))
    return None


ENGLISH_OTHER_ABSTRACT = "OtherAbstract[@Language='eng']"
"""Where a record without an ``Abstract`` may still have one in English: an ``OtherAbstract``
(beside ``MedlineCitation``'s ``Article``) that a publisher, NASA or the Kennedy Institute
supplied; other languages' abstracts are left to a reader of those languages."""


def _abstract(body: etree._Element, path: str = "Abstract") -> str | None:
    """Abstract sections joined, each with its label (OBJECTIVE: ..., METHODS: ...); a section
    NLM categorised without printing a label is named by its category (``NlmCategory``,
    'CONCLUSIONS'), never 'UNASSIGNED', so a structured abstract keeps every part's name."""
    parts = []
    for section in body.iterfind(f"{path}/AbstractText"):
        category = section.get("NlmCategory", "")
        text = _text(section)
        label = section.get("Label") or (category if category != "UNASSIGNED" else None)
        if text:
            parts.append(f"{label}: {text}" if label else text)
    return " ".join(parts) or None
