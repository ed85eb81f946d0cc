"""OpenAlex enrichment of works found elsewhere, and optional one-level citation snowballing.

A work found by PubMed, arXiv or the web carries no citation count, open-access link, retraction
status or reference list; OpenAlex has them. Works are looked up by DOI in batches: one request
carries one OR filter (``filter=doi:a|b|c``) of up to :data:`OR_LIMIT` DOIs, asks for a page of
the same size and only the fields used (``select``), so ``n`` works cost ``ceil(n / 100)``
requests. Works without a DOI are not looked up: OR filters on PMIDs are reported to be refused
(ourresearch/OpenAlex#8), and one request per work would cost more than it brings.

Snowballing (off by default) follows citations one level from the works found this round:
backward, the works they cite (``referenced_works``; those cited by most of them first, fetched
as ``filter=openalex:W1|W2``); forward, the works citing them (``filter=cites:W1|W2``, most cited
first). At most ``limit`` new works each way, through the same batched look-ups. They join the
review as records of the source ``snowball`` (PRISMA: records identified by citation searching).

Enrichment neither deduplicates nor merges: it is handed deduplicated works and returns the
snowballed ones apart, for the retrieval pipeline (:mod:`scholargraph.agents.retrieval`) to merge
with the others in its one deduplication step.

Every request is one search-log entry (its query as sent). A failed look-up is logged as an
error and the review goes on with the works as they were. Once OpenAlex has refused the
connection (:class:`~scholargraph.errors.SourceUnreachable`: refused, host not found, no
network), the step's later batches and its snowballing are not sent: the door is closed, and
asking again costs each batch its connection attempt for nothing. The failed entry says how many
batches were left unasked, so the review notes the failure once.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from scholargraph.errors import SourceError, SourceResponseError, SourceUnreachable
from scholargraph.http.cache import all_or_nothing, requests_sent
from scholargraph.http.policy import http_session, install_secret_filter, translate_errors
from scholargraph.identifiers import normalize_doi
from scholargraph.records import SearchLogEntry, Work
from scholargraph.settings import Settings
from scholargraph.sources.openalex import open_access_url, work_from_openalex
from scholargraph.wording import counted

log = logging.getLogger(__name__)

OR_LIMIT = 100
"""Values in one OR filter, and results per page. The current OpenAlex documentation allows 100
of each (an older blog post said 50; pyalex's ``Works()[ids]`` also batches 100). Every list call
is billed alike whatever its size, so the largest batch is both the politest and the cheapest."""

ENRICHMENT_FIELDS = ("id", "doi", "cited_by_count", "open_access", "best_oa_location",
                     "is_retracted", "referenced_works")
"""The only fields an enrichment look-up asks for (``select``)."""

OPENALEX = "openalex"
SNOWBALL = "snowball"
SNOWBALL_NEEDS_OPENALEX = ("citation snowballing was asked for but not done: it goes through "
                           "OpenAlex, which is not one of this run's sources")


@dataclass(frozen=True)
class Augmented:
    """The works after the OpenAlex pass, and what it added to the review."""

    works: list[Work]
    added: list[Work] = field(default_factory=list)
    """Records found by snowballing (source ``snowball``): they belong to the run's records, and
    the caller merges them with the works (they may be records of works already there)."""
    log: list[SearchLogEntry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def augment_with_openalex(works: list[Work], *, known: Iterable[Work] = (),
                          use_openalex: bool = True, snowball: bool = False, limit: int = 20,
                          round_number: int = 1, settings: Settings | None = None) -> Augmented:
    """Enrich ``works`` (deduplicated by the caller) and snowball from them if asked.

    ``known`` are works of earlier rounds, already looked up: their OpenAlex facts are copied,
    not asked again, and they are not snowballed from again. Without ``use_openalex`` (OpenAlex
    is not one of the run's sources) nothing is asked of it and the works are returned as they
    are. Snowballed works come back apart (``added``), not merged: deduplicating is the
    retrieval pipeline's step, done once over all the records.
    """
    known = list(known)
    if not use_openalex:
        notes = [SNOWBALL_NEEDS_OPENALEX] if snowball else []
        return Augmented(works, notes=notes)
    works, entries = enrich_with_openalex(works, settings, known=known,
                                          round_number=round_number)
    if not snowball:
        return Augmented(works, [], entries, notes=unreachable_notes(entries))
    if refused_in(entries) is not None:
        return Augmented(works, [], entries, notes=[*unreachable_notes(entries), (
            "citation snowballing was not done: OpenAlex could not be reached")])
    added, more = snowball_citations(works, settings, known=known, limit=limit,
                                     round_number=round_number)
    return Augmented(works, added, entries + more, notes=unreachable_notes(entries + more))


def refused_in(entries: list[SearchLogEntry]) -> str | None:
    """Why OpenAlex could not be reached in these look-ups, or ``None`` when it could."""
    return next((entry.error for entry in entries if entry.unreachable), None)


def unreachable_notes(entries: list[SearchLogEntry]) -> list[str]:
    """The one note a review gives when OpenAlex could not be reached: why, and how many
    look-ups were then not sent (the works keep what they have)."""
    refused = refused_in(entries)
    if refused is None:
        return []
    unsent = sum(entry.status == "skipped" for entry in entries)
    rest = f"; its {counted(unsent, 'other look-up')} were not sent" if unsent else ""
    return [f"OpenAlex could not be reached ({refused}){rest}; the works keep what they have"]


def with_known_facts(works: list[Work], known: Iterable[Work]) -> list[Work]:
    """``works`` with the OpenAlex facts of the ``known`` work of the same id copied (no
    request): what the retrieval pipeline applies after merging snowballed works, so the
    works enriched a moment before keep their facts."""
    previous = {work.id: work for work in known}
    return [_with_facts(work, previous[work.id]) if work.id in previous else work
            for work in works]


def enrich_with_openalex(works: list[Work], settings: Settings | None = None, *,
                         known: Iterable[Work] = (), round_number: int = 1,
                         ) -> tuple[list[Work], list[SearchLogEntry]]:
    """``works`` with OpenAlex's citation count, open-access link, retraction status and
    references, looked up by DOI in batches; and one search-log entry per request.

    Works that came from OpenAlex already have these facts and are not looked up; works in
    ``known`` (earlier rounds) get theirs copied.
    """
    known = list(known)
    previous = {work.id for work in known}
    works = with_known_facts(works, known)
    wanted = [work.doi for work in works
              if work.doi and not work.openalex_id and work.id not in previous]
    if not wanted:
        return works, []
    items, entries = _Lookup(settings or Settings(), round_number).batched(
        "doi", list(dict.fromkeys(wanted)), select=ENRICHMENT_FIELDS)
    by_doi = {normalize_doi(item.get("doi")): item for item in items if item.get("doi")}
    enriched = [_with_item(work, by_doi[work.doi]) if work.doi in by_doi and not work.openalex_id
                else work for work in works]
    return enriched, entries


def snowball_citations(works: list[Work], settings: Settings | None = None, *,
                       known: Iterable[Work] = (), limit: int = 20, round_number: int = 1,
                       ) -> tuple[list[Work], list[SearchLogEntry]]:
    """New works one citation step from ``works`` (backward and forward), as ``snowball`` records.

    Seeds are the works with an OpenAlex id that are new this round and were found by a search
    (not by an earlier snowball). Works already present are not fetched again.
    """
    known_ids = {work.id for work in known}
    seeds = [work for work in works if work.openalex_id and work.id not in known_ids
             and work.sources != [SNOWBALL]]
    present = {work.openalex_id for work in [*works, *known] if work.openalex_id}
    if not seeds or limit <= 0:
        return [], []
    lookup = _Lookup(settings or Settings(), round_number, source=SNOWBALL)
    cited = Counter(ref for seed in seeds for ref in seed.referenced_works if ref not in present)
    backward_ids = sorted(cited, key=lambda ref: (-cited[ref], ref))[:limit]
    backward, entries = lookup.batched("openalex", backward_ids)
    seed_ids = sorted({seed.openalex_id for seed in seeds if seed.openalex_id})
    forward, more = lookup.batched("cites", seed_ids, per_page=min(limit, OR_LIMIT),
                                   sort="cited_by_count:desc")
    forward = sorted(forward, key=lambda item: -(item.get("cited_by_count") or 0))
    found: dict[str, Work] = {}
    for items, cap in ((backward, limit), (forward, limit)):
        new = [work for work in map(_snowball_work, items)
               if work and work.openalex_id not in present and work.openalex_id not in found]
        found.update((work.openalex_id, work) for work in new[:cap] if work.openalex_id)
    return list(found.values()), entries + more


def openalex_records(key: str, values: list[str], settings: Settings, *,
                     select: Iterable[str] = (), round_number: int = 1,
                     ) -> tuple[list[dict[str, Any]], list[SearchLogEntry]]:
    """Every OpenAlex work whose ``key`` (a filter: ``doi``, ``openalex``) is one of
    ``values``, in batched look-ups, each one search-log entry; a failed batch is logged."""
    return _Lookup(settings, round_number).batched(key, values, select=select)


class _Lookup:
    """Batched ``/works`` look-ups by one filter key, through the shared HTTP policy."""

    def __init__(self, settings: Settings, round_number: int, source: str = OPENALEX) -> None:
        install_secret_filter()
        self._settings = settings
        self._round = round_number
        self._source = source
        self._url = settings.openalex_url.rstrip("/") + "/works"
        self._refused: str | None = None
        """Why OpenAlex refused the connection, once it has: later batches are not sent."""
        self._session = http_session(OPENALEX, settings)
        key = settings.openalex_api_key.get_secret_value() if settings.openalex_api_key else ""
        if key:
            self._session.headers["Authorization"] = f"Bearer {key}"  # as pyalex sends it

    def batched(self, key: str, values: list[str], *, select: Iterable[str] = (),
                per_page: int = OR_LIMIT, sort: str | None = None,
                ) -> tuple[list[dict[str, Any]], list[SearchLogEntry]]:
        """Every result of ``key:v1|v2|...`` for each batch of :data:`OR_LIMIT` values."""
        items: list[dict[str, Any]] = []
        entries: list[SearchLogEntry] = []
        for batch in _batches(values):
            params = {"filter": f"{key}:{'|'.join(batch)}", "per-page": str(per_page)}
            if select:
                params["select"] = ",".join(select)
            if sort:
                params["sort"] = sort
            query = "&".join(f"{name}={value}" for name, value in params.items())
            if self._refused is not None:
                entries.append(self._skipped(query, key))
                continue
            try:
                with requests_sent() as sent:
                    found = self._get(params)
            except SourceError as exc:
                log.warning("OpenAlex look-up failed: %s", exc.message)
                entries.append(self._entry(query, 0, error=f"{self._purpose(key)}: {exc.message}",
                                           unreachable=isinstance(exc, SourceUnreachable),
                                           sent=sent))
                if isinstance(exc, SourceUnreachable):
                    self._refused = exc.message
                continue
            items.extend(found)
            entries.append(self._entry(query, len(found), note=self._purpose(key), sent=sent))
        return items, entries

    def _skipped(self, query: str, key: str) -> SearchLogEntry:
        """A batch not sent because OpenAlex refused the connection earlier in this step."""
        return SearchLogEntry(
            source=self._source, query=query, status="skipped", note=self._purpose(key),
            error=f"not sent: OpenAlex could not be reached on an earlier look-up "
                  f"({self._refused})", round=self._round)

    def _get(self, params: dict[str, str]) -> list[dict[str, Any]]:
        with all_or_nothing(), translate_errors(OPENALEX, self._settings):
            response = self._session.get(self._url, params=params)
            response.raise_for_status()
            results = response.json().get("results")
            if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
                raise SourceResponseError(OPENALEX, "a list answer without its results array")
            return results

    def _entry(self, query: str, found: int, error: str | None = None,
               note: str | None = None, unreachable: bool = False,
               sent: list[str] | None = None) -> SearchLogEntry:
        status = "error" if error else ("ok" if found else "empty")
        return SearchLogEntry(source=self._source, query=query, n_results=found, status=status,
                              error=error, note=note, round=self._round, unreachable=unreachable,
                              sent=list(dict.fromkeys(sent or [])))

    @staticmethod
    def _purpose(key: str) -> str:
        return {"doi": LOOKUP_PURPOSES[0], "openalex": LOOKUP_PURPOSES[1],
                "cites": "forward snowballing"}.get(key, LOOKUP_PURPOSES[2])


LOOKUP_PURPOSES = ("enrichment look-up", "look-up by OpenAlex id", "look-up")
"""What a request about works already found is for (their citation counts, open-access links,
retraction status): the search log names it, and PRISMA does not count it as a search."""


def is_lookup(entry: SearchLogEntry) -> bool:
    """Whether a search-log entry is a look-up of works already found, not a search for
    records (a snowballing request is a search: it identifies records)."""
    said = entry.note or entry.error or ""
    return any(said == purpose or said.startswith(f"{purpose}:") for purpose in LOOKUP_PURPOSES)


def _batches(values: list[str]) -> Iterator[list[str]]:
    """``values`` in batches of :data:`OR_LIMIT`, leaving out those the filter syntax cannot
    carry (a comma or pipe inside a DOI would split the filter)."""
    usable = [value for value in values if not set(value) & {",", "|"}]
    for skipped in set(values) - set(usable):
        log.info("OpenAlex: %r cannot be written in an OR filter; not looked up", skipped)
    for start in range(0, len(usable), OR_LIMIT):
        yield usable[start:start + OR_LIMIT]


@dataclass(frozen=True)
class _Facts:
    openalex_id: str | None
    cited_by_count: int | None
    oa_url: str | None
    is_retracted: bool
    referenced_works: list[str]


def _with_item(work: Work, item: dict[str, Any]) -> Work:
    try:
        return _apply(work, _Facts(
            openalex_id=item.get("id"),
            cited_by_count=item.get("cited_by_count"),
            oa_url=open_access_url(item),
            is_retracted=bool(item.get("is_retracted")),
            referenced_works=list(item.get("referenced_works") or []),
        ))
    except (AttributeError, TypeError, ValueError) as exc:
        log.warning("OpenAlex: a look-up result is not as documented (%s); %s left as it was",
                    exc, work.id)
        return work


def _with_facts(work: Work, known: Work) -> Work:
    """``work`` with what an earlier round learnt about it from OpenAlex."""
    if not known.openalex_id:
        return work
    return _apply(work, _Facts(known.openalex_id, known.cited_by_count, known.oa_url,
                               known.is_retracted, known.referenced_works))


def _apply(work: Work, facts: _Facts) -> Work:
    """OpenAlex's facts added; a retraction anyone reported is kept."""
    data = work.model_dump()
    data.update(
        openalex_id=work.openalex_id or facts.openalex_id,
        cited_by_count=facts.cited_by_count if facts.cited_by_count is not None
        else work.cited_by_count,
        oa_url=work.oa_url or facts.oa_url,
        is_retracted=work.is_retracted or facts.is_retracted,
        # once each: a work's own facts copied back onto it do not repeat its references
        referenced_works=list(dict.fromkeys([*work.referenced_works, *facts.referenced_works])),
    )
    return Work.model_validate(data)


def _snowball_work(item: dict[str, Any]) -> Work | None:
    try:
        work = work_from_openalex(item)
    except SourceResponseError as exc:
        log.warning("OpenAlex: a snowballed work is left out: %s", exc.message)
        return None
    return work.model_copy(update={"sources": [SNOWBALL]})


__all__ = [
    "OR_LIMIT",
    "Augmented",
    "augment_with_openalex",
    "enrich_with_openalex",
    "snowball_citations",
    "with_known_facts",
]
