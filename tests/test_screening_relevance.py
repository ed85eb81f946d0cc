"""The zero-shot screening score: concepts, criteria, designs and the include/exclude decision,
with the bundled MiniLM model (no network)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scholargraph.errors import InputError
from scholargraph.rag.embeddings import load_embedder
from scholargraph.records import Work
from scholargraph.screening.relevance import (
    FEEDBACK_MIN_RECORDS,
    Abbreviations,
    concepts,
    criteria_clauses,
    design_reason,
    instrument_names,
    kept_reason,
    mentions,
    names_a_file,
    question_topic,
    read_criteria,
    record_designs,
    record_text,
    score_records,
    screening_decisions,
    with_aliases,
)
from scholargraph.sources.openalex import work_from_openalex
from scholargraph.testing import fixture_bytes

SURVEILLANCE = "machine learning for public health surveillance"
ON_TOPIC = ("Natural language processing and machine learning methods in public health "
            "surveillance", "We review machine learning applied to surveillance data from "
            "emergency departments and social media to detect outbreaks of influenza early.")
OFF_TOPIC = ("Identifying implementation bugs in machine learning based image classifiers using "
             "metamorphic testing", "We propose metamorphic relations to find bugs in the "
             "implementation of image classifiers such as support vector machines and deep "
             "neural networks, and evaluate them by mutation testing.")
CRITERIA = """Inclusion criteria
Population: adults with knee osteoarthritis. Study design: randomised controlled trials.

Exclusion criteria
1. Animal studies
2. Review articles and case reports
"""


@pytest.fixture(scope="module")
def embedder():
    return load_embedder(None)


def test_the_question_is_split_into_its_concepts_without_the_review_type():
    assert question_topic("Hair cortisol and obesity: a systematic review and meta-analysis") == \
        "Hair cortisol and obesity"
    assert [c.text for c in concepts(SURVEILLANCE)] == ["machine learning",
                                                        "public health surveillance"]
    assert [c.text for c in concepts("Modelling depression in vivo in non-human animals")] == [
        "Modelling depression in-vivo", "non-human animals"]  # "in vivo" is not split at "in"


def test_what_kind_of_answer_is_wanted_is_no_concept_a_record_must_name():
    """A materials paper need not say "materials" nor "promising" to address the question."""
    assert [c.text for c in concepts("What materials are promising for solid-state lithium "
                                     "battery electrolytes?")] == [
        "solid-state lithium battery electrolytes"]
    assert [c.text for c in concepts("Which cathode materials offer the highest capacity for "
                                     "sodium-ion batteries?")] == [
        "cathode materials", "capacity", "sodium-ion batteries"]
    assert [c.text for c in concepts("Does metamorphic testing find bugs in machine learning "
                                     "classifiers?")] == [
        "metamorphic testing", "bugs", "machine learning classifiers"]
    assert [c.text for c in concepts("Does exercise reduce symptoms of major depressive "
                                     "disorder?")][-1] == "major depressive disorder"
    assert [c.text for c in concepts("Is there evidence that green space improves mental "
                                     "wellbeing in cities?")] == [
        "green space", "mental wellbeing", "cities"]


def test_criteria_are_read_from_text_or_file_with_the_designs_they_name(tmp_path):
    criteria = read_criteria(CRITERIA)
    assert criteria.wanted_designs == ["randomised trial"]
    assert set(criteria.excluded_designs) == {"animal", "review", "case report"}
    assert any("Animal studies" in sentence for sentence in criteria.exclusion)
    path = tmp_path / "criteria.txt"
    path.write_text(CRITERIA, encoding="utf-8")
    assert read_criteria(str(path)) == criteria


@pytest.mark.parametrize("given, message", [("", "empty"), ("  \n ", "empty"),
                                            ("missing-criteria.txt", "does not exist")])
def test_missing_or_empty_criteria_are_an_input_error(tmp_path, given, message):
    with pytest.raises(InputError, match=message):
        read_criteria(given)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match="is empty"):
        read_criteria(str(empty))


def test_a_file_name_is_told_from_criteria_by_one_rule(tmp_path, monkeypatch):
    """The live page refuses exactly the lines the command line would read or refuse as a file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "eligibility").write_text(CRITERIA, encoding="utf-8")
    for name in ("eligibility", "criteria.md", ".criteria", "~/criteria", "rules/rct",
                 str(tmp_path / "eligibility")):
        assert names_a_file(name), name
    for text in ("Randomised trials in adults", "adults/children aged 5 or more", CRITERIA,
                 "RCTs"):
        assert not names_a_file(text), text
    with pytest.raises(InputError, match="does not exist"):
        read_criteria(".criteria")
    assert read_criteria("eligibility").wanted_designs == ["randomised trial"]


def test_an_opinion_piece_is_read_as_an_editorial_where_it_says_so():
    assert record_designs("Opinion: the limits of machine learning in surveillance",
                          "We argue that models need human review.") == ["editorial"]
    assert record_designs("Machine learning and outbreaks",
                          "This opinion piece argues that models need review.") == ["editorial"]
    assert record_designs("Perspective of nurses on telehealth: a qualitative study",
                          "We interviewed 20 nurses.") == []
    assert read_criteria("Exclusion criteria: editorials and opinion pieces.").excluded_designs \
        == ["editorial"]
    assert read_criteria("Inclusion criteria: studies of patients' opinions of telehealth."
                         ).wanted_designs == []


def test_designs_are_read_from_the_record():
    assert record_designs("Wilson disease in pregnancy",
                          "We report a case of a pregnant woman with Wilson disease.") == [
        "case report"]
    assert record_designs("Stem cells in a rat model of osteoarthritis",
                          "Rats received injections of stem cells.") == ["animal"]
    # a clinical trial that builds on a mouse model is not an animal study
    assert "animal" not in record_designs(
        "Stem cells for knee osteoarthritis", "After work in mice, 40 patients were randomized.")
    # a review is read from the title only
    assert record_designs("Knee pain", "A review of the literature guided the protocol.") == []
    # human cells injected into mice make no study of people; randomised mice no trial
    assert record_designs(
        "Stem cell secretome reduces pain in a murine osteoarthritis model",
        "Human bone-marrow-derived stem cells were stimulated. 54 mice were randomly assigned "
        "to injections.") == ["animal"]
    # subjects randomly assigned to a model's training and test sets make no trial; a
    # trial's "test group" is an arm
    assert record_designs(
        "A machine learning algorithm to predict suicide ideation in a national survey",
        "We randomly assigned the subjects to a training set (n=10,466) and a test set.") == []
    assert record_designs("Radiomics of lung nodules", "Patients were randomized into "
                          "training and validation cohorts.") == []
    assert record_designs("Mouthwash and plaque", "Sixty adults were randomly assigned to "
                          "the test group or the control group.") == ["randomised trial"]
    # a review says what it is by name or by its search, not by reviewing charts
    assert record_designs("Bone marrow concentrate for knee cartilage: bench to bedside",
                          "A literature search was performed using the PubMed and MEDLINE "
                          "databases.") == ["review"]
    assert record_designs("Stem cells in knee pathologies", "In this narrative review we "
                          "discuss the biology of the cells.") == ["review"]
    assert record_designs("Knee injections in a county hospital", "Our review of 300 charts "
                          "found 40 infections.") == []
    assert record_designs("Bone oedema after marrow stimulation", "In this review of "
                          "prospectively collected data, 38 patients were analysed.") == []
    # a title naming the design settles it, whatever the abstract says of patients
    assert "in vitro" in record_designs(
        "In vitro potential for cartilage repair of synovial fluid stem cells",
        "Cells were isolated from patients undergoing knee replacement.")


def test_criteria_asking_for_trials_set_aside_case_reports_and_animal_studies():
    trials_only = read_criteria("Inclusion criteria: randomised controlled trials of adults.")
    assert design_reason(["case report"], trials_only) == (
        "design: case report; the criteria ask for randomised trials")
    assert design_reason(["animal"], trials_only) is not None
    assert design_reason(["cohort"], trials_only) is None
    assert design_reason(["randomised trial", "case report"], trials_only) is None
    # excluding observational studies excludes case reports and series, not cohorts
    no_observational = read_criteria(
        "Exclusion criteria: observational studies without a comparator group.")
    assert {"case report", "case series"} <= set(no_observational.excluded_designs)
    assert "cohort" not in no_observational.excluded_designs


def test_record_text_joins_title_and_abstract_of_works_and_rows():
    work = Work(title="Machine learning and public health", abstract="An essay.")
    assert record_text(work) == "Machine learning and public health.\nAn essay."
    # a title's own full stop stays in the title
    assert record_text({"title": "Pesticides and inflammation. A systematic review",
                        "abstract": "In vitro studies were included."}).split("\n")[0] == (
        "Pesticides and inflammation. A systematic review.")
    assert record_text({"title": "Title only?", "abstract": ""}) == "Title only?"


def test_records_on_the_question_rank_first_and_off_topic_ones_are_set_aside(embedder):
    texts = [record_text({"title": t, "abstract": a}) for t, a in (OFF_TOPIC, ON_TOPIC)]
    scores = score_records(SURVEILLANCE, None, texts, embedder=embedder)
    assert scores.shape == (2,) and scores[1] > scores[0]
    off, on = screening_decisions(SURVEILLANCE, None, [OFF_TOPIC, ON_TOPIC], embedder=embedder)
    assert on.included
    assert off.reason == "does not address: public health surveillance"


def test_a_concept_is_named_within_one_sentence_or_the_title():
    found = concepts(SURVEILLANCE)
    scattered = mentions(found, "Learning from data", "Public transport was studied. Health "
                         "workers used a machine.")
    assert scattered.named == [True, False]  # "public" and "health" in different sentences
    titled = mentions(found, "Machine learning for public health", "We trained models.")
    assert titled.named == [True, True] and not titled.in_passing


LISTED = ("Beyond the number of classes in latent class analysis",
          "Latent class analysis is a clustering technique applied in fields including the "
          "social sciences, machine learning, psychiatry and public health. Its central "
          "assumption is local independence of the indicators. We model substantive local "
          "dependencies as latent variables, with an application to voting in elections.")


def test_concepts_named_only_in_passing_are_not_addressed(embedder):
    """A methods paper that lists the question's concepts among the fields using its technique,
    in one sentence and not in its title, is set aside, with the reason saying so; a work that
    returns to them, or names them in its title, is kept."""
    found = concepts(SURVEILLANCE)
    assert mentions(found, *LISTED).in_passing
    returning = (LISTED[0], LISTED[1] + " Machine learning models of public health "
                 "surveillance data gain from it.")
    assert not mentions(found, *returning).in_passing
    listed, on = screening_decisions(SURVEILLANCE, None, [LISTED, ON_TOPIC], embedder=embedder)
    assert on.included
    assert listed.reason == ("does not address: machine learning; public health surveillance "
                             "(named only in passing)")


def test_one_concept_named_only_in_a_list_of_fields_is_named_in_passing(embedder):
    """A list of fields names what it lists in passing, one concept as well as several: the
    same methods paper, for a question whose only concept it lists is "machine learning", is
    set aside; a study that names the concept in a sentence of its own is kept, though its
    abstract lists fields too."""
    question = "Does machine learning improve the detection of disease outbreaks?"
    found = concepts(question)
    assert mentions(found, *LISTED).in_passing
    own = ("Machine learning to forecast influenza from clinic visits",
           "We trained machine learning models on clinic visits to detect disease outbreaks. "
           "Such models serve areas such as finance, law, and health.")
    assert not mentions(found, *own).in_passing
    listed, kept = screening_decisions(question, None, [LISTED, own], embedder=embedder)
    assert kept.included
    assert listed.reason is not None and listed.reason.endswith("(named only in passing)")


def test_excluded_designs_are_set_aside_with_the_criteria_named(embedder):
    criteria = read_criteria(CRITERIA)
    question = "Mesenchymal stem cells for knee osteoarthritis"
    trial = ("Mesenchymal stem cell injections for knee osteoarthritis: a randomized trial",
             "Sixty adults with knee osteoarthritis were randomized to stem cells or usual care.")
    case = ("Stem cell injection for knee osteoarthritis", "We report a case of a 60-year-old "
            "man with knee osteoarthritis treated with mesenchymal stem cells.")
    decisions = screening_decisions(question, criteria, [trial, case], embedder=embedder)
    assert decisions[0].included
    assert decisions[1].reason == "design: case report; the criteria exclude case reports"
    scores = score_records(question, criteria, [record_text({"title": t, "abstract": a})
                                                for t, a in (trial, case)], embedder=embedder)
    assert scores[0] > scores[1]


def test_a_title_without_abstract_is_read_whole_for_its_design():
    """A record with only a title keeps its title's own full stop: "... knee osteoarthritis.
    A systematic review" is a review, which these criteria exclude, and ranks as the same title
    written with a colon does, below a title naming no design."""
    criteria = read_criteria(CRITERIA)
    question = "Mesenchymal stem cells for knee osteoarthritis"
    titles = ["Mesenchymal stem cells for knee osteoarthritis. A systematic review",
              "Mesenchymal stem cells for knee osteoarthritis: a systematic review",
              "Mesenchymal stem cells for knee osteoarthritis"]
    full_stop, colon, plain = score_records(
        question, criteria, [record_text({"title": t, "abstract": ""}) for t in titles])
    assert full_stop == pytest.approx(colon) and full_stop < plain
    decision = screening_decisions(question, criteria, [(titles[0], "")])[0]
    assert decision.reason is not None and decision.reason.startswith("design: review")


def test_a_title_without_abstract_is_never_excluded_for_lacking_one(embedder):
    titles = [("Machine learning for influenza surveillance in public health", ""),
              ("Surveillance of foodborne outbreaks with machine learning", "")]
    assert all(d.included for d in screening_decisions(SURVEILLANCE, None, titles,
                                                       embedder=embedder))


def test_without_an_embedder_records_naming_no_concept_are_set_aside():
    decisions = screening_decisions(SURVEILLANCE, None, [OFF_TOPIC, ON_TOPIC,
                                                         ("Soil bacteria", "Soil.")])
    assert [d.included for d in decisions] == [True, True, False]
    scores = score_records(SURVEILLANCE, None, [record_text({"title": t, "abstract": a})
                                                for t, a in (ON_TOPIC, OFF_TOPIC)])
    assert scores[0] > scores[1]


def test_inclusion_criteria_are_cut_into_clauses():
    criteria = read_criteria("Inclusion criteria were: (1) original article in English, (2) OIC "
                             "task, (3) rodents; control animals.")
    assert criteria_clauses(criteria) == ["original article in English", "OIC task",
                                          "control animals"]


def test_every_item_of_an_exclusion_list_in_running_text_excludes():
    criteria = read_criteria(
        "We included trials in adults. Exclusion criteria were: 1) no primary literature; "
        "2) other measures of memory (e.g. fear conditioning or odour tasks); 3) non-human "
        "species. Small samples had to be reported;\naggregated results were excluded. Network "
        "analysis, machine learning,\nmeta-analysis were excluded. We did include diet.")
    assert criteria.inclusion == ["We included trials in adults.", "Small samples had to be "
                                  "reported;", "We did include diet."]
    assert criteria.exclusion == [
        "Exclusion criteria were: 1) no primary literature;",
        "2) other measures of memory (e.g. fear conditioning or odour tasks);",
        "3) non-human species.", "aggregated results were excluded.",
        "Network analysis, machine learning, meta-analysis were excluded."]


DISEASES = ["influenza", "dengue", "measles", "cholera", "malaria", "tuberculosis", "COVID-19",
            "norovirus", "salmonella", "zika"]
SIGNALS = ["emergency department visits", "social media posts", "search queries",
           "pharmacy sales", "laboratory reports", "school absences"]
PROGRAMS = ["image classifiers", "compilers", "web applications", "mobile apps", "autonomous "
            "driving software", "database engines", "spreadsheets", "game engines", "robots",
            "chat bots"]
TESTS = ["metamorphic testing", "mutation testing", "fuzzing", "unit tests", "regression tests",
         "model-based testing"]


def test_a_library_is_ranked_and_screened_as_a_whole(embedder):
    """In a library large enough for the feedback, records on the question fill the top of the
    ranking and those on another subject that share its words are set aside with the concept
    they miss; none on the question is dropped."""
    on = [(f"Machine learning for {d} surveillance from {s}", f"We trained machine learning "
           f"models on {s} to detect {d} outbreaks for public health surveillance.")
          for d in DISEASES for s in SIGNALS]
    off = [(f"{t.capitalize()} of machine learning {p}", f"We apply {t} to find bugs in machine "
            f"learning {p} and report the faults found.") for p in PROGRAMS for t in TESTS]
    records = on + off
    assert len(records) >= FEEDBACK_MIN_RECORDS
    texts = [record_text({"title": t, "abstract": a}) for t, a in records]
    scores = score_records(SURVEILLANCE, None, texts, embedder=embedder)
    top = set(np.argsort(-scores)[:len(on)].tolist())
    assert len(top & set(range(len(on)))) >= 0.95 * len(on)
    decisions = screening_decisions(SURVEILLANCE, None, records, embedder=embedder)
    assert all(d.included for d in decisions[:len(on)])
    dropped = [d.reason for d in decisions[len(on):] if not d.included]
    assert len(dropped) >= 0.9 * len(off)
    assert set(dropped) == {"does not address: public health surveillance"}


RIGOUR = "The methodological rigour of systematic reviews in environmental health"
EXPOSURES = ("Reviews had to assess the effect of a non-acute, non-communicable environmental "
             "exposure, such as a chemical, diet or addiction, on a health outcome.")
ADDICTION = ("Alcohol addiction and circadian rhythms: a systematic review",
             "We reviewed studies of alcohol dependence and sleep timing, melatonin and circadian "
             "rhythms in adults.")
STAFFING = ("Nurse staffing and patient falls: a systematic review",
            "We reviewed studies of nurse staffing levels and falls in hospital wards.")


def test_a_criteria_clause_defining_a_concept_lets_records_address_it(embedder):
    """A review of an addiction addresses "environmental health" as the criteria define it,
    though it names neither word and is far from the two words; one of nurse staffing does
    not, and without the criteria neither does the review of addiction."""
    criteria = read_criteria(EXPOSURES)
    kept, aside = screening_decisions(RIGOUR, criteria, [ADDICTION, STAFFING], embedder=embedder)
    assert kept.included
    assert aside.reason == "does not address: environmental health"
    alone = screening_decisions(RIGOUR, None, [ADDICTION], embedder=embedder)[0]
    assert alone.reason == "does not address: environmental health"



TREATMENTS = ["mesenchymal stem cells", "platelet-rich plasma", "hyaluronic acid", "corticosteroid",
              "exercise therapy", "knee bracing", "acupuncture", "ozone", "prolotherapy",
              "radiofrequency ablation"]
OUTCOMES = ["pain", "function", "stiffness", "cartilage volume", "quality of life", "walking"]


def test_records_of_a_design_the_criteria_exclude_rank_below_the_others(embedder):
    """In a library of trials and case reports on the same treatments, in the same words, every
    case report (excluded by the criteria) ranks below every trial: the feedback, which learns
    words, does not lift them back."""
    trials = [(f"{t.capitalize()} for knee osteoarthritis {o}: a randomized controlled trial",
               f"Adults with knee osteoarthritis were randomized to {t} or placebo; {o} was "
               f"measured at six months.") for t in TREATMENTS for o in OUTCOMES]
    cases = [(f"{t.capitalize()} for knee osteoarthritis {o}: a case report",
              f"We report a case of a 60-year-old man with knee osteoarthritis treated with {t}; "
              f"{o} was measured at six months.") for t in TREATMENTS for o in OUTCOMES[:4]]
    records = trials + cases
    assert len(records) >= FEEDBACK_MIN_RECORDS
    texts = [record_text({"title": t, "abstract": a}) for t, a in records]
    scores = score_records("Treatments for knee osteoarthritis", read_criteria(CRITERIA), texts,
                           embedder=embedder)
    assert scores[len(trials):].max() < scores[:len(trials)].min()


def recorded_works() -> list[Work]:
    """The works of the recorded OpenAlex search for machine learning in public health."""
    results = json.loads(fixture_bytes("openalex/peneira_works.json"))["results"]
    return [work_from_openalex(item) for item in results]


def test_records_that_say_what_they_are_are_set_aside_by_criteria_excluding_their_kind(embedder):
    """The recorded search holds a talk abstract ("In this talk, we present..."), a commentary
    ("The present commentary compares...") and a protocol whose title ends in its kind ("...: An
    Exploratory Protocol"); criteria excluding these kinds set each aside with a reason naming
    it, and keep the studies."""
    criteria = read_criteria("Inclusion: studies applying machine learning to public health "
                             "surveillance data.\nExclusion: editorials, commentaries, study "
                             "protocols and conference talks.")
    assert set(criteria.excluded_designs) == {"editorial", "protocol", "conference abstract"}
    works = {work.title: work for work in recorded_works()}
    kinds = {"Oak Ridge Biosurveillance Toolkit": "conference abstract",
             "Artificial Intelligence beyond Chess": "editorial",
             "Monitoring and Evaluation of Digital Health Programs in India": "protocol"}
    studies = ["Use of a Machine Learning Algorithm to Predict Individuals with Suicide Ideation",
               "Prospective Evaluation of Machine Learning for Public Health Screening"]
    chosen = {part: next(w for title, w in works.items() if part in title)
              for part in [*kinds, *studies]}
    decisions = screening_decisions(SURVEILLANCE, criteria,
                                    [(w.title, w.abstract or "") for w in chosen.values()],
                                    embedder=embedder)
    by_part = dict(zip(chosen, decisions, strict=True))
    for part, kind in kinds.items():
        assert not by_part[part].included, part
        assert by_part[part].reason.startswith(f"design: {kind}"), by_part[part].reason
    assert all(by_part[part].included for part in studies)
    # an abstract citing someone else's protocol says nothing of its own kind
    assert "protocol" not in record_designs(
        "Opportunities for opioid overdose prediction", "See the PROVIDENT protocol for a "
        "randomized, population-based, community intervention trial.")


def test_closeness_stands_in_for_a_concept_only_where_some_record_names_it(embedder):
    """The recorded corpus holds no work on medical image segmentation. Asked about deep learning
    for it, a paper on climate regions from satellite images, a commentary on chess and
    medicine and an overview of machine learning in healthcare are each loosely close to the
    phrase and name "deep learning" or "learning"; before, that closeness counted as addressing
    it and all three were included. Beside a record that does name it, the same closeness
    counts again (the loose bar, chosen for recall on the shared reviews, then keeps them)."""
    works = {work.title: work for work in recorded_works()}
    parts = ["Redefining climate regions", "Artificial Intelligence beyond Chess",
             "Machine Learning in Healthcare"]
    chosen = [next(w for title, w in works.items() if title.startswith(part)) for part in parts]
    records = [(w.title, w.abstract or "") for w in chosen]
    question = "deep learning for medical image segmentation"
    decisions = screening_decisions(question, None, records, embedder=embedder)
    for part, decision in zip(parts, decisions, strict=True):
        assert decision.reason == "does not address: medical image segmentation", part
    segmentation = ("Deep learning for medical image segmentation of brain tumours",
                    "We trained a U-Net on 300 MRI scans; medical image segmentation of the "
                    "tumours reached a Dice score of 0.87.")
    beside = screening_decisions(question, None, [segmentation, *records], embedder=embedder)
    assert beside[0].included
    assert [d.included for d in beside[1:]] == [True, True, True]


BORDERLINE = "psychotherapy for borderline personality disorder"


def test_an_abbreviation_the_library_defines_names_its_concept():
    defining = ("Schema therapy for borderline personality disorder (BPD)",
                "Schema therapy reduced BPD severity over three years.")
    abbreviated = ("Dialectical behaviour therapy in BPD: a randomised trial",
                   "Self-harm fell by half in BPD.")
    without = screening_decisions(BORDERLINE, None, [abbreviated])[0]
    assert not without.included and "borderline personality disorder" in without.reason
    decisions = screening_decisions(BORDERLINE, None, [defining, abbreviated])
    assert [d.included for d in decisions] == [True, True]


def test_an_abbreviation_defined_two_ways_is_no_alias():
    found = concepts("rehabilitation in multiple sclerosis")
    one_way = with_aliases(found, Abbreviations.of(["Gait in multiple sclerosis (MS)."]))
    assert one_way[1].named_in({"ms", "gait"}) and one_way[1].named_in({"mss"})
    two_ways = with_aliases(found, Abbreviations.of(["Gait in multiple sclerosis (MS).",
                                                     "Proteins by mass spectrometry (MS)."]))
    assert two_ways[1].aliases == frozenset()
    assert not two_ways[1].named_in({"ms", "rehabilit"})
    hyphenated = with_aliases(
        concepts("mesenchymal stem cells for knee osteoarthritis"),
        Abbreviations.of(["Adipose-derived mesenchymal stem cells (AD-MSCs) were injected."]))
    assert hyphenated[0].named_in({"ad", "msc"}) and hyphenated[0].named_in({"ad", "mscs"})
    assert not hyphenated[0].named_in({"ad", "dementia"})  # AD alone is another disease


def test_a_code_name_the_library_gives_a_drug_names_its_concept():
    """A drug is studied under its development code before it has a name; where the library
    writes the name beside the code, a record calling it by the code alone names it."""
    question = "Pharmacokinetics of Zelbirumab in haemophilia"
    early = ("A first-in-human study of KX-4410, a bispecific antibody, in healthy volunteers",
             "Single doses of KX-4410 were well tolerated.")
    naming = ("Zelbirumab (KX-4410) prophylaxis in haemophilia",
              "Bleeding fell with weekly Zelbirumab.")
    other = ("KX 4410 (Zelbirumab) at 600 mg", "A bispecific antibody (KX-4410) was given.")
    without = screening_decisions(question, None, [early])[0]
    assert not without.included and "Zelbirumab" in without.reason
    assert [d.included for d in screening_decisions(question, None, [naming, other, early])] \
        == [True, True, True]
    dose = Abbreviations.of(["Zelbirumab (600 nM) was added."])
    assert dose.code_names == {}
    # a code the library mostly gives as something else is no other name of the drug
    mostly_other = Abbreviations.of(["An antibody (KX-4410) was given.",
                                     "The antibody (KX-4410) bound.", "Zelbirumab (KX-4410)."])
    drug = with_aliases(concepts(question), mostly_other)[1]
    assert drug.text == "Zelbirumab" and not drug.named_in({"kx", "4410"})


def test_a_question_written_with_abbreviations_is_read_as_the_library_writes_them_out():
    library = Abbreviations.of([
        "Mesenchymal stem cells (MSCs) for knee osteoarthritis (OA): a trial",
        "Bone marrow MSCs in knee osteoarthritis (OA)",
        "Oral anticoagulants (OA) after surgery"])
    question = "MSC injections for knee OA"
    assert library.written_out(question) == (
        "MSC (mesenchymal stem cells) injections for knee OA (osteoarthritis)")
    cells, knee = with_aliases(concepts(question), library)
    assert cells.named_in({"mesenchym", "stem", "cell"}) and cells.named_in({"mscs"})
    assert knee.named_in({"knee", "osteoarthr"})
    assert not knee.named_in({"oral", "anticoagul"})


def test_a_kept_work_says_which_concepts_it_names_where_and_its_design():
    """An included work's reason restates what screening read in it: each of the question's
    concepts named in its title or abstract, or neither (kept in meaning, or a bare title kept
    for its full text), and the design read, beside the criteria asking for it."""
    from scholargraph.records import Work
    from scholargraph.screening.relevance import kept_reason, read_criteria

    question = "machine learning for public health surveillance"
    cohort = Work(title="Machine learning forecasts of influenza in a national cohort",
                  abstract="We followed 12,000 adults in a prospective cohort. Public health "
                           "surveillance data were linked to records.")
    assert kept_reason(question, None, cohort) == (
        "kept: addresses: machine learning (title); public health surveillance (abstract); "
        "design: cohort")
    criteria = read_criteria("We included cohort studies and randomised trials.")
    assert kept_reason(question, criteria, cohort).endswith("design: cohort, as the criteria ask")
    meaning = Work(title="Computers flag epidemics early",
                   abstract="Models of clinic visits found influenza weeks sooner.")
    assert kept_reason(question, None, meaning) == (
        "kept: addresses: machine learning (in meaning); public health surveillance (in meaning)")
    # a kind of the concept names it (neural networks are machine learning)
    kind = Work(title="Neural networks flag epidemics early",
                abstract="Deep models of clinic visits found influenza weeks sooner.")
    assert kept_reason(question, None, kind) == (
        "kept: addresses: machine learning (title); public health surveillance (in meaning)")
    bare = Work(title="Machine learning in epidemiology")
    assert kept_reason(question, None, bare) == (
        "kept: addresses: machine learning (title); public health surveillance (not in its "
        "title; no abstract)")


KINDS_OF_THE_CONCEPTS = [
    ("Neural networks forecast dengue incidence from weekly case counts",
     "Recurrent neural networks trained on weekly case counts and rainfall forecast dengue "
     "incidence four weeks ahead in twelve districts, giving health authorities early warning "
     "of outbreaks."),
    ("Natural language processing of chief complaints for syndromic surveillance",
     "Emergency department chief complaints were coded into syndromes by natural language "
     "processing. Syndromic surveillance with the coder flagged influenza-like illness two days "
     "before manual coding did."),
]


def test_a_concept_named_by_a_kind_of_it_is_named(embedder):
    """"Neural networks" are machine learning and "syndromic surveillance" is public health
    surveillance: records naming the question's concepts only by such kinds address them; the
    software-testing paper, which names neural networks too, still leaves public health
    surveillance unaddressed."""
    found = concepts(SURVEILLANCE)
    nlp = mentions(found, *KINDS_OF_THE_CONCEPTS[1])
    assert nlp.in_title == (True, True)  # by "natural language processing", "syndromic ..."
    assert mentions(found, *KINDS_OF_THE_CONCEPTS[0]).in_title == (True, False)
    # a kind is read as written: "neural" and "networks" in different sentences name nothing
    assert mentions(found, "A study", "Neural tissue. Networks of clinics.").named == [
        False, False]
    records = [*KINDS_OF_THE_CONCEPTS, OFF_TOPIC, ON_TOPIC]
    decisions = screening_decisions(SURVEILLANCE, None, records, embedder=embedder)
    assert [d.included for d in decisions] == [True, True, False, True]
    assert decisions[2].reason == "does not address: public health surveillance"


POLICY = "EU policy on pesticide use"
POLICY_RECORDS = [
    ("Organochlorine pesticide exposure and hypothyroidism in a farmer cohort",
     "In a prospective cohort of 18,000 farmers, exposure to organochlorine pesticides was "
     "associated with hypothyroidism (hazard ratio 1.4). Pesticide use was recorded by "
     "questionnaire and thyroid hormone regulation was assessed yearly."),
    ("National action plans under the EU directive on the sustainable use of pesticides",
     "We compare the national action plans of 27 member states. Few set quantitative targets "
     "for reducing pesticide use."),
    ("Did the neonicotinoid ban change pesticide use on European farms?",
     "After the 2018 restriction, farmers switched to pyrethroids and total pesticide use did "
     "not fall."),
    ("Pesticide use and thyroid disease", ""),
]


def test_a_policy_question_sets_aside_studies_that_say_nothing_of_policy(embedder):
    """"EU policy" is an aspect of pesticide use, not a thing near it in meaning: the cohort study
    of pesticides and thyroid disease (its thyroid "regulation" no government's) is set aside,
    the works on an EU directive's action plans and on a ban are kept, and a title with no
    abstract is kept when in doubt."""
    found = concepts(POLICY)
    assert [c.aspect for c in found] == [True, False]
    # half of "EU policy" is not enough when the missing half is the policy
    assert not found[0].named_in({"eu"}, "EU")
    decisions = screening_decisions(POLICY, None, POLICY_RECORDS, embedder=embedder)
    assert decisions[0].reason == "does not address: EU policy"
    assert [d.included for d in decisions[1:]] == [True, True, True]


HAIR_CRITERIA = read_criteria("We included studies of hair cortisol and obesity. We excluded "
                              "case reports, animal studies and review articles.")


@pytest.mark.parametrize(("title", "abstract", "animal"), [
    ("Hair cortisol and body condition in a dairy herd",
     "Hair of 120 Holstein cows was sampled; cortisol rose with body condition score.", True),
    ("Hair cortisol in obese dogs and cats", "", True),
    ("Veterinary hair cortisol assays", "Assays were validated on samples from clinics.", True),
    ("Hair cortisol and obesity in women", "In 150 women hair cortisol rose with waist "
     "circumference, as it does in animal species such as sheep.", False),
    ("Measles outbreaks below herd immunity", "Coverage fell below the herd immunity "
     "threshold in three districts.", False),
    ("Brucellosis among cattle farmers", "Farmers handling cattle were tested yearly.", False),
    ("Cortisol assay in cultured keratinocytes", "Cells grew in fetal bovine serum.", False),
])
def test_livestock_and_veterinary_records_are_animal_studies(title, abstract, animal):
    """An animal design is read from farm and companion animals and veterinary words as from
    rats; a study of people that mentions animals, herd immunity or farmers' cattle is not one,
    nor is a cell culture's serum."""
    assert ("animal" in record_designs(title, abstract)) is animal
    reason = design_reason(record_designs(title, abstract), HAIR_CRITERIA)
    assert (reason == "design: animal; the criteria exclude animal studies") is animal


def test_an_aspect_is_the_head_of_its_phrase_and_a_cost_question_asks_for_costs(embedder):
    """"cost-effectiveness" and "EU policy" are aspects; "low-cost sensors" are sensors and
    "policy gradient methods" methods. A trial of a vaccine's efficacy says nothing of its
    cost; an evaluation in QALYs does."""
    aspects = {c.text: c.aspect for q in ("cost-effectiveness of HPV vaccination",
                                          "low-cost sensors for air quality",
                                          "policy gradient methods in robotics")
               for c in concepts(q)}
    assert aspects == {"cost-effectiveness": True, "HPV vaccination": False,
                       "low-cost sensors": False, "air quality": False,
                       "policy gradient methods": False, "robotics": False}
    trial = ("Efficacy of a nonavalent HPV vaccination in girls aged 9 to 14",
             "In a randomised trial of 2,400 girls, HPV vaccination prevented 96% of persistent "
             "infections over five years.")
    evaluation = ("HPV vaccination of boys in a national programme",
                  "Adding boys to HPV vaccination gained 1,200 QALYs at 18,000 euros each.")
    decisions = screening_decisions("cost-effectiveness of HPV vaccination", None,
                                    [trial, evaluation], embedder=embedder)
    assert decisions[0].reason == "does not address: cost-effectiveness"
    assert decisions[1].included


def test_a_negated_word_is_not_the_concepts():
    """"non-human animals" is about animals: a study of patients does not address it (it did by
    "human", half its words), one in rats or "in vivo" does; "non-communicable diseases" is not
    named by "communicable"."""
    found = concepts("Modelling depression in non-human animals")
    animals = found[-1]
    assert animals.text == "non-human animals" and animals.stems == frozenset({"anim"})
    assert not mentions(found, "Sertraline for depression in adult patients", "").named[-1]
    assert mentions(found, "Sertraline reduces immobility of rats in the forced swim test",
                    "").named[-1]
    assert mentions(found, "A new antidepressant active in vivo", "").named[-1]
    assert mentions(found, "Serotonin and action potentials in the mollusc Aplysia", "").named[-1]
    diseases = concepts("air pollution and non-communicable diseases")
    assert mentions(diseases, "Communicable disease notifications in schools", "").named == [
        False, True]  # "disease" names it; "communicable" adds nothing
    assert not mentions(diseases, "Communicable infections in schools", "").named[-1]


def test_a_reason_names_the_concept_without_the_generic_words_before_it(embedder):
    """A reason names what a record was asked to address: "in-vivo modelling", not
    "Understanding in-vivo modelling"; a generic word heading the phrase stays ("systematic
    literature reviews")."""
    assert [c.text for c in concepts("Understanding in vivo modelling of depression")] == [
        "in-vivo modelling", "depression"]
    assert [c.text for c in concepts("Systematic literature reviews in software engineering")
            ] == ["Systematic literature reviews", "software engineering"]
    decision, = screening_decisions(
        "Understanding in vivo modelling of depression",
        None, [("Tariffs on imported steel and the trade balance",
                "Tariffs raised the price of steel in three economies.")], embedder=embedder)
    assert decision.reason == "does not address: in-vivo modelling; depression"


def test_a_review_is_not_read_as_the_trials_it_reviews():
    """A review's abstract names the designs of the studies it pools: they are not its own, so
    criteria asking for trials and excluding reviews set it aside. A title naming a trial or a
    case of its own keeps that design."""
    review = record_designs("Treatments for cartilage defects of the shoulder: a systematic "
                            "review", "We included randomised controlled trials and prospective "
                            "cohort studies; case reports were excluded.")
    assert review == ["review"]
    assert design_reason(review, read_criteria(CRITERIA)) == (
        "design: review; the criteria exclude reviews")
    assert record_designs("Review of a phase II clinical trial of a cartilage implant",
                          "Forty patients were randomised to implant or microfracture.") == [
        "randomised trial", "review"]
    assert record_designs("Hepatic tumour in a young woman: a review",
                          "We report an unusual case of a hepatic tumour in a young woman. "
                          "Our literature review found ten similar cases.") == [
        "case report", "review"]
    assert record_designs("Autoimmune disease after surgery: case reports and literature review",
                          "We followed 140 patients after surgery.") == ["case report", "review"]


def test_criteria_asking_for_original_studies_set_aside_reviews_and_editorials():
    """"original data" or "no primary literature" excluded ask for studies of their own, which a
    review or an editorial is not; the reviewers' own "systematic review" in the criteria asks
    for no design."""
    criteria = read_criteria("The following inclusion criteria were applied: studies of the "
                             "antibody providing (1) data on humans, (2) original PK data.")
    assert criteria.original_only and criteria.wanted_designs == []
    assert design_reason(["review"], criteria) == (
        "design: review; the criteria ask for original studies")
    assert design_reason(["editorial"], criteria) is not None
    assert design_reason(["randomised trial"], criteria) is None
    listed = read_criteria("Inclusion criteria for the systematic review were: (1) rodents, "
                           "(2) the maze task. Studies had to be included in the meta-analysis. "
                           "Exclusion criteria were: 1) no primary literature in English; "
                           "2) other tasks.")
    assert listed.original_only and "review" not in listed.wanted_designs
    assert design_reason(["review"], listed) is not None
    plain = read_criteria("We included simulation studies; the original authors stated the "
                          "sample sizes.")
    assert not plain.original_only and design_reason(["review"], plain) is None
    wanting = read_criteria("We included systematic reviews of original studies.")
    assert wanting.wanted_designs == ["review"] and design_reason(["review"], wanting) is None


@pytest.mark.parametrize(("title", "abstract"), [
    ("Cartilage repair in the Göttingen minipig", "Defects were made in both knees."),
    ("Hair cortisol of red deer in two hunting areas", "Hair of 40 deer was sampled."),
    ("Object memory in Mongolian gerbils", "Gerbils explored two objects."),
    ("Stress hormones in wildlife", "Hair was collected from trapped foxes."),
])
def test_wild_and_laboratory_animals_are_animal_studies(title, abstract):
    assert "animal" in record_designs(title, abstract)
    assert design_reason(record_designs(title, abstract), HAIR_CRITERIA) == (
        "design: animal; the criteria exclude animal studies")


def test_a_glucocorticoid_or_a_population_is_named_by_its_members():
    """Cortisol is a glucocorticoid; children are people."""
    found = concepts("glucocorticoids and obesity in humans")
    named = mentions(found, "Hair cortisol and waist circumference in children", "").named
    assert named == [True, False, True]
    assert mentions(found, "Obesity in rats given a high-fat diet", "").named == [
        False, True, False]


HUMANS = "Pharmacokinetics of emicizumab in humans"
EMICIZUMAB_PEOPLE = read_criteria("We included emicizumab studies providing data on humans.")


@pytest.mark.parametrize("abstract", [
    "Plasma concentrations were measured in 18 patients with haemophilia A.",
    "Twelve healthy subjects received a single dose; exposure was dose proportional.",
    "In a cohort of boys with severe haemophilia A, trough levels were stable.",
    "Exposure rose with dose; clearance was 0.24 L/day.",
])
def test_a_study_of_people_addresses_humans_however_it_names_them(embedder, abstract):
    """Patients, healthy subjects, a cohort of boys, or no population word at all: only a
    study in animals or cells fails a question's or criteria's "humans"."""
    record = ("Pharmacokinetics of emicizumab", abstract)
    decision = screening_decisions(HUMANS, EMICIZUMAB_PEOPLE, [record], embedder=embedder)[0]
    assert decision.included
    kept = kept_reason(HUMANS, EMICIZUMAB_PEOPLE, Work(title=record[0], abstract=abstract))
    assert "humans (" in kept and "in meaning" not in kept.split("humans (")[1][:12]


def test_a_study_in_animals_or_cells_fails_humans_with_its_design_named(embedder):
    monkeys = ("Pharmacokinetics of emicizumab in cynomolgus monkeys",
               "Emicizumab was given subcutaneously to 12 monkeys; its half-life was 3 weeks.")
    cells = ("Emicizumab binding kinetics in vitro",
             "In vitro, emicizumab bound factor IXa in a cell line expressing factor X.")
    assert EMICIZUMAB_PEOPLE.people_only
    rules = [d.reason for d in screening_decisions(HUMANS, EMICIZUMAB_PEOPLE, [monkeys, cells],
                                                   embedder=embedder)]
    assert rules == ["design: animal; the criteria ask for studies in people",
                     "design: in vitro; the criteria ask for studies in people"]
    # without criteria, the question's "humans" alone sets them aside, saying why
    alone = screening_decisions(HUMANS, None, [monkeys], embedder=embedder)[0]
    assert alone.reason is not None and "humans (animal or in-vitro study)" in alone.reason
    # criteria asking for people or animals ask for neither alone
    assert not read_criteria("We included studies in people or mammalian models.").people_only


@pytest.mark.parametrize(("title", "abstract", "review"), [
    ("Do quality programmes work? A Meta Analysis", "", True),
    ("Statins and dementia: metaanalysis", "", True),
    ("Diet and health: an umbrella review", "", True),
    ("Aspirin and colorectal cancer: a pooled analysis of six cohort studies", "", True),
    ("Effect of statins on fracture", "In this meta-analysis we pooled 12 trials.", True),
    ("Secondary analysis of a randomised trial of aspirin in older adults", "", False),
    ("Post hoc analysis of a randomized trial of statins", "We pooled both arms.", False),
    ("Statistical methods for dealing with publication bias in meta-analysis", "", False),
])
def test_a_meta_analysis_is_of_the_review_family_and_a_secondary_analysis_is_not(
        title, abstract, review):
    assert ("review" in record_designs(title, abstract)) is review


def test_criteria_on_systematic_reviews_admit_meta_analyses_and_excluding_reviews_sets_them_aside():
    asks = read_criteria("We included systematic reviews of environmental exposures in people "
                         "or mammalian models. We excluded review protocols.")
    meta = record_designs("Air pollution and asthma: a meta-analysis")
    assert design_reason(meta, asks) is None
    assert design_reason(meta, HAIR_CRITERIA) == "design: review; the criteria exclude reviews"
    found = concepts("Systematic literature reviews in software engineering")
    assert mentions(found, "Do quality programmes in software work? A Meta Analysis",
                    "").named == [True, True]


def test_a_measure_of_an_exposure_names_it_without_its_qualifiers():
    """"Long-term glucocorticoid exposure" is measured as hair cortisol: the concept is the
    glucocorticoids, which cortisol is one of (KINDS); "long-term" and "exposure" say how it
    is measured, and a record need not write them."""
    found = concepts("long-term glucocorticoid exposure and obesity")
    assert [c.text for c in found] == ["glucocorticoid exposure", "obesity"]
    assert mentions(found, "Hair cortisol and obesity in adolescents", "").named == [True, True]
    assert mentions(found, "Hair zinc and obesity in adolescents", "").named == [False, True]
    # anthropometric measurements are taken as BMI, waist circumference, body fat
    hair = concepts("long-term glucocorticoids in hair and anthropometric measurements")
    assert mentions(hair, "Hair cortisol, BMI and waist circumference in adults", "").named == [
        True, True, True]
    assert mentions(hair, "Hair cortisol was measured in adults", "").named == [
        True, True, False]
    assert [c.text for c in concepts("cumulative lead exposure and blood pressure levels")] == [
        "lead exposure", "blood pressure levels"]


@pytest.mark.parametrize(("sentence", "names"), [
    ("Outcomes were the Knee injury and Osteoarthritis Outcome Score (KOOS) and the Lysholm "
     "Knee Scale.", ["Knee injury and Osteoarthritis Outcome Score", "Lysholm Knee Scale"]),
    ("The International Knee Documentation Committee [IKDC] score rose from 42 to 63.",
     ["The International Knee Documentation Committee [IKDC] score"]),
    ("The Western Ontario and McMaster Universities Osteoarthritis Index fell.",
     ["The Western Ontario and McMaster Universities Osteoarthritis Index"]),
    ("Knee pain on the VAS score improved.", ["VAS score"]),
    ("Knee pain improved in patients with high scores.", []),
    ("Hip pain scores fell.", []),
])
def test_an_outcome_instrument_is_named_by_its_capitalised_words(sentence, names):
    assert instrument_names(sentence) == names


def test_a_body_site_named_only_in_an_outcome_score_is_not_named_in_passing():
    """A study scoring its patients on the "Knee injury and Osteoarthritis Outcome Score" is a
    study of knees with osteoarthritis, though its one sentence of scores is all that says
    "knee": the concepts are its outcome, not a passing mention. The same sentence naming
    them without an instrument, as background, is still a mention in passing."""
    found = concepts("Mesenchymal stem cells for osteoarthritis of the knee")
    scored = mentions(found, "Cell-seeded cartilage implantation: a simplified technique",
                      "We compared a simplified implantation with the standard technique in 84 "
                      "patients. Outcomes improved in both groups (Knee injury and Osteoarthritis "
                      "Outcome Score [KOOS], from 58 to 77; Lysholm score, from 57 to 75). "
                      "Failures were fewer with the simplified technique.")
    assert scored.named == [False, True, True] and scored.measured == (False, True, True)
    assert not scored.in_passing
    background = mentions(found, "Cell-seeded cartilage implantation: a simplified technique",
                          "We compared a simplified implantation with the standard technique "
                          "in 84 patients. Like osteoarthritis of the knee, cartilage defects "
                          "are common. Failures were fewer with the simplified technique.")
    assert background.named == [False, True, True] and background.in_passing
