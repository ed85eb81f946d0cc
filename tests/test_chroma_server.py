"""The vector store on a Chroma server (``CHROMA_HOST``), started with ``chroma run`` on
loopback."""

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import chromadb
import pytest

from scholargraph import review

QUESTION = "machine learning for public health surveillance"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def chroma_server(tmp_path):
    chroma = shutil.which("chroma", path=str(Path(sys.executable).parent))
    assert chroma, "chromadb installs the `chroma` command"
    port = free_port()
    process = subprocess.Popen([chroma, "run", "--path", str(tmp_path / "server-data"),
                                "--host", "127.0.0.1", "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            client = chromadb.HttpClient(host="127.0.0.1", port=port)
            client.heartbeat()
            break
        except Exception:  # noqa: BLE001 - not listening yet
            client = None
            time.sleep(0.5)
    assert client is not None, "chroma run did not start"
    yield port, client
    process.terminate()
    process.wait(timeout=30)


@pytest.mark.slow
def test_review_stores_passages_on_the_chroma_server(replay, chroma_server, monkeypatch, tmp_path):
    port, client = chroma_server
    monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("CHROMA_PORT", str(port))
    report = review(QUESTION, sources=["openalex"], max_iterations=1)
    assert report.findings
    collections = client.list_collections()
    assert collections and sum(c.count() for c in collections) > 0
    home = Path(os.environ["SCHOLARGRAPH_HOME"])
    assert not (home / "chroma").exists()
