"""``scholargraph screen --interactive``: one record at a time in the terminal.

The record (title, year, venue, abstract) is shown beside the question and criteria, the
criteria's words highlighted in both (rich). Keys: ``i`` include, ``e`` exclude, ``u``
undecided (an empty label: not shown again in this session, shown again in a later one), ``q``
quit. Each key but ``q`` is appended to the labels file before the next record is shown, so a
session killed at any point loses nothing; the
ranking is refreshed every :data:`RERANK_EVERY` decisions, and the output files are written again
then.

Keys are read one at a time from a terminal, or one line at a time from a pipe (``i`` then
Enter), so the same loop is scripted in tests and by people who prefer it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from scholargraph.rag.ranking import tokenize
from scholargraph.screening.session import ScreeningSession
from scholargraph.screening.stopping import ESTIMATE_MIN

RERANK_EVERY = 10
KEYS = {"i": "include", "y": "include", "e": "exclude", "n": "exclude", "x": "exclude",
        "u": "undecided", "s": "undecided", "q": "quit"}
HIGHLIGHT = "bold black on yellow"
_WORD = re.compile(r"\w[\w-]*")


def highlighted(text: str, stems: set[str], style: str = "") -> Text:
    """The text with every word whose stem is one of ``stems`` highlighted."""
    shown = Text(text, style=style)
    for found in _WORD.finditer(text):
        if set(tokenize(found.group(0))) & stems:
            shown.stylize(HIGHLIGHT, found.start(), found.end())
    return shown


def record_view(session: ScreeningSession, index: int, position: str) -> Table:
    """The record's panel beside the criteria's, side by side."""
    entry = session.entries[index]
    work = entry.work
    stems = set(session.terms)
    details = " · ".join(str(part) for part in (work.year, work.venue, entry.record_id) if part)
    record = Group(Text(details, style="dim"),
                   highlighted(work.title, stems, style="bold"),
                   Text(""),
                   highlighted(work.abstract or "(no abstract: judge by the title, and keep it "
                               "for the full text when in doubt)", stems))
    criteria = Group(Text("Question", style="bold"), highlighted(session.question, stems),
                     Text(""), Text("Criteria", style="bold"),
                     highlighted(session.criteria or "(none given)", stems))
    grid = Table.grid(expand=True, padding=(0, 1))
    grid.add_column(ratio=3)
    grid.add_column(ratio=2)
    grid.add_row(Panel(record, title=position, title_align="left"),
                 Panel(criteria, title="Eligibility", title_align="left"))
    return grid


def status_line(session: ScreeningSession) -> str:
    stop = session.summary()
    left = (f"? (from {ESTIMATE_MIN} decisions)" if stop.estimated_left is None
            else f"{stop.estimated_left:.1f}")
    return (f"{stop.found} included, {stop.screened - stop.found} excluded, "
            f"{stop.total - stop.screened} to screen; estimated relevant left {left}; "
            f"verdict: {stop.verdict}")


def read_key(stream: TextIO) -> str:
    """One key from a terminal (in :func:`single_keys` mode, no Enter needed), else the first
    letter of a line; 'q' at the end of the input."""
    if stream.isatty():
        return (stream.read(1) or "q").lower()
    line = stream.readline()
    return (line.strip()[:1] or "?").lower() if line else "q"


@contextmanager
def single_keys(stream: TextIO) -> Iterator[None]:
    """A terminal passes each key at once (cbreak) for the whole session, so a key pressed
    while a record is still being drawn waits in the input instead of being flushed away;
    the terminal's mode is restored after. A pipe is left alone."""
    if not stream.isatty():
        yield
        return
    import termios
    import tty

    descriptor = stream.fileno()
    saved = termios.tcgetattr(descriptor)
    tty.setcbreak(descriptor, termios.TCSANOW)
    try:
        yield
    finally:
        termios.tcsetattr(descriptor, termios.TCSADRAIN, saved)


def run_interactive(session: ScreeningSession, out: str | Path, batch: int,
                    console: Console | None = None,
                    key: Callable[[], str] | None = None) -> int:
    """Screen until the person quits or nothing is left; return the decisions made."""
    console = console or Console(highlight=False)
    if key is None:
        with single_keys(sys.stdin):
            return _screen(session, out, batch, console, lambda: read_key(sys.stdin))
    return _screen(session, out, batch, console, key)


def _screen(session: ScreeningSession, out: str | Path, batch: int, console: Console,
            key: Callable[[], str]) -> int:
    skipped: set[int] = set()
    made = 0
    while True:
        upcoming = session.to_screen(1, skip=skipped)
        if not upcoming:
            console.print("Nothing left to screen in this session.")
            break
        index = upcoming[0]
        console.rule()
        console.print(record_view(session, index, f"record {len(session.decisions) + 1} of "
                                                  f"{len(session.entries)}"))
        console.print(status_line(session), style="dim")
        action = _ask(console, key)
        if action == "quit":
            break
        if action == "undecided":  # saved as an empty label; not shown again this session
            session.decide(index, None)
            skipped.add(index)
            continue
        session.decide(index, action == "include")
        made += 1
        if made % RERANK_EVERY == 0:
            session.rank()
            session.write(out, batch)
            console.print(f"ranking refreshed after {made} decisions", style="dim")
    session.rank()
    return made


def _ask(console: Console, key: Callable[[], str]) -> str:
    while True:
        console.print("[bold]i[/] include  [bold]e[/] exclude  [bold]u[/] undecided  "
                      "[bold]q[/] quit > ", end="")
        action = KEYS.get(key())
        console.print()
        if action:
            return action
