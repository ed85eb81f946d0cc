"""The LLM engine's screening against the eligibility criteria, driven by a scripted chat model:
verdicts applied with the model's reason, records sent in batches, a record the model cannot
judge kept with a note, and every call on the run's ``engine`` record."""

from __future__ import annotations

import pytest
from langgraph.runtime import Runtime

from scholargraph.agents.retrieval import retrieval
from scholargraph.context import ReviewContext
from scholargraph.engines import ModelSession
from scholargraph.ledger import work_key
from scholargraph.records import Work
from scholargraph.report import engine_section
from scholargraph.screening.llm_criteria import (
    BATCH_SIZE,
    PREFIX,
    STEP,
    CriteriaJudge,
    CriteriaVerdicts,
    RecordVerdict,
    quoted_title,
)
from scholargraph.screening.relevance import read_criteria
from scholargraph.testing import (
    ScriptedChatModel,
    malformed_reply,
    structured_reply,
    tool_call_reply,
)
from scholargraph.wording import counted

QUESTION = "machine learning for public health surveillance"
CRITERIA = """Inclusion criteria
Studies applying machine learning to surveillance data of human populations.

Exclusion criteria
Studies of animals; studies without an evaluation on real data.
"""
DISEASES = ["influenza", "dengue", "measles", "tuberculosis", "cholera", "malaria", "COVID-19",
            "norovirus", "mpox", "salmonella"]


def _work(n: int, disease: str) -> Work:
    return Work(title=f"Machine learning for public health surveillance of {disease}",
                abstract=f"We trained machine learning models on {disease} surveillance data "
                         "reported to public health departments and evaluated early detection.",
                pmid=str(1000 + n), sources=["pubmed"])


WORKS = [_work(n, disease) for n, disease in enumerate(DISEASES)]


def _verdicts(*pairs: tuple[int, str, str]) -> CriteriaVerdicts:
    return CriteriaVerdicts(verdicts=[RecordVerdict(record=n, verdict=v, reason=r)
                                      for n, v, r in pairs])


def _judge(*replies, **known) -> tuple[CriteriaJudge, ScriptedChatModel]:
    model = ScriptedChatModel(responses=list(replies))
    judge = CriteriaJudge(ModelSession(model), QUESTION, read_criteria(CRITERIA),
                          known=known.get("known", {}))
    return judge, model


def test_verdicts_are_applied_with_the_models_reason_marked_as_the_models():
    judge, model = _judge(structured_reply(_verdicts(
        (1, "include", "human surveillance data, evaluated"),
        (2, "exclude", "studies animals, which the criteria exclude"),
        (3, "include", "meets the criteria"))))
    notes: list[str] = []
    reasons = judge.screen(WORKS[:3], notes)
    assert reasons == [None, PREFIX + "studies animals, which the criteria exclude", None]
    assert model.remaining == 0
    prompt = str(model.received[0][-1].content)
    assert "Exclusion criteria" in prompt and QUESTION in prompt
    assert all(work.title in prompt for work in WORKS[:3])
    assert "<<<record 3" in prompt  # each record fenced as untrusted data
    assert notes == [f"{STEP}: the model judged 3 of 3 records kept by the rules against the "
                     f"criteria in 1 call and excluded 1; its exclusions read '{PREFIX}...'"]
    assert judge.verdicts == {work_key(WORKS[0]): None,
                              work_key(WORKS[1]): reasons[1], work_key(WORKS[2]): None}


def test_records_go_to_the_model_in_batches_numbered_within_each():
    first = _verdicts(*((n, "include", "meets the criteria") for n in range(1, BATCH_SIZE + 1)))
    rest = len(WORKS) - BATCH_SIZE
    second = _verdicts(*((n, "exclude", "no evaluation on real data")
                         for n in range(1, rest + 1)))
    judge, model = _judge(structured_reply(first), structured_reply(second))
    reasons = judge.screen(WORKS, [])
    assert len(model.received) == 2 == -(-len(WORKS) // BATCH_SIZE)
    assert f"numbered 1 to {rest}" in str(model.received[1][-1].content)
    assert reasons == [None] * BATCH_SIZE + [PREFIX + "no evaluation on real data"] * rest
    assert [(s.step, s.calls, s.answered_by) for s in judge.steps] == [(STEP, 1, "model")] * 2


def _title(work: Work) -> str:
    return quoted_title(work)


def test_records_left_unjudged_are_asked_about_again_alone_and_then_kept():
    """A reply judging some records of a batch used to leave the others unjudged for the run
    (or, with no valid verdict at all, cost the batch a second full request). The records left
    are now asked about once more as a smaller batch, never the ones already judged; those
    still unjudged are kept, counted on the engine record's step."""
    batch = WORKS[:5]
    judge, model = _judge(
        structured_reply(_verdicts((1, "exclude", "animal study"), (2, "exclude", ""),
                                   (3, "include", "meets the criteria"))),
        structured_reply(_verdicts((1, "exclude", "no evaluation on real data"),
                                   (2, "exclude", "none"))),
    )
    notes: list[str] = []
    reasons = judge.screen(batch, notes)
    assert reasons == [PREFIX + "animal study", PREFIX + "no evaluation on real data", None,
                       None, None]
    assert model.remaining == 0
    again = str(model.received[1][-1].content)
    assert "numbered 1 to 3" in again
    assert all(batch[i].title in again for i in (1, 3, 4))
    assert batch[0].title not in again and batch[2].title not in again
    assert notes[0].startswith(f"{STEP}: the model judged 3 of 5 records kept by the rules "
                               "against the criteria in 2 calls and excluded 2")
    assert notes[1] == (f"{STEP}: 2 records were kept without the model's judgement: "
                        f"1 it gave no verdict for ({_title(batch[4])}); 1 with a verdict not "
                        f"valid ({_title(batch[3])}: excluded without a reason)")
    assert work_key(batch[3]) not in judge.verdicts  # asked again in a later round
    assert [(s.calls, s.answered_by, s.unjudged) for s in judge.steps] == [
        (1, "model", 0), (1, "model", 2)]
    assert engine_section("scripted", judge.steps).steps[0].unjudged == 2


def test_a_record_judged_on_the_second_ask_needs_no_note():
    judge, model = _judge(structured_reply(_verdicts((1, "exclude", "animal study"),
                                                     (2, "include", "meets the criteria"))),
                          structured_reply(_verdicts((1, "include", "human surveillance"))))
    notes: list[str] = []
    assert judge.screen(WORKS[:3], notes) == [PREFIX + "animal study", None, None]
    assert model.remaining == 0 and len(notes) == 1
    assert judge.verdicts[work_key(WORKS[2])] is None
    assert sum(step.unjudged for step in judge.steps) == 0


@pytest.mark.parametrize("reply, reasons", [
    (_verdicts((1, "exclude", "animal study"), (2, "exclude", ""), (3, "include", "")),
     [PREFIX + "animal study", None, None]),
    (_verdicts((1, "exclude", "animal study"), (2, "exclude", "N/A"), (3, "include", "")),
     [PREFIX + "animal study", None, None]),
    (_verdicts((1, "exclude", "animal study"), (2, "include", "fits"), (2, "exclude", "no"),
               (3, "include", "")),
     [PREFIX + "animal study", None, None]),
    ([{"record": 1, "verdict": "exclude", "reason": "animal study"},
      {"record": 2, "verdict": "probably", "reason": "unclear"},
      {"record": 3, "verdict": "include", "reason": ""},
      {"record": 9, "verdict": "exclude", "reason": "review"}],
     [PREFIX + "animal study", None, None]),
])
def test_one_invalid_verdict_keeps_its_record_and_the_batchs_valid_verdicts_stand(
        reply, reasons):
    """A small model's one reasonless exclusion (or 'probably', or two verdicts for a record)
    cost the whole batch's judgements: the reply was asked again and then not used. Each
    verdict is now checked on its own: the others are applied, only the invalid one's record
    is asked about again, alone, and, invalid again, is kept with a note."""
    first = tool_call_reply(CriteriaVerdicts, {"verdicts": reply}) if isinstance(
        reply, list) else structured_reply(reply)
    again = tool_call_reply(CriteriaVerdicts, {"verdicts": [
        {"record": 1, "verdict": "exclude", "reason": ""}]})
    judge, model = _judge(first, again, again)
    notes: list[str] = []
    assert judge.screen(WORKS[:3], notes) == reasons
    assert model.remaining == 0 and len(model.received) == 3
    assert WORKS[0].title not in str(model.received[1][-1].content)
    assert notes[0].startswith(f"{STEP}: the model judged 2 of 3 records")
    # asked again alone, the second work is the model's record 1: the note names its id
    assert notes[1] == (f"{STEP}: 1 record was kept without the model's judgement: 1 in replies "
                        "not used (the model's reply was malformed twice (no valid verdict "
                        f"(record 1 ({WORKS[1].id}): excluded without a reason)))")
    assert WORKS[1].title in str(model.received[1][-1].content)
    assert judge.verdicts == {work_key(WORKS[0]): PREFIX + "animal study",
                              work_key(WORKS[2]): None}
    first, second = judge.steps
    assert (first.answered_by, first.calls, first.unjudged) == ("model", 1, 0)
    assert (second.answered_by, second.calls, second.unjudged) == ("fallback", 2, 1)


def test_a_reply_without_one_valid_verdict_is_asked_again_then_every_record_is_kept():
    bad = {"verdicts": [{"record": 1, "verdict": "exclude", "reason": " "},
                        {"record": 2, "verdict": "unsure", "reason": "x"}]}
    judge, model = _judge(tool_call_reply(CriteriaVerdicts, bad),
                          tool_call_reply(CriteriaVerdicts, bad))
    notes: list[str] = []
    assert judge.screen(WORKS[:2], notes) == [None, None]
    assert model.remaining == 0 and len(model.received) == 2
    assert notes[-1] == (
        f"{STEP}: 2 records were kept without the model's judgement: 2 in replies not used "
        f"(the model's reply was malformed twice (no valid verdict (record 2 ({WORKS[1].id}): "
        f"a verdict other than include or exclude; record 1 ({WORKS[0].id}): excluded without a "
        "reason)))")
    (step,) = judge.steps
    assert step.calls == 2 and step.answered_by == "fallback"
    assert judge.verdicts == {}


def test_records_of_every_batch_not_judged_are_counted_in_one_note():
    bad = structured_reply(_verdicts((5, "exclude", "review")))
    judge, model = _judge(bad, bad, "no tool call", "no tool call")
    judge.batch_size = 2
    notes: list[str] = []
    assert judge.screen(WORKS[:4], notes) == [None] * 4
    assert model.remaining == 0
    (kept,) = [note for note in notes if "without the model's judgement" in note]
    assert kept.startswith(f"{STEP}: 4 records were kept without the model's judgement: "
                           "4 in replies not used (the model's reply was malformed twice "
                           "(no valid verdict (a verdict on record 5, not asked about)); ")
    assert [s.answered_by for s in judge.steps] == ["fallback", "fallback"]


def test_a_malformed_verdict_is_retried_and_a_good_second_reply_is_used():
    judge, model = _judge(
        malformed_reply(CriteriaVerdicts, {"verdicts": [{"record": 1, "verdict": "maybe",
                                                         "reason": "unclear"}]}),
        structured_reply(_verdicts((1, "Excluded", "no evaluation on real data"))))
    assert judge.screen(WORKS[:1], []) == [PREFIX + "no evaluation on real data"]
    (step,) = judge.steps
    assert (step.calls, step.answered_by, step.valid_first_time) == (2, "model", False)
    assert "could not be used" in str(model.received[1][0].content)  # the terse retry


def test_verdicts_of_an_earlier_round_are_not_asked_again():
    earlier = {work_key(WORKS[0]): PREFIX + "animal study", work_key(WORKS[1]): None}
    judge, model = _judge(structured_reply(_verdicts((1, "include", "meets the criteria"))),
                          known=earlier)
    notes: list[str] = []
    assert judge.screen(WORKS[:3], notes) == [PREFIX + "animal study", None, None]
    assert len(model.received) == 1 and WORKS[0].title not in str(model.received[0][-1].content)
    assert "(2 judged in an earlier round, not asked again)" in notes[0]
    assert judge.update()["criteria_verdicts"] == {**earlier, work_key(WORKS[2]): None}


def _state(works: list[Work]) -> dict:
    return {"question": QUESTION, "cleaned_question": QUESTION, "records": works,
            "active_sources": ["pubmed"], "iteration": 1}


OFF_TOPIC = Work(title="Soil bacteria in alpine meadows", abstract="Soil microbes were counted.",
                 pmid="2000", sources=["pubmed"])


def test_the_retrieval_node_asks_about_what_the_rules_kept_and_records_the_calls():
    """Through the graph's node: the rules screen first (the off-topic record is theirs to set
    aside and is never sent to the model), the model's exclusion is counted by PRISMA under its
    own reason, and its calls are on the engine record."""
    model = ScriptedChatModel(responses=[structured_reply(_verdicts(
        (1, "include", "meets the criteria"), (2, "exclude", "animal surveillance only")))])
    update = retrieval(_state([OFF_TOPIC, *WORKS[:2]]),
                       Runtime(context=ReviewContext(chat_model=model, criteria=CRITERIA)))
    assert model.remaining == 0 and OFF_TOPIC.title not in str(model.received[0][-1].content)
    reasons = update["prisma"]["excluded_reasons"]
    assert reasons[PREFIX + "animal surveillance only"] == 1
    assert any(reason.startswith("does not address") for reason in reasons)
    assert [paper.title for paper in update["papers"]] == [WORKS[0].title]
    engine = engine_section("scripted", update["model_steps"])
    (usage,) = engine.steps
    assert (usage.step, usage.asks, usage.calls, usage.answered_by) == (STEP, 1, 1, "model")
    assert engine.calls == 1
    assert update["criteria_verdicts"][work_key(WORKS[1])] == PREFIX + "animal surveillance only"


def test_without_criteria_or_without_a_model_nothing_changes():
    model = ScriptedChatModel(responses=[])  # any call would fail the test
    without_criteria = retrieval(_state(WORKS[:2]), Runtime(context=ReviewContext(
        chat_model=model)))
    deterministic = retrieval(_state(WORKS[:2]), Runtime(context=ReviewContext(
        criteria=CRITERIA)))
    for update in (without_criteria, deterministic):
        assert "model_steps" not in update and "criteria_verdicts" not in update
        assert len(update["papers"]) == 2
    assert model.received == []


@pytest.mark.slow
def test_an_offline_review_whose_model_never_answers_usably_keeps_what_the_rules_kept():
    """End to end over the recorded corpus: with criteria and a model that answers every request
    with plain text, the review includes exactly the works the deterministic review includes,
    and says that the model judged none of them."""
    from scholargraph import review

    plain = review(QUESTION, offline=True, criteria=CRITERIA)
    model = ScriptedChatModel(responses=["I cannot help with that."] * 400)
    judged = review(QUESTION, offline=True, criteria=CRITERIA, chat_model=model)
    assert sorted(p.id for p in judged.papers) == sorted(p.id for p in plain.papers)
    assert judged.prisma["excluded_reasons"] == plain.prisma["excluded_reasons"]
    kept = len(plain.papers)
    assert f"{STEP}: {counted(kept, 'record was', 'records were')} kept without the model's " \
           "judgement" in " ".join(judged.notes)
    (usage,) = [s for s in judged.engine.steps if s.step == STEP]
    assert usage.asks == -(-kept // BATCH_SIZE) and usage.fallbacks == usage.asks
    assert usage.calls == 2 * usage.asks  # each asked once more, then not used


def test_an_included_rows_reason_says_whether_the_model_judged_it():
    """screening.csv's included rows said only why the rules kept them, the same whether the
    model agreed or never judged the record: each now says which."""
    from scholargraph.report import report_from_state
    from scholargraph.screening.llm_criteria import INCLUDED, UNJUDGED

    model = ScriptedChatModel(responses=[structured_reply(_verdicts(
        (1, "include", "meets the criteria"), (3, "exclude", "animal surveillance only"))),
        *[structured_reply(_verdicts())] * 2])  # asked again about the second, no verdict
    context = ReviewContext(chat_model=model, criteria=CRITERIA)
    state = _state(WORKS[:3])
    report = report_from_state(QUESTION, {**state, **retrieval(state, Runtime(context=context))},
                               context)
    reasons = {row.title: row.reason for row in report.screening}
    assert reasons[WORKS[0].title].startswith("kept: addresses: ")
    assert reasons[WORKS[0].title].endswith(f"; {INCLUDED}")
    assert reasons[WORKS[1].title].endswith(
        "; criteria (model): the model could not judge it") and UNJUDGED in reasons[WORKS[1].title]
    assert reasons[WORKS[2].title] == PREFIX + "animal surveillance only"
    plain = ReviewContext(criteria=CRITERIA)  # the deterministic engine's rows are unchanged
    rules = report_from_state(QUESTION, {**state, **retrieval(state, Runtime(context=plain))},
                              plain)
    assert all(PREFIX not in row.reason for row in rules.screening)


def test_the_engine_line_names_a_step_the_model_answered_in_part_once():
    """Screening's batches are one step asked several times: with one batch answered and one
    fallen back, review.md listed 'screening' both as answered by the model and as the
    deterministic fallback. Each step is now named once, with its outcome."""
    from scholargraph.agents.schemas import ModelStep

    first = _verdicts(*((n, "include", "meets the criteria") for n in range(1, BATCH_SIZE + 1)))
    judge, _ = _judge(structured_reply(first), "no tool call", "no tool call")
    judge.screen(WORKS, [])
    steps = [ModelStep(step="intent", method="function_calling", answered_by="model"),
             *judge.steps,
             ModelStep(step="synthesis", method="function_calling", answered_by="fallback")]
    line = engine_section("openai:smollm2", steps).line()
    assert line.endswith("answered by the model: intent; partly by the model: screening (the "
                         "model 1 of 2 times, the deterministic fallback 1); deterministic "
                         "fallback: synthesis.")
    assert line.count("screening") == 1
    alone = engine_section("openai:smollm2", steps[:1]).line()
    assert alone.endswith("answered by the model: intent; deterministic fallback: none.")


def test_an_empty_list_of_verdicts_is_no_answer_and_is_asked_again():
    """SmolLM2-135M answered a batch of three records with no verdict at all, and screening was
    listed as answered by the model. Such a reply is asked again once, then not used: the
    records are kept and the step is a fallback."""
    judge, model = _judge(structured_reply(_verdicts()), structured_reply(_verdicts()))
    notes: list[str] = []
    assert judge.screen(WORKS[:3], notes) == [None, None, None]
    assert model.remaining == 0
    assert notes[-1] == (f"{STEP}: 3 records were kept without the model's judgement: 3 in "
                         "replies not used (the model's reply was malformed twice (no verdict "
                         "for any record))")
    assert [s.answered_by for s in judge.steps] == ["fallback"]
