"""End to end against a real model: an offline review through a real OpenAI-compatible server.

Runs only where ``.ci/real-model`` (or a person) started one and exported
``SCHOLARGRAPH_REAL_MODEL_URL`` (and ``SCHOLARGRAPH_REAL_MODEL_NAME``); skipped otherwise. Kept
few and bounded: temperature 0, one search round, five results per query, and a per-call timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

import pytest

URL = os.environ.get("SCHOLARGRAPH_REAL_MODEL_URL", "")
NAME = os.environ.get("SCHOLARGRAPH_REAL_MODEL_NAME", "smollm2")
QUESTION = "machine learning for public health surveillance"


def _server_answers() -> bool:
    if not URL:
        return False
    try:
        with urllib.request.urlopen(f"{URL.rstrip('/')}/models", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


pytestmark = [
    pytest.mark.realmodel,
    pytest.mark.skipif(not _server_answers(),
                       reason="no real model server: run `. .ci/real-model` to start one"),
]


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict, str]:
    """One CLI review with the real model, as a user runs it: exit code, review.json, review.md."""
    out = tmp_path_factory.mktemp("real-review")
    home = tmp_path_factory.mktemp("real-home")
    env = {**os.environ, "OPENAI_BASE_URL": URL, "OPENAI_API_KEY": "x", "NO_PROXY": "127.0.0.1",
           "SCHOLARGRAPH_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "scholargraph.cli", "review", QUESTION, "--offline",
         "--model", f"openai:{NAME}", "--max-results", "5", "--max-iterations", "1",
         "--out", str(out)],
        env=env, capture_output=True, text=True, timeout=1500, check=False)
    report = json.loads((out / "review.json").read_text()) if done.returncode == 0 else {}
    markdown = (out / "review.md").read_text() if done.returncode == 0 else done.stderr
    return done.returncode, report, markdown


def test_the_review_completes_and_the_model_answers_the_early_steps(reviewed):
    code, report, markdown = reviewed
    assert code == 0, markdown[-2000:]
    engine = report["engine"]
    assert engine["model"] == f"openai:{NAME}"
    answered = {s["step"] for s in engine["steps"] if s["answered_by"] != "fallback"}
    # Planning and query generation are answered or fall back with a note (the test below):
    # SmolLM2-135M's plan for this question holds one question, its repeat and a statement,
    # and since a statement is no sub-question (2026-11-28) its plan may be the template's.
    assert "intent" in answered


def test_every_step_used_the_model_or_fell_back_with_a_note(reviewed):
    code, report, _ = reviewed
    assert code == 0
    for step in report["engine"]["steps"]:
        if step["fallbacks"]:
            assert any(note.startswith(f"{step['step']}:") for note in report["notes"]), step


def test_the_engine_section_adds_up(reviewed):
    code, report, markdown = reviewed
    assert code == 0
    engine = report["engine"]
    assert engine["calls"] == sum(s["calls"] for s in engine["steps"]) > 0
    assert engine["tokens_in"] == sum(s["tokens_in"] for s in engine["steps"]) > 0
    assert engine["tokens_out"] == sum(s["tokens_out"] for s in engine["steps"]) > 0
    assert all(s["calls"] >= s["asks"] >= s["fallbacks"] for s in engine["steps"])
    assert "model calls" in markdown


def test_findings_cite_passages_that_exist(reviewed):
    code, report, _ = reviewed
    assert code == 0
    passages = {p["id"]: p for p in report["passages"]}
    numbers = {r["number"] for r in report["references"]}
    for finding in report["findings"]:
        assert finding["citations"] and set(finding["citations"]) <= numbers
        for quote in finding["quotes"]:
            text = passages[quote["passage_id"]]["text"]
            assert text[quote["start"]:quote["end"]] == quote["text"]


def test_no_invalid_model_value_reached_a_source(reviewed):
    code, report, _ = reviewed
    assert code == 0
    for entry in report["search_log"]:
        assert "1234567890" not in entry["query"]
        if entry["source"] == "arxiv":
            assert "cond-mat" not in entry["query"]



SCREENING_CRITERIA = """Inclusion criteria: studies applying machine learning to public health
surveillance data of human populations, evaluated on real data.
Exclusion criteria: animal studies; editorials and commentaries."""


def test_the_model_screens_against_the_criteria_and_keeps_what_it_cannot_judge(monkeypatch):
    """The retrieval node with the real model and criteria: every record the rules kept is
    either judged by the model (an exclusion with its one-line reason) or kept, and the kept
    unjudged are counted in a note. The 135M model's verdicts themselves are not asserted."""
    from langgraph.runtime import Runtime

    from scholargraph.agents.retrieval import retrieval
    from scholargraph.context import ReviewContext
    from scholargraph.ledger import work_key
    from scholargraph.records import Work
    from scholargraph.screening.llm_criteria import PREFIX, STEP
    from scholargraph.wording import counted

    monkeypatch.setenv("OPENAI_BASE_URL", URL)
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    topics = [("influenza", "emergency department visits"), ("dengue", "weekly case reports"),
              ("measles", "laboratory notifications"), ("COVID-19", "wastewater samples"),
              ("avian influenza in poultry flocks", "farm mortality records")]
    works = [Work(title=f"Machine learning for public health surveillance of {disease}",
                  abstract=f"We trained gradient boosting and neural network models on {data} "
                           f"to detect {disease} outbreaks early, evaluated on real data.",
                  pmid=str(9000 + n), sources=["pubmed"])
             for n, (disease, data) in enumerate(topics)]
    state = {"question": QUESTION, "cleaned_question": QUESTION, "records": works,
             "active_sources": ["pubmed"], "iteration": 1}
    update = retrieval(state, Runtime(context=ReviewContext(
        model=f"openai:{NAME}", criteria=SCREENING_CRITERIA)))
    prisma, verdicts = update["prisma"], update["criteria_verdicts"]
    included = {work_key(paper) for paper in update["papers"]}
    assert prisma["screened"] == len(works) == prisma["excluded"] + prisma["included"]
    model_reasons = [r for r in prisma["excluded_reasons"] if r.startswith(PREFIX)]
    assert all(len(r) > len(PREFIX) and "\n" not in r for r in model_reasons)
    assert sum(prisma["excluded_reasons"][r] for r in model_reasons) == sum(
        reason is not None for reason in verdicts.values())
    rules_kept = len(works) - sum(n for r, n in prisma["excluded_reasons"].items()
                                  if not r.startswith(PREFIX))
    unjudged = rules_kept - len(verdicts)
    assert all(key in included for key, reason in verdicts.items() if reason is None)
    assert len(included) == unjudged + sum(reason is None for reason in verdicts.values())
    if unjudged:
        kept = counted(unjudged, "record was", "records were")
        assert any(note.startswith(f"{STEP}: {kept} kept without the model's judgement")
                   for note in update["notes"]), update["notes"]
    steps = [s for s in update["model_steps"] if s.step == STEP]
    assert steps and all(s.calls >= 1 and s.tokens_in > 0 for s in steps)


def test_a_model_the_server_does_not_hold_stops_the_run_in_one_line(tmp_path):
    """llama-cpp-python answers any model name with the model it holds: asked for another, the
    run stops before any review is written, saying in one line what the server lists (exit 2),
    where it used to review with SmolLM2 and record the review as the other model's."""
    env = {**os.environ, "OPENAI_BASE_URL": URL, "OPENAI_API_KEY": "x", "NO_PROXY": "127.0.0.1",
           "SCHOLARGRAPH_HOME": str(tmp_path / "home"), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "scholargraph.cli", "review", QUESTION, "--offline",
         "--model", "openai:gpt-4o-mini", "--max-iterations", "1", "--out", str(tmp_path / "r")],
        env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 2, done.stderr[-2000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("scholargraph: ")]
    assert errors == [f"scholargraph: error: the model server at {URL.rstrip('/')} does not serve "
                      f"'gpt-4o-mini' (it lists: {NAME}); name one of those, e.g. --model "
                      f"openai:{NAME}"]
    assert "Traceback" not in done.stderr and not (tmp_path / "r" / "review.json").exists()


def test_the_engine_line_names_each_step_once(reviewed):
    """review.md's engine line listed a step asked several times (screening's batches, a
    second round) both as answered by the model and as fallen back."""
    code, report, markdown = reviewed
    assert code == 0
    (line,) = [line.replace("\\_", "_") for line in markdown.splitlines()
               if line.startswith("*Engine: ")]
    for step in report["engine"]["steps"]:
        assert line.count(f" {step['step']}") == 1, (step["step"], line)


CLAIM = "Machine learning improves influenza surveillance."


def test_a_claims_plan_from_the_real_model_asks_the_claim_first(monkeypatch):
    """SmolLM2-135M's plans for a claim asked neighbouring questions; whatever it writes, q1 is
    the claim itself, and every sub-question is one line."""
    from langgraph.runtime import Runtime

    from scholargraph.agents.intent import intent
    from scholargraph.agents.planning import planning
    from scholargraph.context import ReviewContext

    monkeypatch.setenv("OPENAI_BASE_URL", URL)
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    runtime = Runtime(context=ReviewContext(model=f"openai:{NAME}"))
    state: dict = {"question": CLAIM, "cleaned_question": CLAIM}
    state.update(intent(state, runtime))
    planned = planning(state, runtime)
    first = planned["sub_questions"][0]
    assert first.id == "q1" and first.text == ("What do studies report on whether machine "
                                               "learning improves influenza surveillance?")
    assert all("\n" not in s.text for s in planned["sub_questions"])


def test_a_request_the_model_does_not_answer_in_time_falls_back_for_its_step(monkeypatch):
    """With a time limit the real model cannot meet, the step falls back with a note naming the
    limit, instead of stopping the run."""
    from langgraph.runtime import Runtime

    from scholargraph.agents.intent import intent
    from scholargraph.context import ReviewContext
    from scholargraph.settings import get_settings

    monkeypatch.setenv("OPENAI_BASE_URL", URL)
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("SCHOLARGRAPH_MODEL_TIMEOUT", "0.05")
    context = ReviewContext(model=f"openai:{NAME}", settings=get_settings())
    update = intent({"cleaned_question": QUESTION}, Runtime(context=context))
    (step,) = update["model_steps"]
    assert step.timed_out and step.answered_by == "fallback"
    assert any(note.startswith("intent: the model did not answer in time (no answer within "
                               "0.05 s") for note in update["notes"]), update["notes"]
