"""A claim to check is searched by its specific words and rests on the works closest to it.

Issue 12's review bench types SciFact claims as a user would ("A deficiency of folate increases
blood levels of homocysteine."). Two things made such reviews miss their evidence or overstate
it: queries that required a phrase the study never uses ("HNF4A leads", "blood levels"), and
reviews citing every work on the topic as if it tested the claim. These tests pin the behaviour
that replaced them, with the corpus served over HTTP as OpenAlex.
"""

from __future__ import annotations

import pytest

from scholargraph import review
from scholargraph.agents.intent import detect_intent
from scholargraph.agents.planning import plan_from_template
from scholargraph.agents.query_generation import deterministic_queries
from scholargraph.deterministic.questions import is_claim
from scholargraph.deterministic.relevance import EXCLUSION_NOT_CLOSEST, closest_to_claim
from scholargraph.deterministic.text import specific_words
from scholargraph.rag.works import WorkRelevance
from scholargraph.sources.base import any_two, first_and_any
from scholargraph.sources.registry import get_agent
from scholargraph.testing import ReplayServer
from scholargraph.testing.services.corpus import CorpusDoc, CorpusService, openalex_id_for

CLAIM = "A deficiency of folate increases blood levels of homocysteine."


@pytest.mark.parametrize("text", [
    CLAIM,
    "ALDH1 expression is associated with poorer prognosis for breast cancer primary tumors.",
    "Folic acid supplementation reduces plasma homocysteine",  # no full stop: the verb says it
    "76-85% of people with severe mental disorder receive no treatment in low and middle income "
    "countries.",
])
def test_statements_are_claims(text):
    assert is_claim(text)


@pytest.mark.parametrize("text", [
    "machine learning for public health surveillance",
    "Does CRISPR-Cas9 gene editing cure sickle cell disease in adults?",
    "What predicts suicide ideation or opioid overdose among veterans?",
    "transformer vs LSTM for time series forecasting",
    "Compare the formation energy of LiFePO4 and LiCoO2",
    "perovskite solar cell stability",
    "vitamin D supplementation and risk of fractures in older adults",
    "Deep learning versus logistic regression for sepsis prediction",
])
def test_questions_and_topics_are_not_claims(text):
    assert not is_claim(text)


def test_the_rarest_words_of_a_claim_come_first():
    words = specific_words("A mutation in HNF4A leads to an increased risk of developing "
                           "diabetes by the age of 14 years.")
    assert words[:3] == ["HNF4A", "mutation", "diabetes"]
    assert "increased" not in words and "14" not in words  # a predicate and a value
    assert words[-1] == "risk"  # too general to search alone: last


def test_any_two_combines_every_pair():
    assert any_two(["a", "b", "c"]) == "(a AND b) OR (a AND c) OR (b AND c)"
    assert first_and_any(["a", "b", "c"]) == "a AND (b OR c)"
    assert any_two(["a"]) == "a"


def _first_round(question: str, sources: tuple[str, ...]) -> list[tuple[str, str]]:
    intent = detect_intent(question, this_year=2026)
    subs = plan_from_template(question, intent).sub_questions
    queries = deterministic_queries([get_agent(name) for name in sources], subs, intent,
                                    round_number=1, targets=[s.id for s in subs],
                                    already_sent=set())
    return [(q.source, q.query) for q in queries]


def test_a_claim_is_searched_by_any_two_of_its_specific_words():
    sent = _first_round(CLAIM, ("openalex", "pubmed", "arxiv", "materials"))
    any_two = {source: query for source, query in sent if " OR (" in query}
    assert "(homocysteine AND folate)" in any_two["openalex"]
    assert "(homocysteine[tiab] AND folate[tiab])" in any_two["pubmed"]
    assert "(ti:homocysteine OR abs:homocysteine)" in any_two["arxiv"]
    assert "materials" not in {source for source, _ in sent}  # no formula, no query
    for query in any_two.values():
        assert "increases" not in query and "levels" in query


DOCS = [
    CorpusDoc("fol-trial", "Folic acid supplementation and plasma homocysteine",
              "In a randomised trial of 200 adults with low folate status, folic acid "
              "supplementation for 12 weeks lowered fasting plasma homocysteine by 25% compared "
              "with placebo. Folate deficiency was associated with raised homocysteine at "
              "baseline."),
    CorpusDoc("hcy-stroke", "Homocysteine and the risk of stroke: a cohort",
              "Among 5,000 older adults followed for ten years, the highest quartile of plasma "
              "homocysteine carried a higher risk of ischaemic stroke than the lowest. Blood "
              "pressure and smoking were measured at entry."),
    CorpusDoc("fol-ntd", "Folate fortification of flour and neural tube defects",
              "After national fortification of flour with folic acid, the prevalence of neural "
              "tube defects fell by a third. Blood folate levels rose in women of reproductive "
              "age."),
    CorpusDoc("b12-nerve", "Vitamin B12 deficiency and peripheral neuropathy",
              "Vitamin B12 deficiency caused peripheral neuropathy in elderly patients; blood "
              "levels of methylmalonic acid and homocysteine were raised in most of them."),
]


@pytest.fixture(scope="module")
def claim_review(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("claim-home")
    with ReplayServer([CorpusService(DOCS)]) as server, server.environment(
            SCHOLARGRAPH_HOME=str(home), SCHOLARGRAPH_RATE_SCALE="1000"):
        yield review(CLAIM, sources=["openalex"], max_results=10, out=home / "out")


def test_a_claim_review_rests_on_the_study_that_tests_it(claim_review):
    trial = openalex_id_for("fol-trial")
    assert [work.openalex_id for work in claim_review.papers] == [trial]
    assert [work.openalex_id for work in claim_review.cited_works()] == [trial]


def test_works_merely_on_the_claims_topic_are_excluded_and_counted(claim_review):
    prisma = claim_review.prisma
    assert prisma["excluded_reasons"].get(EXCLUSION_NOT_CLOSEST, 0) >= 2
    assert prisma["screened"] - prisma["excluded"] == prisma["included"] == 1
    assert claim_review.counts.included == 1
    assert "included 1" in claim_review.summary


def test_a_topic_review_is_not_narrowed_to_one_work(tmp_path):
    with ReplayServer([CorpusService(DOCS)]) as server, server.environment(
            SCHOLARGRAPH_HOME=str(tmp_path / "home"), SCHOLARGRAPH_RATE_SCALE="1000"):
        report = review("folate and homocysteine", sources=["openalex"], max_results=10)
    assert EXCLUSION_NOT_CLOSEST not in report.prisma["excluded_reasons"]
    assert len(report.papers) >= 2


def _ranked(*scores: tuple[str, float, float | None]) -> list[WorkRelevance]:
    return [WorkRelevance(work_id, lexical, dense, fused=1.0 / (60 + rank))
            for rank, (work_id, lexical, dense) in enumerate(scores, 1)]


def test_a_second_work_is_kept_only_when_as_close_in_meaning_and_words():
    ranked = _ranked(("best", 10.0, 0.70), ("as-close", 8.0, 0.72), ("fewer-words", 5.0, 0.80),
                     ("further", 9.0, 0.60))
    assert closest_to_claim(ranked) == {"best", "as-close"}
    weak = _ranked(("best", 10.0, 0.30), ("next", 9.5, 0.40))
    assert closest_to_claim(weak) == {"best"}  # 0.40 is not plainly about the claim
    assert closest_to_claim(_ranked(("best", 10.0, None), ("next", 7.5, None))) == {
        "best", "next"}
    assert closest_to_claim([]) == set()


def test_a_claims_sub_questions_ask_whether_it_holds():
    intent = detect_intent(CLAIM, this_year=2026)
    texts = [s.text for s in plan_from_template(CLAIM, intent).sub_questions]
    assert texts[0] == ("What do studies report on whether a deficiency of folate increases "
                        "blood levels of homocysteine?")
    assert all("whether a deficiency of folate increases blood levels of homocysteine?" in text
               for text in texts)
    either = "Aspirin or statins reduce colorectal cancer risk."
    texts = [s.text for s in plan_from_template(either, detect_intent(either)).sub_questions]
    assert "What do studies report on whether statins reduce colorectal cancer risk?" in texts


def test_one_work_may_fill_the_slots_only_when_too_few_works_share_them():
    from scholargraph.rag.select import MAX_PER_WORK, per_work

    assert per_work(6, 10) == per_work(6, 3) == MAX_PER_WORK  # two passages each at most
    assert per_work(6, 2) == 3  # two works share the slots
    assert per_work(12, 1) == 12  # a claim resting on one study reads all of its abstract


def test_the_filter_reads_more_than_two_pieces_of_a_claims_only_work():
    from scholargraph.agents.schemas import SubQuestion
    from scholargraph.rag import chunk_work, select_passages
    from scholargraph.records import Work

    sentences = [f"In cohort {n}, folic acid supplementation lowered plasma homocysteine by "
                 f"{10 + n}% over {n + 4} weeks compared with placebo in adults with low folate."
                 for n in range(30)]
    trial = Work(title="Folic acid and homocysteine: pooled cohorts", abstract=" ".join(sentences),
                 doi="10.1000/pooled")
    assert len(chunk_work(trial)) > 4
    sub = SubQuestion(id="q1", text="Does folic acid lower homocysteine?", answer_shape="x")
    selected, _ = select_passages([sub], [trial], per_question=6)
    assert len(selected["q1"]) > 2
