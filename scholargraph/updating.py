"""Keeping a review current: ``scholargraph update DIR`` adds what was published since.

A review is out of date the day it is finished. An update reads the review a folder holds
(``review.json``), runs its question again with every search limited to the records the
services added since the review's day (:attr:`ReviewContext.added_since`: PubMed's Entrez date,
arXiv's submission date, OpenAlex's creation date, the web's time window), and folds what that
run found into the review:

- the new records are deduplicated against the works already there, so a work found again is
  not counted twice and a new version of an included work (a preprint's published article)
  joins it (:class:`~scholargraph.history.JoinedVersion`);
- every work carries ``first_seen``, the day the review first included it;
- the new findings are added after the earlier ones, their citations numbered on from the
  earlier reference list, which keeps its numbers;
- the works already there are looked up again in PubMed (by PMID) and OpenAlex (by id) for
  retractions and corrections published since, flagged at the top of the review;
- ``history`` records the earlier run, whose files are copied to ``DIR/history/DATE/`` before
  anything is written;
- the screening record (``screening`` in ``review.json``, ``screening.csv``) keeps every work the
  earlier runs screened and adds those this run screened, each with the day of its run; a work
  this run included that is one the review already had names it (``joins_earlier``).

A folder without a readable ``review.json`` is bad input (:class:`InputError`); a source that
fails is recorded as in a review, and the earlier review is kept whole either way.
"""

from __future__ import annotations

import shutil
from collections import Counter
from dataclasses import dataclass, field, fields
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from scholargraph.agents.schemas import Finding, WorkStance
from scholargraph.api import start_review
from scholargraph.context import CARRIED
from scholargraph.dedup import deduplicate
from scholargraph.deterministic.questions import stance_claim
from scholargraph.errors import InputError, SourceError
from scholargraph.exports.files import prepare_out_dir
from scholargraph.history import (
    HistoryEntry,
    HistoryQuery,
    JoinedVersion,
    NoticeFlag,
    NowExcluded,
    UpdatePrisma,
    UpdateSection,
)
from scholargraph.ledger import CARRIED_REASON, RETRIEVED, ScreenedWork, record_content
from scholargraph.options import check_day, option_words, update_options
from scholargraph.records import Passage, SearchLogEntry, Work
from scholargraph.report import (
    Reference,
    Report,
    ReviewCounts,
    balance_line,
    balance_subject,
    review_counts,
)
from scholargraph.runs import (
    LATEST_RECORDING,
    PendingApproval,
    ProgressCallback,
    offline_services,
    rerun_command,
)
from scholargraph.screening.relevance import read_criteria
from scholargraph.settings import Settings
from scholargraph.sources.library import EVERY_RECORD
from scholargraph.sources.registry import source_names
from scholargraph.wording import counted, option_value

HISTORY_DIR = "history"
NOT_REPEATED = ("library",)
"""Sources an update does not search again: a local library is not a service that adds records."""
FLAGGED_NOTICES = ("Retraction", "Retracted", "Expression of concern", "Erratum", "Update")
"""Notices an update flags when they appeared since (comments are not corrections)."""


def read_review(directory: str | Path) -> Report:
    """The review a folder holds, or :class:`InputError` saying why it cannot be updated."""
    path = Path(directory).expanduser() / "review.json"
    if not path.is_file():
        raise InputError(f"{directory} holds no review.json; give the folder a review was "
                         "written to (scholargraph review ... --out DIR)")
    try:
        return Report.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValidationError, UnicodeDecodeError, OSError) as exc:
        reason = (f"{exc.error_count()} fields do not fit" if isinstance(exc, ValidationError)
                  else type(exc).__name__)
        raise InputError(f"{path} cannot be read by this version of scholargraph ({reason}); "
                         "run the review again with scholargraph review") from None


def update(directory: str | Path, *, since: str | None = None,
           years: tuple[int | None, int | None] | None = None,
           on_progress: ProgressCallback | None = None, **options: Any) -> Report:
    """Update the review in ``directory`` with what the services added since its day (or
    ``since``, YYYY-MM-DD), write it back (the earlier files kept under ``history/DATE/``) and
    return it. ``options`` are a review's (``offline``, ``max_results``, ``model``...), each of
    :data:`CARRIED_OPTIONS` not given the review's own (:func:`review_options`); the question
    is the review's own, and so are its publication years (``years``: first and last, each
    None: the review's), sources and criteria unless others are given (``sources``, see
    :func:`update_sources`; ``criteria``)."""
    folder = Path(directory).expanduser()
    earlier = read_review(folder)
    start = check_day(since, "--since") if since else date.fromisoformat(earlier.day)
    options, kept_options = review_options(earlier, options)
    sources = update_sources(earlier, options.pop("sources", None), directory,
                             options.get("library"))
    if options.get("criteria") is None and earlier.criteria:  # the review's own, unless given
        options["criteria"] = earlier.criteria
    options["decided_before"] = decided_digests(earlier, options.get("criteria"))
    window = {name: year if year is not None else before for name, year, before in zip(
        ("since", "until"), years or (None, None), earlier.years, strict=True)}
    values = {"sources": sources, "citation_style": earlier.citation_style, **options,
              **{name: year for name, year in window.items() if year is not None},
              "added_since": start.isoformat()}
    run = start_review(earlier.question, on_progress=on_progress, **values)
    prepare_out_dir(folder)
    with offline_services(run.settings, run.options.offline, LATEST_RECORDING) as settings:
        fresh = run.start()
        if isinstance(fresh, PendingApproval):
            raise InputError("an update does not pause for plan approval")
        checked = check_notices(earlier.papers, settings, fresh.iterations or 1)
    if fresh.run is not None:  # the update's command, against the options the review carries
        fresh.run.command = rerun_command(earlier.question, fresh.run.options,
                                          fresh.run.environment,
                                          earlier.run.options if earlier.run else {})
    kept = history_folder(folder, earlier.day)
    updated = merge_update(earlier, fresh, start, checked,
                           kept.relative_to(folder).as_posix() + "/", kept_options)
    keep_earlier_files(folder, kept)
    updated.write(folder)
    return updated


CARRIED_OPTIONS = update_options(CARRIED)
"""Run options an update takes from the review's own run (``run.options`` in ``review.json``)
unless it is given them (the schema marks them: ``option(..., update=CARRIED)``): how much each
source is asked for, how many works are read in full, the engine and its model, the citation
style, and whether the searches go to the recorded corpus (``offline``). A review run with
``--max-results 50 --full-text 0`` was updated with 20 records a query and ten full texts
sought, the defaults, so the update's flow and findings were not the review's method, and
nothing said so; an ``--offline`` review updated without ``--offline`` went to the live
services, and its new works were the catalogues' of today beside the corpus's of 2023. The
question, sources, criteria and years are carried apart (:func:`update`); the cache, a thread
and plan approval are this machine's and this run's."""


@dataclass
class KeptOptions:
    """What an update took from the review's run, and what it was given instead."""

    kept: dict[str, Any] = field(default_factory=dict)
    """Options the update ran with as the review recorded them (those not at their default)."""
    overridden: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    """Options given for the update, by name: (the review's value, the value given)."""

    def note(self) -> str:
        """'run with the review's own options (--max-results 50, --full-text 0); given for this
        update instead: --full-text 5 (the review's 0)', or '' when there is nothing to say."""
        parts = []
        if self.kept:
            parts.append("run with the review's own options ("
                         + ", ".join(option_words(name, value)
                                     for name, value in self.kept.items()) + ")")
        if self.overridden:
            parts.append("given for this update instead: " + ", ".join(
                f"{option_words(name, now)} (the review's {option_value(before)})"
                for name, (before, now) in self.overridden.items()))
        return "; ".join(parts)


def review_options(earlier: Report, given: dict[str, Any]
                   ) -> tuple[dict[str, Any], KeptOptions]:
    """The options an update runs with: those ``given`` (an option given as None is not
    given: the CLI's way of leaving it to the review), and for each of :data:`CARRIED_OPTIONS`
    not given, the review's own as its run recorded them; one given as the review had it is
    the review's own too (``kept``), so the re-run of an update, whose command gives every
    option, says what the update said. A review written before runs were
    recorded (no ``run``) keeps the defaults, as before."""
    from scholargraph.options import ReviewOptions

    defaults = {f.name: f.default for f in fields(ReviewOptions)}
    options = {name: value for name, value in given.items() if value is not None}
    recorded = earlier.run.options if earlier.run else {}
    carried = KeptOptions()
    for name in CARRIED_OPTIONS:
        if name not in recorded:
            continue
        before = recorded[name]
        if name in options and options[name] != before:
            carried.overridden[name] = (before, options[name])
        elif before is not None and before != defaults.get(name):
            # given as the review had it (an update's recorded command spells it out) or not
            # given: either way the review's own, and said alike
            options[name] = before
            carried.kept[name] = before
    return options, carried


def update_sources(earlier: Report, requested: list[str] | None,
                   directory: str | Path, library: str | Path | None = None) -> list[str]:
    """The sources an update searches: those named (``--sources``), else those the review
    searched, less a local library (``NOT_REPEATED``: it adds no records by itself). A review
    of a library alone has none left, and searching every service instead would fill the
    scientist's review with records from services they never chose: that is an
    :class:`InputError` naming the way on. With ``library`` (``--library NEW``: the export of
    the scientist's search run again), the library besides those services (none for a review of
    a library alone): a systematic reviewer updates a review by running their database searches
    again, and the update screens that export whole and folds in what the review does not hold
    yet."""
    if library:  # the new records are the scientist's own export: screened whole
        services = [name for name in requested or earlier.sources_searched
                    if name not in NOT_REPEATED and name in source_names()]
        return ["library", *services]
    if requested:
        repeated = [name for name in requested if name in NOT_REPEATED]
        if repeated:
            raise InputError(f"an update does not search {repeated[0]} again: give the new "
                             "export of your search (scholargraph update DIR --library NEW.ris)")
        return requested
    known = set(source_names()) - set(NOT_REPEATED)
    sources = [name for name in earlier.sources_searched if name in known]
    way_on = ("give the new export of your search (scholargraph update "
              f"{directory} --library NEW.ris) or name the services to search for new records "
              "(--sources pubmed,openalex)")
    if not earlier.sources_searched:
        raise InputError(f"{directory} records no source it searched: {way_on}")
    if not sources:
        raise InputError(f"{directory} was reviewed from a library alone, which an update does "
                         f"not search again: {way_on}")
    return sources


def history_folder(folder: Path, day: str) -> Path:
    """Where the earlier run's files go: ``history/DATE/``, DATE the earlier run's day
    (``-2``, ``-3``... when two runs share a day), never a folder that exists."""
    target, number = folder / HISTORY_DIR / day, 1
    while target.exists():
        number += 1
        target = folder / HISTORY_DIR / f"{day}-{number}"
    return target


def keep_earlier_files(folder: Path, target: Path) -> None:
    """Copy the folder's files (not its history) into ``target`` before any is rewritten."""
    target.mkdir(parents=True)
    for path in sorted(folder.iterdir()):
        if path.is_file() and not path.name.startswith("."):
            shutil.copy2(path, target / path.name)


# ------------------------------------------------------------ retractions and corrections

@dataclass
class NoticeCheck:
    """What looking the review's works up again found: their records now, by work id."""

    found: dict[str, list[tuple[str, Work]]] = field(default_factory=dict)
    checked: dict[str, int] = field(default_factory=dict)
    log: list[SearchLogEntry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def check_notices(works: list[Work], settings: Settings, round_number: int = 1) -> NoticeCheck:
    """Look the works up in PubMed (by PMID) and OpenAlex (by id) as they are now; a failed
    look-up is a search-log entry and a note, never the end of the update."""
    from scholargraph.sources.enrich import openalex_records
    from scholargraph.sources.openalex import work_from_openalex
    from scholargraph.sources.pubmed import PubMedAgent

    check = NoticeCheck()
    by_pmid = {work.pmid: work for work in works if work.pmid}
    if by_pmid:
        query = f"efetch id={','.join(by_pmid)} (retractions and corrections)"
        try:
            now = PubMedAgent(settings).lookup(list(by_pmid))
        except SourceError as exc:
            check.log.append(SearchLogEntry(source="pubmed", query=query, status="error",
                                            error=exc.message, round=round_number))
            check.notes.append(f"PubMed could not be asked for retractions and corrections "
                               f"({exc.message})")
        else:
            check.log.append(SearchLogEntry(source="pubmed", query=query, n_results=len(now),
                                            status="ok" if now else "empty",
                                            round=round_number))
            check.checked["pubmed"] = len(by_pmid)
            for record in now:
                if record.pmid in by_pmid:
                    check.found.setdefault(by_pmid[record.pmid].id, []).append(("pubmed", record))
    by_openalex = {work.openalex_id: work for work in works if work.openalex_id}
    if by_openalex:
        items, entries = openalex_records("openalex", list(by_openalex), settings,
                                          select=("id", "doi", "title", "is_retracted"),
                                          round_number=round_number)
        check.log += entries
        failed = [entry.error for entry in entries if entry.status == "error"]
        if failed:
            check.notes.append(f"OpenAlex could not be asked for retractions ({failed[0]})")
        if len(failed) < len(entries):
            check.checked["openalex"] = len(by_openalex)
        for item in items:
            record = work_from_openalex(item)
            if record.openalex_id in by_openalex:
                check.found.setdefault(by_openalex[record.openalex_id].id, []).append(
                    ("openalex", record))
    return check


def notices_since(work: Work, records: list[tuple[str, Work]]) -> list[NoticeFlag]:
    """The retractions and corrections the records show that ``work`` did not have."""
    flags: list[NoticeFlag] = []
    for source, record in records:
        for notice in record.notices:
            kind = notice.split(" in:")[0].split(" (")[0]
            if notice not in work.notices and kind.startswith(FLAGGED_NOTICES):
                flags.append(NoticeFlag(work_id=work.id, title=work.title, kind=kind,
                                        detail=notice, source=source))
        if record.is_retracted and not work.is_retracted and not any(
                flag.kind.startswith("Retract") for flag in flags):
            flags.append(NoticeFlag(work_id=work.id, title=work.title, kind="Retracted",
                                    detail=f"{source} marks the work as retracted",
                                    source=source))
    return flags


def _flagged(work: Work, flags: list[NoticeFlag]) -> Work:
    """The work with the notices flagged for it."""
    if not flags:
        return work
    notices = list(dict.fromkeys([*work.notices, *(flag.detail for flag in flags
                                                   if flag.kind != "Retracted")]))
    retracted = work.is_retracted or any(flag.kind.startswith("Retract") for flag in flags)
    return work.model_copy(update={"notices": notices, "is_retracted": retracted})


# ------------------------------------------------------------ folding the update in

@dataclass
class _Fold:
    """Earlier and new works after deduplication, and where each record went."""

    papers: list[Work]
    new_ids: list[str]
    joined: list[JoinedVersion]
    moved: dict[str, str]
    """Old work id -> its id now (a join may give a work its published version's id)."""
    duplicates_of_earlier: int


def fold_works(earlier: list[Work], fresh: list[Work]) -> _Fold:
    """Deduplicate the new works against the earlier ones (earlier first, so they keep their
    place); a new record joining an earlier work is a duplicate or, when it names the work by
    an identifier the work did not have, a new version of it."""
    records = [*earlier, *fresh]
    result = deduplicate(records)
    rules = {merge.merged_id: merge.rule for merge in result.merges}
    papers, new_ids, joined, moved, duplicates = [], [], [], {}, 0
    same_as: list[tuple[list[Work], int]] = []
    known_records = {record_content(work): index for index, work in enumerate(earlier)}
    bare = {record_content(work): index for index, work in enumerate(earlier)
            if not work.abstract and len(work.title.split()) >= FILLED_TITLE_WORDS}
    for work, members in zip(result.works, result.groups, strict=True):
        for index in members:
            moved[records[index].id] = work.id
        old = [records[i] for i in members if i < len(earlier)]
        new = [records[i] for i in members if i >= len(earlier)]
        again = next((known_records[key] for record in new
                      if (key := record_content(record)) in known_records), None)
        if again is None:  # an earlier work's record with its abstract filled in since
            again = next((bare[key] for record in new if record.abstract and (
                key := record_content(record.model_copy(update={"abstract": None}))) in bare),
                None)
        if not old and again is not None:
            same_as.append((new, again))  # an earlier work's record, exported again
            continue
        if not old:
            new_ids.append(work.id)
        else:
            duplicates += len(new)
            known = {f"{kind}:{value}" for paper in old for kind, value in paper.identifiers()}
            for record in new:
                if not {f"{kind}:{value}" for kind, value in record.identifiers()} <= known:
                    joined.append(JoinedVersion(work_id=work.id, title=work.title,
                                                earlier_id=old[0].id, joined_id=record.id,
                                                rule=rules.get(record.id, "")))
        papers.append(work)
    for new, again in same_as:
        duplicates += len(new)
        for record in new:
            moved[record.id] = moved[earlier[again].id]
        filled = next((record.abstract for record in new if record.abstract), None)
        target = moved[earlier[again].id]
        papers = [paper.model_copy(update={"abstract": filled})
                  if paper.id == target and not paper.abstract and filled else paper
                  for paper in papers]
    return _Fold(papers, new_ids, joined, moved, duplicates)


FILLED_TITLE_WORDS = 4
"""Fewest words in the title of an earlier record without an abstract that a new record, the
same in all but its abstract now filled in, is taken to be (:func:`fold_works`). A
re-exported library fills in abstracts its first export lacked; deduplication keeps such a
record apart from its earlier self when it has no author or identifier to agree on, and the
update counted the work twice, under one id ('Clinical Evidence and Safety Profile of
Emicizumab ...'). A bare generic title ('Abstracts', 'Poster session') names many records of
one year and venue, so it is not enough."""


@dataclass
class _Carried:
    """What an update keeps of the earlier screening: this run's rows screened now (new or
    changed records), the earlier rows whose decisions stand, and why."""

    rows: list[ScreenedWork]
    kept: set[int] = field(default_factory=set)
    """Positions in the earlier screening whose records this run found again unchanged."""
    not_in_review: set[str] = field(default_factory=set)
    """Works this run kept that an earlier run excluded on the same record and criteria."""
    carried_included: set[str] = field(default_factory=set)
    """Works this run kept that an earlier run included on the same record (already there)."""
    abstract_arrived: list[tuple[ScreenedWork, int]] = field(default_factory=list)
    """Rows screened again because their record's abstract arrived since an earlier run
    decided it on its title (:func:`abstracts_arrived`), each with the earlier row's position."""
    note: str = ""


def same_criteria(earlier: str | None, now: str | None) -> bool:
    """Whether two runs screened by the same criteria, spaces and case aside."""
    def plain(text: str | None) -> str:
        return " ".join((text or "").split()).lower()
    return plain(earlier) == plain(now)


def earlier_decisions(earlier: Report) -> dict[str, list[int]]:
    """The rows of the earlier screening whose decisions stand, by record digest: for a record
    several runs screened, the latest run's rows."""
    by_digest: dict[str, list[int]] = {}
    for index, row in enumerate(earlier.screening):
        if row.record_digest:
            by_digest.setdefault(row.record_digest, []).append(index)
    for digest, indexes in by_digest.items():  # the latest run that screened it decides
        last = max(earlier.screening[i].screened_on or date.min for i in indexes)
        by_digest[digest] = [i for i in indexes
                             if (earlier.screening[i].screened_on or date.min) == last]
    return by_digest


def decided_digests(earlier: Report, criteria: str | None) -> dict[str, int] | None:
    """What the update's retrieval is told was decided before (``decided_before``): each
    digest of :func:`earlier_decisions` with how many records said it, when the update screens
    by the review's criteria (other criteria screen every record again); None otherwise."""
    if criteria is not None and not same_criteria(earlier.criteria,
                                                  read_criteria(criteria).text):
        return None
    return {digest: len(rows) for digest, rows in earlier_decisions(earlier).items()} or None


def carry_decisions(earlier: Report, fresh: Report) -> _Carried:
    """Split this run's screening rows: a record an earlier run screened, found again saying
    the same (:attr:`ScreenedWork.record_digest`), under the same question and criteria, keeps
    its earlier decision and reason; every other record (new, changed since, or screened by
    other criteria) is screened now. The question is the review's own in every update."""
    if not earlier.screening or not fresh.screening:
        return _Carried(rows=list(fresh.screening))
    if not same_criteria(earlier.criteria, fresh.criteria):
        return _Carried(rows=list(fresh.screening), note=(
            f"the criteria differ from those of {earlier.day}: every record found was "
            "screened by the new ones, those screened before included"))
    by_digest = earlier_decisions(earlier)
    if not by_digest:
        return _Carried(rows=list(fresh.screening), note=(
            f"the screening of {earlier.day} keeps no digest of its records (an earlier "
            "version wrote it): a record found again was screened again, its decision not "
            "carried over"))
    carried = _Carried(rows=[])
    for row in fresh.screening:
        # each earlier row answers one record: two records saying the same (a bare title
        # 'Abstract' twice) are two rows in each run
        unused = [index for index in by_digest.get(row.record_digest, [])
                  if index not in carried.kept]
        if not row.record_digest or not unused:
            carried.rows.append(row)
            continue
        index = unused[0]
        carried.kept.add(index)
        if row.decision == "included":
            before = earlier.screening[index].decision
            (carried.carried_included if before == "included"
             else carried.not_in_review).add(row.work_id)
    carried.abstract_arrived = abstracts_arrived(earlier, carried.rows, by_digest)
    if carried.kept:
        decided = Counter(earlier.screening[index].decision for index in carried.kept)
        carried.note = (f"{counted(len(carried.kept), 'record')} screened before and unchanged "
                        f"since kept {'its' if len(carried.kept) == 1 else 'their'} decisions "
                        f"({decided['excluded']} excluded, {decided['included']} included) and "
                        "were not screened again")
    if carried.abstract_arrived:
        turned = sum(row.decision != earlier.screening[index].decision
                     for row, index in carried.abstract_arrived)
        told = (f"{counted(len(carried.abstract_arrived), 'record')} decided on "
                f"{'its' if len(carried.abstract_arrived) == 1 else 'their'} title alone "
                f"before now {'has' if len(carried.abstract_arrived) == 1 else 'have'} an "
                f"abstract and {'was' if len(carried.abstract_arrived) == 1 else 'were'} "
                f"screened again ({turned} decided otherwise now)")
        carried.note = "; ".join(filter(None, [carried.note, told]))
    return carried


def abstracts_arrived(earlier: Report, rows: list[ScreenedWork],
                      by_digest: dict[str, list[int]]) -> list[tuple[ScreenedWork, int]]:
    """This run's rows whose record an earlier run decided on its title alone, its abstract
    filled in since (:attr:`ScreenedWork.bare_digest`), each with that earlier row's position.
    Such a decision does not stand: the record says more now, and it is screened again
    (a fifth of some real exports have no abstract, and a re-export fills many in); the
    reviewer is told how many, and how many came out otherwise."""
    found = []
    for row in rows:
        earlier_rows = by_digest.get(row.bare_digest, []) if row.bare_digest else []
        if earlier_rows:
            found.append((row, earlier_rows[0]))
    return found


def screened_now(fresh: Report, carried: _Carried) -> Report:
    """This run's report with the records whose earlier decisions stand taken out of its
    screening: their works not among its papers (an earlier exclusion stays excluded; an
    earlier inclusion is in the review already), no finding, reference, value or stance resting
    on a work an earlier run excluded, and its PRISMA counts those records as removed before
    screening (:data:`CARRIED_REASON`)."""
    if not carried.kept:
        return fresh
    out = carried.not_in_review | carried.carried_included
    papers = [paper for paper in fresh.papers if paper.id not in out]
    on = {passage.id: passage.work_id for passage in fresh.passages}
    off = carried.not_in_review
    findings = [finding for finding in fresh.findings
                if not any(on.get(i) in off for i in finding.passage_ids)]
    references = [ref for ref in fresh.references if ref.work_id not in off]
    prisma = recounted(fresh.prisma, carried.rows, papers, len(carried.kept))
    return fresh.model_copy(update={
        "notes": _full_text_notes(fresh.notes, fresh.prisma, prisma),
        "papers": papers, "findings": findings, "references": references,
        "evidence_table": [row for row in fresh.evidence_table
                           if on.get(row.passage_id) not in off],
        "stances": [stance for stance in fresh.stances if stance.work_id not in off],
        "screening": carried.rows,
        "prisma": prisma,
    })


FULL_TEXT_NOTE = "full text: "
"""How the run's note on reading full texts begins (``fulltext/fetch.py``)."""


def _full_text_notes(notes: list[str], before: dict[str, Any], after: dict[str, Any]
                     ) -> list[str]:
    """The run's notes, its full-text note said again for the works its flow counts when works
    whose earlier decisions were kept were among those it sought: '0 of 10 works sought were
    read in full' beside a flow of 1 sought read as a contradiction."""
    sought, counted_now = before.get("reports_sought"), after.get("reports_sought")
    if sought is None or counted_now is None or sought == counted_now:
        return notes
    line = (f"{FULL_TEXT_NOTE}{after.get('reports_assessed', 0)} of {counted_now} works new to "
            f"this update's screening were read in full (the run also sought {sought - counted_now}"
            " already in the review, whose records were unchanged)")
    return [line if note.startswith(FULL_TEXT_NOTE) else note for note in notes]


def recounted(prisma: dict[str, Any], rows: list[ScreenedWork], papers: list[Work],
              carried: int) -> dict[str, Any]:
    """This run's PRISMA counts from the rows it screened: the records found again unchanged
    removed before screening (:data:`CARRIED_REASON`), the full-text stage over the works it
    kept (their licences read from its papers). Checked to add up
    (:class:`~scholargraph.exports.prisma.PrismaRecord`)."""
    from scholargraph.exports.prisma import PrismaRecord

    included = [row for row in rows if row.decision == "included"]
    excluded = [row for row in rows if row.decision == "excluded"]
    counts: dict[str, Any] = {
        **prisma,
        "removed_before_screening": {**(prisma.get("removed_before_screening") or {}),
                                     CARRIED_REASON: carried},
        "screened": len(rows), "excluded": len(excluded),
        "excluded_reasons": dict(sorted(Counter(row.reason for row in excluded).items())),
        "included": len(included),
    }
    if "reports_sought" in prisma:
        licence = {paper.id: paper.licence or "not stated" for paper in papers}
        sought = [row for row in included if row.full_text]
        read = [row for row in sought if row.full_text == RETRIEVED]
        counts.update({
            "reports_sought": len(sought), "reports_not_retrieved": len(sought) - len(read),
            "not_retrieved_reasons": dict(sorted(Counter(
                row.full_text for row in sought if row.full_text != RETRIEVED).items())),
            "reports_assessed": len(read),
            "full_text_licences": dict(sorted(Counter(
                licence.get(row.work_id, "not stated") for row in read).items())),
        })
    PrismaRecord.model_validate({key: value for key, value in counts.items()
                                 if key in PrismaRecord.model_fields})
    return counts


def merge_update(earlier: Report, fresh: Report, since: date, check: NoticeCheck,
                 kept: str = "", options: KeptOptions | None = None) -> Report:
    """The review after the update: the earlier one with the new works, references, passages
    and findings added, retractions and corrections flagged, and its run put in ``history``."""
    earlier_day = date.fromisoformat(earlier.day)
    today = date.fromisoformat(fresh.day)
    carried = carry_decisions(earlier, fresh)
    fresh = screened_now(fresh, carried)
    old = [p if p.first_seen else p.model_copy(update={"first_seen": earlier_day})
           for p in earlier.papers]
    new = [p.model_copy(update={"first_seen": today}) for p in fresh.papers]
    folded = fold_works(old, new)
    again = found_again(earlier.papers, new, folded)
    flags = [flag for work in earlier.papers
             for flag in notices_since(work, [*check.found.get(work.id, []),
                                              *again.get(work.id, [])])]
    for flag in flags:
        flag.work_id = folded.moved.get(flag.work_id, flag.work_id)
    papers = [_flagged(work, [f for f in flags if f.work_id == work.id])
              for work in folded.papers]

    references = [ref.model_copy(update={"work_id": folded.moved.get(ref.work_id, ref.work_id)})
                  for ref in earlier.references]
    number_of = {ref.work_id: ref.number for ref in references}
    renumber: dict[int, int] = {}
    for ref in sorted(fresh.references, key=lambda r: r.number):
        work_id = folded.moved.get(ref.work_id, ref.work_id)
        if work_id not in number_of:
            number_of[work_id] = len(references) + 1
            references.append(Reference(number=number_of[work_id], work_id=work_id))
        target = references[number_of[work_id] - 1]
        target.passage_ids = list(dict.fromkeys([*target.passage_ids, *ref.passage_ids]))
        renumber[ref.number] = number_of[work_id]
    for flag in flags:
        flag.reference = number_of.get(flag.work_id)
    stances = merged_stances(earlier.stances, fresh.stances, folded.moved, number_of)
    balance = balance_line(stances, stance_claim(earlier.question) is not None,
                           balance_subject(earlier.question)) \
        if stances != earlier.stances and stances else ""

    passages: dict[str, Passage] = {}
    for passage in [*earlier.passages, *fresh.passages]:
        work_id = folded.moved.get(passage.work_id, passage.work_id)
        passages.setdefault(passage.id, passage.model_copy(update={"work_id": work_id}))

    findings = list(earlier.findings)
    said = {finding.text for finding in findings}
    news = {*folded.new_ids, *(joined.work_id for joined in folded.joined)}
    new_findings = []
    for finding in fresh.findings:
        cited = {folded.moved.get(p.work_id, p.work_id) for i in finding.passage_ids
                 if (p := passages.get(i)) is not None}
        if finding.text in said or not cited & news:
            continue  # said before, or resting only on works the review had
        new_findings.append(len(findings))
        findings.append(finding.model_copy(update={
            "citations": sorted({renumber.get(n, n) for n in finding.citations})}))
    rows = [*earlier.evidence_table, *(row.model_copy(update={
        "citation": renumber.get(row.citation) if row.citation else None})
        for row in fresh.evidence_table)]
    known_subs = {sub.id for sub in earlier.sub_questions}

    prisma = UpdatePrisma(
        identified=dict(fresh.prisma.get("identified") or {}),
        duplicates_removed=int(fresh.prisma.get("duplicates_removed", 0)),
        screened=int(fresh.prisma.get("screened", 0)),
        removed_before_screening=dict(fresh.prisma.get("removed_before_screening") or {}),
        excluded=int(fresh.prisma.get("excluded", 0)),
        included=len(fresh.papers), duplicates_of_earlier=folded.duplicates_of_earlier,
        new_included=len(folded.new_ids), earlier_included=len(earlier.papers),
        total_included=len(papers))
    section = UpdateSection(since=since.isoformat(), date=fresh.day, prisma=prisma,
                            new_work_ids=folded.new_ids, joined=folded.joined,
                            new_findings=new_findings, flags=flags, checked=check.checked,
                            options_kept=dict(options.kept) if options else {},
                            options_given={name: now for name, (_, now) in (
                                options.overridden if options else {}).items()},
                            now_excluded=now_excluded(papers, fresh.screening))
    top_prisma = {**fresh.prisma, "earlier_included": prisma.earlier_included,
                  "duplicates_of_earlier": prisma.duplicates_of_earlier,
                  "new_included": prisma.new_included, "total_included": prisma.total_included}
    told = options.note() if options else ""
    notes = [updated_note(fresh, since), *([f"Update: {told}."] if told else []), *check.notes,
             *([f"Update: {carried.note}."] if carried.note else []), *fresh.notes]
    return fresh.model_copy(update={
        "question": earlier.question,
        "sources_searched": list(dict.fromkeys([*earlier.sources_searched,
                                                *fresh.sources_searched])),
        "sub_questions": [*earlier.sub_questions,
                          *(s for s in fresh.sub_questions if s.id not in known_subs)],
        "summary": (f"{earlier.summary} Updated on {fresh.day}: "
                    f"{counted(len(folded.new_ids), 'new work')}, "
                    f"{counted(len(folded.joined), 'new version')} of works already included, "
                    f"{counted(len(new_findings), 'new finding')} "
                    f"(see New since {since.isoformat()})."
                    + (f" With them: {balance}" if balance else "")).strip(),
        "stances": stances,
        "papers": papers,
        "materials": list({m.material_id: m for m in [*earlier.materials,
                                                      *fresh.materials]}.values()),
        "findings": findings,
        "evidence_table": rows,
        "gaps": earlier.gaps,
        "limitations": earlier.limitations,
        "references": references,
        "passages": list(passages.values()),
        "prisma": top_prisma,
        "screening": merged_screening(earlier, fresh, folded, carried.kept),
        "search_log": [*fresh.search_log, *check.log],
        "evaluation": earlier.evaluation,
        "notes": list(dict.fromkeys(notes)),
        "counts": whole_review_counts(findings, earlier, prisma, len(references)),
        "history": [*earlier.history, history_entry(earlier, kept)],
        "update": section,
    })


def updated_note(fresh: Report, since: date) -> str:
    """The first note of an updated review: what the update searched."""
    exports = [entry.query.removeprefix(EVERY_RECORD).strip() for entry in fresh.search_log
               if entry.source == "library" and entry.query.startswith(EVERY_RECORD)]
    services = [name for name in fresh.sources_searched if name != "library"]
    parts = [f"read every record of the new export {', '.join(exports)}"] if exports else []
    if services or not exports:
        parts.append(f"searched {', '.join(services) or 'the services'} for records added "
                     f"since {since.isoformat()}")
    return f"Updated on {fresh.day}: {' and '.join(parts)}."


def merged_stances(earlier: list[WorkStance], fresh: list[WorkStance], moved: dict[str, str],
                   number_of: dict[str, int]) -> list[WorkStance]:
    """Which way each included study points, after the update: the earlier reading of each
    work, then this run's of the works new to the review, every citation the number of its work
    in the merged reference list. The run's own stances kept its own numbers, which name other
    works once its references are numbered on from the earlier list (a claim review updated
    from a re-exported library cited [2] for a study that is [3])."""
    stances: list[WorkStance] = []
    read: set[str] = set()
    for stance in [*earlier, *fresh]:
        work_id = moved.get(stance.work_id, stance.work_id)
        if work_id in read:
            continue
        read.add(work_id)
        stances.append(stance.model_copy(update={
            "work_id": work_id,
            "citation": number_of.get(work_id) if stance.citation is not None else None}))
    return stances


def now_excluded(papers: list[Work], rows: list[ScreenedWork]) -> list[NowExcluded]:
    """The works of the review this run screened again and excluded (a record changed since,
    or criteria changed: a review of 136 works updated under stricter criteria excluded 88
    records, some of them works it held, and said nothing of it). Matched by work id or by an
    identifier (DOI, PMID, arXiv, OpenAlex) the row and the work share."""
    by_key: dict[str, Work] = {}
    for paper in papers:
        by_key[paper.id] = paper
        for kind, value in paper.identifiers():
            by_key[f"{kind}:{value}"] = paper
    found: dict[str, NowExcluded] = {}
    for row in rows:
        if row.decision != "excluded":
            continue
        keys = [row.work_id, *(f"{kind}:{value}" for kind, value in (
            ("doi", row.doi), ("pmid", row.pmid), ("arxiv", row.arxiv_id),
            ("openalex", row.openalex_id)) if value)]
        held = next((by_key[key] for key in keys if key in by_key), None)
        if held is not None and held.id not in found:
            found[held.id] = NowExcluded(work_id=held.id, title=held.title, reason=row.reason)
    return list(found.values())


def found_again(earlier: list[Work], fresh: list[Work], folded: _Fold
                ) -> dict[str, list[tuple[str, Work]]]:
    """The records of this run folded into each earlier work, by its id, each with the source
    that found it: a new export of the scientist's search, or a service, may show a work of
    the review retracted since ("RETRACTED: ..." in its title) or corrected, and the update
    flags it as it flags what PubMed and OpenAlex say when asked (a re-exported library record
    retitled "RETRACTED: ..." was merged into its work, marked retracted, and not flagged)."""
    by_target = {folded.moved.get(work.id, work.id): work.id for work in earlier}
    found: dict[str, list[tuple[str, Work]]] = {}
    for record in fresh:
        target = by_target.get(folded.moved.get(record.id, record.id))
        if target is not None:
            found.setdefault(target, []).append((record.sources[0] if record.sources
                                                 else "search", record))
    return found


def whole_review_counts(findings: list[Finding], earlier: Report, prisma: UpdatePrisma,
                        cited_works: int) -> ReviewCounts:
    """The updated review's numbers, every run together (see :class:`ReviewCounts`): the
    earlier runs' screened and excluded (its ``counts``, which describe all of them) plus this
    run's, each work included once, and the works this run kept that the review already had
    as ``joined``. Mixing this run's screened with the total included gave a pair no run had
    ("9 works screened, 23 included")."""
    counts = review_counts(findings, {}, cited_works)
    before = earlier.counts
    return counts.model_copy(update={
        "screened": before.screened + prisma.screened,
        "excluded": before.excluded + prisma.excluded,
        "included": prisma.total_included,
        "joined": before.joined + prisma.duplicates_of_earlier})


def merged_screening(earlier: Report, fresh: Report, folded: _Fold,
                     kept: set[int] | None = None) -> list[ScreenedWork]:
    """The earlier runs' screening rows, then this run's, each with the day of its run: the
    rows of each run add up to that run's PRISMA counts, and each record is a row once. An
    included work takes the id the update gave it (a preprint joined by its article takes the
    article's); one this run included that the review already had names that work in
    ``joins_earlier``; an earlier row whose record this run found again unchanged (``kept``,
    :func:`carry_decisions`) says the day its decision was kept (``decision_kept_on``)."""
    earlier_day, today = date.fromisoformat(earlier.day), date.fromisoformat(fresh.day)
    new = set(folded.new_ids)
    rows = [_refolded(row, folded, None, row.screened_on or earlier_day)
            for row in earlier.screening]
    rows = [row.model_copy(update={"decision_kept_on": today}) if index in (kept or set())
            else row for index, row in enumerate(rows)]
    return rows + [_refolded(row, folded, new, row.screened_on or today)
                   for row in fresh.screening]


def _refolded(row: ScreenedWork, folded: _Fold, new: set[str] | None, day: date
              ) -> ScreenedWork:
    """``row`` screened on ``day``; when included, under its work's id after the update, and,
    for a row of this run (``new``: the works new to the review), naming the earlier work it
    joins."""
    update: dict[str, Any] = {"screened_on": day}
    if row.decision == "included":
        target = folded.moved.get(row.work_id, row.work_id)
        if new is not None and target not in new:
            update["joins_earlier"] = target
        else:
            update["work_id"] = target
    return row.model_copy(update=update)


def history_entry(report: Report, kept: str = "") -> HistoryEntry:
    """The record ``history`` keeps of a run (``kept``: where its files were copied)."""
    section = report.update
    return HistoryEntry(
        kind="update" if section else "review", date=report.day,
        generated_at=report.generated_at, since=section.since if section else None,
        included=len(report.papers), new_works=len(section.new_work_ids) if section else 0,
        findings=sum(f.kind == "finding" for f in report.findings),
        cited_works=len(report.references),
        queries=[HistoryQuery(source=e.source, query=e.query, n_results=e.n_results,
                              status=e.status) for e in report.search_log],
        files=kept)
