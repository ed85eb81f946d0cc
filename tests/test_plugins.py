"""Pluggable source agents: the worked example under examples/crossref_source, registered by a
dotted path or by a real entry point, searched through the replay server, placed in the graph by
its declared order."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from scholargraph import review
from scholargraph.errors import ConfigurationError, SourceResponseError
from scholargraph.graph import build_graph
from scholargraph.http import policy as http
from scholargraph.sources import registry
from scholargraph.sources.base import SearchRequest
from scholargraph.testing import Fault, RateLimit, ReplayServer

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "crossref_source"
AGENT_PATH = "scholargraph_crossref.agent:CrossrefAgent"
BUILTIN_ORDER = ["pubmed", "arxiv", "openalex", "materials", "web"]


def around_crossref(names: list[str]) -> list[str]:
    """The plug-in and its neighbours in the tool loop (other built-ins may come and go)."""
    at = names.index("crossref")
    return names[at - 1:at + 2]


@pytest.fixture
def example_importable(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The example package importable (as if installed), and the registry read afresh."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    registry.refresh()
    yield
    registry.refresh()


@pytest.fixture
def registered(example_importable: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The example registered by a dotted path in SCHOLARGRAPH_SOURCES."""
    monkeypatch.setenv(registry.SOURCES_ENV, AGENT_PATH)


@pytest.fixture
def crossref(registered: None, tmp_path: Path) -> Iterator[ReplayServer]:
    """The replay server with the example's Crossref handler mounted beside the five."""
    from scholargraph_crossref.replay import CrossrefService

    with ReplayServer.default(extra=[CrossrefService()]) as server, server.environment(
            SCHOLARGRAPH_HOME=str(tmp_path / "home"), SCHOLARGRAPH_RATE_SCALE="1000"):
        yield server


def test_a_dotted_path_registers_the_agent_at_its_declared_order(registered: None) -> None:
    assert around_crossref(registry.source_names()) == ["openalex", "crossref", "materials"]
    assert registry.get_agent("crossref").order == 35


def test_the_graph_places_the_plug_in_without_being_edited(registered: None) -> None:
    graph = build_graph()
    tool_nodes = [name for name in graph.nodes if name in registry.source_names()]
    assert tool_nodes == registry.source_names()
    assert around_crossref(tool_nodes) == ["openalex", "crossref", "materials"]
    edges = {(edge.source, edge.target) for edge in graph.compile().get_graph().edges}
    assert {("openalex", "crossref"), ("crossref", "materials"), ("crossref", "retrieval"),
            ("query_generation", "crossref")} <= edges


def test_a_real_entry_point_registers_the_agent(example_importable: None, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """What pip writes for the example's pyproject.toml: a dist-info folder on sys.path."""
    assert "crossref" not in registry.source_names()
    site = tmp_path / "site"
    dist_info = site / "scholargraph_crossref-0.1.0.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: scholargraph-crossref\nVersion: 0.1.0\n")
    (dist_info / "entry_points.txt").write_text(
        f"[{registry.ENTRY_POINT_GROUP}]\ncrossref = {AGENT_PATH}\n")
    monkeypatch.syspath_prepend(str(site))

    registry.refresh()

    assert around_crossref(registry.source_names()) == ["openalex", "crossref", "materials"]
    assert type(registry.get_agent("crossref")).__module__ == "scholargraph_crossref.agent"


def test_the_example_declares_its_entry_point() -> None:
    import tomllib

    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    assert project["entry-points"][registry.ENTRY_POINT_GROUP] == {"crossref": AGENT_PATH}


def test_the_plug_in_searches_through_the_replay_server(crossref: ReplayServer) -> None:
    works = registry.get_agent("crossref").search(
        SearchRequest(query="large language models chemistry tools", limit=5)).works

    assert works[0].doi == "10.1038/s42256-024-00832-8"
    assert works[0].title == "Augmenting large language models with chemistry tools"
    assert works[0].authors[0] == "M. Bran, Andres" and works[0].year == 2024
    assert works[0].venue == "Nature Machine Intelligence" and works[0].cited_by_count == 232
    assert works[0].abstract.startswith("Large language models (LLMs)")
    [request] = crossref.requests
    assert request.service == "crossref" and request.path == "/works"
    assert request.param("query") == "large language models chemistry tools"
    assert request.param("rows") == "5" and "DOI" in request.param("select").split(",")


def test_the_plug_in_shares_the_http_policy(crossref: ReplayServer) -> None:
    """Retries with Retry-After, and a failure typed for the search log, come with the session."""
    crossref.inject("crossref", Fault("429", times=1, retry_after=0))
    agent = registry.get_agent("crossref")
    assert agent.search(SearchRequest(query="genetic variants screening", limit=5)).works
    assert crossref.count("crossref") == 2
    crossref.inject("crossref", Fault("malformed"))
    with pytest.raises(SourceResponseError):
        agent.search(SearchRequest(query="genetic variants", limit=5))


def test_the_example_declares_crossrefs_published_limits(registered: None,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from scholargraph_crossref.agent import CrossrefAgent

    monkeypatch.delenv("NCBI_EMAIL", raising=False)
    monkeypatch.delenv("SCHOLARGRAPH_CROSSREF_URL", raising=False)
    monkeypatch.setenv(http.RATE_SCALE_ENV, "1000")
    assert http.politeness("crossref") is CrossrefAgent.politeness
    public = http.policy("crossref")
    assert (public.rates[0].limit, public.rates[0].interval) == (1, 1000)  # not sped up: official
    monkeypatch.setenv("NCBI_EMAIL", "reviewer@example.org")  # sent as mailto: the polite pool
    assert http.policy("crossref").rates[0].limit == 3


def spaced_server(limit: RateLimit) -> ReplayServer:
    """The replay server with Crossref mounted and its rate limit enforced."""
    from scholargraph_crossref.replay import CrossrefService

    return ReplayServer.default(extra=[CrossrefService()], rate_limits={"crossref": limit})


@pytest.mark.parametrize("declared", [2, None],
                         ids=["plug-in-declaring-2-per-s", "example-as-shipped"])
def test_a_declared_rate_spaces_the_plug_ins_requests(registered: None,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     declared: int | None) -> None:
    """The server enforces the declared rate and records when each request arrived: none is
    refused, and no window of a second holds more than the declared number. The shipped example
    declares 1 a second, below the 2 a second given to sources that declare nothing, so only its
    own declaration keeps it within."""
    from scholargraph_crossref.agent import CrossrefAgent

    monkeypatch.delenv(http.RATE_SCALE_ENV, raising=False)
    monkeypatch.delenv("NCBI_EMAIL", raising=False)
    if declared is not None:
        monkeypatch.setattr(CrossrefAgent, "politeness", replace(
            CrossrefAgent.politeness, requests=declared))
    per_second = declared or CrossrefAgent.politeness.requests
    limit = RateLimit(per_second, 1.0)
    with spaced_server(limit) as server, server.environment():
        agent = registry.get_agent("crossref")
        for _ in range(per_second + 2):
            assert agent.search(SearchRequest(query="language models chemistry", limit=2)).works
    arrivals = [request.at for request in server.requests]
    assert len(arrivals) == per_second + 2 and server.violations("crossref") == 0
    assert all(later - earlier >= limit.per_seconds - limit.slack_s
               for earlier, later in zip(arrivals, arrivals[per_second:]))


def test_a_review_records_an_oversized_answer(crossref: ReplayServer) -> None:
    """A runaway answer (gzip: small on the wire, past the cap once decoded) is refused while it
    is read; the review records why in its search log and goes on."""
    cap = http.policy("crossref").max_response_bytes
    crossref.inject("crossref", Fault("oversized", times=-1, size=cap + http.MiB))
    report = review("How can large language models use chemistry tools?",
                    sources=["crossref"], max_results=5, max_iterations=1)
    entries = [entry for entry in report.search_log if entry.source == "crossref"]
    assert entries and all(entry.status == "error" for entry in entries)
    assert "larger than the 32.0 MiB one crossref answer may take" in entries[0].error
    assert [failure.source for failure in report.sources_failed] == ["crossref"]
    assert len(entries) == crossref.count("crossref")  # refused, not retried


def test_a_plug_ins_declared_secret_is_sent_and_kept_out_of_everything(
        crossref: ReplayServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The example's Metadata Plus token (declared in ``secret_envs`` and
    ``secret_parameters``) reaches Crossref, and nothing written: not the report, not the HTTP
    cache, not the checkpoints; errors and log lines that would quote it are scrubbed."""
    token = "plus-token-" + "7" * 24
    monkeypatch.setenv("CROSSREF_PLUS_TOKEN", token)
    monkeypatch.delenv("SCHOLARGRAPH_NO_CACHE")  # the cache is one of the places checked
    report = review("How can large language models use chemistry tools?",
                    sources=["crossref"], max_results=5, max_iterations=1)

    assert crossref.requests and all(
        request.headers.get("crossref-plus-api-token") == f"Bearer {token}"
        for request in crossref.requests)
    assert report.papers and token not in report.model_dump_json()
    stored = [path for path in (tmp_path / "home").rglob("*") if path.is_file()]
    assert any(path.name == "http-cache.sqlite" for path in stored), "no cache: proves nothing"
    assert [path for path in stored if token.encode() in path.read_bytes()] == []
    assert http.redact(f"403 for token {token}") == "403 for token ***"


def test_a_review_with_the_plug_in(crossref: ReplayServer) -> None:
    report = review("How can large language models use chemistry tools?",
                    sources=["crossref"], max_results=5, max_iterations=1)
    assert any(paper.doi == "10.1038/s42256-024-00832-8" and paper.sources == ["crossref"]
               for paper in report.papers)
    entries = [entry for entry in report.search_log if entry.source == "crossref"]
    assert entries and all(entry.status in ("ok", "empty") for entry in entries)
    assert len(entries) == crossref.count("crossref")
    assert report.prisma["identified"].get("crossref", 0) >= 1
    # a colleague's shell registers no plug-in and points it nowhere: the command does both
    assert report.run is not None
    words = shlex.split(report.run.command)
    variables = dict(word.split("=", 1) for word in words[:words.index("scholargraph")])
    assert variables["SCHOLARGRAPH_SOURCES"] == AGENT_PATH
    assert variables["SCHOLARGRAPH_CROSSREF_URL"] == report.run.endpoints[
        "SCHOLARGRAPH_CROSSREF_URL"]
    assert report.run.environment == variables


@pytest.mark.parametrize("value, message", [
    ("no_such_module:Agent", "cannot import no_such_module"),
    ("scholargraph.sources.pubmed", "not a 'package.module:Class' path"),
    ("scholargraph.sources.pubmed:NoSuchAgent", "has no NoSuchAgent"),
    ("scholargraph.records:Work", "not a SourceAgent subclass"),
])
def test_a_bad_plug_in_path_says_what_is_wrong(value: str, message: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(registry.SOURCES_ENV, value)
    with pytest.raises(ConfigurationError, match=message):
        registry.source_names()


def _register_as_module(monkeypatch: pytest.MonkeyPatch, module_name: str, agent: type) -> None:
    """``agent`` importable as ``module_name:<its class name>``, named in SCHOLARGRAPH_SOURCES."""
    module = type(sys)(module_name)
    setattr(module, agent.__name__, agent)
    monkeypatch.setitem(sys.modules, module_name, module)
    monkeypatch.setenv(registry.SOURCES_ENV, f"{module_name}:{agent.__name__}")


def test_a_plug_in_may_not_take_a_built_in_name(example_importable: None,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from scholargraph_crossref.agent import CrossrefAgent

    class Impostor(CrossrefAgent):
        name = "pubmed"

    _register_as_module(monkeypatch, "impostor_plugin", Impostor)
    with pytest.raises(ConfigurationError, match="reuses the name 'pubmed'"):
        registry.source_names()


def test_a_plug_in_politeness_must_be_declared_as_one(example_importable: None,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from scholargraph_crossref.agent import CrossrefAgent

    class Careless(CrossrefAgent):
        politeness = "100 requests a second"  # type: ignore[assignment]

    _register_as_module(monkeypatch, "careless_plugin", Careless)
    with pytest.raises(ConfigurationError, match="politeness is not a .*Politeness"):
        registry.source_names()


def test_without_plug_ins_the_five_remain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(registry.SOURCES_ENV, raising=False)
    names = registry.source_names()
    assert "crossref" not in names
    assert [name for name in names if name in BUILTIN_ORDER] == BUILTIN_ORDER


def test_a_built_in_source_that_cannot_import_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing dependency of a built-in source is not mistaken for a plug-in not installed."""
    import sys

    from scholargraph.sources import registry

    monkeypatch.delitem(sys.modules, "scholargraph.sources.web.agent")
    monkeypatch.setitem(sys.modules, "ddgs", None)  # as if it were not installed
    with pytest.raises(ConfigurationError) as raised:
        registry._load("scholargraph.sources.web.agent:WebAgent", registry.BUILT_IN)
    message = str(raised.value)
    assert "scholargraph's own source module scholargraph.sources.web.agent" in message
    assert "reinstall scholargraph" in message and "plug-in" not in message
