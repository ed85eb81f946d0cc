"""Checkpoints in Postgres (``SCHOLARGRAPH_CHECKPOINT_URL``), as on LangGraph Server deployments.

A throw-away PostgreSQL cluster is started on loopback for the test; it is skipped only where no
PostgreSQL server binaries are installed (CI's machine image has them).
"""

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

from scholargraph import review

QUESTION = "machine learning for public health surveillance"


def pg_bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def postgres_url():
    initdb, pg_ctl = pg_bin("initdb"), pg_bin("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip("PostgreSQL server binaries are not installed")
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    root = Path(tempfile.mkdtemp(prefix="scholargraph-pg-"))
    root.chmod(0o755)
    data = root / "data"
    if as_postgres:
        shutil.chown(root, "postgres", "postgres")
    port = free_port()
    subprocess.run([*as_postgres, initdb, "-D", str(data), "-A", "trust", "-U", "postgres"],
                   check=True, capture_output=True)
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1"
    subprocess.run([*as_postgres, pg_ctl, "-D", str(data), "-o", options, "-w", "-l",
                    str(root / "log"), "start"], check=True, capture_output=True)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_postgres, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, check=False)
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.slow
def test_runs_checkpoint_to_postgres_and_resume_from_it(replay, postgres_url, monkeypatch):
    import psycopg

    monkeypatch.setenv("SCHOLARGRAPH_CHECKPOINT_URL", postgres_url)
    monkeypatch.setenv("SCHOLARGRAPH_NO_CACHE", "1")
    first = review(QUESTION, sources=["openalex"], thread="pg-thread", max_iterations=1)
    sent = replay.count()
    again = review(QUESTION, sources=["openalex"], thread="pg-thread", max_iterations=1)
    assert replay.count() == sent
    assert [f.text for f in again.findings] == [f.text for f in first.findings]
    with psycopg.connect(postgres_url) as connection:
        (rows,) = connection.execute(
            "select count(*) from checkpoints where thread_id = 'pg-thread'").fetchone()
    assert rows > 5
    home = Path(os.environ["SCHOLARGRAPH_HOME"])
    assert not (home / "checkpoints.sqlite").exists()
