"""LangGraph Studio's engine: `langgraph dev` loads the graph and runs a review over its API."""

import json
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
        approved, approved_thread = approve_through_sdk(client, assistant["assistant_id"])
        side_by_side = two_threads_with_their_own_endpoints(client, assistant["assistant_id"])
        from scholargraph.cli import main

        written = main(["thread", approved_thread, "--server", f"http://127.0.0.1:{port}",
                        "--out", str(tmp_path / "thread")])
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
    assert written == 0
    review = json.loads((tmp_path / "thread" / "review.json").read_text())
    assert [s["text"] for s in review["sub_questions"]] == ["Which genetic variants?"]
    assert review["papers"] and [p["id"] for p in review["papers"]] == [
        p["id"] for p in approved["papers"]]
    # the exported summary opens with the question as read, then the thread's own draft summary
    asks, _, rest = review["summary"].partition(". ")
    assert asks.startswith("This review asks ") and rest.startswith(approved["draft"]["summary"])
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


def approve_through_sdk(client, assistant_id: str) -> tuple[dict, str]:
    """Plan approval as Studio does it: the run pauses, the thread shows the interrupt, and a
    ``Command(resume=...)`` continues it. The run's output and its thread's id."""
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
                            context=context), thread["thread_id"]


def test_the_corpus_served_for_studio_answers_a_run_given_the_context_it_prints(
        shared_store, monkeypatch):
    """``python -m scholargraph.testing`` is Studio's ``--offline``: the context it prints, given
    to a run as Studio gives it (JSON), sends every search to the recorded corpus."""
    monkeypatch.setenv("SCHOLARGRAPH_STORE", str(shared_store))
    process = subprocess.Popen([sys.executable, "-m", "scholargraph.testing", "--port", "0"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        printed: list[str] = []
        while not printed or printed[-1] != "}":
            line = process.stdout.readline()
            assert line, f"the server stopped: {process.stderr.read()}"
            printed.append(line.rstrip("\n"))
        context = json.loads("\n".join(printed))
        from scholargraph.graph import compile_graph

        state = compile_graph().invoke(
            {"question": "machine learning for public health surveillance"},
            context={**context, "sources": ["openalex"], "max_iterations": 1})
    finally:
        process.terminate()
        process.wait(timeout=30)
    served = context["settings"]["SCHOLARGRAPH_OPENALEX_URL"]
    assert served.startswith("http://127.0.0.1:")
    assert state["papers"] and state["draft"].findings
    assert {entry.status for entry in state["search_log"]} == {"ok"}
    assert all(sent.startswith(f"GET {served}/works")
               for entry in state["search_log"] for sent in entry.sent)


def test_a_threads_state_as_the_server_gives_it_writes_the_review_a_run_writes(replay, tmp_path):
    """``scholargraph thread``: the state of a finished run, as JSON (what the server's API
    answers) with the context the run was given, writes the files the typed state writes, in
    the run's citation style."""
    from pydantic import TypeAdapter

    from scholargraph.context import ReviewContext
    from scholargraph.graph import compile_graph
    from scholargraph.report import report_from_state
    from scholargraph.state import ReviewState
    from scholargraph.studio import ThreadUnavailable, thread_report

    context = {"sources": ["pubmed", "openalex"], "max_iterations": 1, "citation_style": "ieee"}
    state = compile_graph().invoke({"question": QUESTION}, context=context)
    values = json.loads(json.dumps(TypeAdapter(ReviewState).dump_python(state, mode="json")))
    from_json = thread_report(values, {**context, "langgraph_request_id": "a server's own key"})
    typed = report_from_state(QUESTION, state, ReviewContext(**context))
    written = from_json.write(tmp_path / "thread")
    typed.write(tmp_path / "typed")
    assert from_json.findings and from_json.citation_style == "ieee"
    for name in written:
        if name not in ("review.json", "review.md", "review.html"):  # they carry the time
            assert (tmp_path / "thread" / name).read_bytes() == \
                (tmp_path / "typed" / name).read_bytes(), name
    assert json.loads(from_json.to_json())["findings"] == json.loads(typed.to_json())["findings"]
    with pytest.raises(ThreadUnavailable, match="no finished review"):
        thread_report({"question": QUESTION}, context)
