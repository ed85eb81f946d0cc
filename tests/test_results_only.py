"""Findings quote results and conclusions, never background, aims, methods or a funding line
(issue 22), for a claim and for a topic: kinds of sentence seen quoted by hand in reviews of
haemophilia and public-health records, or reported of the sentence a finding quotes (a panel's
letter, "We surveyed ...", "objective response rate", a short result), each written here as
such an abstract would."""

from __future__ import annotations

from scholargraph.agents.schemas import Draft, SubQuestion
from scholargraph.agents.synthesis import with_stances
from scholargraph.deterministic.extractive import (
    NEVER_FINDINGS,
    Candidate,
    claim_candidates,
    extractive_draft,
    quotable,
    sample_only,
    states_finding,
    wanted_facets,
    work_result,
)
from scholargraph.deterministic.relevance import topic_terms
from scholargraph.rag.chunking import chunk_work, split_sentences
from scholargraph.records import Passage, Work

CLAIM = "Emicizumab prophylaxis reduces bleeding in haemophilia A."
RESULTS = SubQuestion(id="q3", text="What are the main findings of studies on emicizumab "
                      "prophylaxis in haemophilia A?", answer_shape="results")
METHODS = SubQuestion(id="q2", text="What methods and data have been used to study emicizumab "
                      "prophylaxis in haemophilia A?", answer_shape="methods")


def sentences_of(text: str) -> list[Candidate]:
    """The quotable sentences of ``text`` read as a work's abstract."""
    return quotable(Passage(id="w#abstract", work_id="w", text=text, start=0, end=len(text),
                            section="abstract"), 2022)


def quoted_for(sub: SubQuestion, text: str) -> list[str]:
    """The sentences of ``text`` a review may quote as findings of ``sub``."""
    wanted = wanted_facets(sub)
    return [c.quote.text for c in sentences_of(text)
            if states_finding(c, wanted) and not c.facets & NEVER_FINDINGS]


TRIAL = ("Bleeding remains the main burden of severe haemophilia A in adolescents. "
         "Patients were randomised to weekly emicizumab prophylaxis or on-demand factor VIII "
         "and followed for 12 months. "
         "Bleeds were classified as spontaneous or traumatic by the treating physician. "
         "Emicizumab prophylaxis lowered the annualised bleeding rate by 87% compared with "
         "on-demand treatment.")


def test_what_was_done_to_the_patients_is_a_method_not_a_result():
    assert quoted_for(RESULTS, TRIAL) == [
        "Emicizumab prophylaxis lowered the annualised bleeding rate by 87% compared with "
        "on-demand treatment."]
    methods = quoted_for(METHODS, TRIAL)
    assert "Bleeds were classified as spontaneous or traumatic by the treating physician." in (
        methods)
    assert any(text.startswith("Patients were randomised") for text in methods)


def test_a_procedure_that_states_what_came_of_it_is_a_result():
    # a direction word, a null result or a comparison of arms is what the study found
    for sentence in ("Patients were switched to emicizumab and their joint bleeds fell to zero.",
                     "Patients were followed for two years and no inhibitors developed.",
                     "Children were treated with emicizumab and bled less often than on "
                     "factor VIII."):
        kinds = {c.quote.text: c.facets for c in sentences_of(sentence)}
        assert "method" not in kinds[sentence], sentence
    # under a Results label, what was done alone is still a method
    labelled = "RESULTS: All 48 patients were followed for a median of 14 months."
    assert [c.facets for c in sentences_of(labelled)] == [frozenset({"method"})]


def test_a_funding_line_glued_to_the_last_sentence_is_split_off_and_never_quoted():
    text = ("Emicizumab prophylaxis lowered treated bleeds by 68% in adults with haemophilia "
            "A.F Hoffmann-La Roche funded the study.")
    spans = [text[start:end] for start, end in split_sentences(text)]
    assert spans == ["Emicizumab prophylaxis lowered treated bleeds by 68% in adults with "
                     "haemophilia A.", "F Hoffmann-La Roche funded the study."]
    assert quoted_for(RESULTS, text) == [spans[0]]
    spaced = text.replace("A.F", "A. F")
    assert quoted_for(RESULTS, spaced) == [spans[0]]
    # an initial before a surname is not a stop
    assert len(split_sentences("Samples were read blind by A.F. Smith and J. Lee.")) == 1
    for line in ("This work was supported in part by grant R01 HL123 from the NHLBI.",
                 "Funded by the National Institute for Health Research."):
        result = "Prophylaxis reduced bleed rates by half in 40 adults with haemophilia A."
        assert quoted_for(RESULTS, f"{result} {line}") == [result]


SURVEY = Work(
    title="Prophylaxis practice in haemophilia treatment centres: a national survey",
    doi="10.1000/survey", year=2023, sources=["pubmed"],
    abstract="Emicizumab is used for routine prophylaxis to prevent bleeding episodes in "
             "people with haemophilia A. We surveyed the 36 treatment centres of one country "
             "about how they start and monitor prophylaxis.")


def test_a_statement_of_practice_neither_supports_nor_contradicts_the_claim():
    practice = sentences_of(SURVEY.abstract or "")[0]
    assert "background" in practice.facets
    itself = SubQuestion(id="q1", text=f"What do studies report on whether {CLAIM}",
                         answer_shape="studies testing it")
    ranked = claim_candidates(itself, chunk_work(SURVEY), [SURVEY],
                              ["emicizumab", "prophylaxis", "bleeding", "haemophilia"])
    draft = with_stances(Draft(summary="", findings=[]), CLAIM, itself, ranked, [SURVEY])
    assert [(s.work_id, s.reading) for s in draft.stances] == [(SURVEY.id, "neither")]
    # in the tense of a study's own result it does count
    found = "Emicizumab prophylaxis prevented bleeding episodes in 30 of 36 adults."
    assert "background" not in sentences_of(found)[0].facets


def test_what_a_field_needs_is_background():
    text = ("Academics are also in need of tools that track how surveillance systems perform. "
            "There is a growing need for machine learning methods in public health. "
            "The demand for automated outbreak detection has been increasing. "
            "Our classifier detected influenza outbreaks 9 days earlier than the reports.")
    surveillance = SubQuestion(id="q1", text="What are the main findings of studies on machine "
                               "learning for public health surveillance?", answer_shape="results")
    assert quoted_for(surveillance, text) == [
        "Our classifier detected influenza outbreaks 9 days earlier than the reports."]
    # a need a study measured is its result
    for result in ("Unmet need for respite care was reported by 42% of carers.",
                   "Emicizumab prophylaxis reduced the need for factor VIII infusions."):
        assert "background" not in sentences_of(result)[0].facets, result


def test_no_sub_question_of_a_claim_quotes_background():
    survey = SURVEY.model_copy(update={"abstract": (
        "Emicizumab is used for routine prophylaxis to prevent bleeding episodes in people with "
        "severe haemophilia. Weekly emicizumab prophylaxis lowered treated bleeds by 70% in the 36 "
        "adults of the survey.")})
    itself = SubQuestion(id="q1", text=f"What do studies report on whether {CLAIM}",
                         answer_shape="studies testing it")
    passages = [p.model_copy(update={"sub_question_id": sub.id, "score": 1.0})
                for sub in (itself, METHODS) for p in chunk_work(survey)]
    draft = extractive_draft([itself, METHODS], passages, [survey],
                             ["emicizumab", "prophylaxis", "bleeding", "haemophilia"],
                             claim_sub=itself)
    quoted = [f.text for f in draft.findings if f.kind == "finding"]
    assert quoted == ["Weekly emicizumab prophylaxis lowered treated bleeds by 70% in the 36 "
                      "adults of the survey."]


RESPONDENTS = ("Of the 1,200 invited clinicians, 812 took part in the survey. "
               "A total of 936 haemophilia patients responded. "
               "A total of 640 patients responded to the online questionnaire, a response "
               "rate of 62%. "
               "Clinicians who had prescribed emicizumab reported 40% fewer bleeds in their "
               "patients.")


def test_who_took_part_in_a_survey_is_its_sample_not_a_result():
    """A participant count was quoted as a result ("A total of 936 patients responded.", "Of
    the 1,200 invited, 812 took part."): who took part is the study's sample, a method, even
    with its response rate; what the respondents reported is the result."""
    assert quoted_for(RESULTS, RESPONDENTS) == [
        "Clinicians who had prescribed emicizumab reported 40% fewer bleeds in their patients."]
    methods = quoted_for(METHODS, RESPONDENTS)
    for sample in ("Of the 1,200 invited clinicians, 812 took part in the survey.",
                   "A total of 936 haemophilia patients responded.",
                   "A total of 640 patients responded to the online questionnaire, a response "
                   "rate of 62%."):
        assert sample in methods, sample
    labelled = "RESULTS: Of the 1,200 invited clinicians, 812 (68%) took part."
    assert [c.facets for c in sentences_of(labelled)] == [frozenset({"method"})]


def test_a_treatments_responders_are_a_result():
    # responding to a treatment is what the study found, not who took part
    text = "Of the 40 patients treated with emicizumab, 30 responded with no further bleeds."
    assert quoted_for(RESULTS, text) == [text]


def test_a_treatments_response_rate_is_a_result():
    """"Response rate" counts a survey's sample only beside a survey: a tumour's objective
    response rate is what a trial found."""
    trial = "In this trial, 60 patients were enrolled and the objective response rate was 45%."
    survey = "Of the 90 clinicians surveyed, 60 replied, a response rate of 67%."
    assert not sample_only(trial) and sample_only(survey)
    assert all("method" not in c.facets for c in sentences_of(trial))


PRONE = SubQuestion(id="q3", text="What are the main findings of studies on prone positioning "
                    "in ventilated adults?", answer_shape="results")


# The sentence a finding quotes (issue 22, items 2-3): the result as the abstract states it,
# without the figure panel's letter before it, never what the authors did ("We surveyed ...",
# also under a Results label), a result even when a cue word of aims stands in it as an
# adjective ("objective response rate") or when it is short ("Mortality fell by 12%.").


def claim_draft_quotes(claim: str, work: Work, keywords: list[str]) -> list[str]:
    """The findings a claim's review quotes from ``work`` alone."""
    itself = SubQuestion(id="q1", text=f"What do studies report on whether {claim}",
                         answer_shape="studies testing it")
    passages = [p.model_copy(update={"sub_question_id": itself.id, "score": 1.0})
                for p in chunk_work(work)]
    draft = extractive_draft([itself], passages, [work], keywords, claim_sub=itself)
    return [f.text for f in draft.findings if f.kind == "finding"]


PANELS = ("Prone positioning was studied in ventilated adults with severe hypoxaemia. "
          "(A) Prone positioning lowered 28-day mortality in ventilated adults from 31% to 22%. "
          "B. Results show prone positioning shortened ventilation in these adults by 2 days. "
          "C) Prone positioning raised oxygenation within 4 hours in ventilated adults.")


def test_a_panel_letter_is_cut_off_the_quote():
    quoted = quoted_for(PRONE, PANELS)
    assert quoted == [
        "Prone positioning lowered 28-day mortality in ventilated adults from 31% to 22%.",
        "Results show prone positioning shortened ventilation in these adults by 2 days.",
        "Prone positioning raised oxygenation within 4 hours in ventilated adults."]
    for candidate in sentences_of(PANELS):  # still verbatim: the offsets moved past the letter
        assert PANELS[candidate.quote.start:candidate.quote.end] == candidate.quote.text
    # after a structured abstract's label too
    labelled = "RESULTS: (B) Prone positioning lowered mortality in ventilated adults by 9%."
    assert [c.quote.text for c in sentences_of(labelled)] == [
        "Prone positioning lowered mortality in ventilated adults by 9%."]


def test_an_initial_or_a_species_is_no_panel_letter():
    for sentence in ("A. Smith reported lower mortality with prone positioning in 2019.",
                     "E. coli grew faster in the ventilated adults' airway samples than before."):
        assert [c.quote.text for c in sentences_of(sentence)] == [sentence]


SURVEYED = ("Catheter infection remains a burden of haemodialysis. "
            "We surveyed 120 dialysis centres about chlorhexidine dressings and catheter "
            "infection. "
            "Centres using chlorhexidine dressings reported 40% fewer catheter infections than "
            "the others.")
DIALYSIS = SubQuestion(id="q3", text="What are the main findings of studies on chlorhexidine "
                       "dressings for catheter infection in dialysis?", answer_shape="results")
DIALYSIS_METHODS = SubQuestion(id="q2", text="What methods and data have been used to study "
                               "chlorhexidine dressings for catheter infection in dialysis?",
                               answer_shape="methods")


def test_what_the_authors_did_in_the_first_person_is_a_method():
    result = ("Centres using chlorhexidine dressings reported 40% fewer catheter infections than "
              "the others.")
    assert quoted_for(DIALYSIS, SURVEYED) == [result]
    assert any(text.startswith("We surveyed 120") for text in quoted_for(DIALYSIS_METHODS,
                                                                          SURVEYED))
    for done in ("We recruited 300 dialysis patients with tunnelled catheters in 14 centres.",
                 "We then interviewed 42 dialysis nurses about their dressing routines.",
                 "We enrolled dialysis patients with new catheters from two regions.",
                 "We collected swabs from every catheter exit site at each dialysis visit.",
                 "We followed 300 dialysis patients with new catheters for one year."):
        assert [c.facets for c in sentences_of(done)] == [frozenset({"method"})], done
        assert quoted_for(DIALYSIS, done) == [] and quoted_for(DIALYSIS_METHODS, done) == [done]
    # the same verb beside what it found is a result
    found = "We surveyed 120 dialysis centres and found 40% fewer infections with chlorhexidine."
    assert "result" in sentences_of(found)[0].facets


def test_a_claims_review_quotes_the_result_not_the_survey():
    """The survey's sentence names every word of the claim and its result few: ranked first, it
    was quoted as the study's result."""
    abstract = ("Catheter infection remains a burden of haemodialysis. We surveyed 120 dialysis "
                "centres about chlorhexidine dressings and catheter infection in their dialysis "
                "patients. Those centres reported 40% fewer infections.")
    work = Work(title="Chlorhexidine dressings and catheter infection in dialysis centres",
                abstract=abstract, year=2022, doi="10.1000/dialysis", sources=["pubmed"])
    quoted = claim_draft_quotes("Chlorhexidine dressings reduce catheter infection in dialysis "
                                "centres.", work, ["chlorhexidine", "catheter", "infection"])
    assert quoted == ["Those centres reported 40% fewer infections."]


def test_a_method_under_a_results_label_is_a_method():
    text = ("RESULTS: We collected blood samples from 640 pregnant women at 12 and 28 weeks to "
            "measure iron and anaemia. Iron supplements reduced anaemia in pregnancy from 28% "
            "to 14%.")
    kinds = {c.quote.text[:20]: c.facets for c in sentences_of(text)}
    assert kinds == {"We collected blood s": frozenset({"method"}),
                     "Iron supplements red": frozenset({"result"})}
    section = text.removeprefix("RESULTS: ")  # the same under a full text's Results heading
    kinds = {c.quote.text[:20]: c.facets for c in quotable(Passage(
        id="w#results", work_id="w", text=section, start=0, end=len(section),
        section="3 Results"), 2020)}
    assert kinds == {"We collected blood s": frozenset({"method"}),
                     "Iron supplements red": frozenset({"result"})}
    work = Work(title="Iron supplements and anaemia in pregnancy", abstract=text, year=2020,
                doi="10.1000/iron", sources=["pubmed"])
    assert claim_draft_quotes("Iron supplements reduce anaemia in pregnancy.", work,
                              ["iron", "supplements", "anaemia", "pregnancy"]) == [
        "Iron supplements reduced anaemia in pregnancy from 28% to 14%."]


def test_objective_as_an_adjective_is_no_aim():
    response = ("The objective response rate of drug X in advanced melanoma was 34% against 12% "
                "with chemotherapy.")
    assert sentences_of(response)[0].facets == frozenset({"result"})
    melanoma = SubQuestion(id="q3", text="What are the main findings of studies on drug X in "
                           "advanced melanoma?", answer_shape="results")
    assert quoted_for(melanoma, response) == [response]
    # the noun naming an aim still names one, whatever follows it
    for aim in ("The objective of this study was to compare drug X with chemotherapy in melanoma.",
                "With this objective, drug X was compared with chemotherapy in 200 melanomas.",
                "Our purpose here is a comparison of drug X with chemotherapy in melanoma."):
        assert sentences_of(aim)[0].facets & {"background", "aim"}, aim
        assert quoted_for(melanoma, aim) == [], aim
    general = "A general-purpose melanoma classifier reached an AUC of 0.91 on 4,000 images."
    assert "background" not in sentences_of(general)[0].facets


SHORT = ("Statin loading before cardiac surgery is debated in perioperative care. "
         "We randomised 800 cardiac surgery patients to statin loading or placebo. "
         "Mortality fell by 12%. No effect was found. Data not shown.")


def test_a_short_sentence_stating_a_result_is_quoted():
    texts = {c.quote.text: c.facets for c in sentences_of(SHORT)}
    assert texts["Mortality fell by 12%."] == frozenset({"result"})
    assert texts["No effect was found."] == frozenset({"result"})
    assert "Data not shown." not in texts  # a note, not a statement
    work = Work(title="Statin loading before cardiac surgery and mortality", abstract=SHORT,
                year=2019, doi="10.1000/statin", sources=["pubmed"])
    best = work_result(work, topic_terms("statin loading before cardiac surgery"), set())
    assert best is not None and best.quote.text == "Mortality fell by 12%."


def test_a_short_fragment_is_not_quoted():
    for fragment in ("G608G mutations (76%).", "It is concluded that; 1.)", "Significance.",
                     "Results are shown."):
        text = f"Children with progeria were studied in twelve centres in 2010. {fragment}"
        assert fragment not in {c.quote.text for c in sentences_of(text)}, fragment


def test_what_a_paper_goes_on_to_review_or_asks_is_never_a_finding():
    text = ("Emicizumab levels are hard to measure in plasma. Our scientific question is if a "
            "two-stage chromogenic assay would increase the sensitivity of the measurement. "
            "We also review the role of emicizumab among novel haemophilia A therapies. "
            "As we review here, these trials show that emicizumab prophylaxis reduced "
            "bleeding in children with haemophilia. "
            "Emicizumab prophylaxis lowered the annualised bleeding rate by 87%.")
    quoted = quoted_for(RESULTS, text)
    assert not any(q.startswith(("Our scientific question", "We also review")) for q in quoted)
    assert "Emicizumab prophylaxis lowered the annualised bleeding rate by 87%." in quoted
    assert any(q.startswith("As we review here") for q in quoted), quoted
