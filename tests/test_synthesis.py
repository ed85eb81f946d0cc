"""Grounded synthesis in both engines: verbatim quotes with exact offsets, chosen for relevance and
diversity and ordered as a review reads; contradictions and agreement set side by side; the LLM
engine's sentences checked against the passages they cite; and, on the recorded corpus, every
citation resolving to an included work and every export holding the works of review.json."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from citeproc.source.json import CiteProcJSON
from langgraph.runtime import Runtime
from pybtex.database import parse_string

from scholargraph import review
from scholargraph.agents.evaluation import is_supported
from scholargraph.agents.schemas import Draft, Finding, Intent, SubQuestion
from scholargraph.agents.synthesis import check_draft, no_direct_evidence_line, synthesis
from scholargraph.context import ReviewContext
from scholargraph.deterministic.extractive import (
    agreements,
    contradictions,
    evidence_gaps,
    extractive_draft,
    quotable,
    rank_candidates,
    stance_pool,
)
from scholargraph.deterministic.stance import claim_subject, compare, stance
from scholargraph.deterministic.support import SupportChecker
from scholargraph.records import Passage, Work
from scholargraph.report import Report
from scholargraph.testing import (
    ReplayServer,
    ScriptedChatModel,
    malformed_reply,
    structured_reply,
)

QUESTION = "What is known about genetic variants and screening?"
SOURCES = ["pubmed", "arxiv", "openalex"]


def work(name: str, year: int, source: str = "pubmed") -> Work:
    return Work(title=f"Study {name}", doi=f"10.1000/{name}", year=year, sources=[source],
                abstract="text")


def passage(owner: Work, text: str, sub: str = "q1") -> Passage:
    return Passage(id=f"{owner.id}#abstract:0-{len(text)}", work_id=owner.id, text=text,
                   start=0, end=len(text), sub_question_id=sub, score=1.0)


def assert_verbatim(finding: Finding, passages: dict[str, Passage]) -> None:
    assert finding.quotes, finding
    for quote in finding.quotes:
        assert quote.passage_id in finding.passage_ids
        assert passages[quote.passage_id].text[quote.start:quote.end] == quote.text


ASPIRIN = SubQuestion(id="q1", text="Does aspirin reduce the risk of stroke?",
                      answer_shape="trials and cohort studies")
OLD, MID, NEW, DUP = (work("old", 2001), work("mid", 2012, "openalex"), work("new", 2021),
                      work("dup", 2022, "arxiv"))
STROKE_PASSAGES = [
    passage(NEW, "BACKGROUND: Stroke is a leading cause of death. RESULTS: Daily aspirin "
                 "reduced the risk of ischaemic stroke by 22% in adults over 50 years. Bleeding "
                 "was rare."),
    passage(DUP, "Daily aspirin reduced the risk of ischaemic stroke by 21% in adults over 50 "
                 "years of age."),
    passage(OLD, "In this cohort, aspirin use was not associated with the risk of ischaemic "
                 "stroke in adults over 50 years."),
    passage(MID, "Low-dose aspirin reduced the risk of recurrent stroke after a transient "
                 "ischaemic attack in a randomised trial of 3,000 patients."),
]


def stroke_draft() -> Draft:
    return extractive_draft([ASPIRIN], STROKE_PASSAGES, [OLD, MID, NEW, DUP],
                            ["aspirin", "stroke"])


def test_quotes_are_verbatim_with_exact_offsets_and_labels_cut_off():
    draft = stroke_draft()
    by_id = {p.id: p for p in STROKE_PASSAGES}
    for finding in draft.findings:
        assert_verbatim(finding, by_id)
        assert is_supported(finding, by_id)
    texts = [f.text for f in draft.findings if f.kind == "finding"]
    assert "Daily aspirin reduced the risk of ischaemic stroke by 22% in adults over 50 years." \
        in texts
    assert not any(text.startswith(("RESULTS", "BACKGROUND")) for text in texts)
    (labelled,) = [c for c in quotable(STROKE_PASSAGES[0], 2021) if "22%" in c.quote.text]
    assert STROKE_PASSAGES[0].text[:labelled.quote.start].endswith("RESULTS: ")


def test_findings_are_relevant_diverse_one_per_work_and_oldest_first():
    findings = [f for f in stroke_draft().findings if f.kind == "finding"]
    works = [f.passage_ids[0].split("#")[0] for f in findings]
    assert len(works) == len(set(works)) == 3
    assert not {NEW.id, DUP.id} <= set(works), "two near-identical sentences were both quoted"
    years = [next(w.year for w in (OLD, MID, NEW, DUP) if w.id == wid) for wid in works]
    assert years == sorted(years)


def title_passage(owner: Work) -> Passage:
    return Passage(id=f"{owner.id}#title:0-{len(owner.title)}", work_id=owner.id,
                   text=owner.title, start=0, end=len(owner.title), section="title",
                   sub_question_id="q1", score=1.0)


def test_a_title_is_a_finding_only_when_it_states_a_result():
    topic = Work(title="Aspirin and stroke: a research agenda for prevention in older adults",
                 doi="10.1000/agenda", year=2020, sources=["openalex"])
    result = Work(title="Low-dose aspirin reduced recurrent stroke in older adults",
                  doi="10.1000/result", year=2019, sources=["openalex"])
    assert [c.facets for c in quotable(title_passage(topic), 2020)] == [frozenset({"aim"})]
    assert "result" in quotable(title_passage(result), 2019)[0].facets
    draft = extractive_draft([ASPIRIN], [title_passage(topic), title_passage(result)],
                             [topic, result], ["aspirin", "stroke"])
    quoted = {f.text for f in draft.findings}
    assert result.title in quoted and topic.title not in quoted


def test_a_sentence_is_quoted_once_across_sub_questions():
    again = SubQuestion(id="q2", text="What is the effect of aspirin on stroke risk?",
                        answer_shape="effect sizes")
    passages = STROKE_PASSAGES + [p.model_copy(update={"sub_question_id": "q2"})
                                  for p in STROKE_PASSAGES]
    draft = extractive_draft([ASPIRIN, again], passages, [OLD, MID, NEW, DUP], ["aspirin"])
    quoted = [f.text for f in draft.findings if f.kind == "finding"]
    assert len(quoted) == len(set(quoted))


def test_contradiction_is_set_side_by_side_with_both_quotes_and_citations():
    draft = stroke_draft()
    (contradiction,) = [f for f in draft.findings if f.kind == "contradiction"]
    assert contradiction.sub_question_id == "q1"
    sides = {q.passage_id.split("#")[0] for q in contradiction.quotes}
    assert OLD.id in sides and len(sides) == 2
    assert set(contradiction.passage_ids) == {q.passage_id for q in contradiction.quotes}
    assert "no effect" in contradiction.text and "a decrease" in contradiction.text
    assert "1 contradiction" in draft.summary


@pytest.mark.parametrize("first, second", [
    ("Aspirin significantly reduced the incidence of colorectal adenomas.",
     "Aspirin did not reduce the incidence of colorectal adenomas in this trial."),
    ("Vitamin D supplementation was associated with lower fracture risk in older women.",
     "Vitamin D supplementation was not associated with fracture risk in older women."),
    ("Statin therapy increased HDL cholesterol levels in patients with diabetes.",
     "Statin therapy decreased HDL cholesterol levels in patients with diabetes."),
    ("Exercise training improved insulin sensitivity in obese adolescents.",
     "Exercise training failed to improve insulin sensitivity in obese adolescents."),
    ("Mortality at 90 days was higher in the restrictive transfusion group.",
     "There was no significant difference in mortality at 90 days between transfusion groups."),
])
def test_opposite_findings_on_one_outcome_are_contradictions(first, second):
    result = compare(stance(first), stance(second))
    assert result is not None and result.relation == "oppose", (first, second)


@pytest.mark.parametrize("first, second", [
    # same direction, said differently
    ("Aspirin reduced the risk of stroke in adults.",
     "In adults, aspirin lowered stroke risk by a fifth."),
    # opposite words about different outcomes
    ("Metformin reduced HbA1c in patients with type 2 diabetes.",
     "Metformin increased lactate clearance time in healthy volunteers."),
    # "not only ... but also" is no negation
    ("The vaccine not only increased antibody titres but also reduced hospital admissions.",
     "The vaccine increased antibody titres in older adults."),
    # unrelated sentences
    ("Telomere length was associated with pancreatic cancer risk.",
     "Machine learning improved hepatitis C screening yield."),
])
def test_findings_that_do_not_oppose_are_not_contradictions(first, second):
    result = compare(stance(first), stance(second))
    assert result is None or result.relation != "oppose", (first, second)


def test_the_contradictions_function_pairs_statements_of_one_sub_question_only():
    one = Finding(text="Aspirin reduced stroke risk in adults over 50.", passage_ids=["a#0-1"],
                  sub_question_id="q1")
    other = Finding(text="Aspirin had no effect on stroke risk in adults over 50.",
                    passage_ids=["b#0-1"], sub_question_id="q1")
    elsewhere = other.model_copy(update={"sub_question_id": "q2"})
    assert [f.kind for f in contradictions([one, other])] == ["contradiction"]
    assert contradictions([one, elsewhere]) == []


def test_two_trials_that_lowered_one_outcome_agree_on_a_decrease_of_it():
    """Two trials of a prophylaxis in people 'without inhibitors' were said to agree that "both
    report no effect" on "prophylaxis, significantly, reduced": who was studied read as the
    result, and the direction words as what changed."""
    one = Finding(text="Weekly prophylaxis significantly reduced bleeding rates in adults "
                       "without inhibitors.", passage_ids=["a#0-1"], sub_question_id="q1")
    other = Finding(text="In a phase 3 trial of 88 children, prophylaxis given every month "
                         "significantly reduced bleeding rates with or without inhibitors and "
                         "was well tolerated.", passage_ids=["b#0-1"], sub_question_id="q1")
    assert [f.text for f in agreements([one, other], limit=1)] == [
        "Sources agree on prophylaxis, bleeding, rates: both report a decrease."]
    assert contradictions([one, other]) == []


def test_works_oppose_only_on_what_one_of_them_says_changed():
    """Two knee trials both report benefit, one as less pain, the other as better scores: the
    words they share around the opposite direction words ("effective", "patients") are not an
    outcome either reports changing. A change stated before its direction word still counts."""
    def statement(text: str, work: str) -> Finding:
        return Finding(text=text, passage_ids=[f"{work}#0-1"], sub_question_id="q1")

    pain = statement("The results show that intra-articular injection of stem cells is effective "
                     "for reducing pain and improving knee function in patients with knee "
                     "osteoarthritis.", "a")
    scores = statement("Intra-articular injection of cultured stem cells is effective in "
                       "improving both short-term clinical and MOCART outcomes in patients "
                       "undergoing osteotomy.", "b")
    assert contradictions([pain, scores]) == []
    higher = statement("Mortality at 90 days was higher in the restrictive transfusion group.", "c")
    same = statement("There was no significant difference in mortality at 90 days between "
                     "transfusion groups.", "d")
    assert [f.kind for f in contradictions([higher, same])] == ["contradiction"]


def test_works_of_one_treatment_do_not_oppose_on_the_treatment_itself():
    """Two studies of an injection both name it; a score "reduced from 100 before injection"
    against a procedure "more effective than injection" is no disagreement on the injection.
    The same pair opposes on an outcome the claim does not name as what acts (pain)."""
    def statement(text: str, work: str) -> Finding:
        return Finding(text=text, passage_ids=[f"{work}#0-1"], sub_question_id="q1")

    question = ("What do studies report on whether intra-articular injection of stem cells "
                "reduces pain in knee osteoarthritis?")
    subject = claim_subject(question)
    assert {"inject", "stem"} <= subject and "pain" not in subject
    assert claim_subject("machine learning for public health surveillance") == frozenset()
    better = statement("Implantation in the subchondral bone was more effective than injection "
                       "of the same dose in the contralateral knee.", "a")
    lower = statement("The knee score was significantly reduced from 100 before injection to "
                      "85 after injection.", "b")
    assert [f.kind for f in contradictions([better, lower])] == ["contradiction"]
    assert contradictions([better, lower], subject=subject) == []
    # a time both name is not what they disagree on
    short = statement("Injection of stem cells gave a significant relief of pain symptoms in the "
                      "short term.", "e")
    clinical = statement("Injection of cultured stem cells is effective in improving short-term "
                         "clinical and imaging outcomes in patients.", "f")
    assert contradictions([short, clinical], subject=subject) == []
    eased = statement("Pain was significantly reduced after injection of stem cells.", "c")
    unchanged = statement("Injection of stem cells did not reduce pain at one year.", "d")
    assert [f.kind for f in contradictions([eased, unchanged], subject=subject)] == [
        "contradiction"]


# ---------------------------------------------------------------- the LLM engine's check

def test_unsupported_sentences_are_removed_and_counted():
    by_id = {p.id: p for p in STROKE_PASSAGES}
    new, old = STROKE_PASSAGES[0].id, STROKE_PASSAGES[2].id
    draft = Draft(summary="s", findings=[
        Finding(text="Daily aspirin cut the risk of ischaemic stroke by about a fifth in adults "
                     "over 50. Aspirin also prevents Alzheimer disease in every patient.",
                passage_ids=[new], sub_question_id="q1"),
        Finding(text="Quantum gravity explains galaxy rotation curves.", passage_ids=[old],
                sub_question_id="q1"),
    ])
    checked, notes = check_draft(draft, STROKE_PASSAGES, SupportChecker(None))
    (kept,) = checked.findings
    assert kept.text.startswith("Daily aspirin cut the risk") and "Alzheimer" not in kept.text
    assert checked.unsupported_removed == 2
    assert notes == [("synthesis: removed 1 model-written finding without support in the "
                      "passages they cite"),
                     "synthesis: removed 1 unsupported sentence from model-written findings"]
    assert_verbatim(kept, by_id)
    assert 0 < kept.support <= 1


def test_the_llm_engine_gets_the_detected_contradiction_too():
    new, mid = STROKE_PASSAGES[0].id, STROKE_PASSAGES[3].id
    draft = Draft(summary="Aspirin and stroke.", findings=[
        Finding(text="Daily aspirin reduced the risk of ischaemic stroke by 22% in adults over "
                     "50 years.", passage_ids=[new], sub_question_id="q1"),
        Finding(text="Low-dose aspirin lowered stroke recurrence after a transient ischaemic "
                     "attack.", passage_ids=[mid], sub_question_id="q1"),
    ])
    state = {"intent": Intent(kind="factual", domains=["biomedical"], keywords=["aspirin"]),
             "sub_questions": [ASPIRIN], "passages": STROKE_PASSAGES,
             "papers": [OLD, MID, NEW, DUP]}
    model = ScriptedChatModel(responses=[structured_reply(draft)])
    update = synthesis(state, Runtime(context=ReviewContext(chat_model=model)))
    findings = update["draft"].findings
    assert [f.kind for f in findings][:2] == ["finding", "finding"]
    (contradiction,) = [f for f in findings if f.kind == "contradiction"]
    assert OLD.id in {q.passage_id.split("#")[0] for q in contradiction.quotes}
    by_id = {p.id: p for p in STROKE_PASSAGES}
    for finding in findings:
        assert_verbatim(finding, by_id)
    assert update["draft"].limitations


# ---------------------------------------------------------------- the recorded corpus

@pytest.fixture(scope="module")
def replay_env(tmp_path_factory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    with ReplayServer.default() as server, server.environment(
            SCHOLARGRAPH_HOME=str(home), SCHOLARGRAPH_RATE_SCALE="1000"):
        yield home


@pytest.fixture(scope="module")
def deterministic(replay_env, tmp_path_factory) -> tuple[Report, Path]:
    out = tmp_path_factory.mktemp("deterministic")
    return review(QUESTION, sources=SOURCES, out=out, max_iterations=1), out


def llm_draft(report: Report) -> Draft:
    """A model's draft written from the deterministic run's passages: each finding paraphrases
    a quote and adds one sentence no passage supports; one finding cites an invented passage."""
    findings = [Finding(text=f"The authors report that {f.quotes[0].text.rstrip('.')}. "
                             "This settles the question for every population worldwide.",
                        passage_ids=f.passage_ids, sub_question_id=f.sub_question_id)
                for f in report.findings if f.kind == "finding"]
    findings.append(Finding(text="Screening cures pancreatic cancer.",
                            passage_ids=["doi:10.9999/invented#abstract:0-10"]))
    return Draft(summary="What the recorded works say about variants and screening.",
                 findings=findings, gaps=["No trial of genetic screening."])


@pytest.fixture(scope="module")
def with_model(replay_env, deterministic, tmp_path_factory) -> tuple[Report, Path]:
    """The LLM engine over the same corpus: the scripted model's replies to the planning agents
    are malformed (so they fall back, and search exactly as the deterministic run did); its
    draft is ``llm_draft``; its evaluation judgement is malformed too."""
    out = tmp_path_factory.mktemp("llm")
    # one round: intent, planning and query generation each refuse twice (a retry, then the
    # fallback), synthesis gets the draft, evaluation refuses twice
    replies = [malformed_reply("Anything")] * 6 + [structured_reply(llm_draft(deterministic[0]))]
    model = ScriptedChatModel(responses=replies + [malformed_reply("Anything")] * 2)
    report = review(QUESTION, sources=SOURCES, out=out, chat_model=model,
                    max_iterations=1)
    assert model.remaining == 0
    return report, out


@pytest.fixture(params=["deterministic", "with_model"])
def finished(request, replay_env) -> tuple[Report, Path]:
    # replay_env named here: the module's server variables are set before the test's own
    # fixtures, not half-way through them by getfixturevalue
    return request.getfixturevalue(request.param)


def test_every_citation_resolves_to_an_included_work(finished):
    _, out = finished
    data = json.loads((out / "review.json").read_text(encoding="utf-8"))
    included = {paper["id"] for paper in data["papers"]}
    references = {ref["number"]: ref for ref in data["references"]}
    passages = {p["id"]: p for p in data["passages"]}
    assert data["findings"]
    for finding in data["findings"]:
        assert finding["citations"] and finding["passage_ids"]
        assert {references[n]["work_id"] for n in finding["citations"]} <= included
        for passage_id in finding["passage_ids"]:
            assert passages[passage_id]["work_id"] in included
            assert any(passage_id in references[n]["passage_ids"] for n in finding["citations"])


def test_every_quote_is_verbatim_in_its_source(finished):
    report, _ = finished
    by_id = {p.id: p for p in report.passages}
    for finding in report.findings:
        assert_verbatim(finding, by_id)
        work = report.work(by_id[finding.quotes[0].passage_id].work_id)
        source = work.abstract if by_id[finding.quotes[0].passage_id].section == "abstract" \
            else work.full_text or work.title
        for quote in finding.quotes:
            passage = by_id[quote.passage_id]
            assert source[passage.start + quote.start:passage.start + quote.end] == quote.text


def test_deterministic_findings_are_the_quotes_themselves(deterministic):
    report, _ = deterministic
    for finding in report.findings:
        if finding.kind == "finding":
            assert [q.text for q in finding.quotes] == [finding.text]


def test_the_llm_engine_reports_what_its_check_removed(with_model, deterministic):
    report, _ = with_model
    quoted = [f for f in deterministic[0].findings if f.kind == "finding"]
    written = [f for f in report.findings if f.kind == "finding"]
    assert report.engine.model == "ScriptedChatModel" and len(written) == len(quoted)
    assert not any("settles the question" in f.text for f in written)
    sentences = f"{len(quoted)} unsupported sentence{'' if len(quoted) == 1 else 's'}"
    assert f"synthesis: removed {sentences} from model-written findings" in report.notes
    assert "synthesis: removed 1 model-written finding without support in the passages " \
           "they cite" in report.notes


def read_ris(text: str) -> list[dict[str, list[str]]]:
    """RIS by its specification: 'TAG  - value' lines, a record from TY to ER."""
    records: list[dict[str, list[str]]] = []
    for line in text.splitlines():
        match = re.match(r"^([A-Z][A-Z0-9])  - ?(.*)$", line)
        if not match:
            continue
        tag, value = match.groups()
        if tag == "TY":
            records.append({})
        if tag != "ER":
            records[-1].setdefault(tag, []).append(value.strip())
    return records


def test_exports_parse_and_hold_the_works_of_review_json(finished):
    _, out = finished
    data = json.loads((out / "review.json").read_text(encoding="utf-8"))
    papers = {paper["id"]: paper for paper in data["papers"]}
    cited = [papers[ref["work_id"]] for ref in sorted(data["references"],
                                                      key=lambda ref: ref["number"])]
    dois = [paper["doi"] for paper in cited]
    bib = parse_string((out / "references.bib").read_text(encoding="utf-8"), "bibtex")
    assert [entry.fields.get("doi") for entry in bib.entries.values()] == dois
    ris = read_ris((out / "references.ris").read_text(encoding="utf-8"))
    assert [record.get("DO", [None])[0] for record in ris] == dois
    csl = CiteProcJSON(json.loads((out / "references.csl.json").read_text(encoding="utf-8")))
    assert [str(item.get("DOI")) if "DOI" in item else None for item in csl.values()] == dois
    assert len(csl) == len(bib.entries) == len(ris) == len(cited) > 0


def test_gaps_count_the_included_works_in_words() -> None:
    """A review of one work says "of the one included work", not "among the 1 included work";
    of none or of several, the count stays."""
    subs = [SubQuestion(id="q1", text="What methods were used?", answer_shape="methods")]
    one, none, three = (evidence_gaps(subs, [], n) for n in (1, 0, 3))
    assert "No passage of the one included work addresses: What methods were used?" in one
    assert "No passage (no work was included) addresses: What methods were used?" in none
    assert "No passage among the 3 included works addresses: What methods were used?" in three


def test_works_contradict_by_their_results_not_by_an_open_question_a_design_or_an_aim():
    """A claim's review of a knee-osteoarthritis library set a study's result against another
    study's open question, design and aim: three contradictions, none real."""
    sub = SubQuestion(id="q1", text="whether stem cell injection reduces pain in knee "
                      "osteoarthritis", answer_shape="direct evidence")
    result = ("Intra-articular injection of stem cells was effective for reducing pain in "
              "patients with knee osteoarthritis.")
    others = ("However, it is not known what would better drive osteoarthritis stabilization: "
              "injection or implantation. A prospective randomized controlled clinical trial was "
              "carried out in 120 knees of 60 patients with a similar osteoarthritis grade. "
              "We investigated whether stem cell implantation would improve osteoarthritis.")
    candidates = [c for name, text in (("a", result), ("b", others))
                  for c in quotable(Passage(id=f"{name}#abstract:0-{len(text)}", work_id=name,
                                            text=text, start=0, end=len(text),
                                            section="abstract"), 2020)]
    assert len(candidates) == 4
    pool = stance_pool(sub, candidates)
    assert [f.text for f in pool] == [result]
    assert contradictions(pool) == []


def test_summary_says_when_a_section_without_direct_evidence_still_quotes_findings():
    """"No direct evidence was found for" a sub-question whose section quotes a finding reads as
    the summary contradicting the review, unless it says the finding answers it indirectly."""
    methods = SubQuestion(id="q2", text="What methods have been used to study aspirin and stroke?",
                          answer_shape="methods")
    harms = SubQuestion(id="q3", text="What harms does aspirin cause?", answer_shape="harms")
    quoted = Finding(text="Stroke registries were linked to prescriptions.",
                     passage_ids=["a#0-1"], sub_question_id="q2")
    line = no_direct_evidence_line([methods, harms], [quoted])
    assert line == ("No direct evidence was found for: \u201cWhat methods have been used to study "
                    "aspirin and stroke?\u201d (the findings quoted under it answer it only "
                    "indirectly); \u201cWhat harms does aspirin cause?\u201d.")


def test_a_capitalised_label_before_a_number_is_cut_off_and_read() -> None:
    """"RESULTS 412 patients had a stroke" opens with its label, as "RESULTS: Daily aspirin" does;
    the figure after it does not hide the label (the sentence is a labelled result, quoted
    without its label), and "PARTICIPANTS 4,210 adults" is a method, as the sample a Results
    label opens on is."""
    text = ("PARTICIPANTS 4,210 adults aged over 50 years in 12 clinics. "
            "RESULTS 412 patients had an ischaemic stroke within five years.")
    passage = Passage(id="w#abstract:0", work_id="w", text=text, start=0, end=len(text),
                      section="abstract")
    participants, results = quotable(passage, 2021)
    assert participants.labelled and participants.facets == {"method"}
    assert participants.quote.text.startswith("4,210 adults")
    assert results.labelled and results.facets == {"result"}
    assert results.quote.text.startswith("412 patients")
    sampled = "RESULTS A total of 4,210 adults from 12 clinics were included."
    sample, = quotable(Passage(id="v#abstract:0", work_id="v", text=sampled, start=0,
                               end=len(sampled), section="abstract"), 2021)
    assert sample.labelled and sample.facets == {"method"}


def test_the_people_a_results_label_opens_on_are_the_sample_not_a_result() -> None:
    """"Results: We identified 56 PWH that started the drug" counts who the study took in; a
    qualitative study's "We identified 14 categories" is what it found, and a count of people
    with a figure of what befell them is a result."""
    def facets(text: str) -> list[frozenset[str]]:
        passage = Passage(id="w#abstract:0", work_id="w", text=text, start=0, end=len(text),
                          section="abstract")
        return [c.facets for c in quotable(passage, 2021)]

    assert facets("Results: We identified 56 PWH that started prophylaxis in 2019.") == [
        {"method"}]
    assert facets("RESULTS We identified a total of 47 adult users with a year of claims.") == [
        {"method"}]
    assert facets("RESULTS We included 23 trials with 4,100 participants.") == [{"method"}]
    assert facets("RESULTS We identified 14 categories of misunderstanding.") == [{"result"}]
    assert facets("RESULTS We identified 1,204 women with breast cancer, of whom 12% "
                  "relapsed.") == [{"result"}]


def test_a_result_stated_with_its_abstracts_abbreviations_names_the_claims_terms() -> None:
    """"Current PPI users had a higher rate of CAP" names no word of a claim on proton pump
    inhibitors and community-acquired pneumonia as written; its abstract wrote both out, so the
    sentence is the study's result on the claim, ranked and quotable."""
    claim = SubQuestion(id="q1", text="Proton pump inhibitor use increases the risk of "
                        "community-acquired pneumonia.", answer_shape="cohort studies")
    text = ("We followed adults prescribed a proton pump inhibitor (PPI) for community-acquired "
            "pneumonia (CAP) over five years. Current PPI users had a higher rate of CAP than "
            "non-users (rate ratio 1.5, 95% CI 1.3 to 1.8).")
    passage = Passage(id="w#abstract:0", work_id="w", text=text, start=0, end=len(text),
                      section="abstract", sub_question_id="q1", score=1.0)
    ranked = rank_candidates(claim, [passage], ["proton pump inhibitor", "pneumonia"], {"w": 2020})
    assert any(c.quote.text.startswith("Current PPI users") for c in ranked)
