"""``review --library`` reads CSV exports (title and abstract columns) as ``screen`` does, with
screen's own reader. The CSV is built from the recorded corpus: the 30 OpenAlex works of the
replay fixtures (``peneira_works.json``, a search for machine learning in public health)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from scholargraph.cli import main
from scholargraph.screening.records import read_library
from scholargraph.sources.library import LibraryError, load_library
from scholargraph.sources.openalex import work_from_openalex
from scholargraph.testing import fixture_path

QUESTION = "machine learning for public health surveillance"


def corpus() -> list[dict]:
    items = json.loads(fixture_path("openalex/peneira_works.json").read_text())["results"]
    return [work_from_openalex(item).model_dump(mode="json") for item in items]


@pytest.fixture
def export(tmp_path: Path) -> Path:
    """A reference manager's CSV: capitalised headers, its own record ids, authors by ';'."""
    path = tmp_path / "export.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Record_ID", "Title", "Abstract", "DOI", "Year", "Authors", "Journal"])
        for number, work in enumerate(corpus()):
            writer.writerow([f"r{number}", work["title"], work["abstract"] or "",
                             work["doi"] or "", work["year"] or "", "; ".join(work["authors"]),
                             work["venue"] or ""])
    return path


def test_a_review_reads_a_csv_as_screen_does(export: Path):
    works = load_library(export, with_csv=True)
    assert [w.title for w in works] == [w["title"] for w in corpus()]
    assert works == [record.work for record in read_library(export)]  # one reader for both
    with pytest.raises(LibraryError, match="not a library file"):
        load_library(export)  # screen reads it itself, keeping each row's id


def test_a_csv_without_a_title_column_is_refused_naming_it(tmp_path: Path):
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("name,summary\nA study,of things\n", encoding="utf-8")
    with pytest.raises(LibraryError, match="'title' column"):
        load_library(wrong, with_csv=True)


def test_review_library_csv_screens_every_row(replay, export: Path, tmp_path: Path, capsys):
    folder = tmp_path / "records"
    folder.mkdir()
    export.rename(folder / export.name)  # a folder holding only a CSV is a library too
    code = main(["review", QUESTION, "--library", str(folder), "--sources", "library",
                 "--out", str(tmp_path / "out"), "--max-iterations", "1"])
    assert code == 0, capsys.readouterr().err
    report = json.loads((tmp_path / "out" / "review.json").read_text())
    assert report["prisma"]["identified"]["library"] == len(corpus())
    assert report["search_log"][0]["source"] == "library"
    assert "library: 1 query -> 30 records" in capsys.readouterr().err


def test_rows_without_a_title_are_counted_by_line_not_dropped_silently(tmp_path: Path, caplog):
    """A database export holds a row with an abstract and no title (one of the 258 records of a
    real pharmacology review has one): it cannot be screened by title, and the person is told
    which line it is on, as the RIS and BibTeX readers count theirs."""
    path = tmp_path / "export.csv"
    path.write_text('sep=,\ntitle,abstract\n"A trial of drug X",One abstract.\n'
                    ',"An abstract with\na line break, and no title."\n\n'
                    '"A cohort of drug Y",Another.\n,No title either.\n', encoding="utf-8")
    with caplog.at_level("WARNING", logger="scholargraph.sources.library"):
        records = read_library(path)
    assert [record.work.title for record in records] == ["A trial of drug X", "A cohort of drug Y"]
    warned = [r.getMessage() for r in caplog.records if "without a title" in r.getMessage()]
    assert warned == [f"{path}: 2 record(s) without a title left out (line 4, 8; a record is "
                      "cited and screened by its title)"]
