"""Screening with a person in the loop: ``scholargraph screen`` and :func:`screen`.

A session reads a library (:mod:`scholargraph.screening.records`: every format the review reads,
plus CSV; duplicates and versions merged so one decision covers one work), the person's labels
(:mod:`scholargraph.screening.labels`), ranks every work (:mod:`scholargraph.screening.learner`:
the zero-shot score alone without labels, a model of the labels joined with it after), and says
whether to stop (:mod:`scholargraph.screening.stopping`). It writes, into the output folder:

- ``screening.csv``: rank, record id, title, score, decision so far, reason, the criteria's words
  found in the record;
- ``to-screen.ris``: the next batch of undecided works, best first, for a reference manager;
- ``included.ris``: the works labelled 1;
- ``summary.json``: decisions so far, the estimate of relevant works left, the verdict (the
  hypergeometric test of recall, with its p-value), its rule and the assumption it rests on, and
  beside it the knee method's verdict.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scholargraph.deterministic.text import GENERIC_TERMS, commonness, specific_words
from scholargraph.errors import InputError
from scholargraph.exports import ris
from scholargraph.exports.files import prepare_out_dir
from scholargraph.rag.embeddings import Embedder, EmbeddingUnavailable
from scholargraph.rag.ranking import tokenize
from scholargraph.rag.select import load_run_embedder, stored_vectors
from scholargraph.records import Work
from scholargraph.screening import learner, relevance
from scholargraph.screening.labels import Label, LabelsError, append_label, read_labels
from scholargraph.screening.learner import (
    Features,
    Ranker,
    build_features,
    load_features,
    next_batch,
    save_features,
)
from scholargraph.screening.records import Entry, merge_records, read_library, resolve
from scholargraph.screening.relevance import Criteria, read_criteria, record_text, score_records
from scholargraph.screening.stopping import ESTIMATE_MIN, StopEstimate, estimate
from scholargraph.settings import Settings, get_settings
from scholargraph.wording import counted

log = logging.getLogger(__name__)

BATCH = 50
"""Works in ``to-screen.ris`` unless told otherwise."""
COMMON_ZIPF = 5.0
"""Criteria words at least this common in English (wordfreq Zipf: 'study', 'include') say
nothing about a record and are not listed or highlighted."""
OUTPUT_FILES = ("screening.csv", "to-screen.ris", "included.ris", "summary.json")
RETRACTED_NOTE = "its record is marked retracted"
"""Said beside a work whose record is retracted (a title opening "RETRACTED:", as a library
re-exported after the retraction holds it): a decision made before, carried by its record id
into a run on the new export, would otherwise stand silently (an include labelled on the first
export stayed 'included by you' on the second, where the record was now retracted)."""


def zero_shot_scores(question: str, criteria: Criteria | None, texts: Sequence[str],
                     embedder: Embedder | None, vectors: np.ndarray | None,
                     warnings: list[str]) -> np.ndarray:
    """The score of each record from the question and criteria alone (no labels): the
    review's screening score (:func:`scholargraph.screening.relevance.score_records`), on the
    concepts named alone when the embedder fails."""
    try:
        return score_records(question, criteria, texts, embedder=embedder, vectors=vectors)
    except EmbeddingUnavailable as error:
        warnings.append(f"dense embeddings unavailable: {error}; ranked by words")
        return score_records(question, criteria, texts)


CRITERIA_FRAME = frozenset([
    "inclusion", "exclusion", "criteria", "criterion", "include", "included", "exclude",
    "excluded", "eligible", "eligibility", "ineligible", "characteristics", "following",
])
"""Words that frame criteria ("Inclusion Criteria", "studies were excluded if they had the
following characteristics"), not what a record must be about: an abstract naming its own
"inclusion criteria" does not meet the review's."""


def criteria_terms(question: str, criteria: str) -> dict[str, str]:
    """The words of the question and criteria worth looking for, by stem: the specific ones,
    and every word of the question's concepts however common (:func:`relevance.concepts`:
    "public health" is what a record on "public health surveillance" must name, and the
    screening judges it so, though "public" and "health" are everyday words)."""
    concept_stems = {stem for concept in relevance.concepts(question) for stem in concept.stems}
    terms: dict[str, str] = {}
    for word in specific_words(f"{question}. {criteria}"):
        in_concept = bool(concept_stems.intersection(tokenize(word)))
        lowered = word.lower()
        if not in_concept and (lowered in GENERIC_TERMS or lowered in CRITERIA_FRAME
                               or commonness(lowered) >= COMMON_ZIPF):
            continue
        for stem in tokenize(word):
            terms.setdefault(stem, word.lower())
    return terms


@dataclass
class ScreeningSession:
    """A library being screened: its works, their features, the decisions so far, the ranking."""

    question: str
    criteria: str
    entries: list[Entry]
    features: Features
    labels_path: Path | None = None
    decisions: dict[int, bool] = field(default_factory=dict)
    """Entry index -> included, in the order first decided."""
    undecided: set[int] = field(default_factory=set)
    """Entry indexes the person saw and left undecided (an empty label): ranked as the rest."""
    label_lines: dict[int, int] = field(default_factory=dict)
    unmatched: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    scores: np.ndarray = field(default_factory=lambda: np.zeros(0))
    earlier_ids: set[str] | None = None
    """The record ids of the ``screening.csv`` an earlier run left in the output folder, read
    at this session's first write (None: no earlier run there): the works of a library
    exported again that are not among them are new since, and said so."""
    _earlier_read: bool = False
    decided_on: dict[int, str] = field(default_factory=dict)
    """Entry index -> what its record showed when the decision standing was made: 'title'
    (no abstract) or 'title and abstract' (:data:`TITLE_ONLY`), kept from run to run in
    ``screening.csv``."""
    set_aside: dict[int, int] = field(default_factory=dict)
    """Entry index -> labels line of a decision made on the title alone whose record has an
    abstract now: not used, the work screened again (:func:`_abstracts_arrived`)."""

    def __post_init__(self) -> None:
        self.ranker = Ranker(self.features)
        self.terms = criteria_terms(self.question, self.criteria)
        if not len(self.scores):
            self.rank()

    def rank(self) -> np.ndarray:
        """Score every work again from the decisions so far."""
        self.scores = self.ranker.scores(self.decisions)
        return self.scores

    def decide(self, index: int, included: bool | None) -> None:
        """Record a decision (None: left undecided, which takes back an earlier one) and append
        it to the labels file at once (when there is one)."""
        self.record(index, included)
        if self.labels_path is not None:
            append_label(self.labels_path, self.entries[index].record_id, included)

    def record(self, index: int, included: bool | None) -> None:
        """Hold a decision in memory, the later one standing (None: undecided, which takes
        back an earlier include or exclude), made on what the record shows now."""
        self.decided_on[index] = shown(self.entries[index].work)
        self.set_aside.pop(index, None)
        if included is None:
            self.decisions.pop(index, None)
            self.undecided.add(index)
        else:
            self.decisions[index] = included
            self.undecided.discard(index)

    def to_screen(self, size: int = BATCH, skip: set[int] | None = None) -> list[int]:
        """The next ``size`` undecided works, best first."""
        return next_batch(self.scores, set(self.decisions) | (skip or set()), size)

    def summary(self) -> StopEstimate:
        return estimate(list(self.decisions.values()), len(self.entries))

    def terms_found(self, index: int) -> list[str]:
        """The criteria's words the work's title and abstract name, in the criteria's order."""
        stems = set(tokenize(record_text(self.entries[index].work)))
        return list(dict.fromkeys(word for stem, word in self.terms.items() if stem in stems))

    def reason(self, index: int) -> str:
        entry = self.entries[index]
        line = self.label_lines.get(index)
        where = f" (labels line {line})" if line else ""
        if index in self.set_aside:
            text = (f"decided by you on its title alone (labels line {self.set_aside[index]}); "
                    f"{ARRIVED_NOTE}")
        elif index in self.decisions:
            verdict = "included" if self.decisions[index] else "excluded"
            text = f"{verdict} by you{where}"
        elif index in self.undecided:
            text = f"left undecided by you{where}"
        elif any(self.decisions.values()):
            text = f"ranked by a model of your {len(self.decisions)} decisions and the question"
        else:
            text = "ranked by the question and criteria"
        if entry.records > 1:
            text += f"; one decision for {entry.records} records (duplicates or versions)"
        if entry.work.is_retracted:
            text += f"; {RETRACTED_NOTE}"
        if self.is_new(index):
            text += f"; {NEW_NOTE}"
        return text

    def is_new(self, index: int) -> bool:
        """Whether the work is new since the earlier run into the output folder."""
        return self.earlier_ids is not None and \
            self.entries[index].record_id not in self.earlier_ids

    def write(self, out: str | Path, batch: int = BATCH) -> dict[str, Path]:
        """Write the four output files into ``out``; return their paths."""
        directory = prepare_out_dir(out)
        if not self._earlier_read:  # once: a session's own writes are not an earlier run
            self.earlier_ids = earlier_record_ids(directory / "screening.csv")
            self._earlier_read = True
        order = np.lexsort((np.arange(len(self.scores)), -self.scores))
        contents = {
            "screening.csv": self._table([int(i) for i in order]),
            "to-screen.ris": self._ris(self.to_screen(batch)),
            "included.ris": self._ris([i for i, inc in self.decisions.items() if inc]),
            "summary.json": json.dumps(self.summary_record(), indent=2) + "\n",
        }
        paths = {}
        for name, text in contents.items():
            paths[name] = directory / name
            paths[name].write_text(text, encoding="utf-8")
        return paths

    def _ris(self, indexes: list[int]) -> str:
        """The works as RIS, each ``ID`` the record id screening.csv shows and a label names
        (a reference manager shows it; a citation key from the title would match no label)."""
        return ris.dumps([self.entries[i].work for i in indexes],
                         ids=[self.entries[i].record_id for i in indexes])

    def _table(self, order: list[int]) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(["rank", "record_id", "title", "score", "decision", "reason",
                         "criteria_words", "abstract", "decided_on", "labels_line"])
        for rank, index in enumerate(order, start=1):
            decided = self.decisions.get(index)
            decision = "" if decided is None else ("include" if decided else "exclude")
            aside = index in self.set_aside
            writer.writerow([rank, self.entries[index].record_id, self.entries[index].work.title,
                             f"{self.scores[index]:.4f}", decision, self.reason(index),
                             "; ".join(self.terms_found(index)),
                             "yes" if self.entries[index].work.abstract else "no",
                             TITLE_ONLY if aside else self.decided_on.get(index, "")
                             if decided is not None else "",
                             self.set_aside.get(index) if aside else
                             self.label_lines.get(index, "") if decided is not None else ""])
        return buffer.getvalue()

    def summary_record(self) -> dict[str, object]:
        stop = self.summary()
        return {"question": self.question, "records": sum(e.records for e in self.entries),
                "works": len(self.entries), "included": stop.found,
                "excluded": stop.screened - stop.found, "undecided": stop.total - stop.screened,
                "unmatched_labels": len(self.unmatched),
                "set_aside_abstract_arrived": len(self.set_aside),
                "new_since_last_run": None if self.earlier_ids is None else sum(
                    self.is_new(index) for index in range(len(self.entries))),
                **stop.model_dump(exclude={"total"}),
                "warnings": self.warnings}

    def summary_lines(self) -> list[str]:
        """The summary as a person reads it."""
        stop = self.summary()
        recall = (f"; if the chance of a relevant work keeps falling as it has, the "
                  f"{stop.found} included so far are about {stop.estimated_recall:.0%} of the "
                  "relevant works" if stop.estimated_recall is not None else "")
        if not stop.screened:
            left = "unknown before any decision"
        elif stop.estimated_left is None:
            left = (f"not estimated before {ESTIMATE_MIN} decisions ({stop.screened} so far: "
                    "too few to tell how fast relevant works thin out)")
        else:
            left = f"{stop.estimated_left:.1f}"
        if stop.left_at_most is not None:
            left += f"; at most {stop.left_at_most:.0f} if the rate since the knee held"
        tested = "" if stop.recall_p is None else \
            f" (hypothesis 'recall below {stop.recall_target:.0%}': p = {stop.recall_p:.3g})"
        new = sum(self.is_new(index) for index in range(len(self.entries)))
        since = (f" ({new} new since the last run into this folder)"
                 if self.earlier_ids is not None else "")
        return [
            f"{len(self.entries)} works ({sum(e.records for e in self.entries)} records): "
            f"{stop.found} included, {stop.screened - stop.found} excluded, "
            f"{stop.total - stop.screened} to screen{since}",
            f"estimated relevant works left: {left}{recall}",
            f"verdict: {stop.verdict.upper()}{tested} by the {stop.rule}",
            f"assumption: {stop.assumption}",
            f"beside it, the knee method says {stop.knee_verdict}",
        ]


TITLE_ONLY = "title"
"""``decided_on`` of a decision made when the record had no abstract ('title and abstract'
otherwise)."""
ARRIVED_NOTE = "its abstract has arrived since: screen it again (a new label line decides it)"
"""Said beside a work whose decision was made on its title alone and whose record now has an
abstract. A fifth of some real exports have titles without abstracts, a re-export fills many
in, and a reviewer who excluded 'Trientine or zinc ...' on its title would keep that exclusion
unread, since a label names the record, not what it said. The decision is set aside (the work
ranked and listed to screen like an undecided one) until the person labels it again."""


def shown(work: Work) -> str:
    """What a record shows a person deciding on it: its title, or its title and abstract."""
    return "title and abstract" if work.abstract else TITLE_ONLY


@dataclass(frozen=True)
class EarlierRow:
    """What the output folder's earlier ``screening.csv`` said of a record."""

    abstract: bool
    decided_on: str
    labels_line: str


def earlier_rows(path: Path) -> dict[str, EarlierRow]:
    """The rows of an earlier run's ``screening.csv`` by record id (none: no earlier run, or
    one written before these columns)."""
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            return {row["record_id"]: EarlierRow(row["abstract"] == "yes", row["decided_on"],
                                                  row["labels_line"])
                    for row in csv.DictReader(handle)}
    except (OSError, UnicodeDecodeError, KeyError, csv.Error):
        return {}


def _abstracts_arrived(session: ScreeningSession, earlier: dict[str, EarlierRow]) -> None:
    """Set aside the decisions made on a title alone whose record now has an abstract.

    What a decision was made on is read from the earlier run into the output folder: a label
    that run already used keeps what it recorded (``decided_on``); a label new since was made
    on what that run showed (its ``to-screen.ris``, its ``abstract`` column); a record that run
    did not hold is taken as shown now. A decision set aside stays so, run after run, until a
    later labels line decides the record again."""
    for index in list(session.decisions):
        row = earlier.get(session.entries[index].record_id)
        line = session.label_lines.get(index)
        if row is not None and line is not None:
            same = row.labels_line == str(line) and row.decided_on
            session.decided_on[index] = row.decided_on if same else (
                "title and abstract" if row.abstract else TITLE_ONLY)
        if session.decided_on.get(index) == TITLE_ONLY and session.entries[index].work.abstract \
                and line is not None:
            del session.decisions[index]
            session.set_aside[index] = line
    if session.set_aside:
        lines = ", ".join(str(line) for line in sorted(session.set_aside.values())[:5])
        session.warnings.append(
            f"{counted(len(session.set_aside), 'decision')} made on a title alone "
            f"{'was' if len(session.set_aside) == 1 else 'were'} set aside: the "
            f"{'record has' if len(session.set_aside) == 1 else 'records have'} an abstract "
            f"now (labels lines {lines}{' ...' if len(session.set_aside) > 5 else ''}); "
            "screen them again")


NEW_NOTE = "new since the last run into this folder"
"""Said beside a work whose record id the output folder's earlier ``screening.csv`` does not
hold: a library exported again with records added since is screened on from the same labels,
and the reviewer looks for what is new (25 of 257 records of a re-exported library ranked
from 11th to 256th, told apart by nothing)."""


def earlier_record_ids(path: Path) -> set[str] | None:
    """The record ids of an earlier run's ``screening.csv`` (None: none there, or not one
    this command wrote)."""
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            return {row["record_id"] for row in csv.DictReader(handle)}
    except (OSError, UnicodeDecodeError, KeyError, csv.Error):
        return None


Progress = Callable[[str], None]
"""Where a session says what it is doing on long work (a line each step), or nothing."""


def _silent(line: str) -> None:
    """No progress lines (the Python API's default)."""


def open_session(library: str | Path, question: str, criteria: str | Path | None = None,
                 labels: str | Path | None = None, *, settings: Settings | None = None,
                 create_labels: bool = False, progress: Progress = _silent,
                 out: str | Path | None = None) -> ScreeningSession:
    """Read the library and labels and rank the works, saying each step to ``progress``; see
    :func:`screen`. ``out``: the output folder, whose earlier ``screening.csv`` tells which
    decisions were made on a title alone (:func:`_abstracts_arrived`)."""
    if not question or not question.strip():
        raise InputError("screening needs --question: the review's question")
    settings = settings or get_settings()
    read = read_criteria(criteria) if criteria is not None else None
    labels_path = Path(labels).expanduser() if labels is not None else None
    given = _labels(labels_path, create_labels)
    records = read_library(Path(library))
    progress(f"library: {counted(len(records), 'record')} read from {library}")
    entries = merge_records(records)
    merged = len(records) - len(entries)
    progress(f"deduplication: {counted(len(entries), 'work')} ({merged} duplicate records "
             "or versions merged)")
    warnings: list[str] = []
    features = _features(entries, question.strip(), read, settings, warnings, progress)
    session = ScreeningSession(question=question.strip(), criteria=read.text if read else "",
                               entries=entries, features=features, labels_path=labels_path,
                               warnings=warnings, scores=np.zeros(0))
    _apply_labels(session, given, labels_path)
    _abstracts_arrived(session, earlier_rows(Path(out).expanduser() / "screening.csv")
                       if out is not None else {})
    session.rank()
    progress(f"ranking: learned from {counted(len(session.decisions), 'decision')}"
             if session.decisions else "ranking: by the question and criteria (no labels yet)")
    return session


def _labels(path: Path | None, create: bool) -> list[Label]:
    if path is None or (create and not path.exists()):
        return []
    return read_labels(path)


def _apply_labels(session: ScreeningSession, given: list[Label], path: Path | None) -> None:
    """Decisions from the labels file; ids matching no work are counted in a warning."""
    found = resolve(session.entries, [label.record for label in given])
    lines: list[int] = []
    for label, index in zip(given, found, strict=True):
        if index is None:
            session.unmatched.append(label.record)
            lines.append(label.line)
            continue
        session.record(index, label.included)
        session.label_lines[index] = label.line
    retracted = [session.entries[index].record_id for index, included
                 in session.decisions.items()
                 if included and session.entries[index].work.is_retracted]
    if retracted:
        session.warnings.append(
            f"{counted(len(retracted), 'work')} you included "
            f"{'is' if len(retracted) == 1 else 'are'} marked retracted in the library: "
            f"{', '.join(retracted[:5])}{' ...' if len(retracted) > 5 else ''}")
    if session.unmatched:
        shown = ", ".join(f"{record!r} on line {line}"
                          for record, line in zip(session.unmatched[:3], lines, strict=False))
        many = len(session.unmatched) > 1
        message = (f"{counted(len(session.unmatched), 'id')} in {path} "
                   f"{'match' if many else 'matches'} no record of the library "
                   f"(first: {shown}); {'their labels were' if many else 'its label was'} "
                   "not used")
        session.warnings.append(message)
        log.info(message)


def _features(entries: list[Entry], question: str, criteria: Criteria | None,
              settings: Settings, warnings: list[str], progress: Progress = _silent) -> Features:
    """The features of a library's merged works (:func:`library_features`)."""
    texts = [record_text(entry.work) for entry in entries]
    return library_features(texts, [entry.work.id for entry in entries], question, criteria,
                            settings, warnings, progress)


def library_features(texts: list[str], ids: list[str], question: str, criteria: Criteria | None,
                     settings: Settings, warnings: list[str],
                     progress: Progress = _silent) -> Features:
    """The features of records given by text and id (the id names each one's vector in the
    store), kept under the home (:func:`features_path`) so that a run with new labels only ranks
    again: no model loaded, nothing embedded or scored from scratch. The one way features are
    computed, by a session and by ``bench/screening_simulate.py`` alike; the warnings met
    computing them are appended to ``warnings``."""
    path = features_path(settings, texts, ids, question, criteria)
    kept = load_features(path)
    if kept is not None:
        warnings.extend(kept[1])
        progress("features: read back from an earlier run on this library")
        return kept[0]
    progress(f"features: scoring {counted(len(texts), 'work')} (the library as it is now was "
             "not scored before), embedding those not embedded before; later runs on it read "
             "them back")
    found: list[str] = []
    embedder = load_run_embedder(settings, found)
    vectors = None
    if embedder is not None:
        vectors = stored_vectors(texts, ids, embedder, settings, found)
    prior = zero_shot_scores(question, criteria, texts, embedder, vectors, found)
    features = build_features(texts, prior, vectors)
    warnings.extend(found)
    if not found:  # a run that fell back (no model, no store) is not kept: the next one retries
        try:
            save_features(path, features, found)
        except OSError as error:
            log.info("features not kept at %s: %s", path, error)
    return features


def features_path(settings: Settings, texts: list[str], ids: list[str], question: str,
                  criteria: Criteria | None) -> Path:
    """Where a library's features are kept: named by a hash of everything they depend on (the
    works' texts and ids, question, criteria, embedding model, and the source of the modules
    that compute them, so a changed scoring is never read from an old file)."""
    digest = hashlib.sha256()
    code = [Path(module.__file__ or "").read_bytes() for module in (relevance, learner)]
    for part in (json.dumps([texts, ids, question, criteria.text if criteria else None,
                             settings.embedding_model]).encode(), *code):
        digest.update(hashlib.sha256(part).digest())
    return settings.home / "screening" / f"features-{digest.hexdigest()[:32]}.npz"


def screen(library: str | Path, question: str, criteria: str | Path | None = None,
           labels: str | Path | None = None, out: str | Path | None = None, *,
           batch: int = BATCH, settings: Settings | None = None) -> ScreeningSession:
    """Rank a library for screening and, with ``out``, write the four files there.

    ``library``: a file or folder the review reads (BibTeX, RIS, CSL-JSON, JSONL, PDF, JATS) or
    a CSV with title and abstract columns. ``criteria``: the eligibility criteria, as text or a
    file. ``labels``: a CSV of record id (or DOI) and 1 or 0, the person's decisions so far.
    Raises :class:`~scholargraph.screening.labels.LabelsError` (an :class:`InputError`) for a
    labels file that cannot be read or a label other than 1 or 0.
    """
    if batch < 1:
        raise InputError("--batch must be at least 1")
    session = open_session(library, question, criteria, labels, settings=settings, out=out)
    if out is not None:
        session.write(out, batch)
    return session


__all__ = ["OUTPUT_FILES", "LabelsError", "ScreeningSession", "library_features",
           "open_session", "screen"]
