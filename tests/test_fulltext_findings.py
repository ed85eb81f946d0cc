"""Findings of a work read in full: its own results, never another study's, never its aims.

Over the recorded full texts (``scholargraph/testing/fixtures/fulltext``): the JATS articles of
PMC and a publisher's PDF, read as a library gives them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scholargraph import review
from scholargraph.agents.rag_filter import with_abstracts
from scholargraph.agents.schemas import SubQuestion
from scholargraph.deterministic.extractive import (
    CITED,
    PAPER_DOES,
    full_titles,
    others_statement,
    quotable,
    rank_candidates,
    states_finding,
)
from scholargraph.deterministic.relevance import OWN_SECTIONS, THIS_WORK, own_report
from scholargraph.rag.chunking import chunk_work
from scholargraph.records import Passage, Work
from scholargraph.sources.library import load_library
from scholargraph.testing import fixture_path

TRIAL = "fulltext/pmc/biotext_PMC4816447.xml"
FULL_TEXTS = [TRIAL, "fulltext/pmc/s2orc-doc2json_PMC6398430.nxml",
              "fulltext/pmc/pubmed-client_oai_PMC10653940.xml",
              "fulltext/publisher/s2orc-doc2json_N18-3011.pdf"]
QUESTION = "Does erlotinib improve survival in EGFR-mutant non-small cell lung cancer?"


def read_in_full(name: str, tmp_path: Path) -> Work:
    """The one work of a recorded full text, read as a library file."""
    source = fixture_path(name)
    copy = tmp_path / f"work{'.nxml' if source.suffix == '.nxml' else source.suffix}"
    shutil.copy(source, copy)
    [work] = load_library(copy)
    assert work.full_text_spans
    return work


@pytest.mark.parametrize("name", FULL_TEXTS)
def test_a_sentence_citing_other_studies_is_never_a_finding(name: str, tmp_path: Path) -> None:
    """Asked for the findings on its own title, a work read in full is quoted only for what it
    reports itself: no sentence citing others without naming its own work, none from its
    Introduction or Discussion that does not name it, none saying only what the paper does."""
    work = read_in_full(name, tmp_path)
    sub = SubQuestion(id="q1", text=f"What are the main findings of studies on {work.title}?",
                      answer_shape="reported results")
    passages = chunk_work(work)
    ranked = rank_candidates(sub, passages, [work.title], {work.id: work.year},
                             read_in_full=full_titles([work]))
    assert ranked, "the work's own results are quotable"
    sections = {p.id: p.section for p in passages}
    for candidate in ranked:
        text, section = candidate.quote.text, sections[candidate.quote.passage_id]
        assert not others_statement(section, text)
        assert THIS_WORK.search(text) or not CITED.search(text), text
        assert not PAPER_DOES.search(text), text
    others = [c for p in passages for c in quotable(p, work.year) if "others" in c.facets]
    assert all(sections[c.quote.passage_id] != "abstract" for c in others)


def test_the_trials_discussion_of_another_drug_is_set_apart(tmp_path: Path) -> None:
    """The erlotinib trial's Discussion reports afatinib's trials with their references: those
    sentences are other studies', while the Discussion's sentence on 'the current study' and
    the Conclusion's stay the trial's own."""
    work = read_in_full(TRIAL, tmp_path)
    candidates = [(p.section, c) for p in chunk_work(work) for c in quotable(p, work.year)]
    others = [c.quote.text for _, c in candidates if "others" in c.facets]
    own = [c.quote.text for section, c in candidates if own_report(section, c.quote.text)
           and "others" not in c.facets]
    assert any(text.startswith("Afatinib resulted in a major improvement") for text in others)
    assert any("in the current study" in text for text in own)
    assert any("well tolerated and highly effective" in text for text in own)


def test_a_work_read_in_full_is_heard_through_its_abstract(tmp_path: Path) -> None:
    """A Discussion passage chosen for a sub-question brings its work's abstract with it,
    ranked after it; a work known only by its abstract brings nothing more."""
    work = read_in_full(TRIAL, tmp_path)
    passages = chunk_work(work)
    discussion = next(p for p in passages if p.section == "Discussion")
    chosen = [discussion.model_copy(update={"score": 0.8, "sub_question_id": "q1"})]
    kept = with_abstracts(chosen, {work.id: work})
    abstract = [p for p in passages if p.section == "abstract"]
    assert kept[0] == chosen[0]
    assert [p.id for p in kept[1:]] == [p.id for p in abstract] and abstract
    assert all(p.score == 0.8 and p.sub_question_id == "q1" for p in kept[1:])
    only_abstract = work.model_copy(update={"full_text": None, "full_text_spans": []})
    first = abstract[0].model_copy(update={"score": 0.5, "sub_question_id": "q1"})
    assert with_abstracts([first], {work.id: only_abstract}) == [first]


@pytest.mark.parametrize(("sentence", "aim"), [
    ("The study further clarifies the impact of first-line treatment in these patients.", True),
    ("We report on the long-term results of first-line treatment in these patients.", True),
    ("In the previous sections, we discussed how we construct the graph.", True),
    ("We report that first-line treatment lengthened survival in these patients.", False),
    ("In the following, as background information, we briefly describe how word embeddings can "
     "be trained on citation graphs.", True),
    ("In the remainder of this paper we explain how the index is kept up to date.", True),
    ("We briefly describe the three cohorts the pipeline was run on.", True),
    ("Finally, we present examples that demonstrate how the toolkit can model crop rotations.",
     True),
    ("We give two use cases showing how curators query the graph.", True),
    ("We show that citation-informed pretraining reduced the error by 30% on four tasks.", False),
    ("We give examples in which the new schedule cut waiting times by 25%.", False),
    ("We present evidence that the toolkit models crop rotations more faithfully.", False),
])
def test_a_sentence_saying_what_the_paper_does_is_never_a_finding(sentence: str,
                                                                   aim: bool) -> None:
    passage = Passage(id=f"w#abstract:0-{len(sentence)}", work_id="w", text=sentence, start=0,
                      end=len(sentence), section="abstract")
    [candidate] = quotable(passage, 2020)
    assert ("aim" in candidate.facets) is aim


def test_a_figure_caption_is_a_passage_of_its_own_and_never_a_finding(tmp_path: Path) -> None:
    """The trial's Kaplan-Meier figure caption, in the Results beside the paragraphs reporting
    survival, was quoted as a finding when it was joined to them: it is now a passage of its
    own, of kind 'caption', still retrieved, and none of its sentences is ranked as a finding
    while the Results' own sentences are."""
    work = read_in_full(TRIAL, tmp_path)
    passages = chunk_work(work)
    [caption] = [p for p in passages if "Kaplan-Meier curves" in p.text]
    assert caption.kind == "caption" and caption.section == "Results > Efficacy"
    spans = [s for s in work.full_text_spans if s.kind == "caption"]
    assert any(s.start <= caption.start and caption.end <= s.end for s in spans)
    prose = [p for p in passages if p.section == caption.section and p.kind == "paragraph"]
    assert prose, "the Results' paragraphs are passages of their own"
    [candidate] = [c for c in quotable(caption, work.year) if "Kaplan-Meier" in c.quote.text]
    assert candidate.facets == {"caption"}
    assert not states_finding(candidate, {"result"})
    sub = SubQuestion(id="q1", text="What overall and progression free survival did the FIELT "
                      "cohort reach?", answer_shape="reported results")
    ranked = rank_candidates(sub, passages, ["survival", "FIELT"], {work.id: work.year},
                             read_in_full=full_titles([work]))
    assert ranked and all(c.quote.passage_id != caption.id for c in ranked)
    assert any(c.quote.passage_id in {p.id for p in prose} for c in ranked)


def test_a_review_of_a_trial_read_in_full_quotes_its_results(tmp_path: Path) -> None:
    """The README's offline example: each sub-question is answered from the trial's own
    abstract, methods, results or conclusions (the question itself from the abstract or a
    section reporting the trial, not the Discussion of others' trials), and the summary counts
    each as direct evidence."""
    report = review(QUESTION, offline=True, sources=["library", "pubmed"], out=tmp_path / "out",
                    library=str(fixture_path(TRIAL)))
    passages = {p.id: p for p in report.passages}
    findings = [f for f in report.findings if f.kind == "finding"]
    assert {f.sub_question_id for f in findings} == {s.id for s in report.sub_questions}
    for finding in findings:
        for quote in finding.quotes:
            section = passages[quote.passage_id].section
            assert own_report(section, quote.text), (section, quote.text)
            assert not PAPER_DOES.search(quote.text)
    direct = next(f for f in findings if f.sub_question_id == report.sub_questions[0].id)
    assert all(OWN_SECTIONS.match(passages[q.passage_id].section) for q in direct.quotes)
    assert "No direct evidence" not in report.summary
    # one work, read in full: the summary read "screened 1 works" and the limitations
    # "1 of 1 included works were read in full...; the others rest on their abstracts"
    assert report.summary.startswith(
        "This review asks whether erlotinib improves survival in EGFR-mutant non-small cell "
        "lung cancer. It screened 1 work, included 1,")
    text = (tmp_path / "out" / "review.md").read_text(encoding="utf-8")
    assert "The included work was read in full" in text
    assert "the others rest" not in text and "1 works" not in text
    # its gaps said "Only one work speaks to: ..." once per sub-question, three times over
    assert not any(gap.startswith("Only one work speaks to") for gap in report.gaps)
    assert sum("rests on one work" in gap for gap in report.gaps) == 1
    # the web page's reference gave the DOI twice: the APA reference's link, then "doi:..."
    page = (tmp_path / "out" / "review.html").read_text(encoding="utf-8")
    reference = page.split('<li id="ref-1">', 1)[1].split("</li>", 1)[0]
    assert reference.count('href="https://doi.org/10.1371/journal.pone.0147599"') == 1
    assert "PubMed 27032107" in reference


def test_a_review_that_includes_nothing_says_so_plainly(tmp_path: Path) -> None:
    """The recorded web page holds nothing on CRISPR: the summary read 'This review screened 20
    works, included 0, and cites 0 of them in 0 findings' and each gap 'No passage among the 0
    included works addresses: ...'."""
    report = review("CRISPR off-target effects", offline=True, sources=["web"],
                    out=tmp_path / "out")
    assert report.counts.included == 0 and report.counts.screened > 1
    assert f"screened {report.counts.screened} works and included none" in report.summary
    assert "0 findings" not in report.summary and "cites 0" not in report.summary
    assert not any("the 0 included" in line for line in report.gaps)


CLAIM = "Erlotinib improves survival in EGFR-mutant non-small cell lung cancer."


@pytest.fixture(scope="module")
def trial_reviews(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The erlotinib trial reviewed from a library, once as a claim and once as the yes/no
    question asking it."""
    reviews = {}
    for text in (CLAIM, QUESTION):
        home = tmp_path_factory.mktemp("home")
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("SCHOLARGRAPH_HOME", str(home))
            reviews[text] = review(text, offline=True, sources=["library", "pubmed"],
                                   out=home / "out", library=str(fixture_path(TRIAL)))
    return reviews


@pytest.mark.parametrize("asked", [CLAIM, QUESTION])
def test_a_trial_judged_highly_effective_supports_the_claim_asked_either_way(
        trial_reviews: dict, asked: str) -> None:
    """The trial's Conclusion ("erlotinib was well tolerated and highly effective") or its
    Results against earlier trials ("compare favorably") point the claim's way: the review says
    the study supports it, quoting the trial's own sentence, whether the reader typed the claim
    or asked the yes/no question; the question keeps the works it includes."""
    report = trial_reviews[asked]
    [study] = report.stances
    assert [work.id for work in report.papers] == [study.work_id]
    assert study.reading == "supports"
    assert study.quote is not None
    assert "highly effective" in study.quote.text or "compare favorably" in study.quote.text
    # the question's balance names what it asks; no claim was typed
    said = "the claim" if asked == CLAIM else (
        "that erlotinib improves survival in EGFR-mutant non-small cell lung cancer")
    assert report.summary.endswith(f"The one included study supports {said} [1].")


def test_every_included_study_of_a_claim_is_heard_under_the_claim_itself():
    """A claim over a large library includes studies of which the ranker kept no passage; their
    abstracts are heard under the claim's own sub-question, so each is read for its stance
    rather than counted as finding neither way unread. A piece already kept is not heard
    twice, and a topic's passages are left as they are."""
    from scholargraph.agents.rag_filter import with_every_study
    from scholargraph.agents.schemas import SubQuestion
    from scholargraph.deterministic.extractive import summary_passages

    claim = ("Intra-articular injection of mesenchymal stem cells reduces pain in knee "
             "osteoarthritis.")
    subs = [SubQuestion(id="q1", text=claim, answer_shape="studies"),
            SubQuestion(id="q2", text="What methods were used to study stem cell injection?",
                        answer_shape="methods")]
    kept_work = Work(title="Stem cell injection for knee osteoarthritis: a randomised trial",
                     doi="10.1000/kept", abstract="Pain fell by half after injection. "
                                                  "Function improved at one year.")
    unheard = Work(title="Stem cell secretome in a murine osteoarthritis model",
                   doi="10.1000/unheard",
                   abstract="Mice were injected with stem cells. Treated mice showed pain "
                            "reduction at day 7 when compared to control mice.")
    kept = summary_passages(kept_work)[0].model_copy(update={"sub_question_id": "q1",
                                                             "score": 0.8})
    passages = with_every_study([kept], subs, claim, [kept_work, unheard])
    added = [p for p in passages if p.work_id == unheard.id]
    assert added and {p.sub_question_id for p in added} == {"q1"}
    assert " ".join(p.text for p in added).endswith("compared to control mice.")
    assert all(p.score == 0.8 for p in added)
    assert [p.id for p in passages if p.work_id == kept_work.id] == [kept.id]
    topic = "stem cell injection for knee osteoarthritis"
    assert with_every_study([kept], subs, topic, [kept_work, unheard]) == [kept]
