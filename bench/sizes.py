"""What a whole review costs at real sizes: 200 and 1,000 records a source, every source.

    python bench/sizes.py [--sizes 200,1000] [--sources pubmed,arxiv,openalex,materials,web]
                          [--each] [--polite]

For each size, one review (the whole graph: searches, dedup, screening, full texts, RAG,
synthesis, evaluation, and every file written) asks each source for N records a query, against
a loopback replay server whose services find as many records as asked: recorded records
repeated under synthetic ids (:mod:`scholargraph.testing.services.repeated`, which says what
that changes). The server runs in a process of its own, so its work is not counted as the
review's. Each answer is delayed by a realistic latency (``LATENCY``); the limiters run 1,000
times faster than the services' real pace unless ``--polite`` (then a 1,000-record review waits
minutes on arXiv's one request every three seconds, which measures the services, not the
review). The endpoints reach the review through the run's settings, not the environment.

Each review runs in a fresh child process, so its peak memory is its own. Printed per review:
records asked per source; wall seconds; graph seconds without network waits (wall time less the
time at least one request was in flight); CPU seconds of the review's process (all threads: on
a machine shared with other work, graph seconds grow with the load and CPU seconds do not);
peak RSS (MB); files written of the nine; requests
per source as the server counted them; PRISMA's identified, screened and included. With
``--each``, also one review per source alone. Goals on two cores: every size writes all nine
files; 1,000 records from each of the five sources in one run within 2 GB and 60 s of graph
time. The bench exits 1 when a review it was asked for did not write all nine files (or
failed), so it never reports nothing as a measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scholargraph.report import REVIEW_FILES
from scholargraph.testing.server_process import ServerProcess

SIZES = (200, 1000)
SOURCES = ("pubmed", "arxiv", "openalex", "materials", "web")
SERVICE = {"pubmed": "pubmed", "arxiv": "arxiv", "openalex": "openalex", "materials": "mp",
           "web": "ddg"}
QUESTION = ("titanium dioxide (TiO2) exposure: risk factors, treatment and outcomes of patients "
            "in cohort studies")
"""Issue 20's question, naming a material so that the Materials Project is searched too."""
LATENCY = {"pubmed": 0.25, "arxiv": 0.5, "openalex": 0.15, "mp": 0.2, "ddg": 0.3, "web": 0.2}
MP_KEY = "bench0replay0key0not0a0secret000"  # 32 characters, as mp_api requires
FILES = len(REVIEW_FILES)
OTHER = {"web": "web pages and open copies", "pubmed": "PubMed (PMC full texts)",
         "openalex": "OpenAlex (enrichment)"}


# ---- one review, in a child process ----------------------------------------------------------

class InFlight:
    """The time at least one HTTP request was waiting for its answer (the union of every
    request's span: the full-text readers overlap theirs)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open = 0
        self._since = 0.0
        self.seconds = 0.0

    def install(self) -> None:
        from requests.adapters import HTTPAdapter

        send = HTTPAdapter.send
        meter = self

        def timed_send(adapter: HTTPAdapter, *args: Any, **kwargs: Any) -> Any:
            meter._enter()
            try:
                return send(adapter, *args, **kwargs)
            finally:
                meter._leave()

        HTTPAdapter.send = timed_send  # type: ignore[method-assign]

    def _enter(self) -> None:
        with self._lock:
            if self._open == 0:
                self._since = time.monotonic()
            self._open += 1

    def _leave(self) -> None:
        with self._lock:
            self._open -= 1
            if self._open == 0:
                self.seconds += time.monotonic() - self._since


def child(args: argparse.Namespace) -> int:
    """Run one review and print one JSON line of what it cost."""
    import resource

    from scholargraph import FilesNotWritten, review
    from scholargraph.settings import Settings

    endpoints = json.loads(args.endpoints)
    variables = {**endpoints, "MP_API_KEY": MP_KEY, "SCHOLARGRAPH_NO_CACHE": "1"}
    if not args.polite:
        variables["SCHOLARGRAPH_RATE_SCALE"] = "1000"
    settings = Settings().with_variables(variables)
    meter = InFlight()
    meter.install()
    started, cpu_started = time.monotonic(), time.process_time()
    error = ""
    try:
        report = review(args.question, sources=args.sources.split(","), max_results=args.n,
                        out=args.out, settings=settings)
        prisma = report.prisma
    except FilesNotWritten as exc:
        error = str(exc)
        prisma = {}
    except Exception as exc:  # noqa: BLE001 - the bench reports what failed
        error = f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
        prisma = {}
    wall, cpu = time.monotonic() - started, time.process_time() - cpu_started
    written = sum(1 for path in Path(args.out).iterdir() if path.is_file()
                  and not path.name.startswith("."))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"wall": wall, "graph": wall - meter.seconds, "cpu": cpu, "rss_mb": peak_mb,
                      "written": written, "error": error,
                      "by_source": prisma.get("identified", {}),
                      "identified": sum(prisma.get("identified", {}).values()),
                      "screened": prisma.get("screened", 0),
                      "included": prisma.get("included", 0)}))
    return 0


def run_one(server: ServerProcess, question: str, sources: list[str], n: int,
            polite: bool) -> dict[str, Any]:
    endpoints = server.fresh()
    with tempfile.TemporaryDirectory(prefix="scholargraph-sizes-") as home:
        out = Path(home) / "out"
        env = {**os.environ, "SCHOLARGRAPH_HOME": home}
        command = [sys.executable, __file__, "--child", "--question", question, "--n", str(n),
                   "--sources",
                   ",".join(sources), "--out", str(out), "--endpoints", json.dumps(endpoints)]
        if polite:
            command.append("--polite")
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = " ".join(done.stderr.split())[-300:]
        return {"error": f"the review's process failed (exit {done.returncode}): {tail}",
                "written": 0, "sources": sources, "n": n, "requests": server.counts()}
    return {**json.loads(lines[-1]), "sources": sources, "n": n, "requests": server.counts()}


HEADER = (f"{'sources':34} {'N':>5} {'wall s':>7} {'graph s':>8} {'cpu s':>6} {'RSS MB':>7} "
          f"{'files':>5} "
          f"{'ident':>6} {'screen':>6} {'incl':>5}  requests per source (records identified)")


def line(result: dict[str, Any]) -> str:
    requests = ", ".join(f"{source} {result['requests'].get(SERVICE[source], 0)}"
                         f" ({result.get('by_source', {}).get(source, 0)} records)"
                         for source in result["sources"])
    others = {name: count for name, count in result["requests"].items()
              if name not in {SERVICE[source] for source in result["sources"]}}
    if others:
        requests += "; also " + ", ".join(f"{OTHER.get(name, name)} {count}"
                                          for name, count in others.items())
    text = (f"{','.join(result['sources']):34} {result['n']:5} {result.get('wall', 0):7.1f} "
            f"{result.get('graph', 0):8.1f} {result.get('cpu', 0):6.1f} "
            f"{result.get('rss_mb', 0):7.0f} "
            f"{result['written']:3}/{FILES} {result.get('identified', 0):6} "
            f"{result.get('screened', 0):6} {result.get('included', 0):5}  {requests}")
    return text + (f"  FAILED: {result['error']}" if result.get("error") else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--sources", default=",".join(SOURCES))
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--each", action="store_true", help="also one review per source alone")
    parser.add_argument("--polite", action="store_true", help="the services' real pace")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--out", default="", help=argparse.SUPPRESS)
    parser.add_argument("--endpoints", default="{}", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    sizes = [int(size) for size in args.sizes.split(",")]
    sources = args.sources.split(",")
    unknown = sorted(set(sources) - set(SOURCES))
    if unknown:
        parser.error(f"unknown sources: {', '.join(unknown)}")
    shapes = [sources] + ([[source] for source in sources] if args.each and len(sources) > 1
                          else [])
    print(f"question: {args.question!r}; latency per answer (s): {LATENCY}; "
          f"limiters: {'real pace' if args.polite else 'x1000'}")
    print(HEADER, flush=True)
    server = ServerProcess(latency=LATENCY)
    failed = 0
    try:
        for n in sizes:
            for shape in shapes:
                result = run_one(server, args.question, shape, n, args.polite)
                failed += bool(result.get("error")) or result["written"] != FILES
                print(line(result), flush=True)
    finally:
        server.close()
    if failed:
        print(f"{failed} review(s) did not write all {FILES} files", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
