"""A review quotes the sentence that states a result, reads which way each study points on a
claim, and gives the balance, each study cited (issue 22)."""

from __future__ import annotations

import pytest

from scholargraph.agents.schemas import Draft, Quote, SubQuestion, WorkStance
from scholargraph.deterministic.extractive import (
    PAPER_DOES,
    Candidate,
    extractive_draft,
    rank_candidates,
)
from scholargraph.deterministic.stance import (
    about_subject,
    long_forms,
    numbers_disagree,
    proportions,
    quality_reversed,
    ratio_ways,
    reading,
    reports_on_relation,
    restates,
    result_way,
    spelled_out,
    stance,
    tokenize,
)
from scholargraph.records import Passage, Work
from scholargraph.report import balance_line, balance_subject

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


def test_a_result_about_another_subject_contradicts_nothing():
    claim = "Pioglitazone use increases the risk of pancreatic cancer in diabetic patients."
    assert reading(claim, "Pioglitazone use did not change the risk of pancreatic cancer in "
                          "diabetic patients.") == "no effect"
    assert reading(claim, "Metformin use did not change the risk of bladder tumours in obese "
                          "adults.") == "neither"


@pytest.mark.parametrize(("claim", "sentence", "expected"), [
    # the sign reversed on the claim's outcome, the cue words far apart
    ("Statin therapy increases rates of hip fracture in older women.",
     "Statin therapy was strongly associated with a reduction in the incidence of hip fracture "
     "across all age groups (3) greater than 65 years.", "contradicts"),
    ("Birth weight is negatively associated with adult asthma.",
     "Birth weight was positively associated with adult asthma in the pooled cohorts.",
     "contradicts"),
    # the claim states no effect, the sentence one
    ("Vitamin D supplementation is not associated with fewer asthma attacks in children.",
     "Vitamin D supplementation reduced asthma attacks in children by a third.", "contradicts"),
    # the same subject, another outcome: nothing either way
    ("Gastric bypass increases rates of colorectal cancer.",
     "Gastric bypass was followed by lower rates of depression postoperatively.", "neither"),
])
def test_a_sentence_reversing_the_claim_as_a_whole_is_read_so(claim, sentence, expected):
    assert reading(claim, sentence) == expected


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


def test_proportions_written_in_words_are_compared_as_figures():
    assert proportions("One in five surgical trials are discontinued early.") == [
        pytest.approx(0.2)]
    assert proportions("two out of three patients; one in a million births") == [
        pytest.approx(2 / 3), pytest.approx(1e-6)]
    assert numbers_disagree("One in two surgical randomized controlled trials are discontinued "
                            "early.", "Of 395 trials, 81 (21%) were discontinued early.")
    assert not numbers_disagree("One in five trials are discontinued early.",
                                "Of 395 trials, 81 (21%) were discontinued early.")


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


@pytest.mark.parametrize("sentence, describes", [
    ("The paper reports experiences with applying systematic reviews to software engineering.",
     True),
    ("The review investigates the practice of effect size reporting and gives advice.", True),
    ("Considering their importance, this paper intends to discuss the roles in software teams.",
     True),
    ("The review presents evidence that code review reduces defect density.", False),
    ("This study reports that code review reduced defect density by a third.", False),
    ("The paper concludes by summing up the suggestions for further research.", True),
    ("This article provides a timely analysis and review of the major projects.", True),
    ("We are also undertaking a series of reviews to identify limiting factors.", True),
])
def test_a_paper_describing_itself_states_no_finding(sentence, describes):
    assert bool(PAPER_DOES.search(sentence)) is describes


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
    assert balance_line(stances) == ("Of the 5 included studies, 2 support the claim [1][3], "
                                     "1 contradicts it [2], 2 find no effect [4][5].")
    assert balance_line([]) == ""
    # a yes/no question names what it asks, not a claim nobody stated
    question = "Does the source of stem cells have an effect on knee osteoarthritis?"
    assert balance_line(stances[:2], True, balance_subject(question)) == (
        "Of the 2 included studies, 1 supports that the source of stem cells has an effect on "
        "knee osteoarthritis [1], 1 contradicts it [2].")
    assert balance_subject("Aspirin lowers the risk of colorectal cancer.") == "the claim"
    # a claim no included study was read on says so plainly
    assert balance_line([], claim=True) == (
        "No included study tests the claim, so this review neither supports nor contradicts it.")
    assert balance_line([WorkStance(work_id="a", reading="supports", citation=2)]) == (
        "The one included study supports the claim [2].")
    silent = WorkStance(work_id="b", reading="neither")  # states no result: not cited for one
    assert balance_line([stances[0], silent]) == (
        "Of the 2 included studies, 1 supports the claim [1], 1 neither supports nor "
        "contradicts it.")
    assert balance_line([stances[3], silent]) == (
        "Of the 2 included studies, 1 finds no effect [4], 1 neither supports nor contradicts "
        "the claim.")


BROAD_CLAIM = "Machine learning improves disease surveillance in public health."


@pytest.fixture(scope="module")
def broad_review(tmp_path_factory: pytest.TempPathFactory):
    from scholargraph import review
    home = tmp_path_factory.mktemp("broad-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCHOLARGRAPH_HOME", str(home))
        yield review(BROAD_CLAIM, offline=True)


def test_a_broad_claim_rests_on_every_recorded_study_that_reports_on_it(broad_review):
    """Over the recorded corpus the claim once rested on one 2014 talk abstract alone. What a
    scientist checks of the studies it rests on: several are included, each cited; each study
    read for or against the claim is quoted with a sentence of its own abstract that states a
    result (a direction word, not what the paper does) about the claim's subject; a study that
    states no result is counted neither way."""
    papers = {work.id: work for work in broad_review.papers}
    assert len(papers) >= 2
    assert {ref.work_id for ref in broad_review.references} == set(papers)
    assert [s.work_id for s in broad_review.stances] == list(papers)
    read = [s for s in broad_review.stances if s.reading != "neither"]
    assert any(s.reading == "supports" for s in read)
    for study in read:
        assert study.quote is not None
        text = study.quote.text
        assert text in f"{papers[study.work_id].title} {papers[study.work_id].abstract}"
        assert stance(text).cues, text
        assert not PAPER_DOES.search(text), text
        assert about_subject(BROAD_CLAIM, text), text
    quoted = [f.text for f in broad_review.findings]
    assert not any(PAPER_DOES.search(text) for text in quoted)
    assert "supports the claim [" in broad_review.summary or (
        "support the claim [" in broad_review.summary)


def test_a_sentence_leaving_the_question_open_reads_neither_way():
    claim = "Regular coffee drinking lowers the risk of type 2 diabetes."
    assert reading(claim, "Coffee drinking lowered the risk of type 2 diabetes in both "
                          "cohorts.") == "supports"
    assert reading(claim, "Coffee drinking may lower the risk of type 2 diabetes, but whether "
                          "the effect is causal remains unknown.") == "neither"


def test_little_effect_is_no_effect_and_protection_against_is_a_decrease():
    claim = "Activated charcoal improves survival after mushroom poisoning."
    assert reading(claim, "Activated charcoal had little effect on survival after mushroom "
                          "poisoning.") == "no effect"
    claim = "Hepatic autophagy deficiency increases susceptibility to fatty liver disease."
    assert reading(claim, "Hepatic autophagy deficiency conferred protection against fatty "
                          "liver disease in mice.") == "contradicts"


def test_an_adjective_naming_a_kind_is_not_a_result():
    claim = "Regulatory T cells suppress graft rejection after kidney transplantation."
    # "regulatory" names the cells, it does not say that anything changed
    assert reading(claim, "Regulatory T cells suppressed graft rejection after kidney "
                          "transplantation in treated recipients.") == "supports"


def test_abbreviations_are_read_as_the_words_they_stand_for():
    assert long_forms("Mice fed a high-fat diet (HFD) gained weight; tumour necrosis factor "
                      "(TNF) rose.") == {"HFD": "high-fat diet", "TNF": "tumour necrosis factor"}
    claim = "Tumour necrosis factor blockade reduces joint damage in rheumatoid arthritis."
    sentence = "TNF blockade did not reduce joint damage in RA over two years."
    abstract = "We studied patients with rheumatoid arthritis (RA) given infliximab."
    assert spelled_out(sentence, claim, abstract) == (
        "Tumour necrosis factor blockade did not reduce joint damage in rheumatoid arthritis "
        "over two years.")
    assert reading(claim, sentence, abstract) == "no effect"
    # an abbreviation neither the claim nor the work spells out stays as written
    assert spelled_out("XYZ levels fell.", claim) == "XYZ levels fell."
    # and so does one the claim itself uses
    materials = "The band gap of GaAs is direct."
    assert spelled_out("GaAs has a direct band gap.", materials,
                       "Films of gallium arsenide (GaAs) were grown.") == (
        "GaAs has a direct band gap.")
    assert spelled_out("GaAs has a direct band gap.", "Gallium arsenide has a direct band gap.",
                       "Films of gallium arsenide (GaAs) were grown.") == (
        "gallium arsenide has a direct band gap.")


def test_independent_of_what_the_claim_says_dependent_on_contradicts_it():
    claim = "Hair cell regeneration in zebrafish is a Notch-dependent process."
    assert reading(claim, "We found that hair cell regeneration in zebrafish larvae is a "
                          "Notch-independent process.") == "contradicts"
    assert reading(claim, "Hair cell regeneration in zebrafish proceeded independently of "
                          "Notch signalling.") == "contradicts"
    assert reading(claim, "Hair cell regeneration in zebrafish was Notch-dependent in every "
                          "larva.") != "contradicts"


def test_a_question_not_yet_studied_is_no_result():
    claim = "Gut microbiota composition predicts response to immunotherapy in melanoma."
    assert reading(claim, "How gut microbiota composition predicts response to immunotherapy "
                          "in melanoma has not been well described.") == "neither"


def test_an_increase_word_before_a_decrease_measures_the_decrease():
    # "greater" says how large the reduction was; the sentence states one result: lower HbA1c
    read = stance("Metformin produced a greater reduction in HbA1c than placebo at 24 weeks.")
    assert read.main == "down"
    claim = "Metformin lowers HbA1c in adults with type 2 diabetes."
    assert reading(claim, "Metformin produced a greater reduction in HbA1c than placebo in "
                          "adults with type 2 diabetes.") == "supports"
    # two results of opposite sign, each on its own outcome, stay two cues
    both = stance("Exercise increased insulin sensitivity and reduced body weight.")
    assert both.main == "effect"


EXERCISE = "Regular aerobic exercise lowers resting blood pressure in older adults."
TRIAL = "Aerobic exercise training and resting blood pressure in older adults: a randomised trial"


def test_a_loosely_read_result_supports_the_claim_only_on_its_subject():
    # a direction word near some of the claim's words, none on its outcome: the sentence alone
    # does not name what the claim is about, so it supports nothing ...
    loose = "Exercise adherence was associated with age in older adults."
    assert reading(EXERCISE, loose) == "neither"
    # ... unless the study's title names the claim's subject, when it is read the claim's way
    assert reading(EXERCISE, loose, TRIAL, title=TRIAL) == "supports"
    # a result stated on the claim's outcome needs no title
    assert reading(EXERCISE, "Aerobic exercise lowered resting blood pressure by 6 mmHg in older "
                             "adults.") == "supports"


def test_the_setting_of_a_claim_is_not_its_outcome():
    # "in older adults" is where the claim holds, not what changes: better sleep there says
    # nothing against lower blood pressure
    assert reading(EXERCISE, "Regular exercise was associated with better sleep in older "
                             "adults.") == "neither"
    # the outcome itself, the other way, still contradicts it
    assert reading(EXERCISE, "Regular aerobic exercise raised resting blood pressure in older "
                             "adults.") == "contradicts"


def test_a_treatment_judged_effective_or_favourable_points_the_claims_way():
    claim = "Erlotinib improves survival in EGFR-mutant non-small cell lung cancer."
    title = "First-line erlotinib in EGFR-mutant non-small cell lung cancer: a phase II trial"
    for sentence in ("Erlotinib was well tolerated and highly effective in EGFR-mutant "
                     "patients.",
                     "With a median overall survival of 23 months, the results compare "
                     "favourably with earlier trials in EGFR-mutant patients."):
        assert stance(sentence).main == "effect", sentence
        assert reading(claim, sentence, title, title) == "supports", sentence
    # tolerability alone says nothing of survival; "not effective" is no effect
    assert not stance("Erlotinib was well tolerated in all patients.").cues
    assert stance("Erlotinib was not effective in these patients.").main == "null"
    # an effect of unstated sign never reads against a claim of a decrease
    assert reading("Aspirin lowers the risk of stroke in older adults.",
                   "Aspirin was highly effective against stroke risk in older adults.") != (
        "contradicts")


def test_an_increase_of_protection_is_a_decrease_of_what_it_protects_from():
    for sentence in ("Statins gave increased protection against stroke.",
                     "Vaccination conferred protection against influenza.",
                     "Weight loss offered greater protection from diabetes."):
        assert stance(sentence).main == "down", sentence


@pytest.mark.parametrize(("question", "claim"), [
    ("Does erlotinib improve survival in EGFR-mutant lung cancer?",
     "Erlotinib improves survival in EGFR-mutant lung cancer."),
    ("Is obesity associated with colorectal cancer?", "Obesity is associated with colorectal "
                                                      "cancer."),
    ("Aspirin lowers stroke risk.", "Aspirin lowers stroke risk."),
    ("What are the effects of aspirin on stroke?", None),
    ("How does metformin lower glucose?", None),
    ("machine learning for public health surveillance", None),
])
def test_a_yes_no_question_is_read_as_the_claim_it_asks_about(question, claim):
    from scholargraph.deterministic.questions import stance_claim
    assert stance_claim(question) == claim


def test_a_title_saying_independent_of_what_the_claim_says_dependent_on_contradicts_it():
    claim = "Calcium cycling in beige fat is a UCP1-dependent thermogenic mechanism."
    title = "UCP1-independent calcium cycling regulates beige fat thermogenesis"
    sentence = "In the absence of UCP1, beige fat expended glucose through calcium cycling."
    assert reading(claim, sentence) != "contradicts"
    assert reading(claim, sentence, title, title) == "contradicts"


def test_evidence_said_to_be_lacking_is_no_effect():
    claim = "Headaches are correlated with cognitive impairment in older adults."
    assert reading(claim, "Evidence that headache in older adults was associated with cognitive "
                          "impairment was lacking.") == "no effect"


def test_a_claim_of_no_relation_is_contradicted_by_an_association_on_its_outcome():
    """A claim that two things are unrelated names its outcome once: one shared term around the
    cues is enough for an association on it to contradict the claim."""
    claim = "Exposure to traffic noise is unrelated to sleep quality."
    assert reading(claim, "Traffic noise exposure at night was associated with poorer "
                          "sleep.") == "contradicts"
    assert reading(claim, "Traffic noise exposure at night was not associated with poorer "
                          "sleep.") != "contradicts"


def test_independent_of_the_factors_adjusted_for_is_no_null_result():
    sentence = ("The association between the variant and increased risk of coronary artery "
                "disease was independent of traditional cardiovascular and socioeconomic risk "
                "factors.")
    assert stance(sentence).main == "up"
    assert reading("The variant increases the risk of coronary artery disease in older men.",
                   sentence) == "supports"
    assert stance("Survival was independent of age.").main == "null"


STATIN_CLAIM = "Statins lower the risk of stroke in older adults."


def test_a_sentence_tests_the_claims_relation_when_it_names_its_subject_and_outcome():
    assert reports_on_relation(STATIN_CLAIM, "Statins lowered stroke incidence by a fifth.")
    assert not reports_on_relation(STATIN_CLAIM, "Higher birthweight increased the risk of stroke.")
    assert not reports_on_relation(STATIN_CLAIM, "Statins lowered LDL cholesterol in older adults.")
    assert reports_on_relation(STATIN_CLAIM, "Stroke incidence fell by a fifth.",
                          title="Statins and stroke in older adults: a cohort study")


def _candidate(owner: Work, text: str, facets: frozenset[str], relevance: float) -> Candidate:
    passage = _passage(owner, text)
    return Candidate(quote=Quote(passage_id=passage.id, start=0, end=len(text), text=text),
                     work_id=owner.id, year=owner.year, facets=facets, relevance=relevance)


def test_the_most_direct_study_is_read_from_an_unclassified_sentence_and_others_must_test_it():
    """The first-ranked study of an unstructured abstract states its result in a sentence of
    no marked kind, and is read from it; a lower-ranked study whose result is on the claim's
    subject but another outcome (LDL cholesterol, not stroke) carries no label, though it
    stays included and is still quoted."""
    from scholargraph.agents.synthesis import with_stances
    cohort, trial = _work("cohort"), _work("trial")
    ranked = [
        _candidate(cohort, "Among 4,000 older adults, statins lowered the risk of stroke by a "
                           "fifth.", frozenset(), 0.9),
        _candidate(trial, "Statins lowered LDL cholesterol in older adults.",
                   frozenset({"result"}), 0.7),
    ]
    itself = SubQuestion(id="q1", text=f"What do studies report on whether {STATIN_CLAIM}",
                         answer_shape="studies testing it")
    draft = with_stances(Draft(summary="", findings=[]), STATIN_CLAIM, itself, ranked,
                         [cohort, trial])
    readings = {s.work_id: s.reading for s in draft.stances}
    assert readings == {cohort.id: "supports", trial.id: "neither"}
    assert reading(STATIN_CLAIM, ranked[1].quote.text) == "supports"  # read alone, it would
    assert {f.passage_ids[0].split("#")[0] for f in draft.findings} == {cohort.id, trial.id}


def test_a_claims_other_sub_questions_quote_only_its_most_direct_tests():
    """Five works test the claim, most direct first; the methods sub-question may quote the
    methods of the first three, not those of the works ranked below them, which would be cited
    as evidence on the claim for their methods alone."""
    works = [_work(name) for name in ("first", "second", "third", "fourth", "fifth")]
    methods = SubQuestion(id="q2", text="What methods and data have been used to study whether "
                          "machine learning improves disease surveillance?",
                          answer_shape="methods")
    passages = [Passage(id=f"{w.id}#abstract:0-200", work_id=w.id, sub_question_id="q2",
                        score=1.0 - i / 10, start=0, end=200,
                        text=f"We used {120 + i} machine learning models trained on disease "
                             f"surveillance data from {i + 2} public health agencies.")
                for i, w in enumerate(works)]
    draft = extractive_draft([SURVEILLANCE, methods], passages, works,
                             ["machine learning", "disease surveillance", "public health"],
                             claim_sub=SURVEILLANCE)
    quoted = {p.work_id for f in draft.findings if f.sub_question_id == "q2"
              for p in passages if p.id in f.passage_ids}
    assert quoted, "no methods were quoted"
    assert quoted <= {works[0].id, works[1].id, works[2].id}
    unrestricted = extractive_draft([SURVEILLANCE, methods], passages, works[::-1],
                                    ["machine learning", "disease surveillance", "public health"],
                                    claim_sub=SURVEILLANCE)
    assert {p.work_id for f in unrestricted.findings if f.sub_question_id == "q2"
            for p in passages if p.id in f.passage_ids} <= {w.id for w in works[2:]}


SPINDLE_CLAIM = "Clathrin stabilizes the spindle fiber apparatus during mitosis."
SURVEILLANCE_CLAIM = "Machine learning improves disease surveillance in public health."


def test_a_sentence_restating_the_claim_in_its_own_words_restates_it():
    """No direction word is read in "stabilizes" or "established prior to birth", yet the
    sentences state the claims' relations; a sentence naming the claim's words but not its
    relation ("improves"), leaving it open or finding nothing, restates nothing."""
    assert reading(SPINDLE_CLAIM, "Here, we show that clathrin stabilizes fibres of the mitotic "
                   "spindle to aid congression of chromosomes.") == "neither"
    assert restates(SPINDLE_CLAIM, "Here, we show that clathrin stabilizes fibres of the mitotic "
                    "spindle to aid congression of chromosomes.")
    assert restates("Adult tissue-resident macrophages are seeded before birth.",
                    "We have demonstrated that major tissue-resident macrophage populations are "
                    "established prior to birth and maintain themselves during adulthood.")
    assert not restates(SURVEILLANCE_CLAIM, "Findings indicate the importance of the quality of "
                        "crowd-generated labels in developing machine learning models designed "
                        "for decision-making purposes, such as public health surveillance "
                        "decisions.")
    assert not restates(SPINDLE_CLAIM, "Whether clathrin stabilizes the mitotic spindle "
                        "fibres remains unknown.")
    assert not restates(SPINDLE_CLAIM, "Clathrin depletion did not change the spindle fibres "
                        "in mitosis.")
    assert not restates(SPINDLE_CLAIM, "Microtubules of the spindle grow during prophase.")


def test_only_the_most_direct_study_is_read_as_restating_the_claim():
    """The first-ranked study's sentence that restates the claim supports it; another study's
    sentence restating it as well stays unlabelled: a lower-ranked study is labelled only from
    the direction words :func:`reading` reads (restating won nothing there on SciFact train)."""
    from scholargraph.agents.synthesis import with_stances
    first, second = _work("first"), _work("second")
    text = "Here, we show that clathrin stabilizes fibres of the mitotic spindle."
    ranked = [_candidate(first, text, frozenset({"result"}), 0.9),
              _candidate(second, text, frozenset({"result"}), 0.7)]
    itself = SubQuestion(id="q1", text=f"What do studies report on whether {SPINDLE_CLAIM}",
                         answer_shape="studies testing it")
    draft = with_stances(Draft(summary="", findings=[]), SPINDLE_CLAIM, itself, ranked,
                         [first, second])
    assert {s.work_id: s.reading for s in draft.stances} == {first.id: "supports",
                                                            second.id: "neither"}


def test_a_materials_project_entry_is_no_study_weighed_for_a_claim():
    """A database entry's computed values are reported in the evidence table; the balance of
    studies neither counts it nor quotes it as a finding."""
    from scholargraph.agents.synthesis import with_stances
    from scholargraph.records import Material

    claim = "LiFePO4 has a band gap above 3 eV."
    entry = Material(material_id="mp-19017", formula="LiFePO4", band_gap_ev=3.7).as_work()
    study = _work("study")
    ranked = [_candidate(entry, entry.abstract or "", frozenset({"result"}), 0.9),
              _candidate(study, "The band gap of LiFePO4 increased to 3.8 eV after doping.",
                         frozenset({"result"}), 0.8)]
    itself = SubQuestion(id="q1", text=f"What do studies report on whether {claim}",
                         answer_shape="studies testing it")
    draft = with_stances(Draft(summary="", findings=[]), claim, itself, ranked, [entry, study])
    assert [s.work_id for s in draft.stances] == [study.id]
    assert all(entry.id not in pid for f in draft.findings for pid in f.passage_ids)


def test_the_most_direct_study_restates_the_claim_from_any_sentence_that_may_state_a_result():
    """The most direct study's three most relevant result sentences read neither way, and a
    sentence further down (of no marked kind) restates the claim: the study supports it, quoted
    from that sentence. A sentence marked as method restating it counts for nothing."""
    from scholargraph.agents.synthesis import STANCE_SENTENCES, with_stances
    study = _work("study")
    restating = "Here, we show that clathrin stabilizes fibres of the mitotic spindle."
    read_first = [
        _candidate(study, "Spindle length averaged eleven micrometres in control cells.",
                   frozenset({"result"}), 0.9),
        _candidate(study, "Chromosome congression took about twenty minutes in mitosis.",
                   frozenset({"result"}), 0.85),
        _candidate(study, "Most cells divided within the first hour of imaging.",
                   frozenset({"result"}), 0.8),
    ]
    assert len(read_first) == STANCE_SENTENCES
    assert all(reading(SPINDLE_CLAIM, c.quote.text) == "neither"
               and not restates(SPINDLE_CLAIM, c.quote.text) for c in read_first)
    itself = SubQuestion(id="q1", text=f"What do studies report on whether {SPINDLE_CLAIM}",
                         answer_shape="studies testing it")

    def stance_of(last: Candidate) -> WorkStance:
        draft = with_stances(Draft(summary="", findings=[]), SPINDLE_CLAIM, itself,
                             [*read_first, last], [study])
        return draft.stances[0]

    found = stance_of(_candidate(study, restating, frozenset(), 0.6))
    assert found.reading == "supports"
    assert found.quote is not None and found.quote.text == restating
    assert stance_of(_candidate(study, restating, frozenset({"method"}), 0.6)).reading == (
        "neither")


def test_a_null_result_on_another_outcome_does_not_stop_the_one_on_the_claims():
    """"But not with differences in necrotizing enterocolitis" is a null result on another
    outcome; the sentence's result on the claim's outcome (mortality, lower) is what it says of
    the claim."""
    claim = "Early screening for patent ductus arteriosus decreases in-hospital mortality."
    assert reading(claim, "Screening echocardiography for patent ductus arteriosus was "
                   "associated with lower in-hospital mortality but not with differences in "
                   "necrotizing enterocolitis.") == "supports"
    assert reading(claim, "Screening echocardiography for patent ductus arteriosus did not "
                   "change in-hospital mortality.") == "no effect"


def test_a_subject_needed_for_an_outcome_raises_it():
    """"Necessary for developing a panic-prone state" says the neurons raise what the claim says
    they suppress; "underestimate" is the reverse of "overestimates"; "crucial for" is no agent
    noun naming the subject."""
    assert reading("Hypocretin neurones suppress panic-prone state in rats.",
                   "Here we show that activation of hypocretin-synthesizing neurons is necessary "
                   "for developing a panic-prone state in the rat panic model.") == "contradicts"
    assert reading("Klf4 is required for proper myeloid cell differentiation.",
                   "KLF4 is not required for myeloid cell differentiation.") == "no effect"
    crucial = stance("Ly49Q was crucial for the polarization of neutrophils.")
    assert [(c.direction, c.modifier) for c in crucial.cues] == [("up", False)]
    assert stance("HbA1c may underestimate past glycemia.").main == "down"


def test_a_sentence_reporting_both_ways_on_the_outcome_is_not_against_the_claim():
    """"Reduces proliferation ... by inducing ... checkpoint activation" reports the claim's own
    change on its outcome besides a decrease: it is mixed, not against the claim; a cue word
    the claim puts before its result cue ("Activated charcoal") describes the subject."""
    claim = "Pyridostatin induces checkpoint activation."
    context = "Pyridostatin (PDS) is a G-quadruplex ligand."
    assert reading(claim, "Remarkably, PDS reduces proliferation of HR-defective cells by "
                   "inducing DSB accumulation, checkpoint activation, and deregulated G2/M "
                   "progression.", context) == "neither"
    assert reading("Activated charcoal improves survival after mushroom poisoning.",
                   "Activated charcoal had little effect on survival after mushroom "
                   "poisoning.") == "no effect"


def test_a_sentence_naming_few_of_the_claims_words_or_not_its_negation_restates_nothing():
    assert not restates("Physical injury represses transglutaminase activity.",
                        "The injury represents an assault on all aspects of the patient, from "
                        "the physical to the psychological.")
    assert not restates("Pseudoknots are not evolutionarily conserved in most eukaryotes.",
                        "Pseudoknots are evolutionarily conserved RNA structures found in most "
                        "eukaryotes.")
    assert restates("Pseudoknots aren't evolutionarily conserved in most eukaryotes.",
                    "We show that pseudoknots are not evolutionarily conserved across most "
                    "eukaryotes.")


@pytest.fixture(scope="module")
def minilm(shared_models):
    """The sentence model the support check was fitted with (the default, int8)."""
    from scholargraph.rag.embeddings import load_embedder
    found = load_embedder(None, models_dir=shared_models)
    assert found is not None
    return found


def _study(title: str, method: str, result: str, relevance: float = 0.9
           ) -> tuple[Work, Candidate]:
    """A study whose abstract is a method sentence and a result sentence, the result ranked."""
    work = Work(title=title, doi=f"10.1000/{abs(hash(title))}", year=2021, sources=["openalex"],
                abstract=f"{method} {result}")
    return work, _candidate(work, result, frozenset({"result"}), relevance)


def _stances(claim: str, studies: list[tuple[Work, Candidate]], embedder) -> dict[str, str]:
    itself = SubQuestion(id="q1", text=f"What do studies report on whether {claim}",
                         answer_shape="studies testing it")
    from scholargraph.agents.synthesis import with_stances
    draft = with_stances(Draft(summary="", findings=[]), claim, itself,
                         [candidate for _, candidate in studies],
                         [work for work, _ in studies], embedder)
    return {stance.work_id: stance.reading for stance in draft.stances}


def test_the_most_direct_study_supports_a_claim_only_when_it_comes_close_to_it(minilm):
    """A study of machine learning reading chest radiographs "improved" something, and the
    rules read it the claim's way; but it is far from disease surveillance, and the fitted check
    takes its support away. A study of outbreak detection in health departments keeps its own.
    Without the sentence model the check was fitted with, the rules decide alone."""
    radiology = _study("Deep learning in radiology",
                       "We reviewed deep learning studies of chest radiographs.",
                       "Machine learning improved the accuracy of radiologists reading chest "
                       "radiographs.")
    syndromic = _study("Machine learning for syndromic surveillance: a prospective evaluation",
                       "We evaluated machine learning classifiers for syndromic surveillance in "
                       "12 health departments.",
                       "Machine learning improved the timeliness of outbreak detection compared "
                       "with traditional methods.")
    for study in (radiology, syndromic):
        assert _stances(SURVEILLANCE_CLAIM, [study], None) == {study[0].id: "supports"}
    assert _stances(SURVEILLANCE_CLAIM, [radiology], minilm) == {radiology[0].id: "neither"}
    assert _stances(SURVEILLANCE_CLAIM, [syndromic], minilm) == {syndromic[0].id: "supports"}


def test_the_support_check_never_gives_support_nor_touches_a_contradiction_or_other_studies(
        minilm):
    """The check only takes support away from the most direct study: a study whose figures the
    rules cannot read stays unlabelled however close it is ("a hazard ratio of 1.31" is no
    support), one read against the claim stays so, and a lower-ranked study keeps the reading
    the rules give it."""
    figures = _study("Statin therapy and stroke in older adults",
                     "We followed 4,000 adults aged over 65 for ten years.",
                     "Statin users had a hazard ratio for stroke of 1.31 (95% CI 1.10-1.52) "
                     "compared with non-users.")
    against = _study("Statin therapy and stroke in older adults: a cohort",
                     "We followed 4,000 adults aged over 65 for ten years.",
                     "Statin users had a higher risk of stroke than non-users.")
    assert _stances(STATIN_CLAIM, [figures], minilm) == {figures[0].id: "neither"}
    assert _stances(STATIN_CLAIM, [against], minilm) == {against[0].id: "contradicts"}
    radiology = _study("Deep learning in radiology",
                       "We reviewed deep learning studies of chest radiographs.",
                       "Machine learning improved the accuracy of radiologists reading chest "
                       "radiographs.")
    surveillance = _study("Machine learning in twelve health departments",
                          "We compared surveillance before and after machine learning.",
                          "Machine learning improved disease surveillance in twelve public "
                          "health departments.", relevance=0.7)
    assert _stances(SURVEILLANCE_CLAIM, [radiology, surveillance], minilm) == {
        radiology[0].id: "neither", surveillance[0].id: "supports"}


def test_the_closer_a_study_comes_to_the_claim_the_likelier_its_support_stands():
    """Each feature of closeness (the claim's words named, a sentence or title near it) raises
    the score; a study far on all of them loses its support, one near on all keeps it."""
    from scholargraph.deterministic.stance_weights import (
        SupportFeatures,
        support_score,
        supports,
    )
    far = SupportFeatures(restated=False, closest_cosine=0.3, title_cosine=0.2, terms_named=0.2)
    assert not supports(far)
    for change in ({"closest_cosine": 0.6}, {"title_cosine": 0.6}, {"terms_named": 0.8}):
        assert support_score(far.model_copy(update=change)) > support_score(far)
    assert supports(SupportFeatures(restated=False, closest_cosine=0.85, title_cosine=0.8,
                                    terms_named=0.7))


def test_an_improved_pain_is_less_pain_but_an_improved_survival_more_survival():
    """A knee-osteoarthritis trial's "improved function and pain of the knee joint" read as
    evidence against "... reduces pain" (pain up); a benefit on an outcome that harms points
    the claim's way, and against a claim of no effect."""
    trial = ("Intra-articular injection of 1.0 x 10(8) AD MSCs into the osteoarthritic knee "
             "improved function and pain of the knee joint without causing adverse events.")
    assert reading("Intra-articular mesenchymal stem cell injection reduces pain in knee "
                   "osteoarthritis.", trial, trial, "") == "supports"
    assert reading("Intra-articular mesenchymal stem cell injection has no effect on pain in "
                   "knee osteoarthritis.", trial, trial, "") == "contradicts"
    survival = "Erlotinib improved overall survival in patients with EGFR-mutant lung cancer."
    assert reading("Erlotinib reduces overall survival in EGFR-mutant lung cancer.", survival,
                   survival, "") == "contradicts"
@pytest.mark.parametrize(("claim", "sentence", "bearing"), [
    # the claim's own change on its outcome beside one the other way: mixed, not against
    ("The minor allele of the gene downregulates pro-inflammatory cytokines.",
     "Minor allele carriage reduces production of proinflammatory cytokines, including TNF, and "
     "increases production of anti-inflammatory cytokines, including IL-10.", None),
    # the subject's loss failing to bring the outcome about is the claim's way, not against it
    ("Osteocytes have an essential role in G-CSF induced HSPC mobilization.",
     "Mice with targeted ablation of osteocytes fail to mobilize HSPCs in response to G-CSF.",
     None),
    # the subject itself failing to bring it about is against it
    ("Osteocytes have an essential role in G-CSF induced HSPC mobilization.",
     "Osteocytes fail to mobilize HSPCs in response to G-CSF.", "opposes"),
])
def test_a_finding_opposes_a_claim_only_where_its_stance_would_be_read_against_it(
        claim, sentence, bearing):
    from scholargraph.agents.synthesis import with_bearing
    work = _work("study")
    finding = _candidate(work, sentence, frozenset({"result"}), 0.9).finding("q1")
    read = with_bearing(Draft(summary="", findings=[finding]), claim, [finding])
    assert read.findings[0].bearing == bearing


def test_an_improvement_of_pain_is_pain_eased_whichever_side_names_it():
    """"Improved pain" was read as pain easing; "pain improvement", the outcome before the noun,
    was read as more pain and so as evidence against a claim that a drug reduces pain."""
    claim = "Duloxetine reduces knee pain in osteoarthritis."
    assert reading(claim, "Duloxetine produced significant knee pain improvement in patients "
                          "with osteoarthritis.") == "supports"
    assert reading(claim, "Patients given duloxetine showed knee pain and stiffness improvement "
                          "at 12 weeks.") == "supports"
    assert reading("Exercise training improves insulin sensitivity in obese adolescents.",
                   "Exercise training produced an improvement in insulin sensitivity in obese "
                   "adolescents.") == "supports"


def test_relief_of_an_outcome_is_its_decrease():
    """"Relieved pain" and "relief of knee pain" are pain going down, the way a claim that a
    treatment reduces pain points; "no relief" is no effect."""
    claim = "Duloxetine reduces knee pain in osteoarthritis."
    assert reading(claim, "Duloxetine relieved knee pain in patients with osteoarthritis.") == (
        "supports")
    assert reading(claim, "Duloxetine gave significant relief of knee pain in patients with "
                          "osteoarthritis.") == "supports"
    assert reading(claim, "Duloxetine gave no relief of knee pain in patients with "
                          "osteoarthritis.") in ("no effect", "contradicts")


def test_a_title_naming_the_subject_lets_its_result_sentence_oppose_the_claim():
    """A trial's result sentence rarely names the drug again; its title does."""
    claim = "Erlotinib improves overall survival in EGFR-mutant non-small cell lung cancer."
    title = ("Erlotinib versus placebo in EGFR-mutant non-small cell lung cancer: a randomised "
             "phase III trial")
    sentence = "Overall survival was not improved in the treatment group."
    assert reading(claim, sentence, f"{title}. {sentence}", title) == "no effect"
    assert reading(claim, sentence) == "neither"  # without the title, nothing names erlotinib


def test_a_quality_and_its_negative_prefixed_opposite_contradict():
    """"Inaccurate" against "more accurate", "dispensable" against "essential": the opposite
    quality is written with a prefix or another word, and no direction word marks it."""
    claim = "Capsule endoscopy is inaccurate at detecting small-bowel bleeding."
    better = ("Capsule endoscopy was more accurate than push enteroscopy in detecting "
              "small-bowel bleeding.")
    assert quality_reversed(claim, better)
    assert reading(claim, better) == "contradicts"
    assert reading(claim, "Capsule endoscopy was inaccurate in detecting small-bowel "
                          "bleeding in older adults.") != "contradicts"
    assert reading(claim, "Colonoscopy was accurate in detecting polyps in older adults.") == (
        "neither")  # another subject, another outcome
    assert reading("Capsule endoscopy is reliable at detecting small-bowel bleeding.",
                   "Capsule endoscopy showed poor reliability in detecting small-bowel "
                   "bleeding.") == "contradicts"
    assert reading("Sox9 is dispensable for chondrocyte differentiation in the growth plate.",
                   "Sox9 is essential for chondrocyte differentiation in the growth "
                   "plate.") == "contradicts"


def test_a_quality_said_both_ways_or_only_by_its_noun_reverses_nothing():
    """A sentence that ascribes a quality both ways is mixed, and a bare noun ("the accuracy of
    the test was assessed") ascribes no quality."""
    claim = "Capsule endoscopy is inaccurate at detecting small-bowel bleeding."
    assert not quality_reversed(claim, "Capsule endoscopy was accurate for large lesions but "
                                       "inaccurate for small ones in small-bowel bleeding.")
    assert not quality_reversed(claim, "The accuracy of capsule endoscopy in detecting "
                                       "small-bowel bleeding was assessed.")


@pytest.mark.parametrize(("sentence", "ways"), [
    ("The odds ratio for bladder cancer among current smokers was 2.10 (95% CI 1.60-2.75).",
     {"up"}),
    ("Statin use was associated with fewer fractures (HR 0.71, 95% CI 0.58 to 0.87).", {"down"}),
    ("The relative risk was 1.12 (95% confidence interval 0.91 to 1.38).", {"null"}),
    ("Odds ratios were 1.8 (1.2-2.6) for asthma and 0.6 (0.4-0.9) for eczema.", {"up", "down"}),
    ("The hazard ratio was 3.5 (95% CI 1.1-2.0).", set()),  # a value outside its interval
])
def test_a_ratio_points_the_way_its_confidence_interval_lies(sentence, ways):
    assert ratio_ways(sentence) == ways


def test_a_ratio_wholly_on_the_other_side_of_one_contradicts_a_signed_claim():
    """"An odds ratio of 2.10 (1.60-2.75)" for bladder cancer in smokers says smoking raises
    the risk the claim says it lowers; an interval holding 1, or ratios pointing both ways,
    contradict nothing."""
    claim = "Smoking decreases the risk of bladder cancer."
    def found(ratios: str) -> str:
        return f"For adults smoking daily the odds ratio of bladder cancer was {ratios}."
    assert reading(claim, found("2.10 (95% CI 1.60-2.75)")) == "contradicts"
    assert reading(claim, found("0.62 (95% CI 0.48-0.80)")) != "contradicts"
    assert reading(claim, found("1.10 (95% CI 0.80-1.45)")) != "contradicts"
    assert reading(claim, found("2.10 (1.60-2.75) in men and 0.62 (0.48-0.80) in women")) != (
        "contradicts")
    assert reading(claim, "For adults drinking daily the odds ratio of stroke was 2.10 "
                          "(95% CI 1.60-2.75).") == "neither"  # another subject


def test_an_abbreviation_with_digits_is_not_spelled_out_from_the_claims_initials():
    """"CD4" names a molecule; the claim's "cell division" only shares its letters."""
    claim = "Nutrient stress slows cell division in budding yeast."
    sentence = "CD4 levels rose under nutrient stress."
    assert spelled_out(sentence, claim) == sentence
    assert spelled_out("PC levels rose.", "Plasma cholesterol falls with age.") == (
        "Plasma cholesterol levels rose.")


def test_a_negation_covers_a_size_word_and_the_verb_after_it():
    """"Did not significantly improve" is one null result, not a null one and an increase."""
    read = stance("Metoprolol did not significantly improve exercise capacity in older adults.")
    assert [cue.direction for cue in read.cues] == ["null"]


def test_damage_and_disruption_are_decreases():
    assert stance("Ozone exposure damages lung function.").main == "down"
    assert stance("Loss of the protein disrupted barrier integrity.").main == "down"
    assert reading("Ozone exposure damages lung function in children.",
                   "Ozone exposure improved lung function in children with asthma.") == (
        "contradicts")


def test_a_sign_word_before_a_defence_against_an_outcome_turns_its_sign():
    """"Impairing the barrier to dissemination" raises dissemination; "promotes protection
    from obesity" and "enhanced clearance of the virus" lower what follows. "Resistance to
    insulin" is itself the outcome, and keeps its sign."""
    assert stance("In these macaques the infection impaired mucosal barrier functions to "
                  "bacterial dissemination.").main == "up"
    assert stance("The treatment enhanced clearance of the virus from the lung.").main == "down"
    assert stance("Fasting promotes protection from diet-induced obesity.").main == "down"
    assert stance("A high-fat diet increased resistance to insulin in mice.").main == "up"
    claim = "Depletion of mucosal T cells increases dissemination of bacteria from the gut."
    assert reading(claim, "Depletion of mucosal T cells impaired barrier functions to the "
                          "dissemination of bacteria from the gut.") == "supports"
    assert reading(claim, "Depletion of mucosal T cells enhanced barrier functions to the "
                          "dissemination of bacteria from the gut.") == "contradicts"


def test_an_abbreviation_the_claim_defines_is_read_as_its_words_in_the_sentence():
    """A claim that writes "adverse drug events (ADEs)" names its outcome in full; the sentence
    saying "ADEs" speaks of the same outcome."""
    claim = "Adding a nurse to ward rounds does not alter the rate of adverse drug events (ADEs)."
    sentence = "Having a nurse on ward rounds was associated with a lower rate of ADEs."
    assert spelled_out(sentence, claim) == (
        "Having a nurse on ward rounds was associated with a lower rate of adverse drug events.")
    assert reading(claim, sentence) == "contradicts"
    # a sentence naming the words already keeps the abbreviation, as the claim does
    named = "Adverse drug events (ADEs) fell by half when a nurse joined ward rounds."
    assert spelled_out(named, claim) == named


def test_an_outcome_that_neither_way_changed_is_no_change_and_fallen_is_a_decrease():
    claim = "The incidence of hip fracture in older women has fallen since 2000."
    assert stance(claim).main == "down"
    assert reading(claim, "Neither the incidence of hip fracture in older women nor their "
                          "mortality changed between 2000 and 2015.") == "no effect"
    assert reading(claim, "The incidence of hip fracture in older women fell by a third "
                          "between 2000 and 2015.") == "supports"


def test_an_abbreviation_the_claim_writes_in_another_case_is_left_as_written():
    """The claim's "apoE4" and the sentence's "ApoE4" are one name: writing it out from the
    work's text would leave the sentence without the claim's word."""
    claim = "The apoE4 allele raises amyloid deposition in mouse brains."
    sentence = "ApoE4 lowered amyloid deposition in the brains of aged mice."
    context = "Apolipoprotein E4 (ApoE4) and amyloid."
    assert spelled_out(sentence, claim, context) == sentence
    assert reading(claim, sentence, context) == "contradicts"


def test_a_claims_opening_participle_names_its_subject_not_its_result():
    """"Enhanced early release of interferons damages bacterial control" says what the enhanced
    release does; a study finding the release enhanced and the bacteria controlled points the
    other way, though both say "enhanced"."""
    claim = "Enhanced early release of type I interferons damages bacterial control in the spleen."
    assert reading(claim, "We found that memory T cells enhance early release of several type I "
                          "interferons in the spleen and that this leads to control of "
                          "bacteria.") == "contradicts"
    # the opening participle is no result: blocking the kinase does not oppose "activated"
    claim = "Activated kinase K regulates stress-induced hair loss."
    assert result_way(stance(claim)) == "up"  # read alone, "Activated" is taken for a result
    assert reading(claim, "Blocking the kinase K pathway attenuates stress-induced hair "
                          "loss.") != "contradicts"
    # the participle still opposes one on the same subject
    assert reading("Decreased serum sodium is associated with falls in older adults.",
                   "Raised serum sodium had a greater effect on falls in older adults than "
                   "raised serum potassium.") == "contradicts"


def test_a_condition_named_with_a_direction_word_is_no_result():
    """"Cognitive impairment" names who was studied, not what changed; "impairment of memory"
    is a change."""
    exercise = "Aerobic exercise improves memory in adults with cognitive impairment."
    assert result_way(stance(exercise)) == "up"
    assert result_way(stance("Impairment of memory was seen in older mice.")) == "down"
    assert reading(exercise, "In adults with mild cognitive impairment, aerobic exercise "
                             "lowered memory scores.") == "contradicts"


def test_a_compound_is_read_as_the_claim_writes_it():
    claim = "High birth weight lowers the risk of childhood asthma."
    sentence = "Birthweight above 4 kg raised the risk of childhood asthma in two cohorts."
    assert spelled_out(sentence, claim).startswith("birth weight above")
    assert reading(claim, sentence) == "contradicts"
    assert spelled_out("Birth weight was recorded.", "Birthweight lowers cancer risk.") == (
        "Birthweight was recorded.")
    # parts too short to be words are not split: "atypical" is not "a typical"
    assert spelled_out("Atypical cells were seen.", "A typical cell divides.") == (
        "Atypical cells were seen.")


def test_rescuing_a_defect_is_a_decrease_of_the_defect():
    sentence = "Deleting gene G rescued the migration defect of cortical neurons."
    assert reading("Deleting gene G worsens the migration defect of cortical neurons.",
                   sentence) == "contradicts"
    assert reading("Deleting gene G prevents the migration defect of cortical neurons.",
                   sentence) == "supports"
    assert stance("Deleting gene G rescued expression of Sox2 in neurons.").directions == set()


def test_a_noun_derived_by_ship_is_read_as_its_base():
    assert tokenize("community partnerships") == tokenize("community partners")
    assert tokenize("membership") == tokenize("member")


def test_the_plural_of_a_defined_abbreviation_is_written_out_too():
    """A text that defines "platelet-derived vesicle (PDV)" and then writes "PDVs" speaks of
    the vesicles; so should the sentence read against a claim naming them."""
    context = "Platelet derived vesicle (PDV) release in stored plasma."
    claim = "Platelet derived vesicles dampen clot formation in stored plasma."
    sentence = "PDVs accelerated clot formation in stored plasma."
    assert spelled_out(sentence, claim, context) == (
        "Platelet derived vesicles accelerated clot formation in stored plasma.")
    assert reading(claim, sentence, context) == "contradicts"


def test_independent_of_what_the_claim_does_not_name_is_no_null_result():
    """"Independent of calcium" says how the activation happens, not that it did not;
    "independent of age" against a claim on age is a null result on it."""
    claim = "Compound X works synergistically with drug Y to activate phosphorylated STAT3."
    assert reading(claim, "Compound X acted with drug Y to activate STAT3 in cultured cells "
                          "independent of calcium.") == "supports"
    assert reading("Older age lowers survival after cardiac surgery.",
                   "Survival after cardiac surgery was independent of age.") == "no effect"


def test_scarce_is_a_low_amount_and_a_rise_its_opposite():
    claim = "Memory B cells specific for the viral capsid are scarce in the tonsils of children."
    assert reading(claim, "Capsid-reactive memory B cells rose threefold in the tonsils of "
                          "children with recurrent infection.") == "contradicts"
    assert reading(claim, "Capsid-specific memory B cells were depleted in the tonsils of "
                          "children.") == "supports"


@pytest.mark.parametrize(("claim", "sentence", "expected"), [
    # a fall where the claim denies a rise bears the claim out
    ("Night shift work does not increase resting cortisol in hospital nurses.",
     "Night shift work was inversely associated with resting cortisol in hospital nurses.",
     "supports"),
    ("Daily aspirin does not reduce mortality in patients with sepsis.",
     "Daily aspirin increased mortality in patients with sepsis.", "supports"),
    # a change of the denied sign refutes it; none at all agrees with it
    ("Night shift work does not increase resting cortisol in hospital nurses.",
     "Night shift work raised resting cortisol in hospital nurses.", "contradicts"),
    ("Daily aspirin does not reduce mortality in patients with sepsis.",
     "Daily aspirin did not change mortality in patients with sepsis.", "supports"),
    # a claim of no effect at all is refuted by a change either way
    ("Night shift work has no effect on resting cortisol in hospital nurses.",
     "Night shift work was inversely associated with resting cortisol in hospital nurses.",
     "contradicts"),
])
def test_a_claim_denying_a_rise_is_borne_out_by_a_fall(claim, sentence, expected):
    """"X does not increase Y" denies one sign: over the recorded corpus the pesticide study's
    "methyl bromide was inversely associated with TSH" was read as contradicting "methyl bromide
    does not increase TSH levels"."""
    assert reading(claim, sentence) == expected


def test_a_comparative_claim_is_not_read_from_a_result_on_its_other_arm_alone():
    """"A is more effective than B" is not tested by a result on B alone (over the recorded
    corpus, a pendimethalin result was read as support for aldrin being the stronger
    exposure); a threshold ("more than 10 months") compares no arms."""
    claim = "Ferrous sulfate raises haemoglobin more than ferric maltol in anaemic adults."
    assert reading(claim, "Ferric maltol raised haemoglobin in anaemic adults.") == "neither"
    assert reading(claim, "Ferrous sulfate raised haemoglobin more than ferric maltol in "
                          "anaemic adults.") == "supports"
    assert reading(claim, "Ferrous sulfate raised haemoglobin in anaemic adults.") == "supports"
    assert reading("Bed rest lowers blood pressure in adults older than 65 years.",
                   "Bed rest lowered blood pressure in adults.") == "supports"


def test_a_claims_other_sub_questions_are_not_said_to_lack_evidence_its_studies_hold():
    """A claim's studies are quoted for their results and not again for their methods: its
    methods sub-question quotes nothing, which the summary and the gaps say so, not as "No
    direct evidence was found" of studies that each state their methods. A sub-question of a
    topic, or of a claim no study answers, still lacks evidence."""
    from scholargraph.agents.schemas import Finding
    from scholargraph.agents.synthesis import no_direct_evidence_line
    from scholargraph.deterministic.extractive import evidence_gaps

    itself = SubQuestion(id="q1", text="What do studies report on whether X raises Y?",
                         answer_shape="")
    methods = SubQuestion(id="q2", text="What methods and data have been used?",
                          answer_shape="")
    result = Finding(text="X raised Y by a third.", passage_ids=["w#abstract:0-20"],
                     sub_question_id="q1")
    assert no_direct_evidence_line([methods], [result], itself) == (
        "Each included study is quoted for its result on the claim, not again for: "
        "\u201cWhat methods and data have been used?\u201d.")
    assert evidence_gaps([itself, methods], [result], 2, itself)[1:] == [
        "Each included study is quoted for its result on the claim, not again for: "
        "What methods and data have been used?"]
    assert no_direct_evidence_line([methods], [result]) == (
        "No direct evidence was found for: \u201cWhat methods and data have been used?\u201d.")
    assert no_direct_evidence_line([itself, methods], [], itself).startswith(
        "No direct evidence was found for: \u201cWhat do studies report")
    assert evidence_gaps([itself, methods], [], 2, itself)[1] == (
        "No passage among the 2 included works addresses: What methods and data have been used?")


def test_a_record_known_by_its_title_alone_is_not_counted_among_the_studies_read():
    """A yes/no question keeps its topic's works, title-only records among them: they are not
    read for or against the claim, nor counted in its balance, and the gaps name them."""
    from scholargraph.agents.synthesis import with_stances

    claim = "Folate deficiency raises plasma homocysteine."
    study = _study("Folate status and plasma homocysteine",
                   "We measured plasma homocysteine in 300 adults.",
                   "Folate deficiency raised plasma homocysteine by a third.")
    bare = Work(title="Folate and homocysteine in older adults", year=2011,
                sources=["openalex"])
    itself = SubQuestion(id="q1", text=f"What do studies report on whether {claim}",
                         answer_shape="studies testing it")
    draft = with_stances(Draft(summary="", findings=[]), claim, itself, [study[1]],
                         [study[0], bare])
    assert [s.work_id for s in draft.stances] == [study[0].id]
    assert draft.gaps == ["1 included work is known by its title alone and is not read for or "
                          "against the claim: Folate and homocysteine in older adults (2011)."]


def test_encourages_and_discourages_are_directions_as_verbs_only():
    """An invented claim and results: "inhibits" against "encourages" is a reversal, and
    "encouraging results" judge a result without stating one."""
    claim = "Antibody A encourages tumour cell invasion in mice."
    assert stance(claim).main == "up"
    assert stance("Antibody A discourages tumour cell invasion in mice.").main == "down"
    assert reading(claim, "Antibody A inhibited tumour cell invasion in mice by "
                          "half.") == "contradicts"
    assert stance("These encouraging results warrant a larger trial.").cues == ()
