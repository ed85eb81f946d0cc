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
from scholargraph.agents.schemas import SubQuestion
from scholargraph.deterministic.class_claims import (
    about_a_class,
    claim_subject,
    class_claim_studies,
    measures_subject,
)
from scholargraph.deterministic.extractive import rank_candidates
from scholargraph.deterministic.questions import claim_clause, is_claim
from scholargraph.deterministic.relevance import (
    CLAIM_MARGIN,
    CLAIM_REACH,
    EXCLUSION_NO_RELATION,
    EXCLUSION_NO_STUDY,
    EXCLUSION_NOT_TESTING,
    EXCLUSION_RANKED_FAR,
    EXCLUSION_TITLE_ONLY,
    NAMED_REACH,
    NAMED_SHARE,
    RELATION_MIN,
    STATED_MIN,
    STATED_REACH,
    works_testing_claim,
)
from scholargraph.deterministic.text import specific_words
from scholargraph.rag.chunking import chunk_work
from scholargraph.rag.works import WorkRelevance, rank_works
from scholargraph.records import Work
from scholargraph.settings import Settings
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
    "DUSP4 downregulation deactivates the Ras-ERK pathway",  # a verb before its object
    "RTEL1 interacts with TRF2 through a C4C4 motif",  # a verb of mechanism
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


@pytest.mark.parametrize(("text", "window"), [
    ("Incidence of sepsis has fallen substantially from 2009 to 2014.", (None, None)),
    ("Incidence of heart failure increased by 10% in women since 1979.", (None, None)),
    ("Does metformin reduce cancer risk in studies since 2010?", (2010, None)),
    ("perovskite solar cell stability 2018-2024", (2018, 2024)),
])
def test_a_claims_years_date_its_finding_not_the_studies(text, window):
    """A claim's years say when its finding held; the studies that test it came later, so they
    are no publication window (a question's or a topic's are)."""
    intent = detect_intent(text, this_year=2026)
    assert (intent.since, intent.until) == window


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
    CorpusDoc("fol-survey", "Folate status and homocysteine in a national survey",
              "In a cross-sectional survey of 1,200 adults, plasma homocysteine was measured "
              "with red cell folate. Adults with folate deficiency had plasma homocysteine "
              "30% higher than those with adequate folate status."),
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


def test_a_claim_review_rests_on_every_study_that_tests_it(claim_review):
    """Two studies report on folate deficiency and homocysteine: the review includes and cites
    both, not only the best-ranked one."""
    testing = {openalex_id_for("fol-trial"), openalex_id_for("fol-survey")}
    assert {work.openalex_id for work in claim_review.papers} == testing
    assert {work.openalex_id for work in claim_review.cited_works()} == testing


def test_each_study_of_a_claim_is_read_against_it_and_the_balance_cites_them(claim_review):
    readings = {claim_review.work(s.work_id).openalex_id: s.reading
                for s in claim_review.stances}
    assert readings == {openalex_id_for("fol-trial"): "supports",
                        openalex_id_for("fol-survey"): "supports"}
    numbers = {ref.work_id: ref.number for ref in claim_review.references}
    for stance in claim_review.stances:
        assert stance.quote is not None and stance.citation == numbers[stance.work_id]
        passage = claim_review.passage(stance.quote.passage_id)
        assert passage.text[stance.quote.start:stance.quote.end] == stance.quote.text
    assert claim_review.summary.endswith(
        "Of the 2 included studies, 2 support the claim [1][2].")


NOT_TESTING = (EXCLUSION_NO_RELATION, EXCLUSION_RANKED_FAR)


def test_works_merely_on_the_claims_topic_are_excluded_and_counted(claim_review):
    prisma = claim_review.prisma
    assert sum(prisma["excluded_reasons"].get(reason, 0) for reason in NOT_TESTING) >= 2
    assert prisma["screened"] - prisma["excluded"] == prisma["included"] == 2
    assert claim_review.counts.included == 2
    assert "included 2" in claim_review.summary


def test_a_topic_review_is_not_narrowed_to_one_work(tmp_path):
    with ReplayServer([CorpusService(DOCS)]) as server, server.environment(
            SCHOLARGRAPH_HOME=str(tmp_path / "home"), SCHOLARGRAPH_RATE_SCALE="1000"):
        report = review("folate and homocysteine", sources=["openalex"], max_results=10)
    assert not any(reason.startswith(EXCLUSION_NOT_TESTING)
                   for reason in report.prisma["excluded_reasons"])
    assert len(report.papers) >= 2


def _works(*texts: tuple[str, str]) -> list[Work]:
    return [Work(title=title, abstract=abstract, sources=["openalex"]) for title, abstract in texts]


TESTS_THE_CLAIM = ("Folate status and plasma homocysteine",
                   "We measured plasma homocysteine in 300 adults. Folate deficiency raised "
                   "plasma homocysteine concentrations by a third.")
ON_THE_TOPIC = ("Folate intake in pregnancy", "Folate intake in pregnancy was assessed by a "
                "questionnaire. Folate deficiency was common among younger women.")


def test_without_vectors_works_rank_by_the_claims_words(tmp_path):
    settings = Settings(home=tmp_path, store_dir=None, chroma_host=None, embedding_model="none")
    topic, tests_it = _works(ON_THE_TOPIC, TESTS_THE_CLAIM)
    ranked, warnings = rank_works(CLAIM, [topic, tests_it], settings)
    assert [work.work_id for work in ranked] == [tests_it.id, topic.id]
    assert ranked[0].fused == 1.0 and ranked[1].fused == 0.0
    assert ranked[0].specific > ranked[1].specific and ranked[0].lexical > ranked[1].lexical
    assert ranked[0].dense is None and ranked[0].passage is None and warnings == []


def test_a_sentence_stating_the_claim_lifts_its_work(tmp_path, shared_models):
    """A long abstract whose one sentence states the claim is far from it as a whole and close
    to it at that sentence: the passage score sees what the whole-work cosine averages away."""
    settings = Settings(home=tmp_path, store_dir=None, chroma_host=None,
                        models_dir=shared_models)
    states_it, background = _works(
        ("Nutrition and vascular risk in older adults",
         "Diet, smoking, exercise and sleep were recorded for 2,000 adults in three cities over "
         "ten years, with yearly visits and questionnaires on income and education. " * 6
         + "A deficiency of folate increased blood levels of homocysteine."),
        ("Laboratory methods in a vascular clinic",
         "Homocysteine and folate assays are described, with their costs and turnaround "
         "times. " * 8 + "Samples were stored at -80 degrees."))
    ranked, warnings = rank_works(CLAIM, [background, states_it], settings)
    assert not warnings
    by_id = {work.work_id: work for work in ranked}
    lifted, plain = by_id[states_it.id], by_id[background.id]
    assert lifted.passage is not None and lifted.dense is not None
    assert lifted.passage - lifted.dense > 0.3
    assert plain.passage is not None and plain.dense is not None
    assert plain.passage - plain.dense < 0.1
    assert [work.fused for work in ranked] == sorted((w.fused for w in ranked), reverse=True)
    assert all(0.0 <= work.fused <= 1.0 for work in ranked)


def _ranked(*scores: tuple[str, float, float | None], specific: dict[str, float] | None = None
            ) -> list[WorkRelevance]:
    """Works best first, each naming half the claim's specific words unless ``specific`` says."""
    named = specific or {}
    works = [WorkRelevance(work_id, lexical=1.0, specific=named.get(work_id, 0.5), dense=None,
                           passage=None, fused=fused, relation=relation)
             for work_id, fused, relation in scores]
    return sorted(works, key=lambda work: -work.fused)


def test_every_work_reporting_on_the_claims_relation_is_kept_most_direct_first():
    best = 0.90
    ranked = _ranked(("best", best, 0.3), ("close-but-silent", 0.85, RELATION_MIN - 0.01),
                     ("reports-it", best - CLAIM_REACH, RELATION_MIN),
                     ("reports-it-further", best - CLAIM_REACH - 0.05, RELATION_MIN),
                     ("states-it", best - STATED_REACH, STATED_MIN),
                     ("states-it-far", best - STATED_REACH - 0.05, 0.95))
    assert works_testing_claim(ranked) == ["best", "reports-it", "states-it"]
    assert works_testing_claim(_ranked(("only", 0.0, 0.0))) == ["only"]
    assert works_testing_claim([]) == []


def test_a_work_naming_the_claims_specific_words_tests_it_unless_they_are_everyday_words():
    """A study whose result has no direction word ("formed teratomas that included derivatives
    of all three germ layers") still names the claim's rare words; a claim in everyday words
    ("machine learning", "public health") is named by every chapter on its field."""
    best = 0.90
    ranked = _ranked(("best", best, 0.7), ("names-it", best - NAMED_REACH, 0.0),
                     ("names-most", best - 0.05, 0.0), ("names-it-far", best - NAMED_REACH - 0.05,
                                                        0.0),
                     specific={"names-it": NAMED_SHARE, "names-most": NAMED_SHARE - 0.1,
                               "names-it-far": 1.0})
    assert works_testing_claim(ranked) == ["best", "names-it"]
    assert works_testing_claim(ranked, technical=False) == ["best"]


def test_without_sentence_scores_only_works_nearly_as_high_are_kept():
    ranked = _ranked(("best", 0.90, None), ("as-close", 0.90 - CLAIM_MARGIN, None),
                     ("further", 0.80, None))
    assert works_testing_claim(ranked) == ["best", "as-close"]


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


def test_a_sentence_naming_three_terms_of_a_long_claim_is_quotable():
    """A sub-question restating a long claim has 14 topic terms; the study's sentence naming
    three of them (a fifth) is on its subject, one naming two is not."""
    claim = ("Citrullinated proteins externalized in neutrophil extracellular traps act indirectly "
             "to perpetuate the inflammatory cycle via induction of autoantibodies.")
    sub = SubQuestion(id="q1", text=f"What do studies report on {claim_clause(claim)}?",
                      answer_shape="findings")
    work = Work(title="NETs in rheumatoid arthritis", sources=["openalex"], abstract=(
        "Indeed, during NETosis, neutrophils externalized the citrullinated autoantigens "
        "implicated in rheumatoid arthritis. Synovial fibroblasts from these patients were "
        "cultured with neutrophil products for two days."))
    passages = [p.model_copy(update={"sub_question_id": "q1"}) for p in chunk_work(work)]
    quoted = [c.quote.text for c in rank_candidates(sub, passages, [], {work.id: 2013})]
    assert quoted == ["Indeed, during NETosis, neutrophils externalized the citrullinated "
                      "autoantigens implicated in rheumatoid arthritis."]


def test_a_participle_before_its_noun_makes_a_topic_not_a_claim():
    from scholargraph.deterministic.questions import is_claim

    # a systematic review's title: "associated" qualifies "efficacy", it asserts nothing
    assert not is_claim("Pharmacokinetics and Associated Efficacy of Emicizumab in Humans: A "
                        "Systematic Review")
    assert not is_claim("Increased risk of stroke after influenza")
    assert not is_claim("Cancer-associated fibroblasts in breast tumours")
    # after its subject, the same word asserts
    assert is_claim("Statins reduced mortality in older adults")
    assert is_claim("The minor G allele of FOXO3 up-regulates IL-10")


@pytest.mark.parametrize(("claim", "broad"), [
    ("Machine learning improves disease surveillance in public health.", True),
    ("Exercise reduces cancer mortality rates among Chinese citizens.", True),
    ("Erlotinib improves survival in non-small cell lung cancer.", False),
    ("RAD52 is involved in break-induced DNA replication (BIR).", False),
    (CLAIM, False),  # homocysteine names one compound
])
def test_a_claim_naming_only_everyday_words_is_about_a_class(claim, broad):
    assert about_a_class(claim) is broad


SURVEILLANCE_CLAIM = "Machine learning improves disease surveillance in public health."


def test_a_class_claim_takes_in_the_studies_measuring_its_subject_wherever_they_rank():
    """A study of one member of the class (written with the abbreviation its abstract defines)
    measures machine learning; commentaries on the topic and a study that uses machine learning
    as a tool for something else measure nothing about it."""
    study, commentary, tool, chapter, agenda = _works(
        ("Machine learning to predict suicide ideation in a national survey",
         "We trained machine learning (ML) models on 35,116 survey respondents. The ML model "
         "achieved an AUC of 0.85 in the test set."),
        ("Machine learning and public health", "Machine learning shows promise for public "
         "health. This chapter discusses the philosophical issues it raises."),
        ("Climate regions by machine learning", "Regions were defined by machine learning from "
         "satellite data. The highest rate of hospitalisations (17.7 per 100,000) was observed "
         "in the south-east."),
        ("Machine learning in health care", "Machine learning is used in health care."),
        ("Machine learning for public health: an agenda", "An agenda for research."))
    found = [study, commentary, tool, chapter, agenda]
    subject = claim_subject(SURVEILLANCE_CLAIM)
    assert [measures_subject(w, SURVEILLANCE_CLAIM, subject)
            for w in (study, commentary, tool)] == [True, False, False]
    assert class_claim_studies(SURVEILLANCE_CLAIM, found) == {study.id}
    # a claim about one thing is left to the ranking: the same study is not taken in
    assert class_claim_studies("Erlotinib improves survival in non-small cell lung cancer.",
                               found) == set()
    # nor when few of the works found name the claim's subject in their titles
    assert class_claim_studies(SURVEILLANCE_CLAIM, [study, commentary, tool]) == set()
    ranked = _ranked(("best", 0.90, 0.7), (study.id, 0.10, 0.2), (tool.id, 0.5, 0.1))
    assert works_testing_claim(ranked, {study.id}) == ["best", study.id]


BROAD_TESTED_BY = {
    "10.2196/preprints.26351": "reviews 22 studies of NLP and ML in public health surveillance",
    "10.2196/28749": "ML models for public health surveillance trained on crowd labels: their "
                     "performance depends on the labels' quality",
    "10.30773/pi.2018.08.27": "an ML model screening a national health survey for suicide "
                              "ideation (AUC 0.85)",
}


BROAD_NOT_TESTED_BY = (  # title openings of the recorded works on the topic that do not test it
    "New Research Agenda", "Machine Learning in Public Health: A Review",
    "BigData and Machine Learning", "Machine Learning in Healthcare",
    "Machine learning and public health", "Changes in the Scientific Information Environment",
    "Connecting Fairness in Machine Learning", "Artificial Intelligence beyond Chess",
    "The intersection of genomics and big data", "Use of Big Data and Machine Learning Methods",
    "Mathematical modeling and machine learning", "Redefining climate regions",
    "Opportunities for opioid overdose prediction", "Oak Ridge Biosurveillance Toolkit")
BROAD_NO_STUDY = (  # of those, the works that report no study of their own
    "Oak Ridge Biosurveillance Toolkit", "Changes in the Scientific Information Environment",
    "Use of Big Data and Machine Learning Methods", "Opportunities for opioid overdose prediction",
    "Machine learning and public health")
BROAD_TITLE_ONLY = (  # of those, the records known by their title alone
    "New Research Agenda", "Machine Learning in Public Health: A Review",
    "BigData and Machine Learning")


def test_the_broad_claim_includes_every_recorded_work_that_tests_it():
    """Over the recorded corpus, "Machine learning improves disease surveillance in public
    health." is tested by the three works of ``BROAD_TESTED_BY``, read as a scientist reads
    them: a narrative review of the studies and two studies that measure a machine-learning
    model on a population's health data. The talk closest to the claim ("In this talk, we
    present an overview of scalable machine learning tools ...") was kept as the best-ranked
    work and counted among the studies weighed, though it reports no study and no measure: it
    is now set aside with the commentaries and the protocol as reporting no study of its own
    (``BROAD_NO_STUDY``). The works screened in beside them do not test it
    (``BROAD_NOT_TESTED_BY``): three have no abstract (a research agenda, "Machine Learning in
    Public Health: A Review", "BigData and Machine Learning for Public Health"), set aside
    before the ranking (``BROAD_TITLE_ONLY``), two are book chapters on machine learning in
    health care and its philosophy (the latter a discussion of issues, reporting no study of
    its own), five are commentaries (the
    COVID-19 infodemic, fairness in machine learning, AI beyond chess, genomics and big data,
    and a comment on an opioid-overdose prediction study: its figures are that study's, and
    its one sentence naming machine learning with a result cites another paper, "...
    mortality risk.8Neill DB ..."),
    one is a protocol whose results are to come, and two measure something else with machine
    learning as a tool (tumour classification beside a model of chemotherapy's patient
    dynamics; climate regions from satellite data against hospitalisation rates)."""
    report = review(SURVEILLANCE_CLAIM, offline=True)
    assert {work.doi for work in report.papers} == set(BROAD_TESTED_BY)
    # each is read against the claim and cited, wherever its result lies in its abstract
    assert {ref.work_id for ref in report.references} == {work.id for work in report.papers}
    set_aside = [row.title for row in report.screening if row.reason in NOT_TESTING]
    assert len(set_aside) >= 5
    assert all(title.startswith(BROAD_NOT_TESTED_BY) for title in set_aside)
    no_study = [row.title for row in report.screening if row.reason == EXCLUSION_NO_STUDY]
    assert sorted(title[:20] for title in no_study) == sorted(t[:20] for t in BROAD_NO_STUDY)
    bare = [row.title for row in report.screening if row.reason == EXCLUSION_TITLE_ONLY]
    assert sorted(title[:19] for title in bare) == sorted(t[:19] for t in BROAD_TITLE_ONLY)
    # its methods' and limitations' sub-questions are answered by the results quoted for the
    # claim: no second round is run to search for them (it ran, and found nothing new)
    assert report.iterations == 1 and report.evaluation.verdict == "accept"
    assert report.stop_reason.startswith("accepted: the claim is covered by cited findings")
    # which the review says in its summary and under each such sub-question, never as a gap
    # (it was listed twice more under "Gaps and limitations")
    from scholargraph.exports.markdown import render
    markdown = render(report)
    gaps_section = markdown.split("## Gaps and limitations")[1].split("\n## ")[0]
    assert "not again for" not in gaps_section
    assert gaps_section.count("\n- ") >= 3
    assert markdown.count("not again for") == 1
    assert markdown.count("not again here") == 2


def test_a_record_known_by_its_title_alone_is_kept_by_its_title_not_ranked(tmp_path):
    """A title-only record ranked against a claim could come first and count as its most direct
    test, though it states no result to weigh: it is never ranked. Judged by its title, as a
    reviewer judges it, one whose title reports on the claim's relation is kept for its full
    text, after the study that tests the claim; one whose title does not is excluded with a
    reason a reader can check (lacking an abstract is not the reason by itself)."""
    from scholargraph.agents.retrieval import Screened, include, rank

    settings = Settings(home=tmp_path, store_dir=None, chroma_host=None, embedding_model="none")
    on_relation = Work(title="A deficiency of folate increases blood levels of homocysteine",
                       sources=["openalex"])
    elsewhere = Work(title="Folate fortification policies in Europe", sources=["openalex"])
    tests_it, = _works(TESTS_THE_CLAIM)
    works = [on_relation, elsewhere, tests_it]
    reasons, order = rank(works, Screened([None, None, None], {}), CLAIM, settings, [])
    assert reasons == [None, EXCLUSION_TITLE_ONLY, None]
    assert list(order) == [tests_it.id]
    assert [work.id for work in include(works, reasons, order)] == [tests_it.id, on_relation.id]


def test_a_work_not_testing_the_claim_is_told_why_of_the_two_reasons():
    """A work with no sentence reporting a relation close to the claim, and one with such a
    sentence ranked too far below the works that test it, are set aside with their own reason
    (they shared one, "no sentence ... or ranked far below ..."); without sentence scores only
    the ranking decided."""
    from scholargraph.deterministic.relevance import not_testing_reason

    def work(relation: float | None) -> WorkRelevance:
        return WorkRelevance(work_id="w", lexical=0.1, specific=0.1, dense=None,
                             passage=None, fused=0.2, relation=relation)

    assert not_testing_reason(work(0.3), sentences_read=True) == EXCLUSION_NO_RELATION
    assert not_testing_reason(work(None), sentences_read=True) == EXCLUSION_NO_RELATION
    assert not_testing_reason(work(0.65), sentences_read=True) == EXCLUSION_RANKED_FAR
    assert not_testing_reason(work(None), sentences_read=False) == EXCLUSION_RANKED_FAR
    assert EXCLUSION_NO_RELATION.startswith(EXCLUSION_NOT_TESTING)
