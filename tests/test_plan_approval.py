"""Plan approval: the interrupt after planning, from Python and from the command line."""

import json
import os
import subprocess
import sys

import pytest
from langgraph.types import Command

from scholargraph import InputError, PendingApproval, Report, start_review

QUESTION = "What is known about genetic variants and screening?"


def pending(**options) -> tuple:
    run = start_review(QUESTION, approve_plan=True, **options)
    paused = run.start()
    assert isinstance(paused, PendingApproval)
    return run, paused


def test_the_plan_is_shown_before_any_search(replay):
    _, paused = pending(sources=["pubmed", "openalex"])
    assert paused.plan["question"] == QUESTION
    assert paused.plan["sub_questions"][0] == ("What do studies report on genetic variants "
                                               "and screening?")
    assert paused.plan["sources"] == ["pubmed", "openalex"]
    assert replay.count() == 0


def test_accept_runs_the_plan(replay):
    run, _ = pending(sources=["openalex"])
    report = run.resume(Command(resume={"action": "accept"}))
    assert isinstance(report, Report) and report.prisma["screened"] > 0 and report.evaluation.reason
    assert {e.source for e in report.search_log} == {"openalex"}


def test_edit_replaces_sub_questions_and_sources(replay):
    run, _ = pending(sources=["pubmed", "openalex"])
    report = run.resume({"action": "edit", "sub_questions": ["Which genetic variants?"],
                         "sources": ["pubmed"]})
    assert [s.text for s in report.sub_questions] == ["Which genetic variants?"]
    assert {e.source for e in report.search_log} == {"pubmed"}
    assert replay.count("openalex") == 0
    assert "plan edited by the reviewer" in report.notes


def test_reject_ends_without_searching(replay):
    run, _ = pending(sources=["pubmed"])
    report = run.resume("reject")
    assert report.stop_reason.startswith("plan rejected")
    assert replay.count() == 0 and not report.findings


def test_a_decision_that_makes_no_sense_is_refused(replay):
    run, _ = pending(sources=["pubmed"])
    with pytest.raises(InputError, match="plan decision not understood"):
        run.resume({"action": "maybe"})
    with pytest.raises(InputError, match="unknown source"):
        run.resume({"action": "edit", "sources": ["scopus"]})


def test_a_named_thread_pauses_and_resumes_in_a_later_run(replay):
    pending(sources=["openalex"], thread="approve-me")
    again = start_review(QUESTION, sources=["openalex"], thread="approve-me", approve_plan=True)
    assert isinstance(again.start(), PendingApproval)
    assert isinstance(again.resume({"action": "accept"}), Report)


def test_cli_reads_the_decision_from_stdin(replay, tmp_path):
    command = [sys.executable, "-m", "scholargraph.cli", "review", QUESTION, "--out",
               str(tmp_path / "out"), "--sources", "pubmed,openalex", "--approve-plan",
               "--events", "jsonl"]
    done = subprocess.run(command, input="e\nWhich genetic variants are screened?\n\nopenalex\n",
                          capture_output=True, text=True, env=os.environ, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert "Accept, edit or reject the plan?" in done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert {e["node"] for e in events} >= {"planning", "approve_plan", "openalex", "evaluation"}
    assert all({"node", "round", "elapsed_s", "summary"} <= set(e) for e in events)
    searched = [e for e in events if e["node"] == "openalex"]
    assert searched and all("n_results" in s for s in searched[0]["searches"])
    data = json.loads((tmp_path / "out" / "review.json").read_text())
    assert [s["text"] for s in data["sub_questions"]] == ["Which genetic variants are screened?"]
    assert {e["source"] for e in data["search_log"]} == {"openalex"}


def test_cli_with_closed_stdin_is_bad_input(replay, tmp_path):
    command = [sys.executable, "-m", "scholargraph.cli", "review", QUESTION, "--out",
               str(tmp_path / "out"), "--sources", "pubmed", "--approve-plan", "--quiet"]
    done = subprocess.run(command, input="", capture_output=True, text=True, env=os.environ,
                          timeout=600, check=False)
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last.endswith("scholargraph: error: --approve-plan needs an answer on standard input, "
                         "and it was closed")


def test_cli_says_on_its_last_line_that_the_plan_was_rejected(replay, tmp_path):
    command = [sys.executable, "-m", "scholargraph.cli", "review", QUESTION, "--out",
               str(tmp_path / "out"), "--sources", "pubmed", "--approve-plan"]
    done = subprocess.run(command, input="r\nwrong population\n", capture_output=True, text=True,
                          env=os.environ, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "wrote " in last and last.endswith("; plan rejected: wrong population"), last
