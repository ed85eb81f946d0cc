"""The shared HTTP policy, over real HTTP against the loopback replay server."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator

import pytest
import requests

from scholargraph.errors import ConfigurationError, SourceResponseError, SourceUnavailable
from scholargraph.http import policy as http
from scholargraph.settings import Settings, get_settings
from scholargraph.sources import registry
from scholargraph.sources.base import SearchRequest, SourceAgent, SourceResult
from scholargraph.testing import Fault, ReplayRequest, ReplayResponse, ReplayServer, fixture_bytes

W_ID = "W2741809807"
WORK_FILE = "openalex/openalex-python_W2741809807.json"


def test_rate_scale_speeds_up_mirrors_only(replay: ReplayServer, monkeypatch, caplog) -> None:
    import scholargraph.sources.arxiv  # noqa: F401  declares arXiv's endpoint, run first or alone
    assert http.rate_scale("arxiv") == 1000.0
    assert http.policy("arxiv").rates[0].interval == 3  # 3,000 ms / 1,000

    monkeypatch.setenv("SCHOLARGRAPH_ARXIV_URL", "https://export.arxiv.org/api/query")
    monkeypatch.setattr(http, "_warned_scale", set())
    with caplog.at_level(logging.WARNING, logger="scholargraph.http.policy"):
        assert http.rate_scale("arxiv") == 1.0
    assert "official service" in caplog.text
    assert http.policy("arxiv").rates[0].interval == 3000


def test_rate_scale_ignores_nonsense(monkeypatch) -> None:
    monkeypatch.setenv("SCHOLARGRAPH_OPENALEX_URL", "http://127.0.0.1:9/openalex")
    for value in ("-2", "0"):
        monkeypatch.setenv(http.RATE_SCALE_ENV, value)
        assert http.rate_scale("openalex") == 1.0
    monkeypatch.delenv(http.RATE_SCALE_ENV)
    assert http.rate_scale("openalex") == 1.0


def test_a_variable_that_does_not_parse_is_named(monkeypatch, capsys) -> None:
    from scholargraph.cli import main

    monkeypatch.setenv(http.RATE_SCALE_ENV, "fast")
    with pytest.raises(ConfigurationError, match="SCHOLARGRAPH_RATE_SCALE='fast'"):
        get_settings()
    assert main(["review", "machine learning", "--out", "out"]) == 2
    assert "SCHOLARGRAPH_RATE_SCALE='fast'" in capsys.readouterr().err


def test_unknown_services_and_live_web_are_never_scaled(replay: ReplayServer, monkeypatch) -> None:
    assert http.rate_scale("europepmc") == 1.0
    monkeypatch.delenv("SCHOLARGRAPH_WEB_MIRROR", raising=False)
    assert http.rate_scale("web") == 1.0


def test_ncbi_key_raises_the_pubmed_rate(monkeypatch) -> None:
    monkeypatch.delenv("NCBI_API_KEY", raising=False)
    monkeypatch.delenv(http.RATE_SCALE_ENV, raising=False)
    assert http.policy("pubmed").rates[0].limit == 3
    monkeypatch.setenv("NCBI_API_KEY", "k" * 36)
    assert http.policy("pubmed").rates[0].limit == 10


def test_one_limiter_per_service_and_rates() -> None:
    settings = Settings()
    assert http.limiter("openalex", settings) is http.limiter("openalex", settings)
    assert http.limiter("openalex", settings) is not http.limiter("arxiv", settings)


def test_limiter_spaces_requests(replay: ReplayServer, monkeypatch) -> None:
    monkeypatch.setenv(http.RATE_SCALE_ENV, "30")  # arXiv: one request per 100 ms
    session = http.http_session("arxiv")
    for _ in range(3):
        session.get(f"{replay.url}/arxiv/api/query", params={"id_list": "1605.08386"})
    assert replay.count("arxiv") == 3
    assert all(gap >= 0.09 for gap in replay.gaps("arxiv"))


def test_server_error_is_retried_then_succeeds(replay: ReplayServer) -> None:
    replay.inject("openalex", Fault("500"))
    response = http.http_session("openalex").get(f"{replay.url}/openalex/works/{W_ID}")
    assert response.status_code == 200
    assert response.json()["id"].endswith(W_ID)
    assert replay.count("openalex") == 2


def test_retries_are_bounded(replay: ReplayServer) -> None:
    replay.inject("openalex", Fault("500", times=-1))
    response = http.http_session("openalex").get(f"{replay.url}/openalex/works/{W_ID}")
    assert response.status_code == 500
    assert replay.count("openalex") == http.policy("openalex").max_retries + 1


def test_retry_after_is_honoured(replay: ReplayServer) -> None:
    replay.inject("openalex", Fault("429", retry_after=1))
    response = http.http_session("openalex").get(f"{replay.url}/openalex/works/{W_ID}")
    assert response.status_code == 200
    assert replay.gaps("openalex")[0] >= 0.95


def test_long_retry_after_gives_up_at_once(replay: ReplayServer) -> None:
    replay.inject("openalex", Fault("429", retry_after=3600))
    response = http.http_session("openalex").get(f"{replay.url}/openalex/works/{W_ID}")
    assert response.status_code == 429
    assert replay.count("openalex") == 1


def test_hang_times_out_after_bounded_retries(replay: ReplayServer, monkeypatch) -> None:
    monkeypatch.setenv("SCHOLARGRAPH_TIMEOUT", "0.2")
    replay.inject("openalex", Fault("hang", times=-1, seconds=1.0))
    with pytest.raises(requests.Timeout):
        http.http_session("openalex").get(f"{replay.url}/openalex/works/{W_ID}")
    assert replay.count("openalex") == http.policy("openalex").max_retries + 1


def test_rewrite_sends_official_urls_to_the_endpoint(replay: ReplayServer) -> None:
    session = http.http_session(
        "openalex", rewrite=("https://api.openalex.org", f"{replay.url}/openalex"))
    response = session.get(f"https://api.openalex.org/works/{W_ID}")
    assert response.status_code == 200
    assert replay.requests[-1].path == f"/works/{W_ID}"
    assert response.request.headers["User-Agent"] == Settings().user_agent


def test_translate_errors_types_and_redacts(monkeypatch) -> None:
    key = "secret-key-0123456789"
    monkeypatch.setenv("NCBI_API_KEY", key)
    with pytest.raises(SourceUnavailable) as unavailable, http.translate_errors("pubmed"):
        raise requests.ConnectionError(f"Max retries exceeded with url: /esearch?api_key={key}")
    assert key not in str(unavailable.value)
    assert unavailable.value.__cause__ is None

    refused = requests.HTTPError("400 Client Error")
    refused.response = requests.Response()
    refused.response.status_code = 400
    with pytest.raises(SourceResponseError), http.translate_errors("pubmed"):
        raise refused


def test_secret_filter_scrubs_log_records(monkeypatch, caplog) -> None:
    key = "another-secret-987654"
    monkeypatch.setenv("OPENALEX_API_KEY", key)
    http.install_secret_filter()
    with caplog.at_level(logging.DEBUG, logger="urllib3.connectionpool"):
        logging.getLogger("urllib3.connectionpool").debug('"GET /works?api_key=%s HTTP/1.1"', key)
    assert caplog.records
    assert key not in caplog.text
    assert "***" in caplog.text


def test_page_fetches_are_scaled_only_through_a_mirror(replay: ReplayServer, monkeypatch) -> None:
    assert http.rate_scale("web:example.org") == 1000.0
    monkeypatch.delenv("SCHOLARGRAPH_WEB_MIRROR")
    assert http.rate_scale("web:example.org") == 1.0


# Declared politeness: a source's manners as data on its class, applied by name.


class Recorded:
    """A service answering every request with one real recorded OpenAlex work, padded with
    trailing whitespace (still valid JSON) to ``size`` bytes when asked."""

    def __init__(self, prefix: str, size: int = 0) -> None:
        self.prefix = prefix
        self.size = size

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        return ReplayResponse(body=fixture_bytes(WORK_FILE).ljust(self.size))


def declare(monkeypatch: pytest.MonkeyPatch, name: str, politeness: http.Politeness) -> None:
    """Register a source agent named ``name`` declaring ``politeness``, as a plug-in would be."""

    class Declared(SourceAgent):
        order = 99
        label = name
        domains = frozenset({"general"})

        def _search(self, request: SearchRequest) -> SourceResult:
            return SourceResult()

    Declared.name = name
    Declared.politeness = politeness
    module = type(sys)("declared_plugin")
    module.Declared = Declared
    monkeypatch.setitem(sys.modules, "declared_plugin", module)
    monkeypatch.setenv(registry.SOURCES_ENV, "declared_plugin:Declared")
    registry.refresh()
    registry.agent_classes()  # read, as building the graph reads it: the declaration is made


@pytest.fixture(autouse=True)
def fresh_registry() -> Iterator[None]:
    """Whatever a test registered is forgotten after it."""
    yield
    registry.refresh()


def test_a_declared_politeness_is_applied_by_name(monkeypatch) -> None:
    monkeypatch.delenv("EXAMPLE_TOKEN", raising=False)
    declare(monkeypatch, "declared", http.Politeness(
        requests=4, per_seconds=2.0, keyed_requests=8, key_env="EXAMPLE_TOKEN", timeout_s=5.0,
        max_retries=1, backoff_s=0.5, max_response_bytes=1000))
    rules = http.policy("declared")
    assert (rules.rates[0].limit, rules.rates[0].interval) == (4, 2000)
    assert (rules.timeout_s, rules.max_retries, rules.backoff_s) == (5.0, 1, 0.5)
    assert rules.max_response_bytes == 1000
    monkeypatch.setenv("EXAMPLE_TOKEN", "t" * 20)
    assert http.policy("declared").rates[0].limit == 8
    monkeypatch.setenv("SCHOLARGRAPH_TIMEOUT", "2")
    assert http.policy("declared").timeout_s == 2.0  # the project's timeout bounds every service


def test_built_in_services_keep_their_published_limits() -> None:
    settings = Settings(ncbi_api_key=None, timeout_s=30.0)
    assert [http.policy(name, settings).rates[0].limit
            for name in ("pubmed", "arxiv", "openalex", "materials", "web")] == [3, 1, 10, 5, 1]
    assert http.policy("pubmed", Settings(ncbi_api_key="k" * 36)).rates[0].limit == 10
    assert http.policy("pubmed", settings).max_response_bytes == 64 * http.MiB
    assert http.policy("openalex", settings).max_response_bytes == http.DEFAULT_MAX_RESPONSE_BYTES
    assert http.politeness("europepmc") is http.DEFAULT_POLITENESS
    assert http.politeness("web:example.org") is http.PAGE_POLITENESS


@pytest.mark.parametrize("fields, message", [
    ({"requests": 0}, "requests must be at least 1"),
    ({"requests": 2, "keyed_requests": 5}, "needs the key_env"),
    ({"requests": 2, "keyed_requests": 1, "key_env": "K"}, "may not be below"),
    ({"requests": 2, "max_response_bytes": 0}, "max_response_bytes must be positive"),
])
def test_a_nonsensical_declaration_says_what_is_wrong(fields, message) -> None:
    with pytest.raises(ConfigurationError, match=message):
        http.Politeness(**fields)


def test_a_declared_timeout_and_retries_bound_a_hanging_service(replay: ReplayServer,
                                                                 monkeypatch) -> None:
    declare(monkeypatch, "slow", http.Politeness(requests=50, timeout_s=0.2, max_retries=1))
    replay.add_handler(Recorded("slow"))
    replay.inject("slow", Fault("hang", times=-1, seconds=1.0))
    with pytest.raises(requests.Timeout):
        http.http_session("slow").get(f"{replay.url}/slow/works/{W_ID}")
    assert replay.count("slow") == 2  # one request, one declared retry


def test_an_answer_announcing_more_than_the_cap_is_refused_unread(replay: ReplayServer,
                                                                  monkeypatch) -> None:
    declare(monkeypatch, "bulky", http.Politeness(requests=50, max_response_bytes=64 * 1024))
    replay.add_handler(Recorded("bulky", size=200 * 1024))
    with pytest.raises(SourceResponseError, match=r"larger than the 0\.1 MiB.*announced 0\.2 MiB"
                       ) as refused, http.translate_errors("bulky"):
        http.http_session("bulky").get(f"{replay.url}/bulky/works/{W_ID}")
    assert "ask for fewer results" in refused.value.message
    assert replay.count("bulky") == 1  # refused, not retried


def test_an_answer_inflating_past_the_cap_is_refused_while_read(replay: ReplayServer) -> None:
    """Compressed, 33 MiB of JSON fit in a few kilobytes: only reading them shows the size."""
    cap = http.policy("openalex").max_response_bytes
    replay.inject("openalex", Fault("oversized", size=cap + http.MiB))
    with pytest.raises(SourceResponseError, match=r"larger than the 32\.0 MiB.*read before"):
        http.http_session("openalex").get(f"{replay.url}/openalex/works/{W_ID}")
    assert replay.count("openalex") == 1


def test_an_answer_within_the_cap_is_read_whole_and_cached(replay: ReplayServer,
                                                          monkeypatch) -> None:
    monkeypatch.delenv("SCHOLARGRAPH_NO_CACHE")
    replay.inject("openalex", Fault("oversized", size=2 * http.MiB))  # gzip, within the cap
    first = http.http_session("openalex").get(f"{replay.url}/openalex/works/{W_ID}")
    again = http.http_session("openalex").get(f"{replay.url}/openalex/works/{W_ID}")
    assert first.json()["id"].endswith(W_ID) and len(first.content) == 2 * http.MiB
    assert again.from_cache and again.json() == first.json()
    assert replay.count("openalex") == 1


# source -> (replay service, path of its search answers, query)
BUILT_IN_SEARCHES = {
    "pubmed": ("pubmed", None, "genetic variants screening"),
    "arxiv": ("arxiv", None, "testing"),
    "openalex": ("openalex", None, "machine learning"),
    "materials": ("mp", "/materials/summary", "formula=TiO2"),
}


@pytest.mark.parametrize("source", BUILT_IN_SEARCHES)
def test_built_in_sources_refuse_an_oversized_answer(replay: ReplayServer, monkeypatch,
                                                     source: str) -> None:
    """Each client meets the cap inside its own library and comes out with the typed error the
    review records in its search log."""
    service, path, query = BUILT_IN_SEARCHES[source]
    monkeypatch.setenv("MP_API_KEY", "oversize0test0key" + "0" * 15)
    cap = http.policy(source).max_response_bytes
    replay.inject(service, Fault("oversized", times=-1, size=cap + http.MiB, path=path))
    with pytest.raises(SourceResponseError, match="larger than"):
        registry.get_agent(source).search(SearchRequest(query=query, limit=5))
