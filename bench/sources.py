"""How many requests, and how long, the source agents take to fetch N records, against the rate
limits the services publish, and the same fetches through langchain-community's wrappers.

    python bench/sources.py [--sizes 50,200,1000] [--sources pubmed,arxiv,openalex,materials,web]
                            [--no-langchain]

Each fetch runs against a fresh loopback replay server that delays every answer by a realistic
latency (``LATENCY``) and ENFORCES each service's rate limit (``LIMITS``): a request beyond it is
answered 429 with ``Retry-After`` and counted as a violation. The agents run at their real,
unscaled rates (no ``SCHOLARGRAPH_RATE_SCALE``) with the on-disk cache off.

Per source and N the bench prints: requests sent; the fewest the service allows for N records
(``MIN_REQUESTS``); wall time; the lower bound on wall time; their ratio; violations. The lower
bound is the larger of the rate-limit bound (the last of the fewest requests cannot start before
``floor((n - 1) / limit) * window`` seconds, and takes one latency) and the latency of the
requests that must wait for an answer before they can be sent (a cursor page needs the previous
page's cursor; PubMed's fetch needs the search's history). Targets: requests within one of the
minimum, wall time within 1.2x the bound, no violation. Because a bound on the wire cannot
count the client's own work, the bench also prints the client's CPU time (all its threads:
parsing, mostly) and the ratio of the rest of the wall time (``wait/b``: waiting for answers and
for the limiter) to the bound. The server runs in a child process (:class:`ServerProcess`), so
its work is neither in the client's CPU time nor competing for the client's interpreter. The
Materials Project's minimum and bound count the search alone: mp_api reads ``{endpoint}heartbeat``
once per endpoint and process before its first search (one request and one latency more; each
fetch here meets a fresh server, so each pays it).

The recorded corpus is small (PubMed 7 articles, arXiv 100 entries, OpenAlex 34 works, 6
Materials Project documents, one DuckDuckGo page), so the bench services below (BENCH ONLY, not
the package's replay services) answer any query with N records made by repeating recorded ones
under synthetic ids (PMIDs 90000000+, arXiv 9901.xxxxx, OpenAlex W9xxxxxxxxx, mp-9xxxxxx, links
with ``?bench=page``). Their content is recorded; their ids and counts are not.

langchain-community (``pip install langchain-community``, for this bench only; not a
scholargraph dependency): ``PubMedAPIWrapper`` takes its E-utilities URLs as fields and is pointed
at the server that way; ``ArxivAPIWrapper`` calls ``arxiv.Search.results()``, which arxiv 4 no
longer has, so the bench restores what arxiv 2's deprecated method did (``Client().results``,
default client: pages of 100, 3 s apart) and points ``arxiv.Client.query_url_format`` at the
server.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import multiprocessing
import os
import re
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scholargraph.testing import RateLimit, ReplayRequest, ReplayResponse, ReplayServer
from scholargraph.testing.fixtures import fixture_bytes
from scholargraph.testing.server import temporary_environment
from scholargraph.testing.services.arxiv import ATOM, ArxivService, _feed
from scholargraph.testing.services.ddg import HTML, RESULTS_PAGE, DuckDuckGoService
from scholargraph.testing.services.materials import MaterialsService, load_documents
from scholargraph.testing.services.openalex import OpenAlexService
from scholargraph.testing.services.pubmed import PubMedService

SIZES = (50, 200, 1000)
QUERY = "genetic variants screening"
MP_KEY = "bench0replay0key0not0a0secret000"  # 32 characters, as mp_api requires
SERVICE = {"pubmed": "pubmed", "arxiv": "arxiv", "openalex": "openalex", "materials": "mp",
           "web": "ddg"}
LIMITS = {
    "pubmed": RateLimit(3, 1.0),  # NCBI without a key
    "arxiv": RateLimit(1, 3.0),  # arXiv API terms of use
    "openalex": RateLimit(100, 1.0),  # OpenAlex's published cap
    "mp": RateLimit(5, 1.0),  # unpublished: the project's own policy
    "ddg": RateLimit(1, 1.0),  # unpublished: the project's own policy
}
LATENCY = {"pubmed": 0.25, "arxiv": 0.5, "openalex": 0.15, "mp": 0.2, "ddg": 0.3}
LANGCHAIN_DEADLINE_S = 150.0  # per fetch: PubMedAPIWrapper's back-off doubles without end
WEB_PAGE_RESULTS = 25  # results on one DuckDuckGo HTML page (the recorded one holds 25)


def MIN_REQUESTS(source: str, n: int) -> int:
    """The fewest requests the service allows for ``n`` records."""
    return {
        "pubmed": 1 + math.ceil(n / 10_000),  # ESearch (10,000 ids) + EFetch (10,000 records)
        "arxiv": math.ceil(n / 2_000),  # 2,000 entries per request
        "openalex": math.ceil(n / 100),  # per-page 100 (current documentation)
        "materials": math.ceil(n / 1_000),  # _limit 1,000
        "web": math.ceil(n / WEB_PAGE_RESULTS),  # one results page per 25 results
    }[source]


def CHAIN(source: str, n: int) -> int:
    """How many of those requests must each wait for the previous answer."""
    return {"pubmed": 2, "openalex": MIN_REQUESTS("openalex", n),
            "web": MIN_REQUESTS("web", n)}.get(source, 1)


# ---- bench-only services: recorded records repeated under synthetic ids --------------------

class BenchPubMed(PubMedService):
    """Any term finds 100,000 synthetic PMIDs; EFetch serves recorded articles under them.
    ESearch answers JSON when asked (``retmode=json``, as PubMedAPIWrapper asks)."""

    TOTAL = 100_000

    def _esearch(self, request: ReplayRequest) -> ReplayResponse:
        start = int(request.param("retstart") or 0)
        size = int(request.param("retmax") or 20)
        ids = [str(90_000_000 + i) for i in range(start, min(start + size, self.TOTAL))]
        if request.param("retmode") == "json":
            result = {"count": str(self.TOTAL), "retmax": str(len(ids)), "retstart": str(start),
                      "querykey": "1", "webenv": "MCID_bench", "idlist": ids}
            return ReplayResponse(body=json.dumps({"esearchresult": result}).encode())
        body = (f"<eSearchResult><Count>{self.TOTAL}</Count><RetMax>{len(ids)}</RetMax>"
                f"<RetStart>{start}</RetStart><QueryKey>1</QueryKey><WebEnv>MCID_bench</WebEnv>"
                "<IdList>" + "".join(f"<Id>{i}</Id>" for i in ids) + "</IdList>"
                "<TranslationSet/></eSearchResult>")
        prolog = fixture_bytes("pubmed/biopython_esearch2.xml").split(b"<eSearchResult>")[0]
        return ReplayResponse(body=prolog + body.encode(), content_type="text/xml")

    def _efetch(self, request: ReplayRequest) -> ReplayResponse:
        if request.param("id"):
            wanted = [int(i) for i in (request.param("id") or "").split(",") if i.strip()]
        else:
            start = int(request.param("retstart") or 0)
            wanted = [90_000_000 + i for i in range(start, start + int(request.param("retmax")
                                                                       or 20))]
        articles = [self._synthetic(pmid) for pmid in wanted]
        prolog = fixture_bytes("pubmed/biopython_pubmed1.xml").split(b"<PubmedArticleSet>")[0]
        body = prolog + b"<PubmedArticleSet>\n" + b"\n".join(articles) + b"\n</PubmedArticleSet>\n"
        return ReplayResponse(body=body, content_type="text/xml")

    def _synthetic(self, pmid: int) -> bytes:
        article = self.articles[pmid % len(self.articles)]
        raw = re.sub(rb"<PMID Version=\"1\">\d+</PMID>", f'<PMID Version="1">{pmid}</PMID>'
                     .encode(), article.raw, count=1)
        return raw.replace(f'<ArticleId IdType="pubmed">{article.pmid}</ArticleId>'.encode(),
                           f'<ArticleId IdType="pubmed">{pmid}</ArticleId>'.encode())


class BenchArxiv(ArxivService):
    """Any query finds 100,000 entries: the recorded 100, again and again, synthetic ids."""

    TOTAL = 100_000

    def _search(self, query: str, start: int, size: int) -> ReplayResponse:
        pool = self.entries
        page = []
        for index in range(start, min(start + size, self.TOTAL)):
            entry = pool[index % len(pool)]
            raw = re.sub(rb"<id>http://arxiv.org/abs/[^<]+</id>",
                         f"<id>http://arxiv.org/abs/9901.{index:05d}v1</id>".encode(), entry.raw,
                         count=1)
            page.append(type(entry)(**{**entry.__dict__, "raw": raw}))
        return ReplayResponse(body=_feed(query, start, size, self.TOTAL, page), content_type=ATOM)


class BenchOpenAlex(OpenAlexService):
    """Any search finds 100,000 works: the recorded ones, again and again, synthetic ids."""

    TOTAL = 100_000

    def search(self, query: str, filters: str = "") -> list:  # type: ignore[override]
        return _Repeated(self.pool, self.TOTAL)


class _Repeated:
    """A lazily built list of recorded works under synthetic ids (only the pages asked for)."""

    def __init__(self, pool: list, total: int) -> None:
        self._pool, self._total = pool, total

    def __len__(self) -> int:
        return self._total

    def __getitem__(self, window: slice) -> list:
        return [self._one(index) for index in range(*window.indices(self._total))]

    def _one(self, index: int):
        item = self._pool[index % len(self._pool)]
        work = dict(item.work, id=f"https://openalex.org/W9{index:09d}", doi=None)
        return type(item)(json.dumps(work).encode(), work, item.doc)


def bench_materials() -> MaterialsService:
    """5,000 documents: the recorded TiO2 summary under synthetic material ids."""
    tio2 = next(doc for doc in load_documents() if doc.get("formula_pretty") == "TiO2")
    return MaterialsService([dict(copy.deepcopy(tio2), material_id=f"mp-9{i:06d}")
                             for i in range(5_000)])


class BenchDuckDuckGo(DuckDuckGoService):
    """The recorded results page, its links made distinct per results page (``?bench=s``)."""

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        if request.path.rstrip("/") != "/html":
            return super().handle(request)
        offset = request.param("s") or "0"
        page = re.sub(rb"uddg=([^&\"]+)", lambda m: m.group(0) + f"%3Fbench%3D{offset}".encode(),
                      fixture_bytes(RESULTS_PAGE))
        return ReplayResponse(200, page, HTML)


def bench_server() -> ReplayServer:
    return ReplayServer([BenchPubMed(), BenchArxiv(), BenchOpenAlex(), bench_materials(),
                         BenchDuckDuckGo()], latency=LATENCY, rate_limits=LIMITS)


# ---- measuring ---------------------------------------------------------------------------

@dataclass
class Measure:
    who: str
    source: str
    n: int
    got: int
    requests: int
    seconds: float
    cpu: float
    violations: int
    error: str = ""

    @property
    def wanted(self) -> int:
        """N, or what the client can fetch at most when that is fewer (the web agent reads five
        results pages): requests and bounds are those of what was fetched."""
        return self.got if self.capped else self.n

    @property
    def capped(self) -> bool:
        return self.source == "web" and 0 < self.got < self.n and not self.error

    @property
    def bound(self) -> float:
        limit = LIMITS[SERVICE[self.source]]
        fewest = MIN_REQUESTS(self.source, self.wanted)
        latency = LATENCY[SERVICE[self.source]]
        rate_bound = math.floor((fewest - 1) / limit.requests) * limit.per_seconds + latency
        return max(rate_bound, CHAIN(self.source, self.wanted) * latency)

    def line(self) -> str:
        fewest = MIN_REQUESTS(self.source, self.wanted)
        waited = self.seconds - self.cpu
        text = (f"{self.who:10} {self.source:9} {self.n:5} {self.got:5} {self.requests:6} "
                f"{fewest:5} {self.seconds:8.2f} {self.cpu:6.2f} {self.bound:7.2f} "
                f"{self.seconds / self.bound:6.2f} {waited / self.bound:6.2f} {self.violations:5}")
        if self.capped:
            text += f"  (capped: the agent reads {self.got} results at most)"
        return text + (f"  {self.error}" if self.error else "")


HEADER = (f"{'client':10} {'source':9} {'N':>5} {'got':>5} {'sent':>6} {'min':>5} {'wall s':>8} "
          f"{'cpu s':>6} {'bound s':>7} {'ratio':>6} {'wait/b':>6} {'viol':>5}")


class ServerProcess:
    """The bench server in a child process of its own.

    In the client's process, the server's threads (composing answers of megabytes) would share
    the client's interpreter lock and CPU clock; apart, the client's CPU time is its own and
    the server answers as a remote service would. The child keeps one server at a time: each
    measurement asks for a fresh one (new port, counters at zero).
    """

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")  # no fork of a process with threads
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child,), daemon=True)
        self._process.start()
        self.url, self.env = "", {}

    def fresh(self) -> None:
        self._conn.send(("fresh",))
        self.url, self.env = self._conn.recv()

    def service_url(self, prefix: str) -> str:
        return f"{self.url}/{prefix}/"

    def stats(self, service: str) -> tuple[int, int]:
        """(requests received, rate-limit violations) for ``service`` on the current server."""
        self._conn.send(("stats", service))
        return self._conn.recv()

    def close(self) -> None:
        self._conn.send(("stop",))
        self._process.join(10)


def _serve(conn: Any) -> None:
    """The child's loop: start a fresh server on demand, report its counters, stop."""
    server: ReplayServer | None = None
    while True:
        command, *args = conn.recv()
        if command == "stats":
            conn.send((server.count(args[0]), server.violations(args[0])) if server else (0, 0))
            continue
        if server is not None:
            server.stop()
            server = None
        if command == "stop":
            return
        server = bench_server().start()
        conn.send((server.url, server.endpoint_env()))


def measure(server: ServerProcess, who: str, source: str, n: int,
            fetch: Callable[[ServerProcess], int], deadline_s: float | None = None) -> Measure:
    """One fetch against a fresh bench server; given up (and said so) after ``deadline_s``."""
    home = tempfile.mkdtemp(prefix="scholargraph-bench-")
    env = {"SCHOLARGRAPH_HOME": home, "SCHOLARGRAPH_NO_CACHE": "1", "MP_API_KEY": MP_KEY}
    os.environ.pop("SCHOLARGRAPH_RATE_SCALE", None)
    time.sleep(LIMITS[SERVICE[source]].per_seconds)  # the previous run's window has passed
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["got"] = fetch(server)
        except Exception as exc:  # noqa: BLE001 - a bench reports what failed and goes on
            outcome["error"] = f"failed: {type(exc).__name__}: {str(exc)[:100]}"

    server.fresh()
    with temporary_environment({**server.env, **env}):
        started, cpu_started = time.monotonic(), time.process_time()
        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(deadline_s)
        seconds, cpu = time.monotonic() - started, time.process_time() - cpu_started
        sent, violations = server.stats(SERVICE[source])
    if worker.is_alive():
        outcome["error"] = f"unfinished after {deadline_s:.0f} s (given up)"
    return Measure(who, source, n, int(outcome.get("got", 0)), sent, seconds, cpu, violations,
                   str(outcome.get("error", "")))


def scholargraph_fetch(source: str, n: int) -> Callable[[ServerProcess], int]:
    from scholargraph.sources.base import SearchRequest
    from scholargraph.sources.registry import get_agent

    query = {"materials": "formula=TiO2"}.get(source, QUERY)
    agent = get_agent(source)  # imports and set-up happen here, outside the timed fetch
    if source == "web":
        agent.max_pages = 0  # search results only: page reading is not what is measured

    def fetch(server: ServerProcess) -> int:
        return len(agent.search(SearchRequest(query=query, limit=n)).works)

    return fetch


def langchain_pubmed(n: int) -> Callable[[ServerProcess], int]:
    def fetch(server: ServerProcess) -> int:
        from langchain_community.utilities import pubmed
        from langchain_community.utilities.pubmed import PubMedAPIWrapper

        pubmed.print = lambda *args, **kwargs: None  # its "Too Many Requests" lines; counted anyway

        base = server.service_url("pubmed")
        wrapper = PubMedAPIWrapper(top_k_results=n, base_url_esearch=f"{base}esearch.fcgi?",
                                   base_url_efetch=f"{base}efetch.fcgi?")
        return len(wrapper.load(QUERY))

    return fetch


def langchain_arxiv(n: int) -> Callable[[ServerProcess], int]:
    def fetch(server: ServerProcess) -> int:
        from langchain_community.utilities.arxiv import ArxivAPIWrapper

        wrapper = ArxivAPIWrapper(top_k_results=n, load_max_docs=n, doc_content_chars_max=None)
        with _arxiv_2_search_results(f"{server.url}/arxiv/api/query?{{}}"):
            docs = wrapper.get_summaries_as_docs(QUERY)
        if len(docs) == 1 and docs[0].page_content.startswith("Arxiv exception"):
            raise RuntimeError(docs[0].page_content)
        return len(docs)

    return fetch


@contextmanager
def _arxiv_2_search_results(url_format: str) -> Iterator[None]:
    """arxiv 2's deprecated ``Search.results()`` (a default ``Client``), pointed at the server."""
    import arxiv

    saved = arxiv.Client.query_url_format
    arxiv.Client.query_url_format = url_format
    arxiv.Search.results = lambda search: arxiv.Client().results(search)  # type: ignore[attr-defined]
    try:
        yield
    finally:
        arxiv.Client.query_url_format = saved
        del arxiv.Search.results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--sources", default="pubmed,arxiv,openalex,materials,web")
    parser.add_argument("--no-langchain", action="store_true")
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    sources = args.sources.split(",")
    if "materials" in sources:
        # pymatgen's and emmet's imports take seconds: not part of a fetch
        import mp_api.client.routes.materials.summary  # noqa: F401
    print("latency per request (s):", LATENCY)
    print("enforced limits:", {k: f"{v.requests}/{v.per_seconds:g}s" for k, v in LIMITS.items()})
    print(HEADER, flush=True)
    results: list[Measure] = []
    server = ServerProcess()
    try:
        for source in sources:
            for n in sizes:
                results.append(measure(server, "scholar", source, n,
                                       scholargraph_fetch(source, n)))
                print(results[-1].line(), flush=True)
        if not args.no_langchain:
            for source, wrapper in (("pubmed", langchain_pubmed), ("arxiv", langchain_arxiv)):
                if source not in sources:
                    continue
                for n in sizes:
                    results.append(measure(server, "langchain", source, n, wrapper(n),
                                           LANGCHAIN_DEADLINE_S))
                    print(results[-1].line(), flush=True)
            _compare(results)
    finally:
        server.close()
    return 0


def _compare(results: list[Measure]) -> None:
    """Wall time and requests of langchain's wrappers over scholargraph's agents, same fetch."""
    ours = {(m.source, m.n): m for m in results if m.who == "scholar"}
    print("\nlangchain / scholargraph (same source and N):")
    for theirs in (m for m in results if m.who == "langchain"):
        mine = ours.get((theirs.source, theirs.n))
        if mine and mine.seconds and mine.requests:
            ratio = theirs.seconds / mine.seconds
            print(f"  {theirs.source:7} N={theirs.n:5}: wall x{ratio:6.1f}, "
                  f"requests x{theirs.requests / mine.requests:6.1f}, violations "
                  f"{theirs.violations} vs {mine.violations}"
                  + (f" ({theirs.error})" if theirs.error else ""))


if __name__ == "__main__":
    sys.exit(main())
