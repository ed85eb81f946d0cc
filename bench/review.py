"""Whole-graph reviews of SciFact-format claims over a corpus served as a scholarly source.

    python bench/review.py --corpus CORPUS.jsonl --claims CLAIMS.jsonl [--qrels QRELS.tsv]
                           [--sentences SENTENCES.jsonl] [--start N] [--limit N]
                           [--min-evidence N] [--withhold-evidence]

The corpus (BEIR ``{_id, title, text}`` lines) is served by the replay server as OpenAlex
(:class:`scholargraph.testing.services.corpus.CorpusService`: boolean matching as OpenAlex reads
a query, BM25 ranking), and each claim, as a user would type it, is the question of a review run
through the whole graph over HTTP with the deterministic engine: clean_query, intent, planning,
query generation, the OpenAlex agent, retrieval, rag_filter, synthesis and evaluation, with the
refinement rounds the supervisor asks for. Claims are SciFact's (``id``, ``claim``, ``evidence``:
``{doc_id: [{sentences, label}]}``, ``cited_doc_ids``). Printed, one ``name value`` a line:

- ``evidence-cited``: of the claims with evidence, the share whose review cites a gold evidence
  abstract;
- ``cited-precision``: of all works the reviews cite, the share that are gold evidence or cited
  documents of their claim (or judged relevant in ``--qrels``);
- ``contradiction-recall``: of the claims with CONTRADICT evidence, the share whose review
  reports evidence against the claim (a finding read as opposing the question, or a study
  that contradicts it or finds no effect);
- ``false-contradiction``: of the claims with SUPPORT evidence only, the share whose review does;
- with ``--withhold-evidence`` (every claim's gold evidence abstracts and cited documents taken
  out of the served corpus), ``false-coverage``: the share of reviews that still report the
  claim's own sub-question covered or end accepted. Then ``evidence-cited`` is 0 by construction.

Then as SciFact scores systems (from the claims' evidence labels and rationale sentences):

- ``abstract-label-f1``: SciFact's abstract-level label-only F1 over all claims: a predicted
  (claim, abstract, label) counts when the abstract is gold evidence of the claim with that
  label. A review predicts, for each work it cites, the stance it reports (``stances``:
  SUPPORT for a study that supports the claim, CONTRADICT for one that contradicts it or finds
  no effect; a study read as neither predicts nothing). Anchors, SciFact test split, open
  setting (each system retrieves its own abstracts, supervised on SciFact train): MultiVerS
  0.725, ARSJoint 0.712, ParagraphJoint 0.691, VerT5erini 0.682 (SciFact-Open paper, table 5);
  GPT-3 few-shot 0.189. Its precision and recall are printed before it
  (``abstract-label-precision``, ``abstract-label-recall``);
- ``evidence-recall``: per claim with evidence, the share of its gold evidence abstracts the
  review cites (its reference list), averaged over those claims;
- ``rationale-precision``: of the distinct sentences the reviews quote (as findings,
  agreements or contradictions) from gold evidence abstracts, the share that are gold rationale
  sentences (``corpus_sentences.jsonl``, by ``--sentences`` or found beside ``--claims``;
  without it the figure is left out);

and ``evidence-cited`` once more as the last line, which is where the contract
(``DESIGN.md``) says scripts read it.

``--start`` and ``--limit`` take a slice of the claims (tune on one part, check on another);
``--min-evidence 2`` keeps the claims with at least two gold evidence abstracts (SciFact train
has 37). Without a BEIR ``corpus.jsonl``, ``--corpus`` may
name SciFact's ``corpus_sentences.jsonl`` (``{doc_id, title, abstract: [sentences]}``): it is
read as the same documents, sentences joined. One vector store and one embedder serve every
claim (the store in a temporary ``SCHOLARGRAPH_HOME`` unless ``--home`` keeps one between runs;
the derived embedding model where the environment keeps it). Progress
and per-claim detail go to stderr. The data is read where it lies and never copied.
"""

from __future__ import annotations

import argparse
import csv
import json
import pickle
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from scholargraph import review
from scholargraph.agents.evaluation import COVERED
from scholargraph.deterministic.relevance import question_itself
from scholargraph.report import Report
from scholargraph.settings import Settings
from scholargraph.testing import ReplayServer
from scholargraph.testing.server import temporary_environment
from scholargraph.testing.services.corpus import CorpusDoc, CorpusService, openalex_id_for

MAX_RESULTS = 20
"""Records asked of the source per query: what a person skimming a search would read."""


@dataclass
class Claim:
    claim_id: str
    text: str
    evidence: dict[str, set[str]]
    """Gold evidence doc id -> its labels (SUPPORT / CONTRADICT)."""
    cited: set[str]
    rationales: dict[str, set[int]] = field(default_factory=dict)
    """Gold evidence doc id -> the indices of its rationale sentences."""

    @property
    def labels(self) -> set[str]:
        return {label for labels in self.evidence.values() for label in labels}


@dataclass
class Outcome:
    claim: Claim
    cited_docs: list[str]
    labels: dict[str, str]
    """Cited document -> the stance the review reports for it (SUPPORT / CONTRADICT); a
    document read as neither is left out."""
    quoted: set[tuple[str, str]]
    """(document, sentence) pairs the review quotes as evidence (findings, agreements,
    contradictions), the sentence whitespace-normalised."""
    found_docs: set[str]
    """Documents among the review's included works (cited or not), to see where evidence is
    lost."""
    relevant: set[str]
    against: bool
    covered: bool
    accepted: bool
    seconds: float


@dataclass
class Tally:
    outcomes: list[Outcome] = field(default_factory=list)

    def figures(self, withheld: bool, rationales: Rationales | None = None
                ) -> list[tuple[str, float]]:
        with_evidence = [o for o in self.outcomes if o.claim.evidence]
        cited = [doc for o in self.outcomes for doc in o.cited_docs]
        relevant = sum(doc in o.relevant for o in self.outcomes for doc in o.cited_docs)
        contradict = [o for o in self.outcomes if "CONTRADICT" in o.claim.labels]
        support = [o for o in self.outcomes if o.claim.labels == {"SUPPORT"}]
        rows = [
            ("evidence-cited", share([bool(set(o.cited_docs) & o.claim.evidence.keys())
                                      for o in with_evidence])),
            ("cited-precision", relevant / len(cited) if cited else 0.0),
            ("contradiction-recall", share([o.against for o in contradict])),
            ("false-contradiction", share([o.against for o in support])),
        ]
        if withheld:
            rows.append(("false-coverage", share([o.covered or o.accepted
                                                  for o in self.outcomes])))
        precision, recall = self.label_precision_recall()
        rows.append(("abstract-label-precision", precision))
        rows.append(("abstract-label-recall", recall))
        rows.append(("abstract-label-f1", harmonic(precision, recall)))
        rows.append(("evidence-recall", mean([
            len(set(o.cited_docs) & o.claim.evidence.keys()) / len(o.claim.evidence)
            for o in with_evidence])))
        if rationales is not None:
            rows.append(("rationale-precision", self.rationale_precision(rationales)))
        return rows

    def label_precision_recall(self) -> tuple[float, float]:
        """SciFact's abstract-level label-only precision and recall: a predicted (abstract,
        label) is correct when the abstract is gold evidence with that label. Printed beside
        their F1 to show which side a change moves."""
        predicted = sum(len(o.labels) for o in self.outcomes)
        gold = sum(len(o.claim.evidence) for o in self.outcomes)
        correct = sum(label in o.claim.evidence.get(doc, set())
                      for o in self.outcomes for doc, label in o.labels.items())
        return (correct / predicted if predicted else 0.0, correct / gold if gold else 0.0)

    def rationale_precision(self, rationales: Rationales) -> float:
        """Of the sentences quoted from gold evidence abstracts, the share that are (or overlap)
        a gold rationale sentence."""
        verdicts = [rationales.is_rationale(o.claim, doc, sentence)
                    for o in self.outcomes for doc, sentence in sorted(o.quoted)
                    if doc in o.claim.evidence]
        return share(verdicts)


def harmonic(precision: float, recall: float) -> float:
    """F1: the harmonic mean of precision and recall (0 when both are 0)."""
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def share(values: list[bool]) -> float:
    return sum(values) / len(values) if values else 0.0


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


class Rationales:
    """SciFact's sentence-split abstracts and each claim's rationale sentence indices: whether
    a quoted sentence is one of them, by where it lies in the abstract (the project splits
    sentences its own way, so a quote is matched by the characters it covers)."""

    def __init__(self, path: Path) -> None:
        self.sentences = {str(record["doc_id"]): [" ".join(s.split())
                                                  for s in record.get("abstract") or []]
                          for record in read_jsonl(path)}

    def spans(self, doc: str) -> tuple[str, list[tuple[int, int]]]:
        """The abstract as served (sentences joined by a space) and each sentence's span."""
        spans, start = [], 0
        for sentence in self.sentences.get(doc, []):
            spans.append((start, start + len(sentence)))
            start += len(sentence) + 1
        return " ".join(self.sentences.get(doc, [])), spans

    def indices(self, doc: str, quote: str) -> set[int]:
        """The indices of the abstract's sentences the quote overlaps (none when the quote is
        not in the abstract, e.g. the title)."""
        text, spans = self.spans(doc)
        at = text.find(quote)
        if at < 0 or not quote:
            return set()
        end = at + len(quote)
        return {i for i, (s, e) in enumerate(spans) if s < end and at < e}

    def is_rationale(self, claim: Claim, doc: str, quote: str) -> bool:
        return bool(self.indices(doc, quote) & claim.rationales.get(doc, set()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True,
                        help="BEIR corpus.jsonl, or SciFact's corpus_sentences.jsonl")
    parser.add_argument("--claims", type=Path, required=True, help="SciFact-format claims")
    parser.add_argument("--qrels", type=Path, help="BEIR qrels TSV: more relevant documents")
    parser.add_argument("--sentences", type=Path,
                        help="SciFact corpus_sentences.jsonl (default: beside --claims)")
    parser.add_argument("--start", type=int, default=0, help="skip the first N claims")
    parser.add_argument("--limit", type=int, default=0, help="first N claims (0: all)")
    parser.add_argument("--min-evidence", type=int, default=0,
                        help="only claims with at least N gold evidence abstracts")
    parser.add_argument("--withhold-evidence", action="store_true",
                        help="serve the corpus without the claims' evidence and cited documents")
    parser.add_argument("--max-results", type=int, default=MAX_RESULTS)
    parser.add_argument("--home", type=Path, help="SCHOLARGRAPH_HOME to keep (vector store)")
    parser.add_argument("--dump", type=Path,
                        help="folder to write each claim's node updates to (pickled), for "
                             "re-reading synthesis offline")
    args = parser.parse_args()
    for path in (args.corpus, args.claims, args.qrels, args.sentences):
        if path is not None and not path.exists():
            sys.exit(f"{path} does not exist")
    claims = [claim for claim in read_claims(args.claims)[args.start:]
              if len(claim.evidence) >= args.min_evidence]
    claims = claims[:args.limit] if args.limit else claims
    sentences = args.sentences or args.claims.parent / "corpus_sentences.jsonl"
    rationales = Rationales(sentences) if sentences.exists() else None
    qrels = read_qrels(args.qrels) if args.qrels else {}
    docs = read_corpus(args.corpus)
    if args.withhold_evidence:
        withheld = {doc for c in claims for doc in [*c.evidence, *c.cited]}
        docs = [doc for doc in docs if doc.doc_id not in withheld]
    by_openalex = {openalex_id_for(doc.doc_id): doc.doc_id for doc in docs}
    print(f"corpus {len(docs)} documents; {len(claims)} claims"
          f"{' (evidence withheld)' if args.withhold_evidence else ''}", file=sys.stderr)

    tally = Tally()
    started = time.perf_counter()
    settings = Settings()
    models = settings.models_dir or settings.home / "models"
    with bench_home(args.home) as home, ReplayServer([CorpusService(docs)]) as server:
        run_settings = settings.with_variables({
            **server.endpoint_env(), "SCHOLARGRAPH_HOME": str(home),
            "SCHOLARGRAPH_MODELS": str(models), "SCHOLARGRAPH_RATE_SCALE": "1000",
            "SCHOLARGRAPH_NO_CACHE": "1"})  # the run's settings: nothing reads os.environ
        for number, claim in enumerate(claims, 1):
            relevant = {*claim.evidence, *claim.cited, *qrels.get(claim.claim_id, set())}
            outcome = run_claim(claim, relevant, by_openalex, args.max_results, run_settings,
                                args.dump)
            tally.outcomes.append(outcome)
            print(f"[{number}/{len(claims)}] {outcome.seconds:5.1f}s claim {claim.claim_id}: "
                  f"cited {outcome.cited_docs} gold {sorted(claim.evidence)} "
                  f"found {sorted(outcome.found_docs & claim.evidence.keys())} "
                  f"labels {sorted(claim.labels)} predicted {outcome.labels} "
                  f"against={outcome.against} "
                  f"covered={outcome.covered} accepted={outcome.accepted}", file=sys.stderr)
    print(f"{len(claims)} reviews in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    rows = tally.figures(args.withhold_evidence, rationales)
    rows.append(next(row for row in rows if row[0] == "evidence-cited"))
    for name, value in rows:
        print(f"{name} {value:.4f}")


def run_claim(claim: Claim, relevant: set[str], by_openalex: dict[str, str],
              max_results: int, settings: Settings, dump: Path | None = None) -> Outcome:
    """One review of the claim over the served corpus, and what the figures need of it."""
    started = time.perf_counter()
    updates: list[tuple[str, dict]] = []
    report = review(claim.text, sources=["openalex"], max_results=max_results,
                    settings=settings, on_progress=lambda node, update: updates.append(
                        (node, update)))
    if dump is not None:
        dump.mkdir(parents=True, exist_ok=True)
        with (dump / f"{claim.claim_id}.pkl").open("wb") as handle:
            pickle.dump({"claim": claim, "updates": updates, "report": report}, handle)
    cited = [by_openalex[work.openalex_id] for work in report.cited_works()
             if work.openalex_id in by_openalex]
    found = {by_openalex[work.openalex_id] for work in report.papers
             if work.openalex_id in by_openalex}
    docs = {work.id: by_openalex[work.openalex_id] for work in report.papers
            if work.openalex_id in by_openalex}
    return Outcome(claim, cited, predicted_labels(report, docs), quoted_sentences(report, docs),
                   found, relevant, against=reports_against(report),
                   covered=question_covered(report),
                   accepted=report.evaluation.verdict == "accept",
                   seconds=time.perf_counter() - started)


EVIDENCE_KINDS = ("finding", "agreement", "contradiction")
"""Findings that quote evidence (a source's stated limitation is not one)."""


LABELS = {"supports": "SUPPORT", "contradicts": "CONTRADICT", "no effect": "CONTRADICT"}
"""A study's reading of the claim as SciFact labels it (no effect where the claim states one
contradicts it)."""


def predicted_labels(report: Report, docs: dict[str, str]) -> dict[str, str]:
    """Per cited document, the label of the stance the review reports for it
    (``report.stances``); a study read as neither predicts nothing."""
    cited = {reference.work_id for reference in report.references}
    return {docs[stance.work_id]: LABELS[stance.reading] for stance in report.stances
            if stance.reading in LABELS and stance.work_id in docs and stance.work_id in cited}


def quoted_sentences(report: Report, docs: dict[str, str]) -> set[tuple[str, str]]:
    """(document, sentence) for every sentence quoted as evidence, whitespace-normalised."""
    passages = {passage.id: passage for passage in report.passages}
    return {(docs[passages[quote.passage_id].work_id], " ".join(quote.text.split()))
            for finding in report.findings if finding.kind in EVIDENCE_KINDS
            for quote in finding.quotes
            if quote.passage_id in passages and passages[quote.passage_id].work_id in docs}


def reports_against(report: Report) -> bool:
    """Whether the review reports evidence against the question's own claim: a finding read
    against it, or a study that contradicts it or finds no effect."""
    return (any(finding.bearing == "opposes" for finding in report.findings)
            or any(LABELS.get(stance.reading) == "CONTRADICT" for stance in report.stances))


def question_covered(report: Report) -> bool:
    """Whether the review reports the sub-question that asks the question itself covered."""
    itself = question_itself(report.sub_questions, report.cleaned_question or report.question)
    return itself is not None and report.evaluation.coverage.get(itself.id, 0.0) >= COVERED


@contextmanager
def bench_home(keep: Path | None) -> Iterator[Path]:
    """``--home``, or a temporary folder removed afterwards."""
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        yield keep
        return
    with tempfile.TemporaryDirectory(prefix="scholargraph-review-bench-") as folder:
        yield Path(folder)


def read_claims(path: Path) -> list[Claim]:
    claims = []
    for record in read_jsonl(path):
        evidence: dict[str, set[str]] = {}
        rationales: dict[str, set[int]] = {}
        for doc_id, items in (record.get("evidence") or {}).items():
            evidence[str(doc_id)] = {item["label"] for item in items}
            rationales[str(doc_id)] = {int(i) for item in items for i in item["sentences"]}
        claims.append(Claim(str(record["id"]), record["claim"], evidence,
                            {str(doc) for doc in record.get("cited_doc_ids") or []},
                            rationales))
    return claims


def read_qrels(path: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    with path.open(encoding="utf-8") as handle:
        for row in csv.reader(handle, delimiter="\t"):
            if len(row) >= 3 and row[2].strip().isdigit() and int(row[2]) > 0:
                found.setdefault(row[0].strip(), set()).add(row[1].strip())
    return found


def read_corpus(path: Path) -> list[CorpusDoc]:
    """BEIR ``{_id, title, text}`` lines, or SciFact's ``{doc_id, title, abstract: [...]}``
    converted on the fly (sentences joined by spaces)."""
    docs = []
    for record in read_jsonl(path):
        if "_id" in record:
            docs.append(CorpusDoc.from_beir(record))
        else:
            docs.append(CorpusDoc(str(record["doc_id"]), record.get("title") or "",
                                  " ".join(s.strip() for s in record.get("abstract") or [])))
    return docs


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


if __name__ == "__main__":
    with temporary_environment({"HF_HUB_OFFLINE": "1"}):
        main()
