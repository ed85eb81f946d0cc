"""The live page under load answers, never errs: more reviews than places, every endpoint
polled while they run (issue 20: a review's fragment asked for before it had finished answered
500, ``'None' has no attribute 'question'``)."""

from __future__ import annotations

import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
import requests
import uvicorn

from scholargraph.testing import ReplayServer
from scholargraph.webapp import create_app

REVIEWS = 4
PLACES = 2
DEADLINE_S = 600
QUESTIONS = ("What is known about genetic variants and screening?",
             "How is telomere length related to cardiovascular risk?")


class _Checked(HTMLParser):
    """Parses a whole answer; an unparsable fragment raises."""


@pytest.fixture
def page(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    out_root = tmp_path / "reviews"
    with ReplayServer.default() as replay, replay.environment(
            SCHOLARGRAPH_HOME=str(tmp_path / "home"), SCHOLARGRAPH_RATE_SCALE="1000"):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        server = uvicorn.Server(uvicorn.Config(create_app(out_root=out_root,
                                                          max_running=PLACES),
                                               log_level="warning"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        while not server.started and thread.is_alive():
            time.sleep(0.02)
        host, port = sock.getsockname()
        try:
            yield f"http://{host}:{port}", out_root
        finally:
            server.should_exit = True
            thread.join(timeout=30)
            sock.close()


@pytest.mark.slow
def test_more_reviews_than_places_every_answer_well_formed(page: tuple[str, Path]) -> None:
    url, _ = page
    runs = []
    for number in range(REVIEWS):
        started = requests.post(f"{url}/reviews", json={
            "question": QUESTIONS[number % len(QUESTIONS)], "sources": ["pubmed", "openalex"]},
            timeout=30)
        assert started.status_code == 202, started.text
        runs.append(started.json())

    statuses: Counter[tuple[str, int]] = Counter()
    waiting_pages = 0
    deadline = time.monotonic() + DEADLINE_S
    finished: set[str] = set()
    while len(finished) < REVIEWS and time.monotonic() < deadline:
        for run in runs:
            base = f"{url}/reviews/{run['id']}"
            for name, address in (("index", f"{url}/"), ("page", base),
                                  ("fragment", f"{base}/review"),
                                  ("file", f"{base}/files/review.json")):
                answer = requests.get(address, timeout=60)
                statuses[(name, answer.status_code)] += 1
                assert answer.status_code in (200, 202, 404), (name, answer.status_code,
                                                               answer.text[:300])
                assert "Traceback" not in answer.text and "Internal Server Error" not in answer.text
                if name == "file":
                    assert answer.status_code in (200, 404)
                    if answer.status_code == 200:
                        assert answer.json()["question"]
                    continue
                _Checked().feed(answer.text)
                if answer.status_code == 202:
                    waiting_pages += 1
                    assert 'class="status"' in answer.text
                if name == "fragment" and answer.status_code == 200:
                    assert 'class="review"' in answer.text, answer.text[:300]
                    finished.add(run["id"])
        time.sleep(0.2)

    assert finished == {run["id"] for run in runs}, statuses
    assert waiting_pages > 0, statuses  # some answers came before their review had finished
    for run in runs:
        listed = requests.get(f"{url}/reviews/{run['id']}/files/review.md", timeout=30)
        assert listed.status_code == 200 and listed.text.strip()
