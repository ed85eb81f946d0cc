"""API keys reach the services that need them and nothing else: not logs, outputs, checkpoints,
caches or the search log."""

import os
import subprocess
import sys
from pathlib import Path

from scholargraph.testing import ReplayServer

KEYS = {
    "NCBI_API_KEY": "ncbiSECRETkey0123456789",
    "OPENALEX_API_KEY": "openalexSECRETkey0123456789",
    "MP_API_KEY": "mpSECRETkey0123456789abcdefghijk",  # mp_api wants 32 characters
}
QUESTION = "What is known about genetic variants, screening and TiO2?"


def sent_anywhere(server: ReplayServer, key: str) -> bool:
    for request in server.requests:
        blob = " ".join([str(request.params), str(request.headers), request.body.decode("latin-1")])
        if key in blob:
            return True
    return False


def files_containing(folder: Path, key: str) -> list[Path]:
    needle = key.encode()
    return [path for path in folder.rglob("*") if path.is_file() and needle in path.read_bytes()]


def test_keys_never_leak(tmp_path):
    home, out = tmp_path / "home", tmp_path / "out"
    with ReplayServer.default() as server, server.environment(
            SCHOLARGRAPH_HOME=str(home), SCHOLARGRAPH_RATE_SCALE="1000", **KEYS):
        done = subprocess.run(
            [sys.executable, "-m", "scholargraph.cli", "review", QUESTION, "--out", str(out),
             "--sources", "pubmed,openalex,materials", "--thread", "secrets", "--debug",
             "--events", "jsonl"],
            capture_output=True, text=True, env=os.environ, timeout=600, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        for name, key in KEYS.items():
            assert sent_anywhere(server, key), f"{name} was never sent: the check proves nothing"
    assert (home / "checkpoints.sqlite").exists()
    for name, key in KEYS.items():
        assert key not in done.stdout, name
        assert key not in done.stderr, name
        assert files_containing(out, key) == [], name
        assert files_containing(home, key) == [], name
