"""The studies that test a claim about a whole class of things.

"Machine learning improves disease surveillance in public health." is tested by studies of its
members: a random forest that screens a national health survey for suicide ideation (AUC 0.85),
gradient boosting that predicts opioid overdose in two states' Medicaid records (C-statistic
0.82), models trained on crowd-labelled tweets to detect physical activity. Each states its
result in its own words, far from the claim's (the sentence closest to the claim is 0.33 from it
for the suicide-risk model), so neither the ranking against the claim nor a sentence's closeness
tells it from a commentary on the topic. What tells it is what a scientist looks for: the study
reports a measured result about the claim's subject.

Two earlier tests of "a claim about a class" each fired on SciFact claims about one thing:
the subject named in half the titles alone ("Malaria has a high vectorial capacity" took in 12
works), and everyday words alone (11 of the 809 train claims, among them "Having a main partner
improves HIV outcomes", whose reviews then cited trials of sexual-health screening: on those 11,
whole graph, cited-precision 0.611 -> 0.314, abstract-label-f1 0.296 -> 0.235, no evidence
gained). Both together fire on the broad claim and on none of the SciFact train claims whose
reviews were checked (see :func:`~scholargraph.deterministic.relevance.works_testing_claim`).

:func:`class_claim_studies` finds them for a claim
:func:`about_a_class`; a claim about one thing is left to
:func:`~scholargraph.deterministic.relevance.works_testing_claim` alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from scholargraph.deterministic.extractive import (
    MEASURED,
    quotable,
    states_result,
    summary_passages,
)
from scholargraph.deterministic.questions import concepts
from scholargraph.deterministic.stance import spelled_out
from scholargraph.deterministic.text import commonness, is_generic, words
from scholargraph.rag.ranking import tokenize
from scholargraph.records import Work

CLASS_ZIPF = 3.5
"""How common in English (wordfreq Zipf) every word of a claim's concepts must be for the claim
to be about a whole class of things (:func:`about_a_class`): "surveillance" 4.2, "disease" 4.7,
against "erlotinib" 1.5, "homocysteine" 2.1, "vectorial" 1.9."""
CLASS_TITLE_SHARE = 0.5
CLASS_MIN_WORKS = 5
"""A claim in everyday words is taken to be about a whole class of things only when its subject
is what nearly everything found is about: at least ``CLASS_TITLE_SHARE`` of its screened-in
works, and ``CLASS_MIN_WORKS`` of them or more, name it in their titles ("machine learning" in 13
of the 17 found for the broad claim). Then how closely a work ranks against the claim's words
says little of whether it tests the claim. Claims whose everyday words name one particular
thing ("Consumption of whole fruits increases the risk of type 2 diabetes": 5 of 16 titles name
consumption; "Having a main partner improves HIV outcomes": 1 of 11) are left to the ranking."""
def about_a_class(claim: str) -> bool:
    """Whether a claim is about a whole class of things ("Machine learning improves disease
    surveillance in public health.") rather than one thing ("Erlotinib improves survival in
    non-small cell lung cancer."): every word of its concepts is an everyday English word
    (``CLASS_ZIPF``), none a technical term that names one drug, gene, compound or mechanism.

    Such a claim is tested by studies of its members (a model that predicts suicide ideation
    from a national survey, one that predicts opioid overdose), which state their results in
    their own words, far from the claim's; a claim that names one thing is tested by studies
    that name it too."""
    found = [word for concept in claim_concepts(claim) for word in words(concept)
             if word[:1].isalpha()]  # "76-85%" is a value, not a concept
    return bool(found) and min(commonness(word.lower()) for word in found) >= CLASS_ZIPF


def claim_concepts(claim: str) -> list[str]:
    """The claim's concepts in reading order, one-word generic ones ("effect") left out."""
    return [concept.text for concept in concepts(claim) if not is_generic(concept.text)]


def claim_subject(claim: str) -> frozenset[str]:
    """The stemmed words of a claim's subject: its first concept ("machine learning" in
    "Machine learning improves disease surveillance..."); empty when it has none."""
    found = claim_concepts(claim)
    return frozenset(tokenize(found[0])) if found else frozenset()


def result_sentences(work: Work, claim: str) -> list[str]:
    """The sentences of a work's abstract that state a result (of the result kind, not
    background or what the paper does, :func:`~scholargraph.deterministic.extractive.quotable`),
    with the abbreviations the work or the claim defines written out ("ML models" -> "machine
    learning models")."""
    context = f"{work.title} {work.abstract or ''}"
    return [spelled_out(candidate.quote.text, claim, context)
            for passage in summary_passages(work) for candidate in quotable(passage, work.year)
            if states_result(candidate)]


def measures_subject(work: Work, claim: str, subject: frozenset[str]) -> bool:
    """Whether a work reports a measured result about the claim's subject: one of its result
    sentences names the subject and one states a number (``MEASURED``). A chapter, commentary
    or protocol on the topic states none; a study of something else that uses the subject as a
    tool ("satellite data classified by machine learning ... hospitalisation rates") does not
    name it where it states its result."""
    results = result_sentences(work, claim)
    return (bool(subject) and any(subject <= set(tokenize(text)) for text in results)
            and any(MEASURED.search(text) for text in results))


def class_claim_studies(claim: str, works: Sequence[Work]) -> set[str]:
    """The ids of the works that test a claim about a whole class of things by a measured
    result about its subject (:func:`measures_subject`), wherever they rank against the claim;
    empty for a claim about one thing: one that names a technical term
    (:func:`about_a_class`) or whose subject most of the
    works found do not name (:func:`subject_of_most`)."""
    if not is_class_claim(claim, [work.title for work in works]):
        return set()
    subject = claim_subject(claim)
    return {work.id for work in works if measures_subject(work, claim, subject)}


def is_class_claim(claim: str, titles: Sequence[str]) -> bool:
    """Whether a claim is about a whole class of things, given the titles of its screened-in
    works: it names no technical term and most titles name its subject."""
    return about_a_class(claim) and subject_of_most(claim_subject(claim), titles)


def subject_of_most(subject: frozenset[str], titles: Sequence[str]) -> bool:
    """Whether the subject is named in most of the titles (``CLASS_TITLE_SHARE``, at least
    ``CLASS_MIN_WORKS``)."""
    titled = sum(bool(subject) and subject <= set(tokenize(title)) for title in titles)
    return titled >= max(CLASS_MIN_WORKS, CLASS_TITLE_SHARE * len(titles))
