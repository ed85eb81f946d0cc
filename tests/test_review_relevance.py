"""A review that does not overstate itself: off-topic records screened out, coverage only from
direct evidence, one set of counts, and the corpus search engine the review bench serves.

The reviews run the whole graph against the replay server of recorded responses (``--offline``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scholargraph import review
from scholargraph.agents.schemas import Draft, Finding, Quote, SubQuestion
from scholargraph.agents.synthesis import with_bearing
from scholargraph.deterministic.extractive import extractive_draft
from scholargraph.deterministic.relevance import topic_terms
from scholargraph.records import Passage, Work
from scholargraph.sources.base import SearchRequest
from scholargraph.sources.openalex import OpenAlexAgent
from scholargraph.testing import ReplayServer
from scholargraph.testing.services.corpus import CorpusDoc, CorpusService, openalex_id_for

CRISPR = "Does CRISPR-Cas9 gene editing cure sickle cell disease in adults?"
SURVEILLANCE = "machine learning for public health surveillance"


@pytest.fixture(scope="module")
def crispr_review(tmp_path_factory: pytest.TempPathFactory):
    """The CRISPR question against the recorded corpus, which holds no work on sickle cell
    disease (as the issue found it: the only finding was about telomeres and pancreatic cancer)."""
    return review(CRISPR, offline=True)


def test_question_without_relevant_evidence_is_not_accepted(crispr_review):
    assert crispr_review.evaluation.verdict != "accept"
    assert crispr_review.evaluation.coverage["q1"] < 0.5
    assert "No direct evidence was found for" in crispr_review.summary
    missing = crispr_review.summary.split("No direct evidence was found for")[1]
    assert "CRISPR-Cas9 gene editing" in missing and "sickle cell disease" in missing
    assert "q1" in crispr_review.evaluation.reason


def test_off_topic_records_are_excluded_at_screening_and_counted():
    """The retrieval node screens what the sources returned: a record on another subject is
    excluded with its reason, and PRISMA counts it."""
    from langgraph.runtime import Runtime

    from scholargraph.agents.retrieval import retrieval
    from scholargraph.context import ReviewContext

    telomeres = Work(title="Telomere length and pancreatic cancer risk", pmid="101",
                     abstract="Shorter telomeres were associated with pancreatic cancer in adults.",
                     sources=["pubmed"])
    editing = Work(title="Gene editing of haematopoietic stem cells in sickle cell disease",
                   pmid="102", sources=["pubmed"],
                   abstract="CRISPR-Cas9 editing of BCL11A restored fetal haemoglobin in adults "
                   "with sickle cell disease.")
    state = {"question": CRISPR, "cleaned_question": CRISPR, "records": [telomeres, editing],
             "active_sources": ["pubmed"], "iteration": 1}
    update = retrieval(state, Runtime(context=ReviewContext()))
    prisma = update["prisma"]
    assert list(prisma["excluded_reasons"]) == [
        "does not address: CRISPR-Cas9 gene editing; sickle cell disease"]
    assert prisma["screened"] - prisma["excluded"] == prisma["included"] == 1
    assert [paper.title for paper in update["papers"]] == [editing.title]


def test_topic_terms_leave_out_what_kind_of_evidence_is_wanted():
    terms = topic_terms("What methods and data have been used to study sickle cell disease?")
    assert terms == {"sickl", "cell", "diseas"}


def test_cli_summary_json_and_prisma_give_one_set_of_counts(tmp_path: Path):
    out = tmp_path / "review"
    done = subprocess.run([sys.executable, "-m", "scholargraph.cli", "review", SURVEILLANCE,
                           "--offline", "--out", str(out)],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    cli = {name: int(number) for number, name in re.findall(
        r"(\d+) (works? screened|included|findings?|references?)", line)}
    data = json.loads((out / "review.json").read_text())
    counts, prisma, findings = data["counts"], data["prisma"], data["findings"]
    assert cli == {"works screened": counts["screened"], "included": counts["included"],
                   "findings": counts["findings"], "references": counts["cited_works"]}
    assert counts["screened"] == prisma["screened"] and counts["included"] == prisma["included"]
    assert counts["included"] == len(data["papers"])
    assert counts["findings"] == sum(f["kind"] == "finding" for f in findings)
    assert counts["cited_works"] == len(data["references"])
    summary = data["summary"]
    assert (f"screened {prisma['screened']} works, included {prisma['included']}, and cites "
            f"{counts['cited_works']} of them") in summary
    assert f"in {counts['findings']} findings" in summary
    if not (counts["contradictions"] or counts["agreements"]):  # not "0 ... and 0 ..."
        assert "No two sources contradict or explicitly agree with each other." in summary
    assert f"Records screened (n = {prisma['screened']})" in (out / "review.html").read_text()


def test_contradictions_are_between_different_works_each_pair_once(crispr_review):
    for report in (crispr_review, review(SURVEILLANCE, offline=True)):
        pairs = []
        for finding in report.findings:
            if finding.kind not in ("contradiction", "agreement"):
                continue
            works = {report.passage(pid).work_id for pid in finding.passage_ids}
            assert len(works) >= 2, finding.text
            pairs.append(frozenset(works))
        assert len(pairs) == len(set(pairs))


CORPUS = [
    CorpusDoc("11", "Aspirin and colorectal cancer",
              "Daily aspirin reduced the incidence of colorectal cancer in a cohort of adults."),
    CorpusDoc("12", "Aspirin in stroke prevention",
              "Aspirin lowered the risk of stroke; colorectal outcomes were not studied."),
    CorpusDoc("13", "Statins and colorectal cancer",
              "Statin use was not associated with colorectal cancer incidence."),
    CorpusDoc("doc-x", "Colorectal cancer screening",
              "Colonoscopy screening reduced colorectal cancer deaths; colorectal cancer in "
              "adults."),
]


def test_corpus_service_matches_the_boolean_query_and_ranks_by_bm25():
    service = CorpusService(CORPUS)

    def ids(query: str) -> list[str]:
        return [item.openalex_id for item in service.search(query)]

    assert set(ids("aspirin AND colorectal")) == {"W11", "W12"}
    assert ids('aspirin AND "colorectal cancer"') == ["W11"]
    assert ids("aspirin NOT stroke") == ["W11"]
    assert set(ids("statins OR colonoscopy")) == {"W13", openalex_id_for("doc-x")}
    assert ids('"cancer colorectal"') == []
    ranked = ids('"colorectal cancer"')
    assert ranked[0] == openalex_id_for("doc-x")  # the term most often, in the shortest text
    assert set(ranked) == {"W11", "W13", openalex_id_for("doc-x")}


def test_openalex_agent_searches_the_served_corpus():
    with ReplayServer([CorpusService(CORPUS)]) as server, server.environment(
            SCHOLARGRAPH_RATE_SCALE="1000"):
        result = OpenAlexAgent().search(SearchRequest(query="aspirin AND colorectal", limit=5))
    assert {work.openalex_id for work in result.works} == {"W11", "W12"}
    by_id = {work.openalex_id: work for work in result.works}
    assert by_id["W11"].abstract == CORPUS[0].text
    assert by_id["W11"].title == CORPUS[0].title


def _passage(owner: Work, text: str) -> Passage:
    return Passage(id=f"{owner.id}#abstract:0-{len(text)}", work_id=owner.id, text=text,
                   start=0, end=len(text), sub_question_id="q1", score=1.0)


def test_two_versions_of_one_sentence_are_not_set_side_by_side():
    sentence = ("Daily aspirin increased protection against ischaemic stroke in adults over 50 "
                "years in this trial.")
    preprint = Work(title="Aspirin and stroke (preprint)", doi="10.1000/pre", abstract=sentence)
    article = Work(title="Aspirin and stroke", doi="10.1000/art", abstract=sentence)
    other = Work(title="Aspirin and stroke in a cohort", doi="10.1000/other",
                 abstract="Aspirin increased protection against ischaemic stroke in older "
                          "adults of a large cohort followed for ten years.")
    passages = [_passage(w, w.abstract or "") for w in (preprint, article, other)]
    sub = SubQuestion(id="q1", text="Does aspirin protect against ischaemic stroke?",
                      answer_shape="trials")
    draft = extractive_draft([sub], passages, [preprint, article, other], ["aspirin", "stroke"])
    paired = [f for f in draft.findings if f.kind in ("agreement", "contradiction")]
    for finding in paired:
        works = {pid.split("#")[0] for pid in finding.passage_ids}
        assert works != {preprint.id, article.id}, finding.text
    assert any(other.id in {pid.split("#")[0] for pid in f.passage_ids} for f in paired)


def test_a_direct_finding_is_read_against_the_question():
    passage = _passage(Work(title="Aspirin trial", doi="10.1000/t", abstract="x"),
                       "Aspirin significantly reduced the risk of stroke in adults.")
    finding = Finding(text=passage.text, passage_ids=[passage.id], sub_question_id="q1",
                      quotes=[Quote(passage_id=passage.id, start=0, end=len(passage.text),
                                    text=passage.text)])
    draft = Draft(summary="", findings=[finding])
    against = with_bearing(draft, "Aspirin does not reduce the risk of stroke.", [finding])
    assert against.findings[0].bearing == "opposes"
    along = with_bearing(draft, "Aspirin reduces the risk of stroke in adults.", [finding])
    assert along.findings[0].bearing == "supports"
    unread = with_bearing(draft, "Aspirin does not reduce the risk of stroke.", [])
    assert unread.findings[0].bearing is None
    from scholargraph.agents.synthesis import review_summary
    sub = SubQuestion(id="q1", text="Aspirin does not reduce stroke risk.", answer_shape="trials")
    summary = review_summary("", against, [sub], {"q1": against.findings}, {}, [passage], [])
    assert "1 finding reports evidence against the question as stated." in summary


def test_evidence_against_the_question_is_marked_in_markdown_and_html():
    from scholargraph.exports import html, markdown
    from scholargraph.report import Reference, Report

    work = Work(title="Aspirin trial", doi="10.1000/t", abstract="x")
    passage = _passage(work, "Aspirin significantly reduced the risk of stroke in adults.")
    finding = Finding(text=passage.text, passage_ids=[passage.id], sub_question_id="q1",
                      citations=[1], bearing="opposes")
    report = Report(question="Aspirin does not reduce stroke risk.", papers=[work],
                    findings=[finding], passages=[passage],
                    references=[Reference(number=1, work_id=work.id, passage_ids=[passage.id])],
                    sub_questions=[SubQuestion(id="q1", text="Aspirin does not reduce stroke "
                                               "risk.", answer_shape="trials")])
    assert "(evidence against the question as stated)" in markdown.render(report)
    assert "(evidence against the question as stated)" in html.render(report)
    plain = report.model_copy(update={"findings": [finding.model_copy(update={"bearing": None})]})
    assert "evidence against" not in markdown.render(plain)


def test_the_readme_review_includes_no_work_off_its_topic(readme_topic):
    """The README's review over the recorded corpus: every work it includes addresses machine
    learning and public health, surveillance or disease, as a scientist reading its title and
    abstract would check (tests/conftest.py ``TopicCheck``); the arXiv papers on testing
    software, which share "machine learning" with the question, and a methods paper that names
    both only in a list of fields are set aside with the concepts they miss; the works on public
    health surveillance are kept."""
    report = review(SURVEILLANCE, offline=True)
    off_topic = [paper.title for paper in report.papers if not readme_topic.on_topic(paper)]
    assert off_topic == []
    titles = [paper.title for paper in report.papers]
    assert not [title for title in titles if re.search(r"\btest", title, re.IGNORECASE)]
    assert any(title.startswith("Natural language processing and machine learning methods in "
                                "public health surveillance") for title in titles)
    reasons = report.prisma["excluded_reasons"]
    assert reasons["does not address: public health surveillance"] >= 10
    assert all(reason.startswith("does not address: ") for reason in reasons)
    assert len(report.papers) >= 10  # the works on the topic are kept


@pytest.mark.parametrize("criteria, message", [("/nonexistent/criteria.txt", "does not exist"),
                                                ("", "criteria are empty")])
def test_a_missing_or_empty_criteria_file_is_bad_input(tmp_path, capsys, criteria, message):
    from scholargraph.cli import main

    code = main(["review", SURVEILLANCE, "--offline", "--criteria", criteria,
                 "--out", str(tmp_path / "out")])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_a_finding_naming_the_topic_by_its_abbreviation_answers_it_directly():
    """"OA papers receive more citations" answers a sub-question on open access articles when
    its abstract defines OA as open access: the abbreviation is written out before the finding's
    terms are counted."""
    from scholargraph.agents.schemas import Finding, Quote, SubQuestion
    from scholargraph.deterministic.relevance import DirectEvidence
    from scholargraph.records import Passage

    sentence = "OA papers receive 18% more citations than average, and their share grows."
    abstract = ("We study the prevalence of Open Access (OA) to scholarly articles. " + sentence)
    work = Work(title="The prevalence of free scholarly articles", abstract=abstract, doi="10.1/oa")
    start = abstract.index(sentence)
    passage = Passage(id=f"{work.id}#abstract:0-{len(abstract)}", work_id=work.id, text=abstract,
                      start=0, end=len(abstract))
    finding = Finding(text=sentence, passage_ids=[passage.id], sub_question_id="q1",
                      quotes=[Quote(passage_id=passage.id, start=start,
                                    end=start + len(sentence), text=sentence)])
    sub = SubQuestion(id="q1", text="What do studies report on open access articles?",
                      answer_shape="direct evidence")
    [judged] = DirectEvidence([passage], [work], embedder=None).assess(sub, [finding])
    assert judged.direct


OPEN_ACCESS = "What is the prevalence and impact of open access articles?"


def test_commentaries_whose_abstract_is_their_web_page_are_not_kept_for_open_access():
    """Two recorded OpenAlex works whose "abstract" is the publisher's whole web page (a
    commentary on the scientific information environment in COVID-19, one on opioid overdose
    prediction) name "open access" only in their licence notice, their page's links ("Full-Text
    PDF Open Access") and, for one, twice in passing far into its text. Screened on what they
    state, up to an abstract's length, they are set aside with the concepts they miss, and the
    review keeps the one work on open access articles."""
    report = review(OPEN_ACCESS, offline=True)
    assert [paper.doi for paper in report.papers] == ["10.7717/peerj.4375"]
    rows = {row.doi: row for row in report.screening}
    for doi in ("10.1089/hs.2020.0194", "10.1016/s2589-7500(22)00097-8"):
        assert rows[doi].decision == "excluded"
        assert rows[doi].reason == "does not address: prevalence; open access articles"


def test_a_methods_sentence_answers_a_methods_sub_question_directly(shared_models):
    """A sentence stating a study's sample and data is what "What methods and data ..." asks
    for, though the sentence model places it far from the topic's words; under a sub-question
    on results the same sentence is no direct answer."""
    from scholargraph.agents.schemas import Finding, Quote, SubQuestion
    from scholargraph.deterministic.relevance import DirectEvidence
    from scholargraph.rag.embeddings import load_embedder
    from scholargraph.records import Passage

    sentence = ("We collected 48,000 triage notes from 9 hospitals between 2015 and 2019 to "
                "train machine learning models.")
    abstract = ("Syndromic surveillance of influenza relies on emergency department data. "
                + sentence + " The classifier detected outbreaks two weeks earlier.")
    work = Work(title="Machine learning for influenza syndromic surveillance", abstract=abstract,
                doi="10.1/ili")
    start = abstract.index(sentence)
    passage = Passage(id=f"{work.id}#abstract:0-{len(abstract)}", work_id=work.id, text=abstract,
                      start=0, end=len(abstract))
    embedder = load_embedder(None, models_dir=shared_models)
    judged = {}
    for text in ("What methods and data have been used to study machine learning for "
                 "influenza surveillance?",
                 "What are the effects of machine learning on influenza surveillance?"):
        sub = SubQuestion(id="q2", text=text, answer_shape="")
        finding = Finding(text=sentence, passage_ids=[passage.id], sub_question_id="q2",
                          quotes=[Quote(passage_id=passage.id, start=start,
                                        end=start + len(sentence), text=sentence)])
        [judged[text[:9]]] = DirectEvidence([passage], [work], embedder).assess(sub, [finding])
    assert judged["What meth"].methods and judged["What meth"].direct
    assert judged["What meth"].dense < 0.6  # far in meaning: direct by its methods
    assert not judged["What are "].methods
    assert judged["What are "].direct == (judged["What are "].dense >= 0.6)
