"""The shared HTTP policy, over real HTTP against the loopback replay server."""

from __future__ import annotations

import logging

import pytest
import requests

from scholargraph.errors import SourceResponseError, SourceUnavailable
from scholargraph.settings import Settings
from scholargraph.testing import Fault, ReplayServer
from scholargraph.tools import http

W_ID = "W2741809807"


def test_rate_scale_speeds_up_mirrors_only(replay: ReplayServer, monkeypatch, caplog) -> None:
    assert http.rate_scale("arxiv") == 1000.0
    assert http.policy("arxiv").rates[0].interval == 3  # 3,000 ms / 1,000

    monkeypatch.setenv("SCHOLARGRAPH_ARXIV_URL", "https://export.arxiv.org/api/query")
    monkeypatch.setattr(http, "_warned_scale", set())
    with caplog.at_level(logging.WARNING, logger="scholargraph.tools.http"):
        assert http.rate_scale("arxiv") == 1.0
    assert "official service" in caplog.text
    assert http.policy("arxiv").rates[0].interval == 3000


def test_rate_scale_ignores_nonsense(monkeypatch) -> None:
    monkeypatch.setenv("SCHOLARGRAPH_OPENALEX_URL", "http://127.0.0.1:9/openalex")
    for value in ("fast", "-2", "0"):
        monkeypatch.setenv(http.RATE_SCALE_ENV, value)
        assert http.rate_scale("openalex") == 1.0
    monkeypatch.delenv(http.RATE_SCALE_ENV)
    assert http.rate_scale("openalex") == 1.0


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
