"""Writing a review's files: the five the contract names, the three figures beside them and the
screening record (``screening.csv``: every work screened, its decision and why).

Kept apart from :mod:`scholargraph.report`, the model, which reaches it only through
``Report.write``; the formats read the report they are given and never import the model.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from errno import EISDIR
from pathlib import Path
from typing import TYPE_CHECKING

from scholargraph.atomic_files import write_atomically
from scholargraph.errors import FilesNotWritten, NotWritten, OutputDirError
from scholargraph.exports import bibtex, csljson, html, markdown, prisma, ris, screening

if TYPE_CHECKING:
    from scholargraph.report import Report

log = logging.getLogger(__name__)

FIGURE_FILES = ("review.html", "prisma.svg", "years.svg")
SCREENING_FILES = (screening.SCREENING_FILE,)
"""Written beside the others: each work screened, with its decision and reason."""


def write_review(report: Report, out_dir: str | Path) -> dict[str, Path]:
    """Write the five output files, the three of ``FIGURE_FILES`` and ``screening.csv`` into
    ``out_dir`` (created if needed); return their paths.

    Each file is written on its own, ``review.json`` first: a format that fails (a renderer's
    bug, a folder where the file should go, a full disk) costs that file only. Each goes to a
    temporary name beside it and is renamed into place, so no file is ever left half-written.
    When some could not be written, the others are, and :class:`FilesNotWritten` names them.
    """
    directory = prepare_out_dir(out_dir)
    works = report.cited_works() or report.papers
    renderers: dict[str, Callable[[], str]] = {
        "review.json": report.to_json,
        "review.md": lambda: markdown.render(report),
        "references.bib": lambda: bibtex.dumps(works),
        "references.ris": lambda: ris.dumps(works),
        "references.csl.json": lambda: json.dumps(csljson.to_csl(works), indent=2,
                                                  ensure_ascii=False),
        "review.html": lambda: html.render(report),
        "prisma.svg": lambda: prisma.flow_svg(prisma.prisma_record(report.prisma,
                                                                   report.search_log)),
        "years.svg": lambda: prisma.years_svg(report.papers),
        screening.SCREENING_FILE: lambda: screening.dumps(report),
    }
    paths: dict[str, Path] = {}
    failures: list[NotWritten] = []
    for name, render in renderers.items():
        path = directory / name
        try:
            write_atomically(path, render())
        except Exception as exc:  # noqa: BLE001 - any failure costs this file only, and is named
            log.debug("%s not written", path, exc_info=True)
            failures.append(NotWritten(path, _reason(exc)))
            continue
        paths[name] = path
    if failures:
        raise FilesNotWritten(failures, paths)
    return paths


def _reason(exc: BaseException) -> str:
    """Why a file was not written, in one line."""
    if isinstance(exc, IsADirectoryError) or (isinstance(exc, OSError) and exc.errno == EISDIR):
        return "a folder of that name is in the way; move it and write the files again"
    if isinstance(exc, OSError):
        return f"{exc.strerror or exc}; free the space or fix the permissions, then write again"
    text = " ".join(str(exc).split())[:200]
    return f"{type(exc).__name__}: {text} (a bug: please report it)"


def prepare_out_dir(out_dir: str | Path) -> Path:
    """Create ``out_dir`` and check it is writable, or raise :class:`OutputDirError` saying why."""
    directory = Path(out_dir).expanduser()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / ".scholargraph-write-test"
        probe.write_text("ok", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise OutputDirError(
            f"cannot write to --out {str(directory)!r}: {exc.strerror or exc}; "
            "choose a directory you can write to"
        ) from exc
    return directory
