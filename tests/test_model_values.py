"""Model answers are checked like user input: each invalid value issue 14 saw a real model write
is dropped with a note (or the step retried), and never reaches a source."""

from __future__ import annotations

import pytest
from langgraph.runtime import Runtime

from scholargraph.agents.evaluation import CoverageJudgement, SubQuestionScore, judged_coverage
from scholargraph.agents.intent import checked_intent, detect_intent, intent
from scholargraph.agents.planning import PlannedQuestion, PlanReply, planning
from scholargraph.agents.query_generation import (
    DraftQuery,
    QueryPlan,
    query_generation,
    sub_question_id,
)
from scholargraph.agents.schemas import Intent, SubQuestion
from scholargraph.context import ReviewContext
from scholargraph.testing import ScriptedChatModel, structured_reply, tool_call_reply

QUESTION = "machine learning for public health surveillance"
SUBS = [SubQuestion(id="q1", text=QUESTION, answer_shape="studies"),
        SubQuestion(id="q2", text="Which machine learning methods detect outbreaks?",
                    answer_shape="methods")]


@pytest.fixture(autouse=True)
def _no_model_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCHOLARGRAPH_MODEL", raising=False)
    monkeypatch.delenv("SCHOLARGRAPH_STRUCTURED_OUTPUT", raising=False)


def _run(node, state: dict, *replies) -> tuple[dict, ScriptedChatModel]:
    model = ScriptedChatModel(responses=list(replies))
    return node(state, Runtime(context=ReviewContext(chat_model=model))), model


def test_an_implausible_year_a_foreign_formula_field_and_news_window_are_dropped():
    wild = Intent(kind="review", domains=["biomedical", "computer_science", "materials"],
                  keywords=["machine learning", "public health surveillance"],
                  since=1234567890, formula=", ", news_window="week")
    found, notes = checked_intent(wild, QUESTION, this_year=2026)
    assert found.since is None and found.formula is None and found.news_window is None
    assert found.domains == ["biomedical", "computer_science"]
    assert [n.split(" (")[0] for n in notes] == [
        "intent: dropped the model's since 1234567890", "intent: dropped the model's formula ', '",
        "intent: dropped the model's news_window 'week'",
        "intent: dropped the model's domains ['materials']"]


def test_values_the_question_bears_out_are_kept():
    question = "band gap of TiO2 thin films since 2015: latest news"
    answer = Intent(kind="material_property", domains=["materials", "physics"],
                    keywords=["TiO2", "band gap"], since=2015, formula="TiO2", news_window="month")
    found, notes = checked_intent(answer, question, this_year=2026)
    assert (found, notes) == (answer, [])


def test_the_intent_node_sends_no_dropped_value_on():
    wild = Intent(kind="review", domains=["materials"], keywords=["surveillance"], since=1234567890,
                  until=99, formula=", ")
    update, _ = _run(intent, {"cleaned_question": QUESTION}, structured_reply(wild))
    found = update["intent"]
    assert (found.since, found.until, found.formula) == (None, None, None)
    assert "materials" not in update["active_sources"]
    assert found.domains == detect_intent(QUESTION).domains
    assert len(update["notes"]) == 4 and update["model_steps"][0].answered_by == "model"


def test_one_sub_question_is_retried_then_the_template_plan_is_used():
    one = {"sub_questions": [{"text": QUESTION, "answer_shape": "studies"}]}
    state = {"cleaned_question": QUESTION, "intent": detect_intent(QUESTION)}
    update, model = _run(planning, state, tool_call_reply(PlanReply, one),
                         tool_call_reply(PlanReply, one))
    assert model.remaining == 0
    deterministic = planning(state, Runtime(context=ReviewContext()))
    assert update["sub_questions"] == deterministic["sub_questions"]
    (note,) = update["notes"]
    assert "at least 2 items" in note and "malformed twice" in note
    (step,) = update["model_steps"]
    assert (step.calls, step.answered_by, step.valid_first_time) == (2, "fallback", False)


def test_a_plan_of_two_is_taken_and_unrelated_sub_questions_dropped():
    reply = PlanReply(sub_questions=[
        PlannedQuestion(text="How is machine learning used in surveillance?", answer_shape="a"),
        PlannedQuestion(text="Which public health data feed the models?", answer_shape="b"),
        PlannedQuestion(text="What is the capital of France?", answer_shape="c")])
    state = {"cleaned_question": QUESTION, "intent": detect_intent(QUESTION)}
    update, _ = _run(planning, state, structured_reply(reply))
    assert [s.id for s in update["sub_questions"]] == ["q1", "q2"]
    assert update["notes"] == ["planning: dropped the model's sub-question 'What is the capital "
                               "of France?' (it shares no word with the question)"]


def test_a_repeated_sub_question_is_dropped_and_leaked_text_kept_out_of_the_plan():
    """What SmolLM2-135M planned for this question: its second sub-question restates the first
    (a review listed both as unanswered), its answer shapes carry on into the next turn of a
    conversation. The plan keeps the distinct sub-questions, each field on one line."""
    reply = {"sub_questions": [
        {"text": "What is the current state of machine learning for public health surveillance?",
         "answer_shape": "NONE },\n{ "},
        {"text": "The current state of machine learning for public health surveillance.",
         "answer_shape": "NONE }}\nQuestion: What are some ways to improve it?\nAnswer: {\n  "},
        {"text": "Which public health data feed the models?\nAnswer: {",
         "answer_shape": "surveillance data sets, with their size\n}"}]}
    state = {"cleaned_question": QUESTION, "intent": detect_intent(QUESTION)}
    update, _ = _run(planning, state, tool_call_reply(PlanReply, reply))
    assert [(s.id, s.text, s.answer_shape) for s in update["sub_questions"]] == [
        ("q1", reply["sub_questions"][0]["text"], "direct evidence on the question"),
        ("q2", "Which public health data feed the models?", "surveillance data sets, with their "
                                                           "size")]
    assert update["notes"] == [
        "planning: dropped the model's sub-question 'The current state of machine learning for "
        "public health surveillance.' (it asks what q1 asks)"]


def test_a_plan_that_asks_one_thing_twice_is_asked_again_then_the_template_is_used():
    twice = {"sub_questions": [{"text": QUESTION, "answer_shape": "studies"},
                               {"text": QUESTION.rstrip("?") + ".", "answer_shape": "studies"}]}
    state = {"cleaned_question": QUESTION, "intent": detect_intent(QUESTION)}
    update, model = _run(planning, state, tool_call_reply(PlanReply, twice),
                         tool_call_reply(PlanReply, twice))
    assert model.remaining == 0
    assert update["sub_questions"] == planning(state, Runtime(context=ReviewContext()))[
        "sub_questions"]
    (note,) = update["notes"]
    assert ("1 of the sub-questions share a word with the question without repeating another; "
            "2 are needed") in note


@pytest.mark.parametrize(("value", "expected"), [
    ("q2", "q2"), ("2", "q2"), ("Q2", "q2"), (" q 1 ", "q1"), ("q9", None), ("one", None)])
def test_sub_question_ids_are_read_as_the_plan_numbers_them(value, expected):
    assert sub_question_id(value, ["q1", "q2"]) == expected


def test_evaluation_scores_keyed_by_number_count_and_bad_ones_are_dropped():
    judged = CoverageJudgement(coverage=[
        SubQuestionScore(sub_question_id="1", score=0.2),
        SubQuestionScore(sub_question_id="2", score=7.0),
        SubQuestionScore(sub_question_id="q5", score=0.5)], gaps=[])
    merged, notes = judged_coverage(judged, {"q1": 0.6, "q2": 0.4})
    assert merged == {"q1": 0.2}
    assert notes == ["evaluation: dropped the model's score 7.0 for q2 (scores run from 0 to 1)",
                     "evaluation: dropped the model's score for 'q5' (not a sub-question of the "
                     "plan)"]


def test_no_invalid_model_query_is_sent_to_a_source():
    found = detect_intent(QUESTION)
    state = {"cleaned_question": QUESTION, "intent": found, "sub_questions": SUBS,
             "iteration": 1, "active_sources": ["pubmed", "arxiv", "openalex", "materials"],
             "search_log": []}
    plan = QueryPlan(queries=[
        DraftQuery(source="pubmed", sub_question_id="1",
                   query='"machine learning"[tiab] AND ("1234567890"[dp])'),
        DraftQuery(source="arxiv", sub_question_id="q1",
                   query='abs:"machine learning" AND cat:cond-mat.mtrl-sci'),
        DraftQuery(source="materials", sub_question_id="q1", query=", "),
        DraftQuery(source="openalex", sub_question_id="2", query="machine learning outbreaks"),
        DraftQuery(source="arxiv", sub_question_id="q2",
                   query='abs:"public health" AND cat:cs.LG'),
    ])
    update, _ = _run(query_generation, state, structured_reply(plan))
    sent = [(q.source, q.sub_question_id, q.query) for q in update["queries"]]
    assert sent[:2] == [("openalex", "q2", "machine learning outbreaks"),
                        ("arxiv", "q2", 'abs:"public health" AND cat:cs.LG')]
    assert {source for source, _, _ in sent[2:]} <= {"pubmed", "materials"}  # the template's
    assert not any("1234567890" in q or "cond-mat" in q or q == ", " for _, _, q in sent)
    assert len(update["notes"]) == 4
    for note, reason in zip(update["notes"][:3], [
            "date 1234567890 is not a plausible publication year",
            "category cond-mat.mtrl-sci is outside the question's fields",
            "no formula, elements, chemical system, id or band-gap range"], strict=True):
        assert note.startswith("query_generation: dropped the model's query") and reason in note


def test_a_source_named_by_its_host_and_a_query_with_an_invented_id_are_read_sensibly():
    """SmolLM2 named PubMed by a misspelt URL and the sub-question by a random number."""
    found = detect_intent(QUESTION)
    state = {"cleaned_question": QUESTION, "intent": found, "sub_questions": SUBS,
             "iteration": 1, "active_sources": ["pubmed", "openalex"], "search_log": []}
    plan = QueryPlan(queries=[
        DraftQuery(source="https://www.ncbi.nlm.nihgov", sub_question_id="1084239576",
                   query="Which machine learning methods detect outbreaks?"),
        DraftQuery(source="https://en.wikipedia.org/wiki/Machine", sub_question_id="q1",
                   query="machine learning surveillance")])
    update, _ = _run(query_generation, state, structured_reply(plan))
    assert [(q.source, q.sub_question_id) for q in update["queries"]][0] == ("pubmed", "q2")
    assert {q.source for q in update["queries"][1:]} == {"openalex"}  # the template's
    assert "read as q2" in update["notes"][0] and "is not searched" in update["notes"][1]
    assert update["model_steps"][0].answered_by == "model"


def test_a_model_reading_a_materials_question_as_biomedical_does_not_send_it_to_pubmed():
    """Biomedical is a neighbour of chemistry, and the polymorph question reads as chemistry
    by its meaning: a model naming it biomedical sent it to PubMed. For a materials question
    the health side must be read from the question itself."""
    question = "Which polymorph of TiO2 is most stable?"
    answer = Intent(kind="factual", domains=["materials", "chemistry", "biomedical"],
                    keywords=["TiO2", "polymorph", "stability"], formula="TiO2")
    update, _ = _run(intent, {"cleaned_question": question}, structured_reply(answer))
    assert update["intent"].domains == ["materials", "chemistry"]
    assert update["active_sources"] == ["arxiv", "openalex", "materials"]
    assert update["notes"] == ["intent: dropped the model's domains ['biomedical'] (no word of "
                               "the question belongs to those fields)"]
    health = "Toxicity of TiO2 nanoparticles in the lung"
    answer = answer.model_copy(update={"keywords": ["TiO2 nanoparticles", "toxicity"]})
    update, _ = _run(intent, {"cleaned_question": health}, structured_reply(answer))
    assert "biomedical" in update["intent"].domains and "pubmed" in update["active_sources"]
