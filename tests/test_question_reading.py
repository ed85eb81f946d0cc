"""How a question's words are read: the verb no list names, typographic apostrophes, modal and
passive questions, a reduced relative clause, a noun that is also a verb, judging adjectives,
"What mechanisms underlie X?", where a concept ends and the predicate begins (an adverb, a verb
that is also a noun, "What drives X?", a statement's verb, a preposition), and the summary
naming the question.

Each case was read wrong by hand before (concepts, sub-questions, queries or screening terms);
the checks are on what a scientist sees of the reading: the concepts, the plan, the queries.
"""

from __future__ import annotations

import pytest

from scholargraph import review
from scholargraph.agents.intent import detect_intent
from scholargraph.agents.planning import plan_from_template
from scholargraph.agents.query_generation import deterministic_queries
from scholargraph.deterministic.questions import concepts, statement
from scholargraph.deterministic.text import (
    key_phrases,
    phrase_spans,
    reads_as_adverb,
    reads_as_verb,
    specific_words,
)
from scholargraph.report import asked_line
from scholargraph.screening import relevance
from scholargraph.screening.session import criteria_terms
from scholargraph.sources.registry import get_agent


def _plan(question: str) -> list[str]:
    intent = detect_intent(question, this_year=2026)
    return [sub.text for sub in plan_from_template(question, intent).sub_questions]


def _queries(question: str) -> list[str]:
    intent = detect_intent(question, this_year=2026)
    subs = plan_from_template(question, intent).sub_questions
    return [query.query for query in deterministic_queries(
        [get_agent("pubmed"), get_agent("openalex")], subs, intent, round_number=1,
        targets=[s.id for s in subs], already_sent=set(), question=question)]


SCREENED_AS = {"Does hair cortisol reflect long-term stress?": ["hair cortisol", "stress"]}
"""Screening does not ask a record how an exposure is measured ("long-term"): a study of hair
cortisol and stress addresses the question whether or not it says "long-term"."""


@pytest.mark.parametrize(("question", "concepts", "clause"), [
    ("Does hair cortisol reflect long-term stress?", ["hair cortisol", "long-term stress"],
     "whether hair cortisol reflects long-term stress"),
    ("Can wearable sensors capture sleep quality in children?",
     ["wearable sensors", "sleep quality", "children"],
     "whether wearable sensors can capture sleep quality in children"),
    ("Does fish oil lower triglycerides?", ["fish oil", "triglycerides"],
     "whether fish oil lowers triglycerides"),
    ("Do microplastics impair fish growth?", ["microplastics", "fish growth"],
     "whether microplastics impair fish growth"),
])
def test_a_verb_no_list_names_is_the_relation_between_two_noun_phrases(
        question, concepts, clause):
    """Read as a word of a concept, "reflect" made the question one concept ("hair cortisol
    reflect long-term stress", five words every record had to hold) and the clause "whether hair
    cortisol reflect long-term stresses"."""
    assert sorted(key_phrases(question)) == sorted(concepts)
    assert statement(question) == clause
    assert [c.text for c in relevance.concepts(question)] == SCREENED_AS.get(question, concepts)
    for text in _plan(question):
        assert set(key_phrases(text)) >= set(concepts) - {"children"}, text


def test_the_relation_is_never_searched_for():
    question = "Does hair cortisol reflect long-term stress?"
    assert "reflect" not in specific_words(question)
    assert "reflect" not in criteria_terms(question, "")
    assert not any("reflect" in query for query in _queries(question))


@pytest.mark.parametrize(("word", "verb"), [
    ("reflect", True), ("reflects", True), ("underlie", True), ("impair", True),
    ("hair", False), ("cortisol", False), ("weight", False), ("stress", False),
    ("fish", False), ("growth", False),
])
def test_a_word_reads_as_a_verb_when_its_verb_forms_are_as_common_as_it(word, verb):
    assert reads_as_verb(word) is verb


def test_a_typographic_apostrophe_reads_as_the_plain_one():
    curly, plain = "What is the treatment of Wilson\u2019s disease?", \
        "What is the treatment of Wilson's disease?"
    assert key_phrases(curly) == key_phrases(plain) == ["wilson's disease", "treatment"]
    assert specific_words(curly) == specific_words(plain)
    assert criteria_terms(curly, "") == criteria_terms(plain, "")
    assert _queries(curly) == _queries(plain)


@pytest.mark.parametrize(("question", "clause", "concepts"), [
    ("How can diagnostic tests be improved?", "how diagnostic tests can be improved",
     ["diagnostic tests"]),
    ("How can antimicrobial resistance be reduced in hospitals?",
     "how antimicrobial resistance can be reduced in hospitals",
     ["antimicrobial resistance", "hospitals"]),
    ("How could CRISPR be used to treat sickle cell disease?",
     "how CRISPR could be used to treat sickle cell disease", ["sickle cell disease", "CRISPR"]),
])
def test_a_modal_and_passive_question_is_read_as_a_clause(question, clause, concepts):
    """ "How can diagnostic tests be improved?" read "how diagnostic can tests be improved"
    and was about "diagnostic" alone; its facets asked about its nouns, not how to improve
    them."""
    assert statement(question) == clause
    assert key_phrases(question) == concepts
    plan = _plan(question)
    assert plan[0] == f"What do studies report on {clause}?"
    assert all(clause in text for text in plan), plan


@pytest.mark.parametrize(("question", "clause", "screened_for"), [
    ("How should depression be screened in primary care?",
     "how depression should be screened in primary care", ["depression", "primary care"]),
    ("How are systematic reviews conducted and reported?",
     "how systematic reviews are conducted and reported", ["systematic reviews"]),
    ("Is sepsis missed in emergency departments?",
     "whether sepsis is missed in emergency departments", ["sepsis", "emergency departments"]),
    ("Is genetically modified food safe for children?",
     "whether genetically modified food is safe for children",
     ["genetically modified food", "children"]),
])
def test_a_passive_participle_is_the_relation_not_a_word_of_a_concept(
        question, clause, screened_for):
    """Screening asked a record for "should depression be screened" (a modal, "be" and the
    participle in the concept) and "systematic reviews conducted"; the clause of "How are
    systematic reviews conducted and reported?" was lost ("about systematic reviews")."""
    assert statement(question) == clause
    assert asked_line(question) == f"This review asks {clause}."
    assert [c.text for c in relevance.concepts(question)] == screened_for
    assert sorted(key_phrases(question)) == sorted(screened_for)
    assert _plan(question)[0] == f"What do studies report on {clause}?"


def test_a_participle_after_an_adjective_opens_a_reduced_relative_clause():
    """ "How accurate is X trained on Y for Z?" asks how accurate X is; "trained on Y" says
    which X. It read "how accurate machine learning is trained on ...", and screening asked
    every record for "accurate" and "machine learning trained". After an adverb ("how often")
    the participle is the passive's verb, as before."""
    question = ("How accurate is machine learning trained on electronic health records for "
                "sepsis?")
    assert statement(question) == ("how accurate machine learning trained on electronic health "
                                   "records is for sepsis")
    assert [c.text for c in relevance.concepts(question)] == [
        "machine learning", "electronic health records", "sepsis"]
    assert statement("How often is sepsis missed in emergency departments?") == (
        "how often sepsis is missed in emergency departments")
    assert statement("How accurate is CT compared with MRI for appendicitis?") == (
        "how accurate CT is compared with MRI for appendicitis")


@pytest.mark.parametrize(("question", "clause"), [
    ("Does climate change drive migration?", "whether climate change drives migration"),
    ("Does climate change lower crop yields?", "whether climate change lowers crop yields"),
    ("Does the change in diet improve sleep?", "whether the change in diet improves sleep"),
    ("Does exercise change mood?", "whether exercise changes mood"),
])
def test_a_verb_that_is_also_a_noun_is_the_verb_only_where_no_other_is(question, clause):
    """ "change" ends the noun "climate change": read as the verb, the question asked "whether
    climate changes drive migration"."""
    assert statement(question) == clause


@pytest.mark.parametrize(("question", "screened_for"), [
    ("Is acupuncture effective for chronic low back pain?",
     ["acupuncture", "chronic low back pain"]),
    ("Is intermittent fasting effective for weight loss?", ["intermittent fasting", "weight loss"]),
    ("Side effects of statins are harmful to older adults.",
     ["Side effects", "statins", "older adults"]),
])
def test_a_judging_adjective_is_asked_of_a_record_not_named_by_it(question, screened_for):
    """ "effective" is what the question asks of acupuncture: a trial of acupuncture for back
    pain need not write it. Matched as a word, not a stem ("side effects" stays whole)."""
    assert [c.text for c in relevance.concepts(question)] == screened_for


@pytest.mark.parametrize(("question", "clause", "concept"), [
    ("Is LiFePO4 stable?", "whether LiFePO4 is stable", "LiFePO4"),
    ("Is LiFePO4 thermodynamically stable?", "whether LiFePO4 is thermodynamically stable",
     "LiFePO4"),
    ("Is type 2 diabetes reversible?", "whether type 2 diabetes is reversible",
     "type 2 diabetes"),
])
def test_the_adjective_a_copula_question_closes_on_is_asked_of_its_subject(
        question, clause, concept):
    """ "Is LiFePO4 stable?" was asked "about LiFePO4 stable", one concept every record had
    to name in both words; "Is LiFePO4 thermodynamically stable?" "whether LiFePO4
    thermodynamically is stable"."""
    assert statement(question) == clause
    assert key_phrases(question) == [concept]
    assert [c.text for c in relevance.concepts(question)] == [concept]


def test_a_question_on_mechanisms_asks_first_for_the_mechanisms():
    question = "What mechanisms underlie insulin resistance in obesity?"
    plan = _plan(question)
    assert plan[0] == "What do studies report on the mechanisms of insulin resistance in obesity?"
    assert "mechanisms underlie insulin resistance" not in key_phrases(question)
    assert {"insulin resistance", "obesity"} <= set(key_phrases(question))


@pytest.mark.parametrize(("question", "line"), [
    ("Does hair cortisol reflect long-term stress?",
     "This review asks whether hair cortisol reflects long-term stress."),
    ("machine learning for public health surveillance",
     "This review asks about machine learning for public health surveillance."),
    ("What mechanisms underlie insulin resistance in obesity?",
     "This review asks about the mechanisms of insulin resistance in obesity."),
    ("Machine learning improves disease surveillance in public health.",
     "This review asks whether machine learning improves disease surveillance in public "
     "health."),
])
def test_the_summary_line_names_the_question_as_read(question, line):
    assert asked_line(question) == line


def test_the_review_summary_opens_on_the_question_it_answers(tmp_path):
    """Read as the review read it: without the subtitle naming the kind of review."""
    report = review("machine learning for public health surveillance: a systematic review",
                    sources=["openalex"], max_iterations=1, offline=True,
                    out=tmp_path / "review")
    text = (tmp_path / "review" / "review.md").read_text()
    summary = text.split("## Summary\n\n", 1)[1].splitlines()[0]
    assert summary.startswith(
        "This review asks about machine learning for public health surveillance. It screened ")
    assert report.summary.startswith("This review asks about")
    assert report.summary.count("This review") == 1  # the second sentence reads on


def _concepts(question: str) -> list[str]:
    return [c.text for c in concepts(question)]


@pytest.mark.parametrize(("question", "read", "clause"), [
    ("Can exercise significantly reduce depression?", ["exercise", "depression"],
     "whether exercise can significantly reduce depression"),
    ("Does aspirin strongly reduce stroke risk?", ["aspirin", "stroke risk"],
     "whether aspirin strongly reduces stroke risk"),
    ("Does hair cortisol strongly reflect stress?", ["hair cortisol", "stress"],
     "whether hair cortisol strongly reflects stress"),
    ("Do statins lower the risk of dementia in older adults?",
     ["statins", "risk", "dementia", "older adults"],
     "whether statins lower the risk of dementia in older adults"),
    ("Does climate change lower the yield of wheat?", ["climate change", "yield", "wheat"],
     "whether climate change lowers the yield of wheat"),
])
def test_a_concept_ends_where_the_predicate_begins(question, read, clause):
    """The adverb before the verb ("exercise significantly") and a verb that is also a noun,
    read from its place before "the" ("statins lower"), were words of the subject's concept:
    screening asked every record to name "exercise significantly"."""
    assert _concepts(question) == read
    assert statement(question) == clause
    screened = [c.text for c in relevance.concepts(question)]
    assert not {"significantly", "strongly", "lower"} & {w for c in screened for w in c.split()}


@pytest.mark.parametrize(("claim", "read"), [
    ("Statins significantly lower LDL cholesterol.", ["statins", "LDL cholesterol"]),
    ("Obesity raises blood pressure.", ["obesity", "blood pressure"]),
    ("Chemical injury represses transglutaminase 2 activity.",
     ["chemical injury", "transglutaminase 2 activity"]),
    ("Segmental aneuploidy occurs infrequently in yeast.", ["segmental aneuploidy", "yeast"]),
    ("Pioglitazone use is significantly associated with bladder cancer.",
     ["pioglitazone", "bladder cancer"]),
])
def test_a_statements_verb_and_its_adverbs_part_its_concepts(claim, read):
    """A claim's finite verb that no list names, in the third person after its subject
    ("raises", "represses"), and the adverbs beside a verb were read into a concept
    ("obesity raises blood pressure" as one, "significantly" as one of its own)."""
    assert [phrase for phrase, _, _ in phrase_spans(claim)] == read
    searched = {word.lower() for word in specific_words(claim)}
    assert searched == {word.lower() for phrase in read for word in phrase.split()
                        if word.isalpha() and len(word) > 1}


@pytest.mark.parametrize(("text", "read"), [
    ("Rapid tests detect malaria in children.", ["rapid tests", "malaria", "children"]),
    ("Neutrophil traps act on platelets.", ["neutrophil traps", "platelets"]),
    ("Stem cells express CD34 in bone marrow.", ["stem cells", "CD34", "bone marrow"]),
    ("Mortality with significantly lower doses", ["mortality", "significantly lower doses"]),
])
def test_a_plural_subject_and_an_adverb_of_an_adjective_stay(text, read):
    """A plural before its verb ("tests detect", "traps act") is the subject, not a verb, and
    the base form after it is the verb; an adverb after a preposition qualifies the adjective
    after it and stays with its noun."""
    assert [phrase for phrase, _, _ in phrase_spans(text)] == read


@pytest.mark.parametrize(("question", "read", "asked"), [
    ("What drives antimicrobial resistance in hospitals?",
     ["antimicrobial resistance", "hospitals"], "about antimicrobial resistance in hospitals"),
    ("What limits battery life?", ["battery life"], "about battery life"),
    ("What factors drive obesity?", ["factors", "obesity"], "about the factors that drive obesity"),
])
def test_what_asks_as_the_subject_of_a_verb_that_is_also_a_noun(question, read, asked):
    """ "What drives X?" has "what" as its subject: "drives" is the verb, not a word of the
    concept "drives antimicrobial resistance". "What factors drive X?" has its subject after
    "what", and its verb after that."""
    assert _concepts(question) == read
    assert asked_line(question) == f"This review asks {asked}."
    assert "drives" not in specific_words(question)


@pytest.mark.parametrize(("question", "screened_for", "read"), [
    ("Is the MMR vaccine effective against measles?", ["MMR vaccine", "measles"],
     ["MMR vaccine", "measles"]),
    ("Vaccination protects against measles.", ["Vaccination", "measles"],
     ["vaccination", "measles"]),
    ("Cell types within atherosclerotic lesions", ["Cell types", "atherosclerotic lesions"],
     ["cell types", "atherosclerotic lesions"]),
    ("Histone degradation via Rad53 in yeast", ["Histone degradation", "Rad53", "yeast"],
     ["histone degradation", "Rad53", "yeast"]),
])
def test_a_preposition_is_never_a_word_of_a_concept(question, screened_for, read):
    """Screening asked every record for "against measles" and "MMR vaccine against measles",
    and a question's concepts ran on through "within" and "via"."""
    assert [c.text for c in relevance.concepts(question)] == screened_for
    assert _concepts(question) == read


@pytest.mark.parametrize(("word", "adverb"), [
    ("significantly", True), ("strongly", True), ("dramatically", True),
    ("thermodynamically", True), ("family", False), ("supply", False), ("early", False),
    ("assembly", False), ("Italy", False),
])
def test_an_adverb_is_read_by_the_adjective_it_comes_from(word, adverb):
    assert reads_as_adverb(word) is adverb


def test_a_prevalence_question_on_a_named_vitamin_is_read_as_a_clause():
    """ "Is vitamin D deficiency common?" was read as no clause ("d" is a stop word), so the
    review said it asked "about vitamin D deficiency" and read no study against it."""
    question = "Is vitamin D deficiency common?"
    assert statement(question) == "whether vitamin D deficiency is common"
    assert _concepts(question) == ["vitamin D deficiency"]
    assert [c.text for c in relevance.concepts(question)] == ["vitamin D deficiency"]


def test_an_acronym_spelt_as_a_question_word_is_a_concept():
    """ "ART" (antiretroviral therapy) was read as "art" of "state of the art" and left out of
    the claim's concepts and searches; with its adverb no longer searched either, the claim's
    search lost the SciFact abstract that tests it."""
    claim = "ART substantially reduces infectiveness of HIV-positive people."
    assert "ART" in key_phrases(claim)
    assert "ART" in specific_words(claim)
    assert key_phrases("What is the state of the art in protein folding?") == ["protein folding"]
