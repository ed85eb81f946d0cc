"""A review a colleague can run again: ``review.json`` records how it was made (``run``: the
command, every option, the versions), and running that command elsewhere gives the same review.
"""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path

import pytest
from langgraph.types import Command

from scholargraph import PendingApproval, review, start_review
from scholargraph.cli import build_parser, main
from scholargraph.errors import InputError
from scholargraph.exports import html, markdown
from scholargraph.http.cache import SECRET_PARAMETERS, recorded_request
from scholargraph.options import ReviewOptions
from scholargraph.report import Report, RunRecord
from scholargraph.runs import (
    RERUN_OUT,
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
    # each search says what was asked of the service, page size and years included, at the
    # service's own address (the replay server's port changes from run to run)
    searched = [entry for entry in recorded["search_log"] if entry["status"] in ("ok", "empty")
                and not entry["query"].startswith("filter=")]  # OpenAlex look-ups apart
    assert {entry["source"] for entry in searched} == {"arxiv", "openalex"}
    for entry in searched:
        first_request = entry["sent"][0]
        if entry["source"] == "openalex":
            assert first_request.startswith("GET https://api.openalex.org/works?search=")
            assert "per-page=25" in first_request
            assert "filter=from_publication_date%3A2015-01-01" in first_request
        else:
            assert first_request.startswith("GET https://export.arxiv.org/api/query?")
            assert "max_results=25" in first_request
            assert "submittedDate%3A%5B201501010000+TO" in first_request
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
    assert mirror.changed_endpoints() == {"openalex_url": "http://mirror.local:8080/openalex"}
    # the same setting, by its variable, is what the re-run command is given
    assert mirror.shaping() == {"SCHOLARGRAPH_OPENALEX_URL": "http://mirror.local:8080/openalex"}
    assert Settings().changed_endpoints() == {}


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
                       "--max-results 30 --style ieee --offline")
    args = build_parser().parse_args(shlex.split(command)[1:])
    assert (args.command, args.directory, args.added_since, args.sources, args.max_results,
            args.citation_style, args.offline) == (
        "update", RERUN_OUT, "2023-06-30", ["pubmed", "openalex"], 30, "ieee", True)


def test_an_updates_command_says_what_it_gave_against_the_reviews_own() -> None:
    """An update takes the review's options unless given others: given the default
    (--max-results 20 against the review's 50) or a switch turned off (--online, --no-snowball),
    its command must say so, or the re-run of the update would take the review's again."""
    options = ReviewOptions(added_since="2023-06-30", max_results=20, sources=["openalex"],
                            since=2015, until=2026)
    review_own = {"max_results": 50, "offline": True, "snowball": True, "full_text": 0,
                  "since": 2015, "until": 2020}
    words = shlex.split(rerun_command(QUESTION, effective_options(options), carried=review_own))
    assert words[words.index("--max-results") + 1] == "20"
    assert {"--online", "--no-snowball"} <= set(words)
    assert words[words.index("--full-text") + 1] == "10"
    # the publication years as the update's flags: its --since is the day records were added
    assert words[words.index("--from-year") + 1] == "2015" and words.count("--since") == 1
    args = build_parser().parse_args(words[1:])
    assert (args.max_results, args.offline, args.snowball, args.full_text) == (20, False,
                                                                              False, 10)
    assert (args.added_since, args.since, args.until) == ("2023-06-30", 2015, 2026)


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


def test_a_request_is_recorded_as_sent_without_keys_or_addresses() -> None:
    """PubMed's POST form joins the URL's query, as a GET a colleague can send; the key and the
    contact address are left out, the tool name and every search parameter kept."""
    line = recorded_request(
        "POST", "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi",
        b"db=pubmed&term=asthma+AND+%222015%22%5Bdp%5D&retmax=50&api_key=abc123secret"
        b"&email=me%40example.org&tool=scholargraph", SECRET_PARAMETERS)
    assert line == ("POST https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi?db=pubmed"
                    "&term=asthma+AND+%222015%22%5Bdp%5D&retmax=50&tool=scholargraph")
    assert recorded_request("GET", "https://user:pw@api.example.org/works?q=x&mailto=a%40b",
                            None, SECRET_PARAMETERS) == "GET https://api.example.org/works?q=x"


def test_a_pubmed_search_logs_its_years_and_page_size_but_not_the_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The search log's query is the search's words; ``sent`` is what PubMed was asked: the
    years (the term's [dp] range) and retmax are there, NCBI's key and the e-mail are not."""
    monkeypatch.setenv("NCBI_API_KEY", "ncbi0secret0key0abcdef0123456789")
    monkeypatch.setenv("NCBI_EMAIL", "reviewer@example.org")
    report = review("What is known about genetic variants and screening?", offline=True,
                    sources=["pubmed"], since=2012, until=2020, max_results=15,
                    max_iterations=1, full_text=0)
    searched = [entry for entry in report.search_log if entry.status == "ok"]
    assert searched
    for entry in searched:
        esearch = entry.sent[0]
        assert esearch.startswith("POST https://eutils.ncbi.nlm.nih.gov/entrez/eutils/"
                                  "esearch.fcgi?db=pubmed&term=")
        assert "%222012%22%5Bdp%5D+%3A+%222020%22%5Bdp%5D" in esearch and "retmax=15" in esearch
        assert any("efetch.fcgi" in line for line in entry.sent[1:])
        joined = " ".join(entry.sent)
        assert "ncbi0secret" not in joined and "reviewer" not in joined and "api_key" not in joined


def test_a_plan_edited_at_approval_is_replayed_by_the_recorded_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reviewer edits the plan; review.json's command carries the plan taken (``--plan``,
    not ``--approve-plan``), so the colleague's re-run searches the same sub-questions and
    sources without a person to ask (standard input is closed) and gives the same review."""
    first = tmp_path / "first"
    run = start_review(QUESTION, offline=True, approve_plan=True, thread="plan-edit",
                       max_iterations=1, full_text=0)
    step = run.start()
    assert isinstance(step, PendingApproval)
    asked = ["Which machine learning methods detect outbreaks early?",
             "Which data do surveillance models learn from?"]
    report = run.resume(Command(resume={"action": "edit", "sub_questions": asked,
                                        "sources": ["openalex", "arxiv"]}))
    assert isinstance(report, Report)
    report.write(first)
    recorded = json.loads((first / "review.json").read_text(encoding="utf-8"))
    words = shlex.split(recorded["run"]["command"])
    assert "--approve-plan" not in words
    plan = json.loads(words[words.index("--plan") + 1])
    assert plan == {"action": "edit", "sub_questions": asked, "sources": ["openalex", "arxiv"]}
    assert recorded["run"]["options"]["plan"] == words[words.index("--plan") + 1]

    monkeypatch.setenv("SCHOLARGRAPH_HOME", str(tmp_path / "colleague"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # nobody there to answer
    assert main([*words[1:], "--quiet"]) == 0
    rerun = json.loads((tmp_path / RERUN_OUT / "review.json").read_text(encoding="utf-8"))
    assert [sub["text"] for sub in rerun["sub_questions"]] == asked
    assert rerun["sources_searched"] == ["arxiv", "openalex"]
    assert without_stamps(rerun) == without_stamps(recorded)


def test_a_plan_that_cannot_be_read_is_refused_before_any_search() -> None:
    with pytest.raises(InputError, match="--plan is not valid JSON"):
        review(QUESTION, offline=True, plan='{"action": "edit", ')
    with pytest.raises(InputError, match="unknown source"):
        review(QUESTION, offline=True, plan='{"action": "edit", "sources": ["scopus"]}')
