"""one_ahead: the next page is produced on a worker thread while the caller reads this one."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Iterator

import pytest

from scholargraph.http.prefetch import one_ahead

RUN = contextvars.ContextVar("run", default="none")


def test_items_come_in_order_produced_off_the_callers_thread() -> None:
    producers: list[str] = []

    def pages() -> Iterator[int]:
        for page in range(5):
            producers.append(threading.current_thread().name)
            yield page

    assert list(one_ahead(pages())) == [0, 1, 2, 3, 4]
    assert producers and threading.current_thread().name not in producers


def test_the_next_item_is_ready_while_the_current_one_is_read() -> None:
    asked = threading.Event()

    def pages() -> Iterator[str]:
        yield "first"
        asked.set()
        yield "second"

    reader = one_ahead(pages())
    assert next(reader) == "first"
    assert asked.wait(timeout=5), "the second page was not asked for while the first was read"
    assert list(reader) == ["second"]


def test_a_failure_is_raised_where_its_item_would_be_and_nothing_follows() -> None:
    produced: list[int] = []

    def pages() -> Iterator[int]:
        produced.append(0)
        yield 0
        raise ConnectionError("page 2 failed")

    reader = one_ahead(pages())
    assert next(reader) == 0
    with pytest.raises(ConnectionError, match="page 2 failed"):
        next(reader)
    assert produced == [0]


def test_stopping_early_asks_for_at_most_one_more() -> None:
    produced: list[int] = []

    def pages() -> Iterator[int]:
        for page in range(100):
            produced.append(page)
            yield page

    for page in one_ahead(pages()):
        if page == 2:
            break
    assert produced == [0, 1, 2, 3]


def test_the_callers_context_variables_hold_in_the_worker() -> None:
    def pages() -> Iterator[str]:
        yield RUN.get()

    token = RUN.set("review-42")
    try:
        assert list(one_ahead(pages())) == ["review-42"]
    finally:
        RUN.reset(token)
