"""A review a colleague can run again: ``review.json`` records how it was made (``run``: the
command, every option, the versions), and running that command elsewhere gives the same review.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from scholargraph import review
from scholargraph.cli import build_parser, main
from scholargraph.errors import InputError
from scholargraph.exports import html, markdown
from scholargraph.options import ReviewOptions
from scholargraph.report import Report, RunRecord
from scholargraph.runs import (
    RERUN_OUT,
    changed_endpoints,
    effective_options,
    library_digest,
    rerun_command,
)
from scholargraph.settings import Settings

QUESTION = "machine learning for public health surveillance"
STAMPS = ("generated_at", "at")
"""The fields that say when a file or a search was made: the only ones two runs may differ in."""


def without_stamps(value: object) -> object:
    """The review as read, less the time stamps."""
    if isinstance(value, dict):
        return {key: without_stamps(item) for key, item in value.items() if key not in STAMPS}
    if isinstance(value, list):
        return [without_stamps(item) for item in value]
    return value


def test_the_recorded_command_runs_the_same_review_again_in_a_fresh_home(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A colleague reads ``run.command`` from review.json and runs it on their machine (a new
    home: no cache, no checkpoint, no vector store): every file comes out the same, review.json
    apart from its time stamps. The options that differ from their defaults are all in it."""
    first = tmp_path / "first"
    review(QUESTION, offline=True, sources=["arxiv", "openalex"], since=2015, max_results=25,
           max_iterations=1, full_text=0, style="ieee", out=first)
    recorded = json.loads((first / "review.json").read_text(encoding="utf-8"))
    run = recorded["run"]
    assert run["command"] == (
        f"scholargraph review '{QUESTION}' --sources arxiv,openalex --max-results 25 "
        "--since 2015 --max-iterations 1 --full-text 0 --style ieee --offline --out rerun")
    assert run["options"]["max_results"] == 25 and run["options"]["offline"] is True
    assert run["corpus_as_of"] == "2023-06-30" and run["endpoints"] == {}
    assert {"python", "scholargraph", "langgraph"} <= set(run["versions"])
    monkeypatch.setenv("SCHOLARGRAPH_HOME", str(tmp_path / "colleague"))
    monkeypatch.chdir(tmp_path)
    words = shlex.split(run["command"])
    assert words[:2] == ["scholargraph", "review"] and words[-2:] == ["--out", RERUN_OUT]
    assert main([*words[1:], "--quiet"]) == 0
    again = tmp_path / RERUN_OUT
    for name in ("review.md", "references.bib", "references.ris", "references.csl.json",
                 "screening.csv", "prisma.svg", "years.svg"):
        assert (again / name).read_bytes() == (first / name).read_bytes(), name
    rerun = json.loads((again / "review.json").read_text(encoding="utf-8"))
    assert without_stamps(rerun) == without_stamps(recorded)


def test_the_command_spells_out_what_the_environment_gave_and_quotes_the_question(
        tmp_path: Path) -> None:
    """A colleague's environment is not this one: a library named by SCHOLARGRAPH_LIBRARY is
    written into the command; a question with an apostrophe stays one shell word; the thread
    and the cache, which belong to this machine, are left out."""
    library = tmp_path / "mine.ris"
    library.write_text("TY  - JOUR\nTI  - Sleep and memory in shift workers\nER  - \n",
                       encoding="utf-8")
    settings = Settings().with_variables({"SCHOLARGRAPH_LIBRARY": str(library)})
    options = ReviewOptions(thread="t-1", no_cache=True, since=2010, settings=settings)
    values = effective_options(options)
    command = rerun_command("Does shift work harm nurses' sleep?", values)
    assert shlex.split(command) == ["scholargraph", "review", "Does shift work harm nurses' sleep?",
                                    "--since", "2010", "--library", str(library),
                                    "--out", RERUN_OUT]


def test_endpoints_are_recorded_without_credentials_and_only_when_not_the_official_ones(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("PUBMED_URL", "ARXIV_URL", "OPENALEX_URL", "MP_URL", "DDG_URL",
                     "DDG_NEWS_URL", "WEB_MIRROR"):  # the official ones, whatever ran before
        monkeypatch.delenv(f"SCHOLARGRAPH_{variable}", raising=False)
    mirror = Settings().with_variables({
        "SCHOLARGRAPH_OPENALEX_URL": "http://someone:secret@mirror.local:8080/openalex?api_key=k"})
    assert changed_endpoints(mirror) == {"openalex_url": "http://mirror.local:8080/openalex"}
    assert changed_endpoints(Settings()) == {}


def test_the_library_digest_tells_a_changed_library_from_the_same_one(tmp_path: Path) -> None:
    folder = tmp_path / "library"
    folder.mkdir()
    (folder / "a.ris").write_text("TY  - JOUR\nTI  - One\nER  - \n", encoding="utf-8")
    before = library_digest(folder)
    assert before == library_digest(folder)
    (folder / "a.ris").write_text("TY  - JOUR\nTI  - Two\nER  - \n", encoding="utf-8")
    assert library_digest(folder) != before
    assert library_digest(tmp_path / "gone.ris") is None


def test_an_updates_command_updates_the_review_its_history_keeps() -> None:
    """After ``scholargraph update``, review.json's run is the update's: its command updates
    the re-run of the review (whose own command, kept in history/DAY/review.json, writes
    ``rerun``) from the same day, with the options an update takes; the CLI reads it."""
    options = ReviewOptions(added_since="2023-06-30", offline=True, max_results=30,
                            sources=["pubmed", "openalex"], citation_style="ieee")
    command = rerun_command("machine learning for public health surveillance",
                            effective_options(options))
    assert command == ("scholargraph update rerun --since 2023-06-30 --sources pubmed,openalex "
                       "--max-results 30 --offline")
    args = build_parser().parse_args(shlex.split(command)[1:])
    assert (args.command, args.directory, args.since, args.sources, args.max_results,
            args.offline) == ("update", RERUN_OUT, "2023-06-30", ["pubmed", "openalex"], 30, True)


def test_the_review_says_how_to_run_it_again_beside_its_searches() -> None:
    """The reader of review.md or review.html, who must defend the review, finds the command
    that reproduces it after the search log, and the version that made it in the method line;
    a review written before runs were recorded says neither."""
    report = Report(question="Does shift work harm sleep?", run=RunRecord(
        command="scholargraph review 'Does shift work harm sleep?' --since 2010 --out rerun",
        versions={"scholargraph": "9.9.1"}))
    text = markdown.render(report)
    assert "*Generated by scholargraph 9.9.1 on " in text
    assert ("```sh\nscholargraph review 'Does shift work harm sleep?' --since 2010 --out rerun\n"
            "```") in text
    page = html.render(report)
    assert "Generated by scholargraph 9.9.1 on " in page
    assert ("<pre><code>scholargraph review &#x27;Does shift work harm sleep?&#x27; --since 2010 "
            "--out rerun</code></pre>") in page
    bare = markdown.render(Report(question="Does shift work harm sleep?"))
    assert "*Generated by scholargraph on " in bare and "```" not in bare


def test_a_thread_is_not_returned_under_options_it_was_not_run_with() -> None:
    """A finished thread returns its review without running again: asked with another
    --max-results, it would hand back a review whose record names 50 records per query when
    it asked for 20. It says so instead; another citation style only rewrites it."""
    options = {"offline": True, "sources": ["openalex"], "max_iterations": 1, "full_text": 0,
               "thread": "kept-options"}
    first = review(QUESTION, **options)
    assert first.run is not None and first.run.options["max_results"] == 20
    with pytest.raises(InputError, match=r"max_results 20 \(now 50\)"):
        review(QUESTION, **options, max_results=50)
    restyled = review(QUESTION, **options, style="ieee")
    assert restyled.citation_style == "ieee"
    assert [p.id for p in restyled.papers] == [p.id for p in first.papers]


def test_criteria_given_as_a_file_are_recorded_as_their_text(tmp_path: Path) -> None:
    """The colleague has the review, not this machine's criteria file: the command carries the
    criteria themselves, which --criteria reads as well as a file."""
    criteria = tmp_path / "criteria.txt"
    criteria.write_text("Include: cohort studies of nurses.\nExclude: case reports.\n",
                        encoding="utf-8")
    values = effective_options(ReviewOptions(criteria=str(criteria)))
    assert values["criteria"] == "Include: cohort studies of nurses.\nExclude: case reports."
    words = shlex.split(rerun_command("Does shift work harm sleep?", values))
    assert words[words.index("--criteria") + 1] == values["criteria"]
    assert effective_options(ReviewOptions(criteria="cohort studies only"))["criteria"] == (
        "cohort studies only")


def test_criteria_given_as_one_long_line_of_text_are_recorded_as_they_are() -> None:
    """Text longer than a file name can be was taken for a path and crashed the record
    (``Path.is_file`` raises 'File name too long'); criteria are told from a file's name by
    :func:`~scholargraph.screening.relevance.read_criteria`'s own rule."""
    text = "Include randomised trials of aspirin in adults over 60 " * 6
    values = effective_options(ReviewOptions(criteria=text))
    assert values["criteria"] == text.strip()
