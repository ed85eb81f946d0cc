"""The review of a LangGraph Studio or Server thread, written as ``scholargraph review`` writes it.

A run in Studio (``langgraph dev``) or on a LangGraph Server ends with its state in the server's
thread: the findings, papers and passages are there, but no file is written (the server has no
``--out``, and the graph leaves writing to its callers). ``scholargraph thread THREAD_ID --out
DIR`` reads the thread's state and its run's context over the server's HTTP API and writes the
same nine files, so a run watched in Studio gives a review to read and cite.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

import requests
from pydantic import TypeAdapter, ValidationError

from scholargraph.context import ReviewContext
from scholargraph.errors import InputError, ScholargraphError
from scholargraph.report import Report, report_from_state
from scholargraph.state import ReviewState

DEFAULT_SERVER = "http://127.0.0.1:2024"
"""Where ``langgraph dev`` listens unless told otherwise."""
TIMEOUT = 30
"""Seconds one request to the server may take."""


class ThreadUnavailable(ScholargraphError):
    """The server could not be reached, or has no finished review under that thread."""


def thread_report(values: Mapping[str, Any], context: Mapping[str, Any]) -> Report:
    """The report of a finished thread from its state's values and its run's context, both as
    the server's API gives them (JSON): the state is read back into the graph's own types, the
    context's fields into :class:`ReviewContext` (what it does not know, a server's own keys,
    is left out)."""
    if "draft" not in values:
        raise ThreadUnavailable("the thread holds no finished review (no draft in its state)")
    try:
        state = TypeAdapter(ReviewState).validate_python(dict(values))
    except ValidationError as error:
        raise ThreadUnavailable(f"the thread's state is not a scholargraph review: {error}") \
            from None
    known = {field.name for field in fields(ReviewContext) if field.name != "chat_model"}
    run_context = ReviewContext(**{key: value for key, value in context.items() if key in known})
    return report_from_state(state["question"], state, run_context)


def fetch_thread(server: str, thread_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The thread's state values and the context its last run was given (over the assistant's
    own), from the server at ``server``."""
    state = _get(server, f"/threads/{thread_id}/state")
    if state.get("next"):
        raise ThreadUnavailable(f"the thread's run has not finished: it waits at "
                                f"{', '.join(state['next'])}")
    runs = _get(server, f"/threads/{thread_id}/runs", params={"limit": 1})
    if not runs:
        raise ThreadUnavailable(f"thread {thread_id} has no run")
    (run,) = runs
    assistant = _get(server, f"/assistants/{run['assistant_id']}")
    context = {**(assistant.get("context") or {}), **(run["kwargs"].get("context") or {})}
    return state.get("values") or {}, context


def _get(server: str, path: str, params: Mapping[str, Any] | None = None) -> Any:
    url = server.rstrip("/") + path
    try:
        response = requests.get(url, params=params, timeout=TIMEOUT)
    except requests.ConnectionError:
        raise ThreadUnavailable(f"no server answers at {server} (is langgraph dev running? "
                                "give its address with --server)") from None
    except requests.RequestException as error:
        raise ThreadUnavailable(f"{url}: {error}") from None
    if response.status_code in (404, 422):  # unknown id; not an id at all
        raise InputError(f"{server} has no thread {path.split('/')[2]!r} (is the id right, and "
                         "the server the one that ran it?)")
    if not response.ok:
        raise ThreadUnavailable(f"{url}: HTTP {response.status_code}")
    return response.json()
