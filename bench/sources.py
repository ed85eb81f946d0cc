"""How many requests, and how long, the source agents take to fetch N records, against the rate
limits the services publish, and the same fetches through langchain-community's wrappers.

    python bench/sources.py [--sizes 50,200,1000] [--sources pubmed,arxiv,openalex,materials,web]
                            [--no-langchain] [--cache DIR]

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
Materials Project documents, one DuckDuckGo page), so the server's services answer any query
with N records made by repeating recorded ones under synthetic ids
(:mod:`scholargraph.testing.services.repeated`). Their content is recorded; their ids and
counts are not. The agents reach the server through the run's settings (the endpoints the
server gives, a fresh home, the on-disk cache off), never through the environment.

langchain-community is the peer compared against. It is not a scholargraph dependency, so it is
installed in a virtual environment of its own under the bench cache (``--cache``, default
``$TMPDIR/scholargraph-bench-store``; made on first use with ``PEER_PACKAGES``; never the
project's), and each of its fetches runs there
(``bench/peers/langchain_fetch.py``). ``--no-langchain`` leaves it out.

The bench exits 1 when a row it was asked for could not be measured (a fetch failed or got no
record), so a table of failures is never taken for a measurement.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import threading
import time
import venv
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scholargraph.settings import Settings
from scholargraph.testing import RateLimit
from scholargraph.testing.server_process import ServerProcess

SIZES = (50, 200, 1000)
QUESTION_FOR_SOURCE = "genetic variants screening"
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
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "scholargraph-bench-store"
"""The benches' cache (as ``bench/screening_simulate.py``'s): peers' environments live here."""
PEER_PACKAGES = ("langchain-community==0.4.2", "arxiv>=2.1,<3", "xmltodict>=0.13,<2")
"""langchain-community and the packages its PubMed and arXiv wrappers import on first use."""
PEER_SCRIPT = Path(__file__).resolve().parent / "peers" / "langchain_fetch.py"
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


Fetch = Callable[[], int]


def measure(server: ServerProcess, who: str, source: str, n: int,
            prepare: Callable[[ServerProcess, Settings], Fetch],
            deadline_s: float | None = None) -> Measure:
    """One fetch against a fresh bench server, the agent configured by the run's settings
    (prepared before the clock starts); given up (and said so) after ``deadline_s``."""
    time.sleep(LIMITS[SERVICE[source]].per_seconds)  # the previous run's window has passed
    server.fresh()
    home = tempfile.mkdtemp(prefix="scholargraph-bench-")
    settings = Settings().with_variables({**server.env, "MP_API_KEY": MP_KEY,
                                          "SCHOLARGRAPH_HOME": home,
                                          "SCHOLARGRAPH_NO_CACHE": "1",
                                          "SCHOLARGRAPH_RATE_SCALE": "1"})
    fetch = prepare(server, settings)
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["got"] = fetch()
        except Exception as exc:  # noqa: BLE001 - a bench reports what failed and goes on
            outcome["error"] = f"failed: {type(exc).__name__}: {str(exc)[:100]}"

    started, cpu_started = time.monotonic(), time.process_time()
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(deadline_s)
    seconds, cpu = time.monotonic() - started, time.process_time() - cpu_started
    sent, violations = server.counts().get(SERVICE[source], 0), server.violations(SERVICE[source])
    if worker.is_alive():
        outcome["error"] = f"unfinished after {deadline_s:.0f} s (given up)"
    return Measure(who, source, n, int(outcome.get("got", 0)), sent, seconds, cpu, violations,
                   str(outcome.get("error", "")))


def scholargraph_fetch(source: str, n: int) -> Callable[[ServerProcess, Settings], Fetch]:
    from scholargraph.sources.base import SearchRequest
    from scholargraph.sources.registry import get_agent

    query = {"materials": "formula=TiO2"}.get(source, QUESTION_FOR_SOURCE)

    def prepare(server: ServerProcess, settings: Settings) -> Fetch:
        agent = get_agent(source, settings)  # set-up happens here, outside the timed fetch
        if source == "web":
            agent.max_pages = 0  # search results only: page reading is not what is measured
        return lambda: len(agent.search(SearchRequest(query=query, limit=n)).works)

    return prepare


def peer_python(cache: Path) -> Path:
    """The peer's interpreter, in its own virtual environment under the bench cache (made, and
    ``PEER_PACKAGES`` installed into it, on first use)."""
    peer_venv = cache / "langchain-venv"
    python = peer_venv / "bin" / "python"
    marker = peer_venv / ".installed"
    if marker.exists() and marker.read_text() == " ".join(PEER_PACKAGES):
        return python
    print(f"installing the langchain peer into {peer_venv} ...", file=sys.stderr, flush=True)
    venv.create(peer_venv, with_pip=True, clear=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *PEER_PACKAGES], check=True)
    marker.write_text(" ".join(PEER_PACKAGES))
    return python


def measure_peer(server: ServerProcess, source: str, n: int, python: Path) -> Measure:
    """One fetch through langchain's wrapper, in the peer's environment; its own wall and CPU
    time of the fetch (imports excluded), the server's count of requests."""
    time.sleep(LIMITS[SERVICE[source]].per_seconds)
    server.fresh()
    command = [str(python), str(PEER_SCRIPT), "--source", source, "--n", str(n),
               "--server", server.url, "--query", QUESTION_FOR_SOURCE]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False,
                              timeout=LANGCHAIN_DEADLINE_S + 60)
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        result = json.loads(lines[-1]) if lines else {
            "got": 0, "seconds": 0.0, "cpu": 0.0,
            "error": f"failed: exit {done.returncode}: {' '.join(done.stderr.split())[-100:]}"}
    except subprocess.TimeoutExpired:
        result = {"got": 0, "seconds": LANGCHAIN_DEADLINE_S, "cpu": 0.0,
                  "error": f"unfinished after {LANGCHAIN_DEADLINE_S:.0f} s (given up)"}
    sent, violations = server.counts().get(SERVICE[source], 0), server.violations(SERVICE[source])
    return Measure("langchain", source, n, int(result["got"]), sent, float(result["seconds"]),
                   float(result["cpu"]), violations, str(result["error"]))


def unmeasured(measure: Measure) -> bool:
    """A row that measured nothing: its fetch failed, or got no record. A fetch given up at its
    deadline is a measurement (a lower bound on its time), and its row says so."""
    return measure.error.startswith("failed") or (measure.got == 0 and not measure.error)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--sources", default="pubmed,arxiv,openalex,materials,web")
    parser.add_argument("--no-langchain", action="store_true")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help="the benches' cache, where the langchain peer's venv is made")
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
    server = ServerProcess(latency=LATENCY, rate_limits=LIMITS)
    try:
        for source in sources:
            for n in sizes:
                results.append(measure(server, "scholar", source, n,
                                       scholargraph_fetch(source, n)))
                print(results[-1].line(), flush=True)
        if not args.no_langchain and {"pubmed", "arxiv"} & set(sources):
            python = peer_python(args.cache)
            for source in ("pubmed", "arxiv"):
                if source not in sources:
                    continue
                for n in sizes:
                    results.append(measure_peer(server, source, n, python))
                    print(results[-1].line(), flush=True)
            _compare(results)
    finally:
        server.close()
    failed = [m for m in results if unmeasured(m)]
    if failed:
        print(f"{len(failed)} of {len(results)} rows measured nothing: "
              + "; ".join(f"{m.who} {m.source} N={m.n}" for m in failed), file=sys.stderr)
    return 1 if failed else 0


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
