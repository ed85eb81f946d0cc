"""What a review quotes, read as the scientist who asked it would (issue 22, item 3): a topic's
findings are the works' results, not the context an abstract opens with, the make-up of a
study's sample, or a line saying only that the findings matter; a work cited for its methods is
still cited for its result; a claim's finding is each study's result, not how it sampled.

Found by reading reviews over the recorded corpus: a topic review of a library of PsycINFO
records on inflammatory bowel disease (``library/asreview_ovid_psycinfo.ris``) quoted
"AbstractYouth with inflammatory bowel disease (IBD) often experience psychological
difficulties ...", "The sample included 53 ambulatory IBD patients (66% females) ..." and "Our
findings have important implications for the clinical care of pediatric IBD." as findings, and
cited its one randomised trial of a psychological therapy for its sample only; a claim about
predicting suicide ideation from survey data quoted the study's down-sampling.
"""

from __future__ import annotations

import pytest

from scholargraph import review
from scholargraph.agents.schemas import Finding, SubQuestion
from scholargraph.deterministic.extractive import (
    implications_only,
    quotable,
    reports_no_study,
    results_first,
    results_of_uncited,
    sample_only,
    states_finding,
    summary_passages,
    wanted_facets,
)
from scholargraph.rag.chunking import split_sentences
from scholargraph.records import Work
from scholargraph.report import Report
from scholargraph.testing import fixture_path

RESULTS = SubQuestion(id="q1", text="What do studies report on talking therapy for gout?",
                      answer_shape="direct evidence on the question")
METHODS = SubQuestion(id="q2", text="What methods and data have been used to study talking "
                      "therapy for gout?", answer_shape="study designs, data sources")
TRIAL = Work(
    title="A talking therapy for adults with gout: a randomised trial", year=2021,
    doi="10.1000/gout-trial",
    abstract="Adults with gout often live with worry about the next flare. This randomised trial "
             "tested whether eight sessions of talking therapy added to usual care eased that "
             "worry. We included 90 adults with gout and measured worry at 6 months. Overall, "
             "we found no differences between those receiving the therapy and those receiving "
             "usual care only. Our findings have important implications for the care of gout.")


def candidates(work: Work) -> dict[str, object]:
    """The work's quotable sentences by their first words."""
    return {c.quote.text[:32]: c for passage in summary_passages(work)
            for c in quotable(passage, work.year)}


def test_the_context_an_abstract_opens_with_is_not_a_topic_finding() -> None:
    found = candidates(TRIAL)
    opening = found["Adults with gout often live with"]
    result = found["Overall, we found no differences"]
    assert opening.opening and not states_finding(opening, {"result"})
    assert not result.opening and states_finding(result, {"result"})
    # once an abstract has said what its work did, a plain statement is no longer context
    late = Work(title="Gout flares in winter", year=2020, abstract="We counted flares in 300 "
                "adults over ten years. Flares cluster in the coldest weeks of the year.")
    plain = candidates(late)["Flares cluster in the coldest we"]
    assert not plain.opening and states_finding(plain, {"result"})


@pytest.mark.parametrize(("sentence", "sample"), [
    ("The sample included 53 ambulatory patients (66% females) with ages from 18 to 65.", True),
    ("A total of 412 patients were enrolled (58% men).", True),
    ("Mean age was 41 years and 62% were women.", True),
    ("The sample included 53 patients, and worry fell by 30% in those treated.", False),
    ("Patients who were enrolled showed higher adherence than controls.", False),
    ("Worry fell by 30% in the treated group.", False),
])
def test_a_sentence_describing_only_the_sample_is_told_from_a_result(sentence: str,
                                                                      sample: bool) -> None:
    assert sample_only(sentence) is sample


@pytest.mark.parametrize(("sentence", "empty"), [
    ("Our findings have important implications for the clinical care of pediatric IBD.", True),
    ("These results have implications for policy.", True),
    ("Our findings have implications for care, since worry fell by half.", False),
    ("The implications of these findings for practice are discussed below in detail, "
     "with worry falling by half.", False),
])
def test_a_line_saying_only_that_findings_matter_is_told_apart(sentence: str,
                                                               empty: bool) -> None:
    assert implications_only(sentence) is empty


def test_a_sample_or_an_empty_conclusion_answers_no_results_question() -> None:
    found = candidates(TRIAL)
    empty = found["Our findings have important impl"]
    assert not states_finding(empty, {"result"}) and not states_finding(empty, {"method"})


def test_a_work_cited_only_for_its_methods_is_cited_for_its_result_too() -> None:
    """The trial quoted under the methods sub-question (its sample) has not been cited for what
    it found: its result, a comparison of its arms with no figure and no word of the question
    but the therapy's, is quoted under the results sub-question; one cited under the results
    sub-question is not quoted twice."""
    [sample] = [c for c in candidates(TRIAL).values() if c.quote.text.startswith("We included")]
    for_methods = sample.finding(METHODS.id)
    found = results_of_uncited([RESULTS, METHODS], [TRIAL], {TRIAL.id}, [for_methods],
                               ["talking therapy", "gout"], set()).findings
    assert [(f.text, f.sub_question_id) for f in found] == [
        ("Overall, we found no differences between those receiving the therapy and those "
         "receiving usual care only.", RESULTS.id)]
    for_results = sample.finding(RESULTS.id)
    assert results_of_uncited([RESULTS, METHODS], [TRIAL], {TRIAL.id}, [for_results],
                              ["talking therapy", "gout"], set()).findings == []


def test_a_claims_finding_is_each_studys_result_not_its_sampling() -> None:
    study = Work(title="Predicting gout flares from a national survey", year=2019,
                 doi="10.1000/gout-survey",
                 abstract="Methods: Among 20,000 adults of the national health survey, we "
                          "selected 4,000 by random down-sampling. Results: The model predicted "
                          "flares with an AUC of 0.81. ")
    other = Work(title="Gout registries", year=2018, doi="10.1000/gout-registry",
                 abstract="Methods: We describe the national gout survey data.")
    pool = [c for work in (study, other) for c in candidates(work).values()]
    kept = [c.quote.text for c in results_first(pool)]
    assert not any(text.startswith("Among 20,000") for text in kept)
    assert any(text.startswith("The model predicted flares") for text in kept)
    # a work stating no result keeps its best sentence
    assert any(text.startswith("We describe the national") for text in kept)


def test_a_label_glued_to_an_abbreviations_stop_starts_a_sentence() -> None:
    text = "Patients rarely met stigma about IBD.Conclusion: People with IBD adjust worse."
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "Patients rarely met stigma about IBD.", "Conclusion: People with IBD adjust worse."]
    for kept in ("Bacteria such as E.Coli grow in it.", "It was made in the U.S.Army labs."):
        assert len(split_sentences(kept)) == 1


@pytest.mark.parametrize(("abstract", "kept"), [
    ("AbstractYouth with gout often worry.", "Youth with gout often worry."),
    ("Abstract: We counted flares.", "We counted flares."),
    ("ABSTRACT Background: flares cluster.", "Background: flares cluster."),
    ("Abstract reasoning was tested in 40 adults.", "Abstract reasoning was tested in 40 adults."),
    ("Abstracts of the meeting follow.", "Abstracts of the meeting follow."),
])
def test_an_abstracts_heading_is_not_its_first_word(abstract: str, kept: str) -> None:
    assert Work(title="Gout", abstract=abstract).abstract == kept


@pytest.fixture(scope="module")
def bowel_review(tmp_path_factory: pytest.TempPathFactory) -> Report:
    """A topic review of the recorded PsycINFO export (six records on inflammatory bowel
    disease) read whole as a library."""
    home = tmp_path_factory.mktemp("bowel-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCHOLARGRAPH_HOME", str(home))
        return review("psychological interventions for inflammatory bowel disease",
                      sources=["library"], offline=True,
                      library=str(fixture_path("library/asreview_ovid_psycinfo.ris")))


def test_a_library_topic_review_quotes_results(bowel_review: Report) -> None:
    findings = [f for f in bowel_review.findings if f.kind == "finding"]
    texts = [f.text for f in findings]
    assert not [t for t in texts if t.startswith(("Abstract", "Youth with", "The sample"))]
    assert not [t for t in texts if "have important implications" in t]
    assert not [t for t in texts if "IBD.Conclusion" in t]
    # the one trial of a psychological therapy is cited for its (null) result
    results_subs = {s.id for s in bowel_review.sub_questions if "result" in wanted_facets(s)}
    trial_result = [f for f in findings if f.text.startswith("Overall, we found no differences")]
    assert trial_result and isinstance(trial_result[0], Finding)
    assert trial_result[0].sub_question_id in results_subs


def test_a_talk_a_commentary_or_a_protocol_reports_no_study_to_test_a_claim() -> None:
    """A talk saying what it presents and stating no result, a commentary and a protocol report
    no study of their own: a claim's review sets them aside and a balance never counts them; a
    talk that reports a measured result, and an ordinary study, do report one."""
    talk = Work(title="Scalable tools for gout surveillance", year=2014,
                abstract="Gout registries keep growing. In this talk, we present an overview of "
                         "the tools we have been building. Our tools can automatically flag "
                         "clinics with rising flare counts.")
    measured_talk = talk.model_copy(update={
        "abstract": (talk.abstract or "") + " In a pilot, the tools found 80% of flare "
        "clusters a week before the registry did."})
    commentary = Work(title="Flare prediction comes of age", year=2022,
                      abstract="In a study published in this issue, Okafor and colleagues "
                               "present a model to predict gout flares.")
    protocol = Work(title="Talking therapy for gout: a study protocol", year=2021,
                    abstract="This protocol describes a trial of talking therapy for gout.")
    assert [reports_no_study(w) for w in (talk, measured_talk, commentary, protocol, TRIAL)] == [
        True, False, True, True, False]
