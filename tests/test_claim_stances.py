"""A review quotes the sentence that states a result, reads which way each study points on a
claim, and gives the balance, each study cited (issue 22)."""

from __future__ import annotations

import pytest

from scholargraph.agents.schemas import SubQuestion, WorkStance
from scholargraph.deterministic.extractive import extractive_draft, rank_candidates
from scholargraph.deterministic.stance import numbers_disagree, proportions, reading
from scholargraph.records import Passage, Work
from scholargraph.report import balance_line

CLAIM = "A deficiency of folate increases blood levels of homocysteine."


@pytest.mark.parametrize(("sentence", "expected"), [
    ("Folate deficiency raised plasma homocysteine levels by a third.", "supports"),
    ("Low folate was associated with lower homocysteine levels in blood.", "contradicts"),
    ("Folate deficiency did not change blood homocysteine levels.", "no effect"),
    ("Folate deficiency was not associated with homocysteine levels.", "no effect"),
    ("Vitamin B12 deficiency caused peripheral neuropathy in elderly patients.", "neither"),
])
def test_a_result_sentence_is_read_against_the_claim(sentence, expected):
    assert reading(CLAIM, sentence) == expected


def test_numbers_that_disagree_with_the_claims_contradict_it():
    claim = "1 in 5 million in UK have abnormal PrP positivity."
    found = ("Of the 32,441 appendix samples 16 were positive for abnormal PrP, indicating an "
             "overall prevalence in the UK of 493 per million population (1/2000).")
    assert proportions(claim) == [pytest.approx(2e-7)]
    assert proportions("493 per million (1/2000)") == [pytest.approx(4.93e-4),
                                                        pytest.approx(5e-4)]
    assert numbers_disagree(claim, found)
    assert reading(claim, found) == "contradicts"
    assert not numbers_disagree("12% of adults smoke.", "Of the adults, 13.5% smoked.")
    assert reading(claim, "In the UK 1 in 5 million had abnormal PrP positivity.") != (
        "contradicts")


def _work(name: str) -> Work:
    return Work(title=f"Study {name}", doi=f"10.1000/{name}", year=2020, sources=["openalex"],
                abstract="text")


def _passage(owner: Work, text: str) -> Passage:
    return Passage(id=f"{owner.id}#abstract:0-{len(text)}", work_id=owner.id, text=text,
                   start=0, end=len(text), sub_question_id="q1", score=1.0)


TALK, REVIEW = _work("talk"), _work("review")
SURVEILLANCE = SubQuestion(id="q1", text="What do studies report on whether machine learning "
                           "improves disease surveillance in public health?",
                           answer_shape="studies testing it")
PASSAGES = [
    _passage(TALK, "In this talk, we present an overview of scalable machine learning tools for "
                   "disease surveillance in public health. Our tools detect disease outbreaks "
                   "from public health surveillance data."),
    _passage(REVIEW, "Information was abstracted from articles describing the use of machine "
                     "learning in public health disease surveillance. The reviewed articles show "
                     "that machine learning improved the timeliness of disease surveillance in "
                     "public health."),
]


def test_a_sentence_saying_what_a_paper_does_is_never_a_finding():
    draft = extractive_draft([SURVEILLANCE], PASSAGES, [TALK, REVIEW],
                             ["machine learning", "disease surveillance", "public health"])
    quoted = [f.text for f in draft.findings]
    assert quoted, "the result sentences were not quoted"
    assert not any(text.startswith(("In this talk", "Information was abstracted"))
                   for text in quoted)
    assert any(text.startswith("The reviewed articles show") for text in quoted)


def test_results_rank_before_background_and_methods():
    passage = _passage(REVIEW, "Machine learning is widely used in public health disease "
                               "surveillance. We used records of 2,000 disease surveillance "
                               "reports in public health. Machine learning improved disease "
                               "surveillance in public health, detecting outbreaks 3 days "
                               "earlier.")
    ranked = rank_candidates(SURVEILLANCE, [passage], ["machine learning"], {REVIEW.id: 2020})
    assert ranked[0].quote.text.startswith("Machine learning improved")


def test_the_balance_line_counts_each_reading_and_cites_each_study():
    stances = [WorkStance(work_id="a", reading="supports", citation=1),
               WorkStance(work_id="b", reading="contradicts", citation=2),
               WorkStance(work_id="c", reading="supports", citation=3),
               WorkStance(work_id="d", reading="no effect", citation=4),
               WorkStance(work_id="e", reading="no effect", citation=5)]
    assert balance_line(stances) == ("Of the 5 included studies read against the claim, 2 "
                                     "support it [1][3], 1 contradicts it [2], 2 find no "
                                     "effect [4][5].")
    assert balance_line([]) == ""
    assert balance_line([WorkStance(work_id="a", reading="supports", citation=2)]) == (
        "The one included study supports it [2].")
    silent = WorkStance(work_id="b", reading="neither")  # states no result: not cited for one
    assert balance_line([stances[0], silent]) == (
        "Of the 2 included studies read against the claim, 1 supports it [1], 1 reads neither "
        "way.")
