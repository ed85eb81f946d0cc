"""A review of a topic cites each included work that states a result, by the sentence stating
it, under the sub-question it answers; background, aims and methods are never its findings
(issue 22, items 1 and 3).

Over the recorded corpus the README's review ("machine learning for public health
surveillance") once included 16 works and quoted 2 of them, by three background sentences
("The decade since then has seen major trends in the digital world..."). The checks below are
a reader's: which works state a result is read from their abstracts with a reader's words, not
with the code's cues.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scholargraph import review
from scholargraph.agents.schemas import Finding, SubQuestion
from scholargraph.deterministic.extractive import (
    PAPER_DOES,
    extractive_draft,
    opinion_gap,
    opinion_piece,
    quotable,
    reports_no_study,
    results_of_uncited,
    study_protocol,
    summary_passages,
    unquoted_results_gap,
)
from scholargraph.records import Passage, Work
from scholargraph.report import Report

QUESTION = "machine learning for public health surveillance"

SECTION = re.compile(r"\b(BACKGROUND|Background|OBJECTIVES?|Objectives?|METHODS?|Methods?|"
                     r"RESULTS?|Results?|CONCLUSIONS?|Conclusions?)\b:?\s")
"""A structured abstract's section labels, as a reader sees them."""
REPORTS_RESULT = re.compile(
    r"\b(we found|found that|shows?|showed|demonstrat(?:e|es|ed)|revealed|achieved|"
    r"indicate[sd]?|suggest(?:s|ed)?)\b", re.IGNORECASE)
"""Words by which a reader recognises a sentence stating a result."""
SETS_THE_SCENE = re.compile(
    r"\b(has seen|have seen|in recent years|the (?:main )?objective|we aimed|this work aims|"
    r"aim of this)\b", re.IGNORECASE)


def section_of(abstract: str, sentence: str) -> str | None:
    """The label of the structured-abstract section a sentence lies in, lower-cased; None for
    an unstructured abstract (or a sentence before any label)."""
    at = abstract.find(sentence)
    labels = [m.group(1).lower().rstrip("s") for m in SECTION.finditer(abstract[:at + 1])]
    return labels[-1] if labels else None


COMMENTARY = re.compile(r"(?<![A-Za-z])In this commentary\b|\band colleagues present\b"
                        r"|\bthis chapter offers a preview of the \w+ issues\b", re.IGNORECASE)
"""How a commentary says what it is (after a reference number, too: "structures.3In this
commentary"), that it presents another group's study ("... Lo-Ciganic and colleagues
present ...") or that it discusses issues ("This chapter offers a preview of the philosophical
issues ..."): it reports no study of its own, whatever words it uses."""
PROTOCOL_SAYS = re.compile(r"\bresults are expected\b|\bprotocol$", re.IGNORECASE | re.MULTILINE)
"""How a study protocol says it has no result yet (or its title ends in its kind)."""


ON_THE_TOPIC = re.compile(r"\b(machine learning|ML|public health|health|surveillance)\b",
                          re.IGNORECASE)
"""The words by which a reader sees that a sentence is about the question's topic."""


def states_a_result(work: Work) -> bool:
    """A reader's judgement: the abstract has a Results or Conclusions section, or a sentence
    with a word that reports a finding on the topic (naming one of its words), and the work is
    not a commentary. A result on something else ("the equilibrium point is stable", in a study
    of modelling and machine learning for breast-cancer care) is no result on the topic."""
    abstract = work.abstract or ""
    if COMMENTARY.search(abstract) or PROTOCOL_SAYS.search(f"{work.title}\n{abstract}"):
        return False
    labelled = any(m.group(1).lower().startswith(("result", "conclusion"))
                   for m in SECTION.finditer(abstract))
    return labelled or any(REPORTS_RESULT.search(sentence) and ON_THE_TOPIC.search(sentence)
                           for sentence in re.split(r"(?<=[.!?])\s+", abstract))


def cited_works(report: Report) -> set[str]:
    by_id = {p.id: p for p in report.passages}
    return {by_id[pid].work_id for f in report.findings if f.kind == "finding"
            for pid in f.passage_ids}


@pytest.fixture(scope="module")
def topic_review(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Path]:
    home = tmp_path_factory.mktemp("topic-home")
    out = tmp_path_factory.mktemp("topic-review")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCHOLARGRAPH_HOME", str(home))
        return review(QUESTION, offline=True, out=out), out


def test_each_included_work_stating_a_result_is_cited(topic_review):
    report, _ = topic_review
    with_results = {w.id for w in report.papers if states_a_result(w)}
    cited = cited_works(report)
    assert len(with_results) >= 5, "the recorded corpus changed: fewer works state results"
    assert with_results <= cited, [w.title for w in report.papers
                                   if w.id in with_results - cited]


def test_no_finding_quotes_a_protocol_or_a_commentary_on_another_study(topic_review):
    """The README review includes a study protocol, whose "CONCLUSIONS Rigorous evaluations of
    digital health programs are limited ..." restates the case for a study yet to report, and
    a comment presenting another group's opioid-overdose model, whose C-statistics are that
    study's: neither is quoted, and the gaps say why."""
    report, _ = topic_review
    silent = [w for w in report.papers
              if PROTOCOL_SAYS.search(w.title) or COMMENTARY.search(w.abstract or "")]
    assert len(silent) >= 2, "the recorded corpus changed: no protocol or commentary on a study"
    assert not {w.id for w in silent} & cited_works(report)
    gaps = " ".join(report.gaps)
    assert "study protocol" in gaps and "commentaries" in gaps
    for work in silent:
        assert work.title[:40] in gaps, work.title


def test_no_finding_is_background_aims_or_methods(topic_review):
    report, _ = topic_review
    subs = {s.id: s for s in report.sub_questions}
    by_id = {p.id: p for p in report.passages}
    findings = [f for f in report.findings if f.kind == "finding"]
    assert findings
    for finding in findings:
        text = finding.quotes[0].text
        work = report.work(by_id[finding.passage_ids[0]].work_id)
        assert not PAPER_DOES.search(text), text
        assert not SETS_THE_SCENE.search(text), text
        section = section_of(work.abstract or "", text)
        assert section not in ("background", "objective"), text
        asks_methods = "method" in subs[finding.sub_question_id or ""].text.lower()
        if not asks_methods:
            assert section != "method", text


def test_the_sub_questions_asking_for_results_are_answered_by_several_works(topic_review):
    report, _ = topic_review
    by_id = {p.id: p for p in report.passages}
    for sub in report.sub_questions:
        if "method" in sub.text.lower():
            continue
        works = {by_id[pid].work_id for f in report.findings
                 if f.sub_question_id == sub.id and f.kind == "finding" for pid in f.passage_ids}
        assert len(works) >= 3, sub.text
    assert f"\u201c{report.sub_questions[0].text}\u201d" not in report.summary


def test_every_quoted_passage_is_in_the_review_and_verbatim(topic_review):
    report, out = topic_review
    data = (out / "review.json").read_text(encoding="utf-8")
    by_id = {p.id: p for p in report.passages}
    for finding in report.findings:
        for quote in finding.quotes:
            passage = by_id[quote.passage_id]
            assert passage.text[quote.start:quote.end] == quote.text
            source = report.work(passage.work_id).abstract or ""
            assert source[passage.start + quote.start:passage.start + quote.end] == quote.text
            assert quote.passage_id in data


# ---------------------------------------------------------------- the rule on its own

def _work(name: str, year: int, abstract: str) -> Work:
    return Work(title=f"Machine learning for {name}", doi=f"10.1000/{name}", year=year,
                abstract=abstract, sources=["pubmed"])


SUB = SubQuestion(id="q1", text=f"What do studies report on {QUESTION}?",
                  answer_shape="direct evidence on the question")
SCREENING = _work("screening", 2018,
                  "Objective: We aimed to predict suicide ideation in the general population. "
                  "Methods: A random forest was trained on 11,628 survey respondents. "
                  "Results: The model reached an AUC of 0.85 in the test set. Conclusion: "
                  "Machine learning can enable screening for suicide risk in public health "
                  "surveillance.")
PROTOCOL = _work("protocol", 2019,
                 "Background: Digital health programmes generate big data. Methods: Data are "
                 "drawn from system databases. Results: The results are expected to be "
                 "published in 2019.")


def test_an_uncited_works_result_is_its_conclusion_and_a_protocol_states_none():
    found = results_of_uncited([SUB], [SCREENING, PROTOCOL], {SCREENING.id, PROTOCOL.id}, [],
                               ["machine learning", "public health surveillance"],
                               set()).findings
    assert [f.text for f in found] == [
        "Machine learning can enable screening for suicide risk in public health surveillance."]
    assert found[0].sub_question_id == "q1"
    assert found[0].passage_ids[0].startswith(SCREENING.id)


def test_a_work_already_cited_is_not_cited_again():
    passage = summary_passages(SCREENING)[0]
    quoted = next(c for c in quotable(passage, 2018) if "AUC" in c.quote.text)
    earlier = [quoted.finding("q1")]
    assert results_of_uncited([SUB], [SCREENING], {SCREENING.id}, earlier,
                              ["machine learning"], set()).findings == []


def test_past_the_limit_the_closest_works_are_quoted_and_the_gap_counts_the_rest():
    """A large library's topic review quotes the results of the works listed first (closest to
    the question) and says how many more state one, instead of a finding for each of hundreds."""
    studies = [_work(f"screening-{n}", 2010 + n,
                     f"Methods: A random forest was trained on {n + 100} survey respondents. "
                     f"Results: The model reached an AUC of 0.8{n} in cohort {n}.")
               for n in range(4)]
    ids = {work.id for work in studies}
    keywords = ["machine learning", "public health surveillance"]
    used: set[str] = set()
    found = results_of_uncited([SUB], studies, ids, [], keywords, used, limit=2)
    assert [f.passage_ids[0].split("#")[0] for f in found.findings] == [studies[0].id,
                                                                          studies[1].id]
    assert unquoted_results_gap(found.left, limit=2) == [
        "2 more included works state a result on the topic that is not quoted here: beside "
        "the sub-questions' own findings, the review quotes the results of the 2 works closest "
        "to the question. \"Included works\" lists every included work, closest first."]
    everything = results_of_uncited([SUB], studies, ids, [], keywords, set(), limit=10)
    assert len(everything.findings) == 4
    assert unquoted_results_gap(everything.left) == []


def test_a_topic_draft_cites_the_work_the_filter_kept_no_passage_of():
    """The RAG filter kept only the protocol's background; the screening study is included but
    none of its passages was kept: the draft still cites its result."""
    kept = Passage(id=f"{PROTOCOL.id}#abstract:0-50", work_id=PROTOCOL.id,
                   text=(PROTOCOL.abstract or "")[:50], start=0, end=50, sub_question_id="q1",
                   score=1.0)
    draft = extractive_draft([SUB], [kept], [SCREENING, PROTOCOL],
                             ["machine learning", "public health surveillance"])
    quoted = [f for f in draft.findings if f.kind == "finding"]
    assert any(f.text.startswith("Machine learning can enable screening") for f in quoted)
    assert not any(f.text.startswith(("Digital health programmes", "The results are expected"))
                   for f in quoted)
    assert all(isinstance(f, Finding) and f.sub_question_id == "q1" for f in quoted)


def test_a_protocol_and_a_comment_on_another_study_report_nothing_of_their_own():
    protocol = Work(title="Machine learning in digital health programmes: an exploratory protocol",
                    abstract="CONCLUSIONS Rigorous evaluations of digital health programmes are "
                             "limited.", year=2019)
    comment = Work(title="Opportunities for overdose prediction", year=2022,
                   abstract="In a prognostic study, Lo-Ciganic and colleagues present a "
                            "machine-learning algorithm. Their model performed well.")
    study = Work(title="Use of machine learning to predict suicide ideation", year=2018,
                 abstract="We trained a random forest. Patients and colleagues were surveyed. "
                          "The model reached an AUC of 0.85.")
    assert study_protocol(protocol) and not study_protocol(study)
    assert opinion_piece(comment) and not opinion_piece(study)
    assert opinion_gap([comment], [protocol]) == [
        "1 included work is a commentary or opinion piece and reports no study of its own; no "
        "finding quotes it: Opportunities for overdose prediction (2022).",
        "1 included work is a study protocol and reports no results yet; no finding quotes it: "
        "Machine learning in digital health programmes: an exploratory protocol (2019)."]


def test_a_work_whose_results_name_nothing_of_the_topic_is_not_quoted_for_it():
    """A study of "mathematical modelling and machine learning" for a cancer-care question
    whose one result sentence is on its model's steady state states no result on machine
    learning for public health surveillance; a result stated with the question's
    abbreviation ("ML"), or one the abstract defines, is on the topic, and so is a measured
    result of a study whose title names the topic ("the model achieved an AUC of 0.85")."""
    keywords = ["machine learning", "public health surveillance"]
    model = _work("cancer-care decisions", 2021,
                  "In this work, we used a support vector machine to classify tumours and built a "
                  "compartment model of patient flows. Numerical simulations were run around the "
                  "steady state. The simulations revealed that the steady state is stable for "
                  "any starting values.")
    assert results_of_uncited([SUB], [model], {model.id}, [], keywords, set()).findings == []
    abbreviated = Work(title="Influenza alerts from clinic visit counts", year=2022,
                       doi="10.1000/alerts", abstract="We trained gradient boosting on clinic "
                       "visit counts. The alerts were sent to 40 clinics. The ML alerts "
                       "detected 90% of influenza outbreaks before the official reports.")
    found = results_of_uncited([SUB], [abbreviated], {abbreviated.id}, [], keywords,
                               set()).findings
    assert [f.text for f in found] == [
        "The ML alerts detected 90% of influenza outbreaks before the official reports."]
    measured = _work("suicide screening", 2018, "A random forest was trained on survey "
                     "answers. The model achieved an AUC of 0.85 in the test set.")
    found = results_of_uncited([SUB], [measured], {measured.id}, [], keywords, set()).findings
    assert [f.text for f in found] == ["The model achieved an AUC of 0.85 in the test set."]
    therapy = SubQuestion(id="q1", text="What do studies report on psychotherapy for borderline "
                          "personality disorder?", answer_shape="direct evidence")
    trial = Work(title="A randomised trial of dialectical behaviour therapy", year=2015,
                 doi="10.1000/dbt", abstract="Adults with borderline personality disorder (BPD) "
                 "were randomised to therapy or usual care. Self-harm fell by 40% in BPD "
                 "patients given therapy. The waiting room was found to be 20% warmer.")
    found = results_of_uncited([therapy], [trial], {trial.id}, [],
                               ["borderline personality disorder"], set()).findings
    assert [f.text for f in found] == ["Self-harm fell by 40% in BPD patients given therapy."]


def test_a_work_saying_it_discusses_issues_reports_no_study_and_its_argument_is_no_finding():
    """"This chapter offers a preview of the issues ..." is a discussion: its closing "we
    suggest that X may ..." is the authors' argument (the README's review quoted one as a
    finding); a study that discusses its issues after a result is still a study."""
    essay = Work(title="Wearable sensors and occupational health", year=2021,
                 abstract="Wearables are spreading in workplaces. This chapter offers a preview "
                          "of the ethical issues that arise when employers monitor workers. "
                          "Finally, we suggest that wearables may shift power to employers.")
    study = Work(title="Wearable sensors and injury rates", year=2021,
                 abstract="We followed 420 warehouse workers for a year. Injury rates fell by "
                          "a fifth among those wearing sensors. We discuss the issues this "
                          "raises for consent.")
    assert opinion_piece(essay) and reports_no_study(essay)
    assert not opinion_piece(study) and not reports_no_study(study)
