"""Source credibility (type, score, reasons) and the evidence table of values, offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langgraph.runtime import Runtime

from scholargraph import review
from scholargraph.agents.evaluation import score
from scholargraph.agents.schemas import (
    Draft,
    EvidenceRow,
    EvidenceTable,
    Finding,
    Intent,
    SubQuestion,
)
from scholargraph.agents.synthesis import synthesis
from scholargraph.context import ReviewContext
from scholargraph.deterministic.credibility import assess
from scholargraph.deterministic.evidence_table import extract_rows
from scholargraph.rag.chunking import chunk_work
from scholargraph.records import Work
from scholargraph.testing import ScriptedChatModel, structured_reply

FAKE_MP_KEY = "0123456789abcdef0123456789abcdef"
YEAR = 2026
TELOMERE = Work(
    title="Leucocyte telomere length and pancreatic cancer risk", venue="Gut", year=2017,
    pmid="27797938", cited_by_count=40, sources=["pubmed"],
    abstract="We measured prediagnostic leucocyte telomere length in 386 pancreatic cancer cases "
             "and 896 matched controls from five prospective US cohorts. Shorter prediagnostic "
             "leucocyte telomere length was associated with higher risk of pancreatic cancer "
             "(comparing extreme quintiles of telomere length, OR 1.72; 95% CI 1.07 to 2.78).")
DATA_INTENT = Intent(kind="factual", domains=["biomedical"], wants_data=True,
                     keywords=["telomere length", "pancreatic cancer"])


def test_a_journal_article_is_peer_reviewed_with_its_venue_and_citations():
    credibility = assess(Work(title="A", venue="Nature", year=2015, cited_by_count=120), YEAR)
    assert credibility.source_type == "peer_reviewed"
    assert credibility.reasons == ["journal article", "venue: Nature", "120 citations", "from 2015"]
    assert not credibility.weak and credibility.score == 0.8


def test_an_arxiv_preprint_scores_below_a_journal_article():
    preprint = assess(Work(title="P", kind="preprint", venue="arXiv", year=2025), YEAR)
    article = assess(Work(title="A", venue="Physical Review B", year=2025), YEAR)
    assert preprint.source_type == "preprint"
    assert preprint.reasons[0] == "preprint (arXiv): not peer reviewed"
    assert preprint.weak and preprint.score < article.score


def test_a_retracted_work_scores_zero_and_says_why():
    credibility = assess(Work(title="R", venue="Lancet", is_retracted=True), YEAR)
    assert (credibility.score, credibility.reasons[-1]) == (0.0, "retracted")


@pytest.mark.parametrize("url", ["https://www.cdc.gov/cancer/", "https://www.gov.uk/guidance",
                                 "https://www.who.int/news"])
def test_a_government_page_is_official(url: str):
    credibility = assess(Work(title="G", kind="web", url=url), YEAR)
    assert credibility.source_type == "official" and not credibility.weak
    assert credibility.reasons == ["government or official site"]


def test_a_news_item_and_an_unknown_page_are_weak():
    news = assess(Work(title="N", kind="news", url="https://news.example.com/a", year=2026), YEAR)
    page = assess(Work(title="W", kind="web", url="https://blog.example.com/post"), YEAR)
    assert (news.source_type, page.source_type) == ("news", "other")
    assert news.weak and page.weak and "news item: not peer reviewed" in news.reasons


def test_the_evaluator_names_a_sub_question_resting_only_on_weak_sources():
    blog = Work(title="Blog", kind="web", url="https://blog.example.com/tio2", sources=["web"],
                abstract="Anatase TiO2 has a band gap of about 3.2 eV.")
    article = Work(title="Anatase", venue="J. Phys. Chem.", year=2024, sources=["openalex"],
                   abstract="The band gap of rutile TiO2 is 3.0 eV.")
    blog_passage, article_passage = chunk_work(blog)[-1], chunk_work(article)[-1]
    subs = [SubQuestion(id="q1", text="Band gap of anatase TiO2?", answer_shape="values"),
            SubQuestion(id="q2", text="Band gap of rutile TiO2?", answer_shape="values")]
    draft = Draft(summary="", findings=[
        Finding(text=blog_passage.text, passage_ids=[blog_passage.id], sub_question_id="q1"),
        Finding(text=article_passage.text, passage_ids=[article_passage.id],
                sub_question_id="q2")])
    result = score(subs, draft, [blog_passage, article_passage], [blog, article],
                   ["web", "openalex"], YEAR)
    weak = [gap for gap in result.gaps if "rests only on weak sources" in gap]
    assert weak == ["Band gap of anatase TiO2? (rests only on weak sources: no peer-reviewed "
                    "or official source supports it)"]
    assert result.credibility == round((assess(blog, YEAR).score
                                        + assess(article, YEAR).score) / 2, 3)


def test_records_naming_no_venue_are_of_unknown_standing_not_called_unreviewed():
    """A scientist's library exported without journal names: its records score as low as an
    unknown page, and the review says their peer review is unknown, while a preprint stays a
    weak source."""
    from scholargraph.deterministic.credibility import standing_unknown
    from scholargraph.exports.markdown import render
    from scholargraph.report import Reference, Report

    record = Work(title="Emicizumab trough levels in children", doi="10.1182/blood.example",
                  sources=["library"], abstract="Trough emicizumab levels were stable.")
    preprint = Work(title="Emicizumab levels", kind="preprint", venue="medRxiv", year=2025,
                    sources=["openalex"], abstract="Emicizumab levels were stable in adults.")
    passages = [chunk_work(record)[-1], chunk_work(preprint)[-1]]
    subs = [SubQuestion(id="q1", text="Emicizumab levels in children?", answer_shape="values"),
            SubQuestion(id="q2", text="Emicizumab levels in adults?", answer_shape="values")]
    findings = [Finding(text=passages[0].text, passage_ids=[passages[0].id],
                        sub_question_id="q1", citations=[1], weak_sources=True),
                Finding(text=passages[1].text, passage_ids=[passages[1].id],
                        sub_question_id="q2", citations=[2], weak_sources=True)]
    result = score(subs, Draft(summary="", findings=findings), passages, [record, preprint],
                   ["library", "openalex"], YEAR)
    report = Report(question="Emicizumab levels", papers=[record, preprint], findings=findings,
                    passages=passages, sub_questions=subs,
                    references=[Reference(number=1, work_id=record.id, passage_ids=[
                        passages[0].id]), Reference(number=2, work_id=preprint.id,
                                                    passage_ids=[passages[1].id])])

    assert standing_unknown(record) and not standing_unknown(preprint)
    assert assess(record, YEAR).weak
    assert [gap for gap in result.gaps if gap.startswith("Emicizumab levels")] == [
        "Emicizumab levels in children? (rests only on records that name no venue: whether "
        "any is peer reviewed is unknown)",
        "Emicizumab levels in adults? (rests only on weak sources: no peer-reviewed or "
        "official source supports it)"]
    markdown = render(report)
    assert "Trough emicizumab levels were stable. [1] (peer review unknown)" in markdown
    assert "Emicizumab levels were stable in adults. [2] (weak sources only)" in markdown


def test_a_review_whose_cited_works_all_name_no_venue_says_so_once():
    """A 2,622-record CSV library without journal names: its review said "rests only on records
    that name no venue" once per sub-question and tagged every finding "peer review unknown".
    Said of every finding, the tag told nothing of any one: the review says it once, as a gap."""
    from scholargraph.agents.evaluation import NO_VENUE_NAMED
    from scholargraph.exports.markdown import render
    from scholargraph.report import Reference, Report

    records = [Work(title=f"Bayesian factor models, study {n}", sources=["library"],
                    abstract=f"The Bayesian estimator showed lower bias in study {n}.")
               for n in (1, 2)]
    passages = [chunk_work(record)[-1] for record in records]
    subs = [SubQuestion(id=f"q{n}", text=f"Bias of Bayesian estimators, part {n}?",
                        answer_shape="values") for n in (1, 2)]
    findings = [Finding(text=p.text, passage_ids=[p.id], sub_question_id=sub.id,
                        citations=[n], weak_sources=True)
                for n, (p, sub) in enumerate(zip(passages, subs), start=1)]
    result = score(subs, Draft(summary="", findings=findings), passages, records, ["library"],
                   YEAR)
    report = Report(question="Bias of Bayesian estimators", papers=records, findings=findings,
                    passages=passages, sub_questions=subs, gaps=result.gaps,
                    references=[Reference(number=n, work_id=r.id, passage_ids=[p.id])
                                for n, (r, p) in enumerate(zip(records, passages), start=1)])

    assert NO_VENUE_NAMED in result.gaps
    assert not [gap for gap in result.gaps if "rests only on" in gap]
    markdown = render(report)
    assert "The Bayesian estimator showed lower bias in study 1. [1]\n" in markdown
    assert "peer review unknown" not in markdown and markdown.count("No cited work names") == 1


def test_the_deterministic_table_quotes_the_odds_ratio_with_its_interval():
    passages = chunk_work(TELOMERE)
    rows = extract_rows("Is telomere length associated with pancreatic cancer risk?",
                        DATA_INTENT, passages)
    assert len(rows) == 1
    row = rows[0]
    assert (row.measure, row.value, row.unit) == ("odds ratio", "1.72 (95% CI 1.07-2.78)", "")
    assert row.subject == "386 pancreatic cancer cases"
    passage = next(p for p in passages if p.id == row.passage_id)
    assert passage.text[row.start:row.end] == row.quote and "OR 1.72" in row.quote


def _synthesis_state(question: str) -> dict:
    passages = [p.model_copy(update={"sub_question_id": "q1"}) for p in chunk_work(TELOMERE)]
    return {"question": question, "intent": DATA_INTENT, "papers": [TELOMERE],
            "passages": passages,
            "sub_questions": [SubQuestion(id="q1", text=question, answer_shape="an odds ratio")]}


def test_the_llm_engine_fills_the_table_and_rows_must_quote_their_passage():
    question = "What odds ratio links telomere length to pancreatic cancer?"
    state = _synthesis_state(question)
    passage = next(p for p in state["passages"] if "OR 1.72" in p.text)
    quote = passage.text[passage.text.index("Shorter"):].rstrip(".")
    table = EvidenceTable(rows=[
        EvidenceRow(measure="odds ratio", value="1.72", unit="", subject="US cohorts",
                    passage_id=passage.id, quote=quote),
        EvidenceRow(measure="odds ratio", value="9.9", unit="", subject="invented",
                    passage_id=passage.id, quote="OR 9.9 in a made-up cohort")])
    draft = Draft(summary="s", findings=[Finding(
        text="Shorter telomere length was associated with higher risk of pancreatic cancer.",
        passage_ids=[passage.id], sub_question_id="q1")])
    model = ScriptedChatModel(responses=[structured_reply(draft), structured_reply(table)])
    update = synthesis(state, Runtime(context=ReviewContext(chat_model=model)))
    rows = update["draft"].evidence_table
    assert [(r.value, r.subject) for r in rows] == [("1.72", "US cohorts")]
    assert passage.text[rows[0].start:rows[0].end] == rows[0].quote
    assert any("dropped 1 model-written rows" in note for note in update["notes"])
    assert model.remaining == 0


def _assert_every_row_cited(out: Path) -> list[dict]:
    data = json.loads((out / "review.json").read_text())
    references = {ref["number"]: ref for ref in data["references"]}
    passages = {p["id"]: p for p in data["passages"]}
    assert data["evidence_table"]
    for row in data["evidence_table"]:
        assert row["passage_id"] in references[row["citation"]]["passage_ids"]
        assert passages[row["passage_id"]]["text"][row["start"]:row["end"]] == row["quote"]
    markdown = (out / "review.md").read_text()
    table = markdown.split("## Evidence table")[1].split("##")[0]
    body = [line for line in table.splitlines() if line.startswith("| ")][1:]
    assert len(body) == len(data["evidence_table"])
    assert all(f"[{row['citation']}]" in line for row, line in zip(data["evidence_table"], body))
    return data["evidence_table"]


def test_a_materials_review_carries_the_materials_project_band_gap(replay, tmp_path: Path):
    with replay.environment(MP_API_KEY=FAKE_MP_KEY):
        report = review("What is the band gap of TiO2?", sources=["materials", "openalex"],
                        out=tmp_path / "out")
    rows = _assert_every_row_cited(tmp_path / "out")
    band_gaps = [row for row in rows if row["measure"] == "band gap (computed)"]
    assert band_gaps and all(row["unit"] == "eV" for row in band_gaps)
    values = {m.material_id: f"{m.band_gap_ev:.3g}" for m in report.materials
              if m.band_gap_ev is not None}
    assert {row["value"] for row in band_gaps} == set(values.values())
    references = (tmp_path / "out" / "review.md").read_text().split("## References")[1]
    assert "credibility 0.6" in references and "curated database" in references
    page = (tmp_path / "out" / "review.html").read_text()
    assert "<h2>Evidence table</h2>" in page and "band gap (computed)" in page


def test_the_table_gives_a_prediction_studys_performance_not_its_age_bound():
    """A prediction study's Methods sentence ("Methods Among 35,116 individuals aged over 19
    years ...") once gave the row "methods individuals aged | 19 | years": the label is no word
    of the measure, an age bound is whom the study took in, and the study's value is its AUC."""
    study = Work(title="Machine learning to predict suicide ideation from a national survey",
                 year=2018, doi="10.1000/ideation",
                 abstract="Methods Among 20,000 adults aged over 19 years of a national health "
                          "survey, we selected 4,000 by random down-sampling. Results The model "
                          "predicted suicide ideation with an area under the curve (AUC)=0.84 "
                          "and an accuracy of 0.79.")
    intent = Intent(kind="factual", domains=["biomedical"], wants_data=True,
                    keywords=["suicide ideation", "national survey data"])
    passages = chunk_work(study)
    [row] = extract_rows("Machine learning predicts suicide ideation from national survey data.",
                         intent, passages)
    assert (row.measure, row.value, row.unit) == ("AUC", "0.84", "")
    assert row.quote.startswith("The model predicted")
    methods = (study.abstract or "").split(" Results")[0]
    methods_only = study.model_copy(update={"abstract": methods})
    sampled = extract_rows("How many adults were sampled from the national survey?", intent,
                           chunk_work(methods_only))
    assert [(r.measure, r.value) for r in sampled] == [("sample size", "20,000")]
    assert not sampled[0].quote.startswith("Methods")
