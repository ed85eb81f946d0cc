"""LangGraph Studio's engine: `langgraph dev` loads the graph and runs a review over its API."""

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "What is known about genetic variants and screening?"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_up(client, process, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"langgraph dev exited with {process.returncode}")
        try:
            client.assistants.search()
            return
        except Exception:  # noqa: BLE001 - not listening yet
            time.sleep(1)
    raise AssertionError("langgraph dev did not answer in time")


@pytest.mark.slow
def test_langgraph_dev_runs_a_review_through_the_sdk(replay, tmp_path):
    langgraph = shutil.which("langgraph", path=str(Path(sys.executable).parent))
    assert langgraph, "langgraph-cli is part of the dev extra"
    from langgraph_sdk import get_sync_client

    port = free_port()
    log = (tmp_path / "server.log").open("w")
    process = subprocess.Popen(
        [langgraph, "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port",
         str(port), "--config", str(ROOT / "langgraph.json")],
        cwd=ROOT, env={**os.environ, "LANGSMITH_TRACING": "false"}, stdout=log,
        stderr=subprocess.STDOUT)
    try:
        client = get_sync_client(url=f"http://127.0.0.1:{port}")
        wait_until_up(client, process)
        (assistant,) = client.assistants.search(graph_id="scholargraph")
        result = client.runs.wait(None, assistant["assistant_id"], input={"question": QUESTION},
                                  context={"sources": ["pubmed", "openalex"]})
        approved = approve_through_sdk(client, assistant["assistant_id"])
        side_by_side = two_threads_with_their_own_endpoints(client, assistant["assistant_id"])
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert result["question"] == QUESTION
    assert {"pubmed", "openalex"} <= {s for p in result["papers"] for s in p["sources"]}
    assert result["draft"]["findings"] and result["evaluation"]["verdict"] in (
        "accept", "more_evidence", "refilter")
    assert {entry["source"] for entry in result["search_log"]} == {"pubmed", "openalex"}
    assert replay.count("pubmed") and replay.count("openalex") and not replay.count("arxiv")
    assert [s["text"] for s in approved["sub_questions"]] == ["Which genetic variants?"]
    assert {entry["source"] for entry in approved["search_log"]} == {"openalex"}
    for label, state in side_by_side.items():
        assert state["papers"], label
        assert all(p["title"].startswith(f"{label}: ") for p in state["papers"]), label


def two_threads_with_their_own_endpoints(client, assistant_id: str) -> dict[str, dict]:
    """Two threads run at once on the one server, each context naming its own OpenAlex: each
    gets only its own server's records."""
    from test_concurrent_runs import QUESTION as OPENALEX_QUESTION
    from test_concurrent_runs import retitled_openalex

    from scholargraph.testing import ReplayServer

    with ReplayServer([retitled_openalex("First")]) as first, \
            ReplayServer([retitled_openalex("Second")]) as second:
        started = {}
        for label, server in (("First", first), ("Second", second)):
            thread = client.threads.create()
            context = {"sources": ["openalex"], "max_iterations": 1,
                       "settings": {"openalex_url": f"{server.url}/openalex",
                                    "rate_scale": 1000}}
            run = client.runs.create(thread["thread_id"], assistant_id,
                                     input={"question": OPENALEX_QUESTION}, context=context)
            started[label] = (thread["thread_id"], run["run_id"])
        states = {label: client.runs.join(thread_id, run_id)
                  for label, (thread_id, run_id) in started.items()}
        assert first.count("openalex") and second.count("openalex")
    return states


def approve_through_sdk(client, assistant_id: str) -> dict:
    """Plan approval as Studio does it: the run pauses, the thread shows the interrupt, and a
    ``Command(resume=...)`` continues it."""
    thread = client.threads.create()
    context = {"sources": ["pubmed", "openalex"], "approve_plan": True}
    client.runs.wait(thread["thread_id"], assistant_id, input={"question": QUESTION},
                     context=context)
    state = client.threads.get_state(thread["thread_id"])
    (interrupt,) = state["interrupts"]
    assert interrupt["value"]["sources"] == ["pubmed", "openalex"]
    assert state["next"] == ["approve_plan"]
    decision = {"action": "edit", "sub_questions": ["Which genetic variants?"],
                "sources": ["openalex"]}
    return client.runs.wait(thread["thread_id"], assistant_id, command={"resume": decision},
                            context=context)
