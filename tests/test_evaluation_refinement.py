"""The evaluator's scores and named gaps, and the refinement they drive: on the recorded corpus a
first round with gaps sends the supervisor back to query_generation, whose new queries differ
from the first round's; the budget bounds the rounds and the report says why the run stopped."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.runtime import Runtime

from scholargraph import review
from scholargraph.agents.evaluation import RETRACTION_PENALTY, is_supported, score, verdict
from scholargraph.agents.query_generation import query_generation
from scholargraph.agents.schemas import Evaluation, Intent, Quote, SubQuestion
from scholargraph.context import ReviewContext
from scholargraph.deterministic.extractive import extractive_draft
from scholargraph.records import Passage, SearchLogEntry, Work

QUESTION = "What is known about genetic variants and screening?"
SOURCES = ["pubmed", "arxiv", "openalex"]
THIS_YEAR = 2026


def passage(work: Work, text: str, sub: str) -> Passage:
    return Passage(id=f"{work.id}#abstract:0-{len(text)}", work_id=work.id, text=text, start=0,
                   end=len(text), sub_question_id=sub)


SUBS = [SubQuestion(id="q1", text="Does aspirin reduce stroke risk?", answer_shape="trials"),
        SubQuestion(id="q2", text="What harms does long-term aspirin cause?",
                    answer_shape="adverse events")]
OLD = Work(title="Old trial", doi="10.1/old", year=2001, sources=["pubmed"], abstract="a")
NEW = Work(title="New cohort", doi="10.1/new", year=2024, sources=["pubmed"], abstract="b",
           is_retracted=True)
PASSAGES = [passage(OLD, "Daily aspirin reduced stroke risk by a fifth in adults over 60.", "q1"),
            passage(NEW, "Aspirin reduced the risk of ischaemic stroke in older adults.", "q1")]


def test_scores_name_the_gaps_and_why():
    draft = extractive_draft(SUBS, PASSAGES, [OLD, NEW], ["aspirin", "stroke"])
    assert any("What harms" in gap for gap in draft.gaps)
    result = score(SUBS, draft, PASSAGES, [OLD, NEW], ["pubmed", "openalex"], THIS_YEAR)
    assert result.coverage["q1"] >= 0.5 and result.coverage["q2"] == 0.0
    assert not any("What harms" in gap for gap in result.gaps), "named twice"
    unnamed = score(SUBS, draft.model_copy(update={"gaps": []}), PASSAGES, [OLD, NEW],
                    ["pubmed", "openalex"], THIS_YEAR)
    assert ("What harms does long-term aspirin cause? (no direct evidence was found: no cited "
            "finding)") in unnamed.gaps
    assert "All cited works come from one source (pubmed) of the 2 searched" in result.gaps
    assert result.retracted == [NEW.id]
    assert f"Cited work {NEW.id} has been retracted" in result.gaps
    assert result.recency == 0.5 and result.citation_support == 1.0
    clean = score(SUBS, draft, PASSAGES, [OLD, NEW.model_copy(update={"is_retracted": False})],
                  ["pubmed", "openalex"], THIS_YEAR)
    assert result.overall == pytest.approx(clean.overall * RETRACTION_PENALTY, abs=1e-3)


def test_a_tampered_quote_is_not_support():
    by_id = {p.id: p for p in PASSAGES}
    draft = extractive_draft(SUBS, PASSAGES, [OLD, NEW], ["aspirin"])
    finding = next(f for f in draft.findings if f.kind == "finding")
    assert is_supported(finding, by_id)
    quote = finding.quotes[0]
    moved = quote.model_copy(update={"start": quote.start + 1})
    assert not is_supported(finding.model_copy(update={"quotes": [moved]}), by_id)
    invented = Quote(passage_id="doi:10.1/none#abstract:0-5", start=0, end=5, text="Daily")
    assert not is_supported(finding.model_copy(update={"quotes": [invented]}), by_id)


def test_gap_queries_aim_at_the_weak_sub_questions_and_are_new():
    intent = Intent(kind="factual", domains=["biomedical"], keywords=["aspirin", "stroke"])
    first = query_generation({"intent": intent, "sub_questions": SUBS, "iteration": 1,
                              "active_sources": ["pubmed", "openalex"], "search_log": []},
                             Runtime(context=ReviewContext()))["queries"]
    log = [SearchLogEntry(source=q.source, query=q.query) for q in first]
    weak = Evaluation(coverage={"q1": 0.9, "q2": 0.1}, verdict="more_evidence")
    second = query_generation({"intent": intent, "sub_questions": SUBS, "iteration": 2,
                               "active_sources": ["pubmed", "openalex"], "search_log": log,
                               "evaluation": weak}, Runtime(context=ReviewContext()))["queries"]
    assert second and {q.sub_question_id for q in second} == {"q2"}
    assert not {(q.source, q.query) for q in second} & {(q.source, q.query) for q in first}
    assert {q.round for q in second} == {2}


def run_recorded(**options: Any) -> tuple[Any, list[Evaluation]]:
    """A review of the recorded corpus and the evaluation of each round, in order."""
    verdicts: list[Evaluation] = []

    def watch(node: str, update: dict[str, Any]) -> None:
        if node == "evaluation":
            verdicts.append(update["evaluation"])

    return review(QUESTION, sources=SOURCES, on_progress=watch, **options), verdicts


def test_a_gap_after_round_one_runs_a_refinement_round_with_new_queries(replay):
    report, rounds = run_recorded(max_iterations=3)
    first, last = rounds[0], rounds[-1]
    weak = sorted(sid for sid, value in first.coverage.items() if value < 0.5)
    assert first.verdict == "more_evidence" and weak
    assert first.reason == f"sub-questions {', '.join(weak)} lack evidence: search again"
    assert report.iterations == len(rounds) >= 2
    sent = {1: set(), 2: set()}
    for entry in report.search_log:
        sent.setdefault(entry.round, set()).add((entry.source, entry.query))
    assert sent[2] and not sent[2] & sent[1]
    assert report.evaluation == last
    assert report.stop_reason in (f"accepted: {last.reason}",
                                  f"iteration budget of 3 spent ({last.reason})",
                                  "nothing left to search: every source has been searched with "
                                  "every query the gaps allow (still without evidence: q1, q2, q3)")
    # a round sent back for evidence searched something new; none ran with zero queries
    searched = {entry.round for entry in report.search_log}
    assert all(number + 1 in searched for number, evaluation in enumerate(rounds[:-1], 1)
               if evaluation.verdict == "more_evidence")


def test_no_round_runs_without_a_query_to_send(replay):
    """On the recorded corpus the gap queries of round 2 are all the deterministic engine can
    write: the run stops after it and says why, where it used to run rounds 3 and 4 with no
    query and re-screen the same records."""
    report, rounds = run_recorded(max_iterations=4)
    assert [e.verdict for e in rounds] == ["more_evidence", "more_evidence"]
    assert report.iterations == 2
    assert report.stop_reason.startswith("nothing left to search")
    assert {entry.round for entry in report.search_log} == {1, 2}


def test_the_iteration_budget_bounds_the_rounds(replay):
    report, rounds = run_recorded(max_iterations=1)
    assert report.iterations == len(rounds) == 1
    assert {entry.round for entry in report.search_log} == {1}
    assert report.stop_reason.startswith("iteration budget of 1 spent")
    assert rounds[0].reason in report.stop_reason


def test_recency_is_judged_only_from_works_with_a_year():
    """A library exported without years is not old: the review says it cannot tell, and when
    some works have a year it says how many have none."""
    from scholargraph.agents.evaluation import evidence_gaps

    undated = [Work(title="An undated record", doi="10.1/a"),
               Work(title="Another undated record", doi="10.1/b")]
    old = Work(title="An old study", doi="10.1/c", year=2001)
    recent = Work(title="A recent study", doi="10.1/d", year=2024)
    assert evidence_gaps(undated, ["library"], ["library"], 2026) == [
        "No cited work has a publication year, so how recent the evidence is cannot be told"]
    assert evidence_gaps([old, *undated], ["library"], ["library"], 2026) == [
        "No cited work is from the last 5 years (2 cited works have no year)"]
    assert evidence_gaps([old], ["library"], ["library"], 2026) == [
        "No cited work is from the last 5 years"]
    assert evidence_gaps([old, recent, *undated], ["library"], ["library"], 2026) == []


def test_a_claims_sub_questions_answered_by_its_results_send_no_run_back():
    """A claim's methods sub-question (q2) quotes nothing when its studies are quoted under the
    claim (q1) for their results: it is no gap and no reason to search again, while a claim
    sub-question left without a finding still is."""
    works = [OLD, NEW.model_copy(update={"is_retracted": False})]
    draft = extractive_draft(SUBS, PASSAGES, works, ["aspirin", "stroke"], claim_sub=SUBS[0])
    assert {f.sub_question_id for f in draft.findings if f.kind == "finding"} == {"q1"}
    evaluation = score(SUBS, draft, PASSAGES, works, ["pubmed"], THIS_YEAR,
                       answered_by_results=frozenset({"q2"}))
    assert evaluation.coverage["q2"] < 0.5
    assert not any(SUBS[1].text in gap and "no direct evidence" in gap
                   for gap in evaluation.gaps)
    decision, reason = verdict(evaluation, PASSAGES, per_question=6,
                               answered_by_results=frozenset({"q2"}))
    assert decision == "accept" and reason.endswith("which answer q2")
    assert verdict(evaluation, PASSAGES, per_question=6)[0] == "more_evidence"
    unanswered = evaluation.model_copy(update={"coverage": {"q1": 0.0, "q2": 0.0}})
    assert verdict(unanswered, PASSAGES, per_question=6,
                   answered_by_results=frozenset({"q2"})) == (
        "more_evidence", "sub-questions q1 lack evidence: search again")


def test_a_database_entry_quoted_under_a_claim_answers_none_of_its_other_sub_questions():
    """A claim whose one quoted work is a Materials Project entry has no study quoted for its
    result: its values and methods sub-questions still lack evidence and send the run back."""
    from scholargraph.agents.schemas import Finding
    from scholargraph.deterministic.extractive import quoted_for_results

    entry = Finding(sub_question_id="q1", text="The Materials Project reports a band gap.",
                    passage_ids=["title:entry#abstract:0-40"])
    study = Finding(sub_question_id="q1", text="Aspirin reduced stroke risk.",
                    passage_ids=["doi:10.1/old#abstract:0-28"])
    assert quoted_for_results(SUBS, [entry], SUBS[0], frozenset({"title:entry"})) == []
    assert quoted_for_results(SUBS, [entry, study], SUBS[0],
                              frozenset({"title:entry"})) == [SUBS[1]]
    assert quoted_for_results(SUBS, [entry], SUBS[0]) == [SUBS[1]]
