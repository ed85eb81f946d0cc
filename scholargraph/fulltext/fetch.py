"""Reading included works in full where they are legally open: PMC, arXiv, open-access copies.

For each work, in the order the review ranks them and up to a budget, the best open source is
tried, first to last:

1. a PMCID: the JATS article through E-utilities ``efetch db=pmc`` (NCBI's limiter and key);
2. an arXiv id: the PDF from the arXiv host the arXiv source talks to (``/pdf/{id}``), at
   arXiv's pace (the same limiter as its API);
3. an open-access copy OpenAlex names (``oa_url``): robots.txt is read first, as for any web
   page (:class:`~scholargraph.sources.web.pages.PageFetcher`), and only a PDF or a JATS/XML file is
   read as a full text; an HTML landing page is not (it is not the paper).

A work with none of these is closed: nothing of it is fetched, it keeps its abstract. Every
request goes through :func:`~scholargraph.http.policy.http_session` (limiter, retries, timeout,
size cap, HTTP cache; a few works are read at once, each service keeping its own pace), and
every parsed full text is kept in the on-disk result store, so a
re-run neither asks the network nor parses again.

Each work gets a :class:`FullTextOutcome` saying what happened, which PRISMA's full-text stage
counts: sought, not retrieved (closed access, robots.txt, too large, not in the recorded corpus of
``--offline``, failed), assessed.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Literal
from urllib.parse import urljoin, urlsplit

import requests

from scholargraph.deterministic.text import content_words
from scholargraph.errors import InputError, SourceError
from scholargraph.fulltext.jats import parse_jats, split_articles
from scholargraph.fulltext.model import FullTextDocument
from scholargraph.fulltext.pdf import parse_pdf
from scholargraph.http.cache import EXPIRE_AFTER, ResultStore, result_store
from scholargraph.http.policy import NOT_RECORDED_HEADER, http_session, translate_errors
from scholargraph.ledger import FULL_TEXT_COUNTS, RETRIEVED, FullTextFate, Ledger, work_key
from scholargraph.records import BOOK_KINDS, Work
from scholargraph.settings import Settings
from scholargraph.sources.web.pages import PageFetcher

log = logging.getLogger(__name__)

_Reader = Callable[[], FullTextDocument]

READERS = 4
"""Works read at once: different services overlap their waits (an arXiv PDF's three seconds,
a PMC answer), while each service's limiter, shared by every thread, keeps its pace."""
DEFAULT_FULL_TEXTS = 10
"""Works read in full per review unless ``--full-text`` says otherwise: enough to ground the
findings of a typical review in methods and results, few enough to stay polite and quick."""
STORE_TABLE = "full_texts"
FullTextStatus = Literal["retrieved", "closed_access", "robots", "too_large", "no_body",
                         "not_recorded", "failed"]
NOT_RETRIEVED_REASONS: dict[str, str] = {
    "closed_access": "closed access",
    "robots": "robots.txt disallows",
    "too_large": "too large",
    "no_body": "no full text in the record",
    "not_recorded": "not in the recorded corpus",
    "failed": "failed",
}
"""PRISMA's reasons a sought report was not retrieved, by status."""
PMC_BATCH = 20
"""PMC articles asked for in one efetch request: NCBI accepts a comma-separated list of ids,
and a JATS article weighs up to a few megabytes, so twenty keep one answer within the HTTP
policy's size cap while sparing nineteen requests in twenty."""
MAX_REDIRECTS = 5
LASTING_STATUS = frozenset({401, 403, 404, 410, 451})
"""Answers that will not change on asking again soon: cached like a full text."""
PDF_TYPES = ("application/pdf", "application/x-pdf")
XML_TYPES = ("application/xml", "text/xml", "application/jats+xml")


@dataclass(frozen=True)
class FullTextOutcome:
    """What became of one work's full text: where it was read, or why not."""

    work_id: str
    status: FullTextStatus
    source: str = ""
    detail: str = ""
    licence: str | None = None
    key: str = ""
    """The work's :func:`~scholargraph.ledger.work_key`, which the run keeps the outcome under."""


@dataclass(frozen=True)
class FullTextRound:
    """The works with their full texts filled in, and what happened to each one sought."""

    works: list[Work]
    outcomes: list[FullTextOutcome]

    def prisma(self) -> dict[str, object]:
        """PRISMA 2020's full-text stage of this round alone (sought = retrieved + not
        retrieved, by reason; assessed = retrieved), counted by the run's ledger
        (:class:`~scholargraph.ledger.Ledger`) as if each work sought were one included record."""
        sought = len(self.outcomes)
        counts = Ledger.build(["full text"] * sought, [[i] for i in range(sought)],
                              [None] * sought, self._fates()).prisma(full_text_stage=True)
        return {key: counts[key] for key in FULL_TEXT_COUNTS}

    def fates(self) -> dict[str, FullTextFate]:
        """What became of each work sought, by its :func:`~scholargraph.ledger.work_key`, as
        the PRISMA ledger counts it."""
        return {outcome.key: fate
                for outcome, fate in zip(self.outcomes, self._fates(), strict=True)}

    def _fates(self) -> list[FullTextFate]:
        return [FullTextFate(status=RETRIEVED if outcome.status == "retrieved"
                             else NOT_RETRIEVED_REASONS[outcome.status], licence=outcome.licence)
                for outcome in self.outcomes]

    def note(self) -> str | None:
        """One line for the report: how many works were read in full, from where, and why the
        others were not."""
        if not self.outcomes:
            return None
        retrieved = [outcome for outcome in self.outcomes if outcome.status == "retrieved"]
        where = Counter(outcome.source.split(" http")[0] for outcome in retrieved)
        reasons = self.prisma()["not_retrieved_reasons"]
        line = (f"full text: {len(retrieved)} of {len(self.outcomes)} works sought were read "
                f"in full" + (f" ({_counts(where)})" if where else ""))
        if reasons:
            line += f"; not retrieved: {_counts(reasons)}"  # type: ignore[arg-type]
        return line + ("; the others rest on their abstracts"
                       if len(retrieved) < len(self.outcomes) else "")


class _NotRead(Exception):
    """A candidate source that gave no full text, and why (internal)."""

    def __init__(self, status: FullTextStatus, detail: str, lasting: bool = True) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.lasting = lasting
        """Whether asking again would give the same answer (a 404, a disallowing robots.txt,
        a file that is not an article), so the answer is cached; a timeout or a 5xx is not."""


class FullTextReader:
    """Fetches and parses open full texts politely (see the module docstring)."""

    def __init__(self, settings: Settings, pages: PageFetcher | None = None) -> None:
        self.settings = settings
        self.pages = pages or PageFetcher(settings)
        self.store = result_store(settings, STORE_TABLE)
        self._prefetched: dict[str, bytes | _NotRead] = {}
        """PMC articles asked for in batches (:meth:`prefetch_pmc`), by PMCID digits: the
        article, or why it is not there."""

    def read_all(self, works: list[Work], budget: int) -> FullTextRound:
        """The first ``budget`` works without a full text are sought, in the order given (a
        paper whose records dedup kept apart, one :func:`~scholargraph.ledger.work_key`, once).
        The PMC articles among them are asked for first, many in one request
        (:meth:`prefetch_pmc`)."""
        unread = {work_key(work): work for work in works if not work.full_text_spans}
        sought = list(unread.items())[:max(0, budget)]
        self.prefetch_pmc([work.pmcid for _, work in sought if work.pmcid])
        with ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="fulltext") as pool:
            results = dict(zip([key for key, _ in sought],
                               pool.map(self.read, [work for _, work in sought]), strict=True))
        filled = []
        for work in works:
            outcome, document = results.get(work_key(work), (None, None))
            if outcome is not None and document is not None:
                work = with_full_text(work, document, outcome.source, outcome.licence)
            filled.append(work)
        return FullTextRound(works=filled, outcomes=[
            replace(outcome, key=key) for key, (outcome, _) in results.items()])

    def prefetch_pmc(self, pmcids: list[str]) -> None:
        """Ask PMC for the articles not yet in the result store, :data:`PMC_BATCH` ids a
        request (efetch takes a comma-separated list), and keep each answer for :meth:`_pmc`:
        one request for many articles instead of one each."""
        wanted = []
        for pmcid in dict.fromkeys(pmcids):
            key = ResultStore.key("full text", self._pmc_location(pmcid))
            if not (self.store and self.store.get(key) is not None):
                wanted.append(pmcid.upper().removeprefix("PMC"))
        for start in range(0, len(wanted), PMC_BATCH):
            batch = wanted[start:start + PMC_BATCH]
            try:
                response = self._request("pubmed", f"{self.settings.pubmed_url}efetch.fcgi",
                                         self._pmc_params(",".join(batch)), follow=True)
                unrecorded = set(response.headers.get(NOT_RECORDED_HEADER, "").split(","))
                body, _ = _body(response, "pubmed")
                articles = split_articles(body)
            except (_NotRead, InputError) as exc:
                reason = exc if isinstance(exc, _NotRead) else _NotRead("failed", str(exc))
                self._prefetched.update((digits, reason) for digits in batch)
                continue
            for digits in batch:
                self._prefetched[digits] = articles.get(digits) or (
                    _NotRead("not_recorded", f"PMC{digits}: not in the recorded corpus")
                    if digits in unrecorded
                    else _NotRead("failed", f"PMC's answer holds no article PMC{digits}"))

    def read(self, work: Work) -> tuple[FullTextOutcome, FullTextDocument | None]:
        """The first open source that yields a full text, or the most telling reason none did."""
        candidates = self._candidates(work)
        if not candidates:
            return FullTextOutcome(work.id, "closed_access",
                                   detail="no PMCID, arXiv id or open-access copy"), None
        reasons: list[_NotRead] = []
        for label, location, reader in candidates:
            try:
                document = self._cached(location, reader)
            except _NotRead as reason:
                log.info("full text of %s from %s: %s", work.id, location, reason.detail)
                reasons.append(reason)
                continue
            return FullTextOutcome(work.id, "retrieved", source=label,
                                   licence=document.licence or work.licence), document
        worst = min(reasons, key=lambda reason: _PRIORITY.index(reason.status))
        return FullTextOutcome(work.id, worst.status, detail=worst.detail), None

    def _candidates(self, work: Work) -> list[tuple[str, str, _Reader]]:
        """(label, the address really asked, reader) of each open source of ``work``, best
        first; the address keys the cache, so an answer from a mirror or the replay server never
        answers a run aimed elsewhere."""
        found: list[tuple[str, str, _Reader]] = []
        if work.pmcid:
            asked = self._pmc_location(work.pmcid)
            found.append(("PMC JATS", asked, lambda: self._pmc(work.pmcid or "")))
        if work.arxiv_id:
            url = f"{_arxiv_root(self.settings.arxiv_url)}/pdf/{work.arxiv_id}"
            found.append(("arXiv PDF", url, lambda: self._arxiv(url)))
        if work.oa_url and urlsplit(work.oa_url).scheme in ("http", "https"):
            url = work.oa_url
            found.append((f"open-access copy {url}", self.pages.location(url),
                           lambda: self._open_copy(url)))
        return found

    def _cached(self, location: str, reader: _Reader) -> FullTextDocument:
        key = ResultStore.key("full text", location)
        cached = self.store.get(key) if self.store else None
        if cached is not None:
            if "not_read" in cached:
                raise _NotRead(cached["not_read"], cached["detail"])
            return FullTextDocument.model_validate(cached)
        try:
            document = reader()
        except _NotRead as reason:
            if self.store and reason.lasting:
                self.store.put(key, {"not_read": reason.status, "detail": reason.detail},
                               EXPIRE_AFTER)
            raise
        if self.store:
            self.store.put(key, document.model_dump(mode="json"), EXPIRE_AFTER)
        return document

    def _pmc_location(self, pmcid: str) -> str:
        return f"{self.settings.pubmed_url}efetch.fcgi?db=pmc&id={pmcid}"

    def _pmc_params(self, ids: str) -> dict[str, str]:
        params = {"db": "pmc", "id": ids, "retmode": "xml"}
        if self.settings.ncbi_email:
            params["email"] = self.settings.ncbi_email
        if self.settings.ncbi_api_key:
            params["api_key"] = self.settings.ncbi_api_key.get_secret_value()
        return params

    def _pmc(self, pmcid: str) -> FullTextDocument:
        """The article from the batch it was asked for in, else asked for alone."""
        digits = pmcid.upper().removeprefix("PMC")
        prefetched = self._prefetched.get(digits)
        if isinstance(prefetched, _NotRead):
            raise prefetched
        if prefetched is None:
            prefetched, _ = self._get("pubmed", f"{self.settings.pubmed_url}efetch.fcgi",
                                      self._pmc_params(digits))
        return _with_body(_parse(parse_jats, prefetched))

    def _arxiv(self, url: str) -> FullTextDocument:
        body, _ = self._get("arxiv", url)
        return _with_body(_parse(parse_pdf, body))

    def _open_copy(self, url: str, from_landing: bool = False) -> FullTextDocument:
        """The copy at ``url``; redirects (a DOI link to the publisher) are followed one by one,
        each target's robots.txt read first, so no redirect side-steps a site's wishes. A
        landing page that names its PDF (:func:`landing_pdf_url`) is followed to it, once."""
        for _ in range(MAX_REDIRECTS + 1):
            if not self.pages.allows(url):
                raise _NotRead("robots", f"robots.txt of {urlsplit(url).netloc} disallows {url}")
            service = f"web:{urlsplit(url).netloc.lower()}"
            response = self._request(service, self.pages.location(url), None, follow=False)
            if not response.is_redirect:
                body, content_type = _body(response, service)
                pdf_url = None if from_landing else landing_pdf_url(url, body, content_type)
                if pdf_url is not None:
                    return self._open_copy(pdf_url, from_landing=True)
                return self._read_copy(url, body, content_type)
            url = urljoin(url, response.headers.get("Location", ""))
        raise _NotRead("failed", f"more than {MAX_REDIRECTS} redirects", lasting=False)

    def _read_copy(self, url: str, body: bytes, content_type: str) -> FullTextDocument:
        if content_type in PDF_TYPES or body.startswith(b"%PDF-"):
            return _with_body(_parse(parse_pdf, body))
        if content_type in XML_TYPES or url.lower().endswith((".xml", ".nxml")):
            return _with_body(_parse(parse_jats, body))
        raise _NotRead("failed", f"{url} is a {content_type or 'page'}, not a PDF or JATS "
                       "article (a landing page is not read as the paper)")

    def _get(self, service: str, url: str,
             params: dict[str, str] | None = None) -> tuple[bytes, str]:
        """The body and content type of ``url`` through the service's HTTP policy."""
        return _body(self._request(service, url, params, follow=True), service)

    def _request(self, service: str, url: str, params: dict[str, str] | None,
                 follow: bool) -> requests.Response:
        session = http_session(service, self.settings)
        try:
            with translate_errors(service, self.settings):
                return session.get(url, params=params, allow_redirects=follow)
        except SourceError as exc:
            too_large = "larger than" in exc.message
            raise _NotRead("too_large" if too_large else "failed", exc.message,
                           lasting=too_large) from None
        finally:
            session.close()


HTML_TYPES = ("text/html", "application/xhtml+xml")
_CITATION_PDF = re.compile(
    rb"<meta\s[^>]*?name\s*=\s*[\"']citation_pdf_url[\"'][^>]*>|<meta\s[^>]*?content\s*=\s*"
    rb"[\"'][^\"']*[\"'][^>]*?name\s*=\s*[\"']citation_pdf_url[\"'][^>]*>", re.IGNORECASE)
_CONTENT = re.compile(rb"content\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)


def landing_pdf_url(url: str, body: bytes, content_type: str) -> str | None:
    """The PDF an HTML landing page names in its ``citation_pdf_url`` meta tag (the Highwire
    tag publishers and repositories set for Google Scholar: ACL Anthology, OJS journals,
    arXiv, bioRxiv, PMC, Zenodo, institutional repositories), made absolute against ``url``;
    None for anything else. OpenAlex's ``oa_url`` is often such a page (a DOI resolves to the
    article's landing page), which was refused as 'not a PDF or JATS article' though the paper
    sits one link away."""
    if content_type not in HTML_TYPES and not body.lstrip()[:15].lower().startswith(
            (b"<!doctype html", b"<html")):
        return None
    tag = _CITATION_PDF.search(body[:LANDING_HEAD_BYTES])
    content = _CONTENT.search(tag.group(0)) if tag else None
    if content is None:
        return None
    target = urljoin(url, content.group(1).decode("utf-8", "replace").strip()
                     .replace("&amp;", "&"))
    return target if urlsplit(target).scheme in ("http", "https") else None


LANDING_HEAD_BYTES = 200_000
"""Where a landing page's meta tags are looked for: its head, well within this."""


def _body(response: requests.Response, service: str) -> tuple[bytes, str]:
    """The body and content type of a 200 answer; any other status is a reason not to read,
    and the replay server's word that it holds no recording of it (``--offline``) says so."""
    if response.status_code != 200 and NOT_RECORDED_HEADER in response.headers:
        raise _NotRead("not_recorded", f"{service}: not in the recorded corpus")
    if response.status_code != 200:
        raise _NotRead("failed", f"HTTP {response.status_code} from {service}",
                       lasting=response.status_code in LASTING_STATUS)
    content_type = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    return response.content, content_type


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in counts.items())


_PRIORITY: list[FullTextStatus] = ["robots", "too_large", "no_body", "failed", "not_recorded",
                                   "closed_access"]
"""Which reason a work not retrieved is counted under when several sources failed."""

def _parse(parser: Callable[[bytes], FullTextDocument], body: bytes) -> FullTextDocument:
    try:
        return parser(body)
    except InputError as exc:
        raise _NotRead("failed", str(exc)) from None


def _with_body(document: FullTextDocument) -> FullTextDocument:
    if not document.has_body:
        raise _NotRead("no_body", "the record has no body text (a scanned or withheld article)")
    return document


def _arxiv_root(api_url: str) -> str:
    """``https://export.arxiv.org`` from ``https://export.arxiv.org/api/query`` (or a mirror's
    equivalent), where ``/pdf/{id}`` lives."""
    return re.sub(r"/api/query/?$", "", api_url.rstrip("/")) if "/api/" in api_url else \
        f"{urlsplit(api_url).scheme}://{urlsplit(api_url).netloc}"


def rank_for_reading(works: list[Work], texts: list[str]) -> list[Work]:
    """Works in the order their titles and abstracts answer ``texts`` (the question and its
    sub-questions): most shared content words first, the sources' order breaking ties."""
    wanted = set(content_words(" ".join(texts)))

    def shared(work: Work) -> int:
        return len(wanted & set(content_words(f"{work.title} {work.abstract or ''}")))

    return sorted(works, key=lambda work: -shared(work))


def readable(work: Work) -> bool:
    """Whether a work is a paper whose full text may be sought (not a web page or a material,
    and not one whose text is already here)."""
    return work.kind in ("article", "preprint", *BOOK_KINDS, "other") and not work.full_text


def with_full_text(work: Work, document: FullTextDocument, source: str,
                   licence: str | None) -> Work:
    """``work`` carrying ``document``'s text and spans; its abstract is filled from the
    document only when it had none."""
    text, spans = document.joined()
    return work.model_copy(update={
        "full_text": text, "full_text_spans": spans, "full_text_source": source,
        "licence": licence, "abstract": work.abstract or document.abstract})
