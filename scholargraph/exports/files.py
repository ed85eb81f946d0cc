"""Writing a review's files: the five the contract names and the three figures beside them.

Kept apart from :mod:`scholargraph.report`, the model, which reaches it only through
``Report.write``; the formats read the report they are given and never import the model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from scholargraph.errors import OutputDirError
from scholargraph.exports import bibtex, csljson, html, markdown, prisma, ris

if TYPE_CHECKING:
    from scholargraph.report import Report

FIGURE_FILES = ("review.html", "prisma.svg", "years.svg")


def write_review(report: Report, out_dir: str | Path) -> dict[str, Path]:
    """Write the five output files and the three of ``FIGURE_FILES`` into ``out_dir``
    (created if needed); return their paths."""
    directory = prepare_out_dir(out_dir)
    works = report.cited_works() or report.papers
    contents = {
        "review.md": markdown.render(report),
        "review.json": report.to_json(),
        "references.bib": bibtex.dumps(works),
        "references.ris": ris.dumps(works),
        "references.csl.json": json.dumps(csljson.to_csl(works), indent=2, ensure_ascii=False),
        "review.html": html.render(report),
        "prisma.svg": prisma.flow_svg(prisma.prisma_record(report.prisma, report.search_log)),
        "years.svg": prisma.years_svg(report.papers),
    }
    paths = {}
    for name, text in contents.items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        paths[name] = path
    return paths


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
