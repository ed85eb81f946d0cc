"""A computer-science review quotes results, not what a field has become or still lacks, and not
what a paper proposes to do: the arXiv abstracts of the recorded corpus open on "Deep Learning
(DL) has revolutionized ...", "We have recently witnessed tremendous success of Machine Learning"
and "The main challenge ... is the lack of a test oracle", none of which a study found."""

from __future__ import annotations

import re

import pytest

from scholargraph import review
from scholargraph.deterministic.extractive import (
    NEVER_FINDINGS,
    Candidate,
    quotable,
    states_finding,
)
from scholargraph.records import Passage
from scholargraph.report import Report

QUESTION = "Does metamorphic testing find bugs in machine learning classifiers?"
FIELD_SAYS = re.compile(r"has revolutionized|witnessed tremendous success|has gained significant "
                        r"interest|main challenge|higher demand|^We propose|main idea of this work|"
                        r"are commonly used in testing compilers",
                        re.IGNORECASE)


@pytest.fixture(scope="module")
def testing_review(tmp_path_factory: pytest.TempPathFactory) -> Report:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCHOLARGRAPH_HOME", str(tmp_path_factory.mktemp("home")))
        return review(QUESTION, offline=True, out=tmp_path_factory.mktemp("review"))


def test_the_recorded_abstracts_open_on_the_field_and_no_finding_quotes_it(testing_review):
    said = [w.title for w in testing_review.papers if FIELD_SAYS.search(w.abstract or "")]
    assert len(said) >= 3, "the recorded corpus changed: fewer abstracts open on their field"
    findings = [f.quotes[0].text for f in testing_review.findings if f.kind == "finding"]
    assert findings
    assert not [text for text in findings if FIELD_SAYS.search(text)]
    assert any("65.9% of the bugs were caught" in text for text in findings)


def abstract_sentences(text: str) -> list[Candidate]:
    """The quotable sentences of ``text`` read as a work's abstract."""
    return quotable(Passage(id="w#a", work_id="w", text=text, start=0, end=len(text),
                            section="abstract"), None)


def quoted_as_results(sentences: list[Candidate]) -> list[str]:
    """The texts of those ``sentences`` a review would quote as a result: read as one and of no
    kind that is never a finding."""
    return [c.quote.text for c in sentences
            if states_finding(c, {"result"}) and not c.facets & NEVER_FINDINGS]


def test_a_field_statement_is_background_unless_a_structured_abstract_labels_it_a_result():
    text = ("Deep Learning (DL) has revolutionized the capabilities of vision-based systems. "
            "RESULTS: Metamorphic relations have emerged as the strongest oracle in 12 of 14 "
            "models tested.")
    opening, labelled = abstract_sentences(text)
    assert "background" in opening.facets and not states_finding(opening, {"result"})
    assert labelled.facets == {"result"} and states_finding(labelled, {"result"})
    used = ("Random test program generators are commonly used in testing compilers. The error "
            "rate, which is a frequently used measure, was found to be a deceptive measure.")
    tool, result = abstract_sentences(used)
    assert not states_finding(tool, {"result"}) and states_finding(result, {"result"})
    step = "In particular, we first cluster the test programs in the bug reports by their features."
    method, = abstract_sentences(step)
    assert not states_finding(method, {"result"}) and states_finding(method, {"method"})


def test_a_fields_interest_and_a_method_judged_in_general_are_background():
    """Two opening sentences of a software-engineering library's abstracts that a topic review
    quoted as findings; a paper's own conclusion on the same subject stays a finding."""
    text = ("Over the last two decades, the Software Engineering community has expressed special "
            "interest in software process improvement in an effort to increase product quality. "
            "Ethnography is a powerful qualitative empirical approach which can be used to "
            "understand and hence improve work practice. "
            "This study demonstrates that ethnography improved work practice in two teams.")
    interest, approach, conclusion = abstract_sentences(text)
    assert not states_finding(interest, {"result"})
    assert not states_finding(approach, {"result"})
    assert states_finding(conclusion, {"result"})


def test_what_earlier_research_has_shown_is_background():
    """An abstract opening on what earlier trials indicated quoted as a knee trial's finding;
    the authors' own studies and a structured abstract's labelled result stay findings."""
    text = ("Preclinical and limited clinical trials have indicated the capacity of mesenchymal "
            "stem cells to influence chondral repair. Our studies have shown that the injection "
            "reduced pain at one year. RESULTS: Several trials have shown a reduction in pain "
            "of 30%.")
    earlier, own, labelled = abstract_sentences(text)
    assert "background" in earlier.facets and not states_finding(earlier, {"result"})
    assert states_finding(own, {"result"})
    assert states_finding(labelled, {"result"})


def test_how_much_research_there_is_is_background():
    """A software-engineering abstract opening on how many studies its field has seen was quoted
    as a finding of a tertiary study; its own count stays a finding."""
    text = ("Several primary studies have been conducted in the field of software engineering in "
            "the last years. From 108 selected papers, we found that 19 used evidence-based "
            "practices.")
    amount, own = abstract_sentences(text)
    assert "background" in amount.facets and not states_finding(amount, {"result"})
    assert states_finding(own, {"result"})


def test_an_aim_a_conjecture_and_a_cited_study_are_not_a_works_result():
    """Sentences a rodent-memory and an antibody review quoted as findings: a method opening on
    its purpose ("To demonstrate ..."), an aim ("Here we evaluate ..."), the authors'
    conjecture ("One possible explanation is ..."), another study's result cited by its authors,
    and a drug's indication ("indicated for routine prophylaxis") are none a result; the same
    words stating what the study found are."""
    purpose, = abstract_sentences("To demonstrate the effect, rats were trained to link a "
                                  "drug with one of two objects.")
    assert "result" not in purpose.facets and not states_finding(purpose, {"result"})
    connected, = abstract_sentences("Moreover, to model the tasks associated with each label, "
                                    "we trained three classifiers on the tweets.")
    assert connected.facets == {"method"}
    tested, = abstract_sentences("To test this idea, we lesioned the cortex, which reduced "
                                 "object exploration by half.")
    assert states_finding(tested, {"result"})
    aim, found = abstract_sentences("Here we evaluate the performance of mice with cortical "
                                    "damage in a matching task. Here we show that damaged mice "
                                    "fail the matching task.")
    assert aim.facets == {"aim"} and "result" in found.facets
    guess, = abstract_sentences("One possible explanation is that the tasks used in animal "
                                "studies increase stress.")
    assert not states_finding(guess, {"result"})
    cited, own = abstract_sentences(
        "Two trials recently demonstrated the efficacy of the antibody (Mahlangu et al. N Engl "
        "J Med 2018). We found that the antibody reduced bleeds by 60%.")
    assert cited.facets == {"others"} and "result" in own.facets
    use, = abstract_sentences("The antibody is a bispecific protein, indicated for routine "
                              "prophylaxis in adults with haemophilia.")
    assert "result" not in use.facets


def test_a_reviews_search_its_aims_and_what_was_known_before_are_not_its_findings():
    """Sentences quoted as findings of topic reviews over real libraries: an Objective whose
    label is glued to it, an aim alone, a method's purpose, what was found before, a review's
    search and its yield, and a call for more research; the study's own result beside them is
    a finding."""
    sentences = abstract_sentences(
        "Aim:To study associations of hormone levels in hair with obesity in children. "
        "To examine the association between hair hormones and adiposity among selected children. "
        "We used cortisol in hair to examine associations of cortisol with obesity. "
        "Raised cortisol levels have been linked to heart disease and metabolic syndrome. "
        "Four databases were searched through October 2019 to identify original research. "
        "Of the 961 records initially identified, 18 studies met our eligibility criteria. "
        "Our aim was to study whether hair cortisol is associated with heart disease. "
        "Future longitudinal research using hair analysis is warranted to clarify these links. "
        "Hair cortisol was higher in obese children than in children of normal weight.")
    *others, result = sentences
    assert len(others) == 8
    assert not quoted_as_results(others)
    assert states_finding(result, {"result"}) and "result" in result.facets
    ours, = abstract_sentences("We have found that hair cortisol has been associated with "
                               "obesity in all three cohorts.")
    assert states_finding(ours, {"result"})


def test_a_record_line_a_trend_and_a_claim_to_be_first_are_not_findings():
    """More sentences topic reviews over real libraries quoted as findings: where a record was
    published (its abstract field holding its citation), a trend opening an abstract, a study
    saying it is the first to do what it did, and a method naming an "associative" task."""
    earlier, = abstract_sentences("Previous studies suggest that green spaces may promote "
                                  "several health outcomes including birth weight.")
    assert not states_finding(earlier, {"result"})
    line = ("Article Memories for objects in mice was published on August 1, 2004 in the "
            "journal Reviews in Memory (volume 15, issue 4).")
    assert abstract_sentences(line) == []
    trend, first, method, shown = abstract_sentences(
        "With our population ageing, the costs of managing knee pain continue to dramatically "
        "increase. This is the first study to provide an understanding of the treatment of "
        "patients who start the antibody. Between days 65 and 70, exposed and control rats were "
        "evaluated in the associative object-in-context task. This is the first study to show "
        "that the antibody lowers bleeding rates in infants.")
    assert not quoted_as_results([trend, first])
    assert "result" not in method.facets
    assert states_finding(shown, {"result"}) and "result" in shown.facets


def test_a_question_how_a_review_was_done_and_what_was_measured_are_not_findings():
    """A structured abstract's question ("Does arthroscopic debridement improve ...?"), a
    review's account of its own conduct and a study's measurements, each quoted as a finding
    of a topic review over a real library, are none a result."""
    asked, conducted, searched, measured, found = abstract_sentences(
        "Does arthroscopic debridement improve pain in knee osteoarthritis? "
        "A systematic review and meta-analyses were conducted to synthesize thirty-seven "
        "studies. PubMed and Embase were systematically searched for cohort studies. Hair "
        "cortisol concentrations were determined from the first 3 cm hair segment. Hair "
        "cortisol was determined to be higher in obese children.")
    assert not quoted_as_results([asked, conducted, searched, measured])
    assert states_finding(found, {"result"})
    for method in (conducted, searched, measured):  # a review's methods, quoted when asked for
        assert states_finding(method, {"method"}), method.quote.text
    yielded, = abstract_sentences("A comprehensive search yielded 58 eligible studies, 40% of "
                                  "them trials.")
    assert yielded.facets == {"method"}


def test_a_sample_counted_is_a_method():
    counted, estimated = abstract_sentences(
        "We identified a total of 47 patients taking the antibody with 12 months of records. "
        "We identified 89 eligible studies and estimated that 12% of episodes led to admission.")
    assert counted.facets == {"method"} and not states_finding(counted, {"result"})
    assert states_finding(estimated, {"result"})


def test_a_definition_a_promise_and_a_call_for_study_are_not_findings():
    """From a held-out library review of therapies for a rare liver disease: what the disease
    is, what a study will be able to say, and that a drug warrants study; a study saying what
    a protein is, from its data, is a finding."""
    defined, promised, called, shown = abstract_sentences(
        "Copper storage disease is an inherited disorder of copper metabolism characterized "
        "by reduced biliary excretion. Results from this retrospective study will be able to "
        "inform on the safety of the drug in the real world. Moreover, the new salt warrants "
        "study to determine whether therapy can be improved. Our data demonstrate that the "
        "kinase is a novel binding protein that drives cell migration.")
    assert not quoted_as_results([defined, promised, called])
    assert states_finding(shown, {"result"})


def test_what_a_paper_did_and_what_it_advises_are_not_findings():
    """From a held-out review of systematic reviews in software engineering: a paper saying
    what it performed, what its authors analysed and what they suggest or find needed."""
    performed, analysed, suggested, needed = abstract_sentences(
        "This paper performed a systematic literature review to classify published work on "
        "code smells. We have also analyzed the results of the review to show the trends in "
        "measurement. In addition to presenting our results, we also provide suggestions for "
        "improvement of web engineering research. While we identified a number of issues, a "
        "key need is clearly to have a central repository of reviews.")
    assert not quoted_as_results([performed, analysed, suggested, needed])


def test_what_a_paper_closes_on_and_a_fields_present_are_not_findings():
    """From a held-out review of systematic reviews in software engineering."""
    closing, offered, nowadays, found = abstract_sentences(
        "We conclude with specific recommendations for improving the review of software "
        "diagrams. This study offers a systematic overview of literature and suggests many "
        "insights for managers. Nowadays, the experimentation approach represents an important "
        "tool to improve software processes. Structured abstracts increased the completeness "
        "score by 6.65 points.")
    assert not quoted_as_results([closing, offered, nowadays])
    assert states_finding(found, {"result"})


def test_an_aim_to_improve_is_no_result_and_a_failure_to_improve_is_one():
    aim, failed, improved = abstract_sentences(
        "The method has mostly been adopted to help organizations improve project performance. "
        "Adding radiotherapy did not improve survival in patients with brain metastases. "
        "Adding radiotherapy improved survival in patients with brain metastases.")
    assert "result" not in aim.facets
    assert "result" in failed.facets and "result" in improved.facets


@pytest.mark.parametrize("opening", [
    "Latent growth models are increasingly applied in educational research.",
    "Mixture models are of growing interest, as they improve fit in heterogeneous samples.",
    "Factor analysis is a popular statistical technique that reduces survey data to a few "
    "factors.",
    "An important issue in the analysis of panel data is the higher attrition in later waves.",
    "Bayesian approaches to modeling are receiving an increasing amount of attention.",
])
def test_where_a_method_or_problem_stands_in_its_field_is_no_result(opening):
    """A statistics review quoted such openings as the results comparing two estimators, an
    'increasing' read as a direction; the study's own result is quoted instead."""
    text = (f"{opening} We compared two estimators in a simulation study. "
            "The Bayesian estimator showed lower bias than maximum likelihood in samples "
            "below 50.")
    assert quoted_as_results(abstract_sentences(text)) == [
        "The Bayesian estimator showed lower bias than maximum likelihood in samples below 50."]


def test_a_sentence_opening_on_the_authors_it_cites_reports_their_work():
    """A commentary opens on the work it answers: that work's proposal is not its finding."""
    text = ("Lopez and Ward (2015) have proposed an approach to estimating factor models with "
            "informative priors that improved accuracy in small samples. We argue that their "
            "priors need justification.")
    quoted = abstract_sentences(text)
    assert quoted[0].facets == {"others"}
    assert not [q for q in quoted_as_results(quoted) if q.startswith("Lopez")]


def test_what_is_usually_done_is_background_and_what_a_study_saw_usually_is_not():
    """'... are most often estimated by maximum likelihood' opened a statistics abstract and was
    quoted as what studies report; a study's own observation is in the past tense."""
    usual, seen = abstract_sentences(
        "Growth models are most often estimated by maximum likelihood. "
        "In our trial, adverse events were usually mild and resolved within a week.")
    assert "background" in usual.facets and not states_finding(usual, {"result"})
    assert "background" not in seen.facets


@pytest.mark.parametrize("opening", [
    "In today's laboratories, assays are run that frequently lack validation data.",
    "Over the last decades, mixed models have become a better choice for repeated measures.",
    "Recently, pair programming increased in popularity among student teams.",
    "Model-driven engineering has been promoted as a way to reduce development effort.",
])
def test_the_fields_recent_past_is_background_unless_the_sentence_names_its_work(opening):
    """A software-engineering library's topic review quoted such openings as what studies
    report; the same opening naming the work ('Recently, we showed ...') stays its own."""
    text = f"{opening} The new assay reduced false positives by 40% in our validation set."
    assert quoted_as_results(abstract_sentences(text)) == [
        "The new assay reduced false positives by 40% in our validation set."]
    own, = abstract_sentences("Recently, we showed that the assay reduced false positives.")
    assert "background" not in own.facets


def test_a_sentence_ending_on_what_the_paper_discusses_is_no_finding():
    text = ("We surveyed 120 laboratories. Assay validation was reported by 31% of them. "
            "Implications for accreditation bodies are discussed.")
    assert quoted_as_results(abstract_sentences(text)) == [
        "Assay validation was reported by 31% of them."]


def test_a_commentary_on_a_paper_reports_that_papers_result_not_its_own():
    text = ("In this issue, Lopez et al describe a 90% reduction in bleeding with weekly "
            "prophylaxis. We discuss what this means for dosing.")
    assert quoted_as_results(abstract_sentences(text)) == []


def test_a_drug_defined_with_its_brand_in_brackets_is_background():
    text = ("Lumetab (Lumex(R)) is a bispecific monoclonal antibody that restores clotting in "
            "people with haemophilia A. In 40 adults, weekly lumetab reduced bleeding by 80%.")
    assert quoted_as_results(abstract_sentences(text)) == [
        "In 40 adults, weekly lumetab reduced bleeding by 80%."]
