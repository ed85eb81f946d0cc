"""The person's decisions: a CSV of record id (or DOI) and 1 (include), 0 (exclude) or nothing.

The file is the person's, edited between runs or appended to by ``--interactive``; every run
carries on from it. Two columns, with or without a header line::

    record_id,label
    doi:10.1000/xyz,1
    17,0
    23,

An empty label (``23,`` above: the id, a comma, nothing) is *undecided*: the person saw the
record and left it for later (``u`` in ``--interactive``). It is read back as no decision, so the
record is ranked and shown again in a later session, and, being the later line, it takes back an
earlier 1 or 0 for that record; it is never an error. Writing it keeps every key the person
pressed in the file, so a killed session loses nothing, the undecided ones included.

Columns are separated by commas, or by the semicolons or tabs of the first line when it holds
no comma (Excel saves semicolons where the decimal mark is a comma); ``--interactive`` appends
with the file's own separator.

A header is a first line whose label cell is not 1 or 0 and names the column (``label``,
``included``, ``label_included`` or ``decision``); the id column is then the one named
``record_id``, ``id`` or ``doi`` (else the first). Blank lines and lines starting with ``#`` are
skipped. A later line for the same record wins, so a person changes their mind by appending.
The order of the lines is the order of screening, which the stop estimate reads.

A file that cannot be read, a line without an id, a line with an id alone (no comma: the label
was forgotten, not left empty), or a label other than 1, 0 or empty is a
:class:`LabelsError` naming the file and line (the CLI exits 2).
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass
from pathlib import Path

from scholargraph.errors import InputError

LABEL_COLUMNS = ("label", "included", "label_included", "decision")
ID_COLUMNS = ("record_id", "id", "doi")
HEADER = ("record_id", "label")


class LabelsError(InputError):
    """The labels file cannot be read, or one of its lines is not an id and a 1 or 0."""


@dataclass(frozen=True)
class Label:
    """One decision: the id as the person wrote it, 1 or 0 (None: undecided), and where it
    was written."""

    record: str
    included: bool | None
    line: int


def read_labels(path: Path) -> list[Label]:
    """The decisions in the file, in file order (later lines for one record win downstream)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise LabelsError(f"labels file {path} cannot be read ({reason}); give a CSV of "
                          "record id and 1 or 0") from exc
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter(text)))
    id_col, label_col, first = _columns(rows)
    labels = []
    for number, row in enumerate(rows[first:], start=first + 1):
        cells = [cell.strip() for cell in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        labels.append(_label(path, number, cells, id_col, label_col))
    return labels


SEPARATORS = (";", "\t")
"""What separates the columns when the first line has no comma: Excel saves a CSV with
semicolons where the decimal mark is a comma, and a copy from a spreadsheet holds tabs."""


def delimiter(text: str) -> str:
    """The file's column separator: a comma when its first line (blank lines and comments
    aside) holds one, else a semicolon or tab it holds, else a comma."""
    first = next((line for line in text.splitlines()
                  if line.strip() and not line.lstrip().startswith("#")), "")
    if "," in first:
        return ","
    return next((separator for separator in SEPARATORS if separator in first), ",")


def _columns(rows: list[list[str]]) -> tuple[int, int, int]:
    """(id column, label column, index of the first data row): a header names them."""
    first = next((row for row in rows if any(cell.strip() for cell in row)), None)
    if first is None:
        return 0, 1, 0
    names = [cell.strip().lower() for cell in first]
    label_col = next((i for i, name in enumerate(names) if name in LABEL_COLUMNS), None)
    if label_col is None:
        return 0, 1, 0
    id_col = next((i for i, name in enumerate(names) if name in ID_COLUMNS),
                  0 if label_col != 0 else 1)
    return id_col, label_col, rows.index(first) + 1


def _label(path: Path, number: int, cells: list[str], id_col: int, label_col: int) -> Label:
    record = cells[id_col] if id_col < len(cells) else ""
    value = cells[label_col] if label_col < len(cells) else ""
    if not record:
        raise LabelsError(f"{path}:{number}: no record id; each line is a record id (or DOI) "
                          "and 1 or 0")
    if label_col < len(cells) and not value:
        return Label(record=record, included=None, line=number)
    if value not in ("0", "1"):
        shown = repr(value) if value else "nothing"
        raise LabelsError(f"{path}:{number}: the label of {record!r} is {shown}, not 1 or 0; "
                          "write 1 to include the record, 0 to exclude it, or leave the label "
                          "empty (a comma, then nothing) for undecided")
    return Label(record=record, included=value == "1", line=number)


def append_label(path: Path, record: str, included: bool | None) -> None:
    """Add one decision to the file at once (a header first if the file is new), flushed to
    disk, so a session killed after it loses nothing; ``None`` (undecided) is an empty label."""
    new = not path.exists() or path.stat().st_size == 0
    held = b"" if new else path.read_bytes()
    unended = not new and not held.endswith(b"\n")
    separator = delimiter(held.decode("utf-8-sig", errors="replace"))
    with path.open("a", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter=separator)  # the file's own, as Excel saved it
        if new:
            writer.writerow(HEADER)
        elif unended:  # a file the person edited without a final line break
            handle.write("\r\n")
        writer.writerow([record, "" if included is None else "1" if included else "0"])
        handle.flush()
        os.fsync(handle.fileno())
