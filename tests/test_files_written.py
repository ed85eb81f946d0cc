"""A file that cannot be written costs that file only, and the same thread writes all nine
again from its checkpoint without a request to any service."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scholargraph import FilesNotWritten, review
from scholargraph.exports.files import write_atomically
from scholargraph.report import REVIEW_FILES
from scholargraph.testing import ReplayServer

QUESTION = "What is known about genetic variants and screening?"


def cli(out: Path, thread: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "scholargraph.cli", "review", QUESTION, "--out", str(out),
               "--sources", "pubmed,openalex", "--thread", thread, "--quiet"]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, env=os.environ,
                          check=False)


@pytest.mark.slow
def test_a_folder_in_the_way_costs_one_file_and_the_thread_writes_all_again(
        replay: ReplayServer, tmp_path: Path) -> None:
    first = tmp_path / "first"
    (first / "prisma.svg").mkdir(parents=True)  # a folder where a file should go

    done = cli(first, "files-1")

    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [f"scholargraph: not written: {first / 'prisma.svg'}: a folder of that name "
                     "is in the way; move it and write the files again"]
    for name in REVIEW_FILES:
        if name != "prisma.svg":
            assert (first / name).is_file() and (first / name).stat().st_size > 0, name
    assert json.loads((first / "review.json").read_text())["question"]
    assert sorted(p.name for p in first.iterdir() if p.name.endswith(".tmp")) == []

    asked = replay.count()
    assert asked > 0
    again = tmp_path / "again"
    redone = cli(again, "files-1")

    assert redone.returncode == 0, redone.stderr
    assert replay.count() == asked  # not one request to any service
    for name in REVIEW_FILES:
        assert (again / name).is_file() and (again / name).stat().st_size > 0, name
    before, after = (json.loads((folder / "review.json").read_text()) for folder in (first, again))
    for key in ("papers", "findings", "references", "prisma", "search_log", "evaluation"):
        assert after[key] == before[key], key

    # The Python API: the finished thread's report, one format unwritable, the rest written.
    third = tmp_path / "third"
    (third / "references.bib").mkdir(parents=True)
    with pytest.raises(FilesNotWritten) as raised:
        review(QUESTION, sources=["pubmed", "openalex"], thread="files-1", out=third)
    assert [item.path.name for item in raised.value.not_written] == ["references.bib"]
    assert raised.value.report is not None and raised.value.report.papers
    assert sorted(raised.value.written) == sorted(set(REVIEW_FILES) - {"references.bib"})
    assert replay.count() == asked


def test_a_file_is_replaced_whole_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "review.md"
    target.write_text("old", encoding="utf-8")
    write_atomically(target, "new text")
    assert target.read_text(encoding="utf-8") == "new text"
    fresh = tmp_path / "fresh.md"
    write_atomically(fresh, "x")
    (tmp_path / "plain.md").write_text("x", encoding="utf-8")
    assert fresh.stat().st_mode == (tmp_path / "plain.md").stat().st_mode  # not mkstemp's 0600
    fresh.unlink(), (tmp_path / "plain.md").unlink()
    assert [p.name for p in tmp_path.iterdir()] == ["review.md"]
    (tmp_path / "folder").mkdir()
    with pytest.raises(IsADirectoryError):
        write_atomically(tmp_path / "folder", "text")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "review.md"]
