"""Fetch the next page while the current one is being read.

Paged sources spend their time in two places: waiting for an answer, and turning the answer into
records (XML or JSON parsing, building :class:`~scholargraph.records.Work` objects). Done in turn,
the two add up; with the next page asked for on a worker thread while the caller reads the
current one, the parsing hides inside the wait. The limiter still spaces the requests, and only
one request is ever ahead, so nothing is fetched that the caller may not want.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar, cast

T = TypeVar("T")
_END = object()


def one_ahead(items: Iterable[T]) -> Iterator[T]:
    """The items of ``items`` in order, each produced on a worker thread while the caller works
    on the one before.

    ``items`` is advanced by one thread at a time, in the caller's context (so context
    variables such as the run's settings hold there too). An exception raised while producing an
    item is raised here, where that item would have been; nothing after it is produced. Closing
    the iterator early waits for the one item in flight and asks for no more.
    """
    iterator = iter(items)
    context = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="one-ahead") as pool:
        pending = pool.submit(context.run, _next_or_end, iterator)
        while (item := pending.result()) is not _END:
            pending = pool.submit(context.run, _next_or_end, iterator)
            yield cast(T, item)


def _next_or_end(iterator: Iterator[T]) -> T | object:
    """The next item, or :data:`_END` when there is none."""
    return next(iterator, _END)
