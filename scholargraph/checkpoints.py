"""Checkpoints of CLI and Python runs: a SQLite file under ``SCHOLARGRAPH_HOME``.

LangGraph checkpoints the state after every step, so a run killed mid-way resumes at the last
completed step. The serializer is told which of our record types it may rebuild from a checkpoint
(LangGraph refuses unknown types by default in strict mode). Studio and LangGraph Server bring
their own checkpointer; the exported graph compiles without one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from scholargraph import records, schemas

CHECKPOINT_FILE = "checkpoints.sqlite"


def checkpoint_types() -> list[tuple[str, str]]:
    """(module, class) of every pydantic record the state holds."""
    found = []
    for module in (records, schemas):
        for name, value in vars(module).items():
            if isinstance(value, type) and issubclass(value, records.Record) \
                    and value.__module__ == module.__name__:
                found.append((module.__name__, name))
    return sorted(found)


def serializer() -> JsonPlusSerializer:
    return JsonPlusSerializer(allowed_msgpack_modules=checkpoint_types())


@contextmanager
def sqlite_checkpointer(home: Path) -> Iterator[SqliteSaver]:
    """A SQLite checkpointer in ``home`` (created if needed)."""
    home.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(str(home / CHECKPOINT_FILE), check_same_thread=False)
    try:
        yield SqliteSaver(connection, serde=serializer())
    finally:
        connection.close()


def memory_checkpointer() -> InMemorySaver:
    """For runs that pause (plan approval) without a named thread."""
    return InMemorySaver(serde=serializer())
