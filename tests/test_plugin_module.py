"""A developer's own source module, as the README's "Adding a source agent" describes it: written
to a file, registered by SCHOLARGRAPH_SOURCES, answered by a real HTTP server on 127.0.0.1. It
takes its place in the tool loop, its records are merged, screened, counted and recorded; its
mistakes are one line naming the module."""

from __future__ import annotations

import json
import sys
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from scholargraph import review
from scholargraph.cli import main
from scholargraph.errors import ConfigurationError, SourceResponseError
from scholargraph.graph import build_graph
from scholargraph.sources import registry
from scholargraph.sources.base import SearchRequest
from scholargraph.testing import ReplayServer

QUESTION = "What is known about genetic variants and screening?"
ENDPOINT_ENV = "SCHOLARGRAPH_INVENTED_URL"
PUBMED_DOI = "10.1136/gutjnl-2016-312510"
"""A work the recorded PubMed corpus returns for QUESTION: the module's copy of it must merge."""

INVENTED_RECORDS = [
    {"title": "Leucocyte telomere length, genetic variants at the TERT gene region and risk of "
              "pancreatic cancer", "authors": "Bao Y; Prescott J", "year": 2017,
     "doi": PUBMED_DOI.upper(), "abstract": "Telomere length and genetic variants were studied."},
    {"title": "Screening adults for inherited genetic variants: an invented cohort",
     "authors": "Doe J; Roe R", "year": 2021, "doi": "10.5555/invented.1",
     "abstract": "An invented cohort screened adults for inherited genetic variants and found "
                 "carriers in one in two hundred participants."},
]

MODULE = '''
"""An invented index: the module a developer writes, following the README."""
from __future__ import annotations

from typing import ClassVar

from scholargraph.agents.schemas import Domain
from scholargraph.http.policy import Politeness, configured, translate_errors
from scholargraph.records import Work
from scholargraph.sources.base import SearchRequest, SourceAgent, SourceResult

ENV = "SCHOLARGRAPH_INVENTED_URL"


class InventedAgent(SourceAgent):
    name: ClassVar[str] = "invented"
    order: ClassVar[int] = 15
    label: ClassVar[str] = "Invented Index"
    domains: ClassVar[frozenset[Domain]] = frozenset({"biomedical"})
    politeness: ClassVar[Politeness] = Politeness(
        requests=5, per_seconds=1.0, official_hosts=("invented.example",), endpoint_envs=(ENV,))

    def _search(self, request: SearchRequest) -> SourceResult:
        session = self.session()
        with translate_errors(self.name, self.settings):
            answer = session.get(f"{configured(ENV, self.settings)}/search",
                                 params={"q": request.query, "n": request.limit})
            answer.raise_for_status()
            items = answer.json()["items"]
        return SourceResult(works=[Work(title=item["title"], authors=item["authors"].split("; "),
                                        year=item["year"], doi=item["doi"],
                                        abstract=item["abstract"])
                                   for item in items])
'''


class InventedIndex(BaseHTTPRequestHandler):
    """Answers ``/search?q=...`` with the invented records, and counts the queries."""

    queries: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        query = parse_qs(urlsplit(self.path).query).get("q", [""])[0]
        type(self).queries.append(query)
        body = json.dumps({"items": INVENTED_RECORDS}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def index() -> Iterator[str]:
    """The invented service on a loopback port; its URL."""
    InventedIndex.queries = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), InventedIndex)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def write_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str,
                 agent: str) -> str:
    """``text`` written as module ``name`` in a folder on sys.path, registered by
    SCHOLARGRAPH_SOURCES as ``name:agent``; the dotted path."""
    folder = tmp_path / "plugins"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.py").write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, name, raising=False)
    dotted = f"{name}:{agent}"
    monkeypatch.setenv(registry.SOURCES_ENV, dotted)
    return dotted


@pytest.fixture
def invented(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: str) -> Iterator[str]:
    """The developer's module registered and pointed at the invented service; its dotted path."""
    dotted = write_module(tmp_path, monkeypatch, "invented_source", MODULE, "InventedAgent")
    monkeypatch.setenv(ENDPOINT_ENV, index)
    registry.refresh()
    yield dotted
    registry.refresh()


def test_the_module_is_placed_by_its_order_without_editing_the_graph(invented: str) -> None:
    names = registry.source_names()
    assert names[names.index("invented") - 1:names.index("invented") + 2] == [
        "pubmed", "invented", "arxiv"]
    assert "invented" in build_graph().compile().get_graph().nodes


def test_a_review_merges_counts_and_records_the_modules_records(
        invented: str, replay: ReplayServer, index: str) -> None:
    report = review(QUESTION, sources=["pubmed", "invented"], max_iterations=1, full_text=0)
    assert InventedIndex.queries, "the module's service was asked"
    by_doi = {paper.doi.lower(): paper for paper in report.papers if paper.doi}
    assert by_doi[PUBMED_DOI].sources == ["pubmed", "invented"]  # one work, both sources
    assert by_doi["10.5555/invented.1"].sources == ["invented"]  # stamped by the search
    assert report.prisma["identified"]["invented"] == len(INVENTED_RECORDS)
    assert report.prisma["duplicates_removed"] >= 1
    assert {entry.source for entry in report.search_log} == {"pubmed", "invented"}
    assert [entry.source for entry in report.search_log][-1] == "invented"  # after PubMed
    assert report.run.plugins["invented"].startswith(f"{invented} (SCHOLARGRAPH_SOURCES")
    assert report.run.endpoints[ENDPOINT_ENV] == index


def test_a_module_forgetting_the_works_sources_is_still_counted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: str) -> None:
    """The README's example sets no ``sources`` on its works: the search names them, so PRISMA
    counts them under the source that found them, not under 'unknown'."""
    write_module(tmp_path, monkeypatch, "invented_source", MODULE, "InventedAgent")
    monkeypatch.setenv(ENDPOINT_ENV, index)
    registry.refresh()
    result = registry.get_agent("invented").search(SearchRequest(query="genetic variants"))
    registry.refresh()
    assert [work.sources for work in result.works] == [["invented"], ["invented"]]


BROKEN_RETURNS = {
    "a list": ("return super()._search(request).works",
               "invented_broken.Broken._search returned list, not a "
              "scholargraph.sources.base.SourceResult"),
    "dicts": ("return SourceResult(works=[w.model_dump() for w in super()._search(request)"
              ".works])",
              "invented_broken.Broken._search returned a dict among its works, not a "
              "scholargraph.records.Work"),
}


@pytest.mark.parametrize("mistake", sorted(BROKEN_RETURNS))
def test_a_wrong_return_fails_that_search_with_one_line_naming_the_class(
        mistake: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: str) -> None:
    body, message = BROKEN_RETURNS[mistake]
    write_module(tmp_path, monkeypatch, "invented_source", MODULE, "InventedAgent")
    write_module(tmp_path, monkeypatch, "invented_broken", f'''
        from invented_source import InventedAgent, SourceResult

        class Broken(InventedAgent):
            def _search(self, request):
                {body}
        ''', "Broken")
    monkeypatch.setenv(ENDPOINT_ENV, index)
    registry.refresh()
    with pytest.raises(SourceResponseError) as raised:
        registry.get_agent("invented").search(SearchRequest(query="genetic variants"))
    registry.refresh()
    assert raised.value.message == message


def test_a_review_goes_on_when_the_module_returns_the_wrong_type(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: str,
        replay: ReplayServer) -> None:
    write_module(tmp_path, monkeypatch, "invented_source", MODULE, "InventedAgent")
    write_module(tmp_path, monkeypatch, "invented_broken", '''
        from invented_source import InventedAgent

        class Broken(InventedAgent):
            def _search(self, request):
                return super()._search(request).works
        ''', "Broken")
    monkeypatch.setenv(ENDPOINT_ENV, index)
    registry.refresh()
    try:
        report = review(QUESTION, sources=["pubmed", "invented"], max_iterations=1, full_text=0)
    finally:
        registry.refresh()
    (failed,) = [entry for entry in report.search_log if entry.source == "invented"]
    assert failed.status == "error" and "Broken._search returned list" in (failed.error or "")
    assert report.papers and all(paper.sources == ["pubmed"] for paper in report.papers)


DECLARATION_MISTAKES = {
    "name with a space": ('name = "invented index"', "declares name 'invented index'"),
    "name of a graph node": ('name = "retrieval"', "which is a node of the graph itself"),
    "order as text": ('order = "15"', "declares order '15': an int"),
    "unknown domain": ('domains = frozenset({"biomed"})', "declares unknown domains ['biomed']"),
    "empty label": ('label = ""', "declares label ''"),
}


@pytest.mark.parametrize("mistake", sorted(DECLARATION_MISTAKES))
def test_a_declaration_mistake_is_one_line_naming_the_module(
        mistake: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    line, message = DECLARATION_MISTAKES[mistake]
    write_module(tmp_path, monkeypatch, "invented_source", MODULE, "InventedAgent")
    dotted = write_module(tmp_path, monkeypatch, "invented_wrong", f'''
        from invented_source import InventedAgent

        class Wrong(InventedAgent):
            {line}
        ''', "Wrong")
    registry.refresh()
    try:
        with pytest.raises(ConfigurationError) as raised:
            registry.source_names()
    finally:
        registry.refresh()
    assert str(raised.value).startswith(f"{registry.SOURCES_ENV}: {dotted} ")
    assert message in str(raised.value)


def test_a_module_without_search_is_refused_on_the_command_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    write_module(tmp_path, monkeypatch, "invented_unfinished", '''
        from scholargraph.sources.base import SourceAgent

        class Unfinished(SourceAgent):
            name = "unfinished"
            order = 15
            label = "Unfinished"
            domains = frozenset({"biomedical"})
        ''', "Unfinished")
    registry.refresh()
    try:
        code = main(["review", QUESTION, "--offline", "--out", str(tmp_path / "out")])
    finally:
        registry.refresh()
    error = capsys.readouterr().err.strip()
    assert code == 2
    assert error == ("scholargraph: error: SCHOLARGRAPH_SOURCES: invented_unfinished:Unfinished "
                     "does not implement _search (a SearchRequest in, a SourceResult out)")


def test_the_reserved_names_are_the_graphs_own_nodes() -> None:
    nodes = set(build_graph().compile().get_graph().nodes)
    assert nodes - set(registry.source_names()) == registry.GRAPH_NODES


def test_a_module_whose_agent_cannot_be_made_says_so_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer,
        capsys: pytest.CaptureFixture[str]) -> None:
    write_module(tmp_path, monkeypatch, "invented_source", MODULE, "InventedAgent")
    dotted = write_module(tmp_path, monkeypatch, "invented_unmade", '''
        from invented_source import InventedAgent

        class Unmade(InventedAgent):
            def __init__(self, settings=None):
                raise FileNotFoundError("invented.toml")
        ''', "Unmade")
    registry.refresh()
    try:
        code = main(["review", QUESTION, "--sources", "pubmed,invented", "--max-iterations",
                     "1", "--out", str(tmp_path / "out")])
    finally:
        registry.refresh()
    assert code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"scholargraph: error: source 'invented' ({dotted}, SCHOLARGRAPH_SOURCES) could not be "
        "made: FileNotFoundError: invented.toml")


def test_a_failing_query_writer_is_named_not_an_index_error_from_the_graph(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``build_query`` runs in the query-generation node, outside the search: its bug stops the
    run (exit 1) with one line naming the method, not 'IndexError: list index out of range'."""
    write_module(tmp_path, monkeypatch, "invented_source", MODULE, "InventedAgent")
    write_module(tmp_path, monkeypatch, "invented_query", '''
        from invented_source import InventedAgent

        class Careless(InventedAgent):
            def build_query(self, terms, intent):
                return terms[99]
        ''', "Careless")
    monkeypatch.setenv(ENDPOINT_ENV, index)
    registry.refresh()
    try:
        code = main(["review", QUESTION, "--offline", "--sources", "pubmed,invented",
                     "--max-iterations", "1", "--out", str(tmp_path / "out")])
    finally:
        registry.refresh()
    assert code == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "scholargraph: failed: invented_query.Careless.build_query failed: IndexError: list "
        "index out of range")
    assert not InventedIndex.queries
