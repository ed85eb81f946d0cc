"""Plans and queries a person would write: every concept kept, no template words searched.

The examples come from issue 12; the invariants are checked on questions of many kinds
(biomedical, materials, computer science, public health; comparisons, alternatives, mechanisms).
"""

import re
from itertools import pairwise

import pytest

from scholargraph import review
from scholargraph.agents.intent import detect_intent
from scholargraph.agents.planning import plan_from_template
from scholargraph.agents.query_generation import deterministic_queries
from scholargraph.deterministic.questions import statement
from scholargraph.deterministic.text import is_generic, key_phrases
from scholargraph.sources.registry import get_agent

MP_KEY = "0" * 32
SOURCES = ("pubmed", "arxiv", "openalex", "materials", "web")

QUESTIONS = [
    "Does CRISPR-Cas9 gene editing cure sickle cell disease in adults?",
    "machine learning for public health surveillance",
    "How to test deep learning with metamorphic testing?",
    "metamorphic testing of deep learning systems",
    "What predicts suicide ideation or opioid overdose among veterans?",
    "band gap of TiO2 and ZnO",
    "Is metformin better than sulfonylureas for type 2 diabetes?",
    "How does aspirin reduce the risk of colorectal cancer?",
    "transformer vs LSTM for time series forecasting",
    "Which datasets exist for clinical named entity recognition?",
    "perovskite solar cell stability",
    "What is the effect of air pollution on childhood asthma?",
    "lithium cobalt oxide cathode degradation mechanisms",
    "Does intermittent fasting improve insulin sensitivity?",
    "Compare the formation energy of LiFePO4 and LiCoO2",
    ("Are mRNA vaccines or adenovirus vector vaccines more effective against COVID-19 "
     "hospitalisation?"),
    "Deep learning versus logistic regression for sepsis prediction",
    "Why do antibiotic resistance genes spread in hospital wastewater?",
    "What are the risk factors for postpartum depression?",
    "Can probiotics prevent antibiotic-associated diarrhoea in children?",
    "Effect of social media use on adolescent mental health",
    "graph neural networks for drug discovery",
    ("Which is more accurate for skin cancer detection: dermatologists or convolutional neural "
     "networks?"),
    "Do e-cigarettes help smokers quit compared with nicotine replacement therapy?",
    "What is the thermal conductivity of graphene?",
    "Why do large language models hallucinate?",
    "vitamin D supplementation and risk of fractures in older adults",
    "Does exercise reduce depression symptoms, anxiety or insomnia in older adults?",
    "TiO2",
    "What's new in 2024 on perovskites?",
    "DNA methylation in ageing",
]

SYNTAX = re.compile(r"\[(?:tiab|mh)\]|\b(?:ti|abs|cat):[\w.\-]*|\b(?:AND|OR|NOT)\b|"
                    r"\b(?:formula|elements|band_gap|stable)=\S*|[()\"]")


def _plan(question: str):
    intent = detect_intent(question, this_year=2026)
    return intent, plan_from_template(question, intent).sub_questions


def _queries(question: str, round_number: int, sent: frozenset = frozenset()):
    intent, subs = _plan(question)
    agents = [get_agent(name) for name in SOURCES]
    return deterministic_queries(agents, subs, intent, round_number=round_number,
                                 targets=[s.id for s in subs], already_sent=set(sent),
                                 question=question)


def _searched_words(query: str) -> list[str]:
    return re.findall(r"[\w\-+]+", SYNTAX.sub(" ", query).lower())


@pytest.mark.parametrize("question", QUESTIONS)
def test_sub_questions_keep_every_concept_and_never_repeat_the_question(question):
    intent, subs = _plan(question)
    assert subs[0].text != question and subs[0].text.rstrip("?") != question.rstrip("?")
    text = " ".join(s.text for s in subs).lower()
    for concept in intent.keywords:
        assert all(word in text.split() or f"{word}?" in text.split()
                   for word in concept.lower().split()), (concept, [s.text for s in subs])
    for sub in subs:
        assert sub.text.endswith("?") and sub.text[0].isupper(), sub.text
        words = sub.text.lower().split()
        assert all(a != b for a, b in pairwise(words)), sub.text
        assert "  " not in sub.text and " ?" not in sub.text and " ," not in sub.text


@pytest.mark.parametrize("question", QUESTIONS)
def test_queries_search_only_words_of_the_question(question):
    """No template word ("methods", "one outperform", "direct") ever reaches a source."""
    allowed = {w.lower() for w in re.findall(r"[\w\-+]+", question)}
    for round_number in (1, 2):
        for query in _queries(question, round_number):
            for word in _searched_words(query.query):
                assert word in allowed, (word, query.source, query.query)


@pytest.mark.parametrize("question", QUESTIONS)
def test_refinement_never_searches_a_lone_generic_word(question):
    first = _queries(question, 1)
    sent = frozenset((q.source, q.query) for q in first)
    for query in _queries(question, 2, sent):
        words = [w for w in _searched_words(query.query) if w]
        assert not (len(set(words)) == 1 and is_generic(words[0])), query.query


def test_crispr_question_searches_sickle_cell_disease_not_adults_alone():
    question = "Does CRISPR-Cas9 gene editing cure sickle cell disease in adults?"
    intent, subs = _plan(question)
    assert "sickle cell disease" in intent.keywords
    assert subs[0].text == ("What do studies report on whether CRISPR-Cas9 gene editing "
                            "cures sickle cell disease in adults?")
    for query in _queries(question, 1):
        if query.source != "materials":
            assert "sickle" in query.query and "CRISPR-Cas9" in query.query, query.query
    second = _queries(question, 2, frozenset((q.source, q.query) for q in _queries(question, 1)))
    assert second and all(_searched_words(q.query) != ["adults"] for q in second)


def test_broken_noun_phrases_are_gone():
    assert key_phrases("How to test deep learning with metamorphic testing?") == [
        "deep learning", "metamorphic testing"]
    _, subs = _plan("How to test deep learning with metamorphic testing?")
    assert not any("test deep learning" in s.text or "study test" in s.text for s in subs)
    _, subs = _plan("machine learning for public health surveillance")
    assert all("machine learning for public health surveillance" in s.text for s in subs)
    assert "public health surveillance" in key_phrases("machine learning for public health "
                                                       "surveillance")


def test_judging_words_are_not_concepts_and_a_general_word_keeps_its_complement():
    _, subs = _plan("What materials are promising for solid-state lithium battery electrolytes?")
    # what the question asks of its materials stays theirs, never a concept of its own
    assert all("the materials that are promising for solid-state lithium battery electrolytes"
               in s.text for s in subs)
    assert not any(re.search(r"promising(?:,| and)", s.text) for s in subs)
    phrases = key_phrases("Which cathode materials offer the highest capacity for sodium-ion "
                          "batteries?")
    assert set(phrases) == {"cathode materials", "capacity", "sodium-ion batteries"}
    _, subs = _plan("What are the best methods for detecting exoplanets?")
    assert not any("methods for exoplanets" in s.text for s in subs)  # a verb keeps its object


def test_both_halves_of_an_or_question_are_kept():
    question = "What predicts suicide ideation or opioid overdose among veterans?"
    _, subs = _plan(question)
    texts = [s.text for s in subs]
    assert "What predicts suicide ideation among veterans?" in texts
    assert "What predicts opioid overdose among veterans?" in texts
    first = [(q.sub_question_id, q.query) for q in _queries(question, 1)
             if q.source == "openalex"]
    assert first[:3] == [("q1", 'veterans AND ("suicide ideation" OR "opioid overdose")'),
                         ("q2", '"suicide ideation" AND (veterans)'),
                         ("q3", '"opioid overdose" AND (veterans)')]
    sid, any_two = first[3]
    assert sid == "q1" and "(opioid AND overdose)" in any_two and "(suicide AND veterans)" in \
        any_two


def test_a_comparison_after_compared_with_is_with_the_subject():
    question = "Do e-cigarettes help smokers quit compared with nicotine replacement therapy?"
    _, subs = _plan(question)
    assert subs[1].text == "What results compare e-cigarettes with nicotine replacement therapy?"
    assert "vitamin D supplementation" in key_phrases("vitamin D supplementation in adults")


def test_comparisons_name_both_sides_without_template_words():
    question = "transformer vs LSTM for time series forecasting"
    _, subs = _plan(question)
    assert "What results compare transformer with LSTM for time series forecasting?" in [
        s.text for s in subs]
    sent = [q.query for q in _queries(question, 1)]
    assert not any("outperform" in q or "one" in q.split() for q in sent)


@pytest.mark.parametrize("question, clause", [
    ("Does CRISPR-Cas9 gene editing cure sickle cell disease in adults?",
     "whether CRISPR-Cas9 gene editing cures sickle cell disease in adults"),
    ("Do statins reduce mortality in sepsis?", "whether statins reduce mortality in sepsis"),
    ("How does aspirin reduce the risk of colorectal cancer?",
     "how aspirin reduces the risk of colorectal cancer"),
    ("Is metformin better than sulfonylureas for type 2 diabetes?",
     "whether metformin is better than sulfonylureas for type 2 diabetes"),
    ("Is there evidence for homeopathy?", "whether there is evidence for homeopathy"),
    ("What is the band gap of TiO2?", None),
    # "have" after does/do/did starts the predicate, inflected as the auxiliary was
    ("Does the source of stem cells have an effect on knee osteoarthritis?",
     "whether the source of stem cells has an effect on knee osteoarthritis"),
    ("Did the lockdown have any effect on air quality?",
     "whether the lockdown had any effect on air quality"),
    ("Do probiotics have a role in preventing eczema?",
     "whether probiotics have a role in preventing eczema"),
])
def test_questions_become_clauses(question, clause):
    assert statement(question) == clause


def test_a_yes_no_question_is_asked_of_its_methods_and_findings_as_a_clause():
    """Its facets ask about the clause, as a claim's do, not a list of its nouns ("... used
    to study source, stem cells, management, osteoarthritis and knee?")."""
    question = "Does the source of stem cells have an effect on knee osteoarthritis?"
    _, subs = _plan(question)
    assert [s.text for s in subs] == [
        "What do studies report on whether the source of stem cells has an effect on knee "
        "osteoarthritis?",
        "What methods and data have been used to study whether the source of stem cells has an "
        "effect on knee osteoarthritis?",
        "What are the main findings and limitations of studies on whether the source of stem "
        "cells has an effect on knee osteoarthritis?"]
    # a question with facets of its own kind keeps them
    _, subs = _plan("How does aspirin reduce the risk of colorectal cancer?")
    assert subs[1].text == ("What mechanisms could explain how aspirin reduces the risk of "
                            "colorectal cancer?")


def test_every_formula_of_a_materials_question_is_searched():
    queries = [q.query for q in _queries("band gap of TiO2 and ZnO", 1) if q.source == "materials"]
    assert queries == ["formula=TiO2", "formula=ZnO"]
    again = _queries("band gap of TiO2 and ZnO", 2, frozenset(
        {("materials", "formula=TiO2"), ("materials", "formula=ZnO")}))
    assert [q for q in again if q.source == "materials"] == []  # each material searched once


def test_materials_project_is_asked_for_each_formula(replay, tmp_path):
    with replay.environment(MP_API_KEY=MP_KEY):
        report = review("band gap of TiO2 and ZnO", sources=["materials"], out=tmp_path / "out")
    logged = [e for e in report.search_log if e.source == "materials" and e.round == 1]
    assert [e.query for e in logged] == ["formula=TiO2", "formula=ZnO"]
    assert {m.formula for m in report.materials} == {"TiO2", "ZnO"}


def test_a_requested_source_without_a_query_says_so_in_the_search_log(replay, tmp_path):
    with replay.environment(MP_API_KEY=MP_KEY):
        report = review("How do grain boundaries affect ionic conductivity?",
                        sources=["materials"], out=tmp_path / "out")
    (entry,) = [e for e in report.search_log if e.source == "materials"]
    assert entry.status == "skipped" and "names no formula, element" in entry.error
    assert "nor would it give ionic conductivity" in entry.error
    assert "names no formula, element" in (tmp_path / "out" / "review.md").read_text()


def test_crispr_review_sends_sickle_cell_disease_to_every_source(replay, tmp_path):
    report = review("Does CRISPR-Cas9 gene editing cure sickle cell disease in adults?",
                    sources=["pubmed", "openalex"], out=tmp_path / "out")
    first = [e for e in report.search_log if e.round == 1]
    assert {e.source for e in first} == {"pubmed", "openalex"}
    assert all("sickle" in e.query for e in first)
    assert not any(_searched_words(e.query) == ["adults"] for e in report.search_log)


@pytest.mark.parametrize(("question", "compared"), [
    ("What is the band gap of GaN compared with silicon?",
     "What results compare GaN with silicon in terms of band gap?"),
    ("Is gallium arsenide a better photovoltaic absorber than silicon?",
     "What results compare gallium arsenide with silicon as photovoltaic absorber?"),
    ("Is LiFePO4 more stable than LiCoO2 as a cathode?",
     "What results compare LiFePO4 with LiCoO2 as cathode?"),
])
def test_a_materials_comparison_compares_the_materials(question, compared):
    """The materials named are what is compared, never the property with one of them."""
    _, subs = _plan(question)
    assert compared in [sub.text for sub in subs]


def test_a_model_cannot_merge_or_drop_the_materials_named():
    """With a model, the Materials Project still gets one query per material named, in place
    of the model's (here one merged query missing silicon), and a note says so."""
    from scholargraph.agents.query_generation import with_named_queries
    from scholargraph.agents.schemas import SourceQuery

    question = "What is the band gap of GaN compared with silicon?"
    intent, subs = _plan(question)
    agents = [get_agent("materials"), get_agent("openalex")]
    model = [SourceQuery(source="materials", sub_question_id="q1", query="formula=GaN", round=1),
             SourceQuery(source="openalex", sub_question_id="q1", query="GaN band gap", round=1)]

    queries, notes = with_named_queries(model, agents, subs, intent, question, set(), 1)

    assert [(q.source, q.query) for q in queries] == [
        ("openalex", "GaN band gap"), ("materials", "formula=GaN"), ("materials", "formula=Si")]
    assert len(notes) == 1 and "once per material" in notes[0]
    again, _ = with_named_queries([], agents, subs, intent, question,
                                  {("materials", "formula=GaN"), ("materials", "formula=Si")}, 2)
    assert again == []  # each material is searched once per review


@pytest.mark.parametrize("question", [
    "CRISPR off-target effects",
    "gut microbiome and depression",
    "base editing efficiency in human cells",
    "single-cell RNA sequencing of tumour microenvironment",
    "antibiotic resistance genes in wastewater",
    "DNA methylation in ageing",
    "epigenetic clocks and biological age",
    "genome-wide association study of height",
    "prime editing of the HBB locus",
    "antibody affinity maturation",
    "enzyme kinetics of lactate dehydrogenase",
])
def test_a_life_science_question_naming_no_disease_asks_pubmed(question):
    """Gene editing, nucleic acids, proteins, cells and microbes are what PubMed indexes, whether
    or not the question names a disease or a drug ('CRISPR off-target effects' asked only
    OpenAlex and the web)."""
    from scholargraph.agents.intent import active_sources
    from scholargraph.context import ReviewContext

    intent = detect_intent(question, this_year=2026)
    assert "biomedical" in intent.domains
    assert "pubmed" in active_sources(intent, ReviewContext())


@pytest.mark.parametrize("question", [
    "graph neural networks for traffic forecasting",
    "perovskite solar cell stability",
    "genetic algorithms for job-shop scheduling",
    "generative adversarial networks for image synthesis",
    "general relativity tests with pulsars",
    "next-generation sequencing of network packets",
])
def test_a_question_outside_the_life_sciences_does_not_ask_pubmed(question):
    """'gene' is a word of its own, not the start of 'general', 'generative' or 'generation',
    and a genetic algorithm is computer science."""
    assert "biomedical" not in detect_intent(question, this_year=2026).domains


def test_a_gene_editing_review_searches_pubmed(replay, tmp_path):
    report = review("CRISPR off-target effects", out=tmp_path / "out")
    first = {e.source for e in report.search_log if e.round == 1}
    assert "pubmed" in first and "web" not in first


@pytest.mark.parametrize(("question", "kinds"), [
    ("lithium-ion cathode materials with high capacity", ["lithium-ion cathode"]),
    ("band gap of perovskite solar cells", ["perovskite"]),
    ("high-entropy alloys for hydrogen storage", ["high-entropy alloys"]),
    ("How do grain boundaries affect ionic conductivity?", []),
])
def test_the_kinds_of_material_a_question_names(question, kinds):
    from scholargraph.deterministic.material_names import material_classes, named_materials

    assert material_classes(question) == kinds
    assert named_materials(question) == []  # "lithium-ion" is a working ion, not lithium metal


def test_a_kind_of_material_says_why_the_materials_project_was_not_asked(replay, tmp_path):
    """'lithium-ion cathode materials' and 'perovskite' name no compound: the summary search
    has nothing to look up (every compound containing Li is not a list of cathodes), and the
    search log and review.md say so in those words rather than 'names no material'."""
    with replay.environment(MP_API_KEY=MP_KEY):
        report = review("band gap of perovskite solar cells", sources=["materials"],
                        out=tmp_path / "out")
    (entry,) = [e for e in report.search_log if e.source == "materials"]
    assert entry.status == "skipped" and replay.count() == 0
    assert "names a kind of material (perovskite), not a compound" in entry.error
    assert "kind of material (perovskite)" in (tmp_path / "out" / "review.md").read_text()


@pytest.mark.parametrize(("question", "subject"), [
    ("What is the prevalence and impact of open access articles?",
     "the prevalence and impact of open access articles"),
    ("What are the risks and benefits of statins in older adults?",
     "the risks and benefits of statins in older adults"),
    ("What is the role of gut microbiota in obesity?", "the role of gut microbiota in obesity"),
])
def test_a_what_is_the_question_is_asked_about_as_typed(question, subject):
    """"What is the prevalence and impact of X?" asks about that noun phrase; joining its
    concepts lost "impact" (a generic word) and turned "the risks and benefits of statins" into
    "risks, benefits and statins"."""
    _, subs = _plan(question)
    assert subs[0].text == f"What do studies report on {subject}?"
    assert all(subject in sub.text for sub in subs)


def test_a_what_is_the_question_asking_a_second_question_keeps_its_concepts():
    _, subs = _plan("What are the main causes of antibiotic resistance, and how can it be "
                    "reduced?")
    assert subs[0].text == "What do studies report on antibiotic resistance?"


CLAIM = "A deficiency of folate increases blood levels of homocysteine."


def _claim_plan(*texts: str) -> dict:
    from langgraph.runtime import Runtime

    from scholargraph.agents.intent import detect_intent
    from scholargraph.agents.planning import PlannedQuestion, PlanReply, planning
    from scholargraph.context import ReviewContext
    from scholargraph.testing import ScriptedChatModel, structured_reply

    reply = PlanReply(sub_questions=[PlannedQuestion(text=t, answer_shape="cohort studies")
                                     for t in texts])
    model = ScriptedChatModel(responses=[structured_reply(reply)])
    state = {"cleaned_question": CLAIM, "intent": detect_intent(CLAIM)}
    return planning(state, Runtime(context=ReviewContext(chat_model=model)))


def test_a_claims_plan_keeps_the_claim_as_q1_whatever_the_model_writes():
    """SmolLM2-135M's plans for a claim opened on neighbouring questions and never asked the
    claim itself, which the review then weighs its studies on. The claim is q1, as the
    deterministic engine asks it, and the model's sub-questions follow (one that only repeats
    the claim is dropped as asking what q1 asks)."""
    update = _claim_plan("What are the dietary sources of folate?",
                         "Whether a deficiency of folate increases homocysteine?",
                         "How is homocysteine measured in blood?")
    subs = update["sub_questions"]
    assert subs[0].id == "q1" and subs[0].text == (
        "What do studies report on whether a deficiency of folate increases blood levels of "
        "homocysteine?")
    assert [s.text for s in subs[1:]] == ["What are the dietary sources of folate?",
                                          "How is homocysteine measured in blood?"]
    assert subs[0].answer_shape == "direct evidence on the question"
    assert any(n.startswith("planning: q1 asks the claim itself") for n in update["notes"])
    assert any("it asks what q1 asks" in n for n in update["notes"])


def test_a_question_s_plan_is_the_models_own():
    from langgraph.runtime import Runtime

    from scholargraph.agents.intent import detect_intent
    from scholargraph.agents.planning import PlannedQuestion, PlanReply, planning
    from scholargraph.context import ReviewContext
    from scholargraph.testing import ScriptedChatModel, structured_reply

    question = "Does a deficiency of folate increase blood levels of homocysteine?"
    texts = ["Which cohorts measured folate and homocysteine together?",
             "How large is the rise in homocysteine with low folate?"]
    model = ScriptedChatModel(responses=[structured_reply(PlanReply(sub_questions=[
        PlannedQuestion(text=t, answer_shape="cohort studies") for t in texts]))])
    update = planning({"cleaned_question": question, "intent": detect_intent(question)},
                      Runtime(context=ReviewContext(chat_model=model)))
    assert [s.text for s in update["sub_questions"]] == texts


def test_a_statement_the_model_writes_as_a_sub_question_is_dropped():
    """A statement is no sub-question: quoted in the summary and the gaps, it read as a
    question no study answered."""
    update = _claim_plan("What are the dietary sources of folate?",
                         "Homocysteine is an amino acid that is measured in blood plasma.",
                         "How is homocysteine measured in blood?")
    assert [s.text for s in update["sub_questions"][1:]] == [
        "What are the dietary sources of folate?", "How is homocysteine measured in blood?"]
    assert any("(a statement, not a question)" in n for n in update["notes"])


def test_a_setting_put_first_is_said_last_and_kept_out_of_the_comparison():
    # A PICO question opens on its population; before, the plan compared the population with
    # the comparator ("What results compare type 2 diabetes with sulfonylureas ...").
    question = ("In older adults with hip fracture, does early surgery compared with delayed "
                "surgery reduce mortality?")
    _, subs = _plan(question)
    assert [s.text for s in subs] == [
        "What do studies report on whether early surgery compared with delayed surgery "
        "reduces mortality in older adults with hip fracture?",
        "What results compare early surgery with delayed surgery on mortality in older adults "
        "with hip fracture?",
        "Under which conditions does early surgery or delayed surgery perform better on "
        "mortality in older adults with hip fracture?"]
    assert statement("Among smokers, how does nicotine affect sleep quality?") == (
        "how nicotine affects sleep quality among smokers")
    from scholargraph.deterministic.questions import stance_claim
    assert stance_claim("In children with asthma, does vitamin D supplementation reduce "
                        "exacerbations?") == ("Vitamin D supplementation reduces exacerbations "
                                              "in children with asthma.")
    assert statement("In the long run, what matters?") is None


def test_how_adjective_questions_keep_what_they_ask():
    assert statement("How accurate are smartwatch ECGs for detecting atrial fibrillation?") == (
        "how accurate smartwatch ECGs are for detecting atrial fibrillation")
    assert statement("How often is delirium missed in intensive care units?") == (
        "how often delirium is missed in intensive care units")
    assert statement("How reliable is imaging of the wrist?") == (
        "how reliable imaging of the wrist is")
    assert statement("How many children have myopia?") is None
    _, subs = _plan("How effective is yoga for chronic neck pain?")
    assert all("how effective yoga is for chronic neck pain" in s.text for s in subs)


def test_a_participle_is_read_alike_by_concepts_and_by_clauses():
    """One reading (past_participle): a participle closes no concept and ends a how-question's
    subject; a noun in -ed ("speed") and a short word in -ed ("red") are no participle."""
    from scholargraph.deterministic.questions import which_noun_phrase
    from scholargraph.deterministic.text import phrase_spans

    assert [p for p, _, _ in phrase_spans("How are systematic reviews conducted in public "
                                           "health?")] == ["systematic reviews", "public health"]
    assert statement("How often is sepsis missed in emergency departments?") == (
        "how often sepsis is missed in emergency departments")
    assert statement("How accurate is wind speed forecasting in coastal areas?") == (
        "how accurate wind speed forecasting is in coastal areas")
    assert which_noun_phrase("Which reviews are conducted in public health?") == (
        "the reviews conducted in public health")
    assert which_noun_phrase("Which patients are aged over 65 in these trials?") == (
        "the patients aged over 65 in these trials")
    assert which_noun_phrase("Which flowers are red in colour?") == (
        "the flowers that are red in colour")


def test_which_questions_ask_for_the_things_they_name():
    _, subs = _plan("Which biomarkers are used to diagnose early sepsis in neonates?")
    assert subs[0].text == ("What do studies report on the biomarkers used to diagnose early "
                            "sepsis in neonates?")
    _, subs = _plan("What factors predict dropout from exercise programmes?")
    assert all("the factors that predict dropout from exercise programmes" in s.text
               for s in subs)
    _, subs = _plan("Which wearable sensors offer the longest battery life?")
    assert "the wearable sensors that offer the longest battery life" in subs[0].text
    # a superlative stays a question of which: the studies may not agree on one
    _, subs = _plan("Which cathode coating is the most durable in humid air?")
    assert all("which cathode coating is the most durable in humid air" in s.text
               for s in subs)
    # a question of another kind keeps its own facets around its topic
    _, subs = _plan("Which datasets exist for clinical named entity recognition?")
    assert not any("datasets that exist" in s.text for s in subs)


def test_a_complement_stays_with_its_concept_and_framing_words_go():
    from scholargraph.deterministic.questions import concepts, join
    question = "Exercise, role of diet and severity of knee pain?"
    assert join(concepts(question), question) == "exercise, diet and severity of knee pain"
    question = "Source of stem cells, management of cartilage defects of the knee?"
    assert join(concepts(question), question) == (
        "source of stem cells and cartilage defects of the knee")


def test_questions_asking_about_what_follows_keep_it_as_typed():
    _, subs = _plan("What is known about the use of honey for wound healing?")
    assert subs[0].text == "What do studies report on the use of honey for wound healing?"
    _, subs = _plan("What mechanisms underlie insulin resistance in obesity?")
    assert "What mechanisms have been proposed for insulin resistance in obesity?" in [
        s.text for s in subs]
    assert not any("underlie" in s.text.split("mechanisms", 1)[-1] for s in subs)


def test_a_question_asking_for_methods_asks_how_they_were_evaluated():
    _, subs = _plan("Which statistical methods are used to estimate vaccine effectiveness?")
    texts = [s.text for s in subs]
    assert texts[1] == ("How have the statistical methods used to estimate vaccine effectiveness "
                        "been evaluated, and on which data?")
    assert not any(t.startswith("What methods and data") for t in texts)
    # a question asking for other things keeps the default facets
    _, subs = _plan("What factors predict dropout from exercise programmes?")
    assert subs[1].text.startswith("What methods and data have been used to study the factors")


def test_the_verb_of_a_compared_pair_agrees_with_the_nearer():
    _, subs = _plan("Beta blockers versus calcium channel blockers for atrial fibrillation")
    assert ("Under which conditions do beta blockers or calcium channel blockers perform better "
            "for atrial fibrillation?") in [s.text for s in subs]
    _, subs = _plan("Are Bayesian methods better than frequentist analysis for small samples?")
    assert any(s.text.startswith("Under which conditions does bayesian methods or frequentist "
                                 "analysis perform better") for s in subs)
    _, subs = _plan("Is ultrasound better than CT for appendicitis in children?")
    assert any(s.text.startswith("Under which conditions does ultrasound or CT") for s in subs)
