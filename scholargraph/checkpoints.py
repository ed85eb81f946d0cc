"""Checkpoints of CLI and Python runs: a SQLite file under ``SCHOLARGRAPH_HOME``, or Postgres.

LangGraph checkpoints the state after every step, so a run killed mid-way resumes at the last
completed step. The serializer is told which of our record types it may rebuild from a checkpoint
(LangGraph refuses unknown types by default in strict mode). Studio and LangGraph Server bring
their own checkpointer; the exported graph compiles without one.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from scholargraph import ledger, records
from scholargraph.agents import schemas
from scholargraph.errors import ConfigurationError
from scholargraph.settings import Settings

CHECKPOINT_FILE = "checkpoints.sqlite"
RUN_OPTIONS_DIR = "runs"
"""Beside the checkpoints: each named thread's options as its first start had them
(``runs/<digest of the thread>.json``), so that a thread resumed with other options is
refused instead of returning a review whose record names options it was not made with."""


def run_options_file(home: Path, thread: str) -> Path:
    """Where a thread's options are kept (its name hashed: a thread id may hold any
    character)."""
    digest = hashlib.sha256(thread.encode("utf-8")).hexdigest()[:32]
    return home / RUN_OPTIONS_DIR / f"{digest}.json"


def checkpoint_types() -> list[tuple[str, str]]:
    """(module, class) of every pydantic record the state holds."""
    found = []
    for module in (records, schemas, ledger):
        for name, value in vars(module).items():
            if isinstance(value, type) and issubclass(value, records.Record) \
                    and value.__module__ == module.__name__:
                found.append((module.__name__, name))
    return sorted(found)


def serializer() -> JsonPlusSerializer:
    return JsonPlusSerializer(allowed_msgpack_modules=checkpoint_types())


@contextmanager
def run_checkpointer(settings: Settings) -> Iterator[BaseCheckpointSaver]:
    """Postgres when ``SCHOLARGRAPH_CHECKPOINT_URL`` names one, else SQLite under the home."""
    if settings.checkpoint_url:
        with postgres_checkpointer(settings.checkpoint_url) as saver:
            yield saver
    else:
        with sqlite_checkpointer(settings.home) as saver:
            yield saver


@contextmanager
def postgres_checkpointer(url: str) -> Iterator[BaseCheckpointSaver]:
    """A Postgres checkpointer (tables created on first use); needs the ``postgres`` extra."""
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg import Connection
        from psycopg.rows import dict_row
    except ImportError as exc:
        raise ConfigurationError("SCHOLARGRAPH_CHECKPOINT_URL is a Postgres URL: install "
                                 "scholargraph[postgres]") from exc
    with Connection.connect(url, autocommit=True, prepare_threshold=0,
                            row_factory=dict_row) as connection:
        saver = PostgresSaver(connection, serde=serializer())
        saver.setup()
        yield saver


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
