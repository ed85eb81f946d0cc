"""The deterministic engine of the judging agents, called as the graph calls them."""

import pytest
from langgraph.runtime import Runtime

from scholargraph.agents.clean_query import MAX_QUESTION_CHARS, clean_query, clean_question
from scholargraph.agents.evaluation import score, verdict
from scholargraph.agents.intent import active_sources, detect_intent
from scholargraph.agents.planning import plan_from_template
from scholargraph.agents.query_generation import deterministic_queries
from scholargraph.agents.schemas import Evaluation, SubQuestion
from scholargraph.agents.supervisor import supervisor
from scholargraph.agents.synthesis import contradictions, extractive_draft
from scholargraph.context import ReviewContext
from scholargraph.errors import InputError
from scholargraph.records import Passage, SearchLogEntry, Work
from scholargraph.sources.registry import get_agent


@pytest.mark.parametrize("bad, reason", [
    ("", "empty"), ("   \n\t ", "empty"), ("?!", "not a question"),
    ("x" * (MAX_QUESTION_CHARS + 1), "limit is"), (None, "must be text"),
])
def test_bad_questions_are_refused_with_a_reason(bad, reason):
    with pytest.raises(InputError, match=reason):
        clean_question(bad)


def test_question_is_normalised():
    assert clean_question('  "What   is\u00a0CRISPR\x07?"  ') == "What is CRISPR ?"
    update = clean_query({"question": "Что такое машинное обучение в медицине?"})
    assert update["notes"] and "non-Latin" in update["notes"][0]


def test_a_subtitle_naming_the_kind_of_review_is_not_searched_for():
    """A scientist types the title of the review they write; "systematic" or "tertiary study"
    is no word every study must name. A hyphen inside a word is no subtitle mark."""
    update = clean_query({"question": "Machine learning for public health surveillance: a "
                                      "systematic review"})
    assert update["cleaned_question"] == "Machine learning for public health surveillance"
    assert any("subtitle" in note for note in update["notes"])
    assert clean_query({"question": "Does exercise reduce depression? A meta-analysis"})[
        "cleaned_question"] == "Does exercise reduce depression?"
    assert clean_query({"question": "Software testing in industry – a tertiary study"})[
        "cleaned_question"] == "Software testing in industry"
    kept = clean_query({"question": "Self-critical thinking in peer-review of nursing"})
    assert kept["cleaned_question"] == "Self-critical thinking in peer-review of nursing"
    assert kept["notes"] == []


def test_intent_reads_kind_domains_window_and_formula():
    intent = detect_intent("What is the band gap of TiO2 thin films since 2015?", this_year=2026)
    assert intent.kind == "material_property"
    assert "materials" in intent.domains
    assert (intent.since, intent.until, intent.formula) == (2015, None, "TiO2")
    comparative = detect_intent("Deep learning versus logistic regression for sepsis prediction")
    assert comparative.kind == "comparative"
    assert {"biomedical", "computer_science"} <= set(comparative.domains)


def test_active_sources_follow_domains_unless_the_run_names_them():
    intent = detect_intent("machine learning for public health surveillance")
    assert active_sources(intent, ReviewContext()) == ["pubmed", "arxiv", "openalex"]
    chosen = active_sources(intent, ReviewContext(sources=["web", "pubmed"]))
    assert chosen == ["pubmed", "web"]


def test_plan_starts_with_direct_evidence_and_splits_comparisons():
    question = "Deep learning versus logistic regression for sepsis prediction"
    plan = plan_from_template(question, detect_intent(question))
    restated = f"What do studies report on {question[0].lower()}{question[1:]}?"
    assert plan.sub_questions[0].text == restated
    assert plan.sub_questions[1].text == ("What results compare deep learning with logistic "
                                          "regression for sepsis prediction?")
    count = len(plan.sub_questions)
    assert [s.id for s in plan.sub_questions] == [f"q{i}" for i in range(1, count + 1)]


def test_gap_queries_differ_from_what_was_already_sent():
    question = "machine learning for public health surveillance"
    intent = detect_intent(question)
    subs = plan_from_template(question, intent).sub_questions
    agents = [get_agent("pubmed"), get_agent("openalex")]
    first = deterministic_queries(agents, subs, intent, round_number=1,
                                  targets=[s.id for s in subs], already_sent=set())
    assert {q.source for q in first} == {"pubmed", "openalex"}
    assert all("[tiab]" in q.query for q in first if q.source == "pubmed")
    sent = {(q.source, q.query) for q in first}
    second = deterministic_queries(agents, subs, intent, round_number=2, targets=["q1"],
                                   already_sent=sent)
    assert second and not {(q.source, q.query) for q in second} & sent


def _passage(work: Work, text: str, sub: str) -> Passage:
    return Passage(id=f"{work.id}#0-{len(text)}", work_id=work.id, text=text, start=0,
                   end=len(text), sub_question_id=sub, score=1.0)


def test_extractive_draft_quotes_verbatim_and_names_gaps():
    a = Work(title="A", doi="10.1/a", year=2024, sources=["pubmed"], abstract="x")
    b = Work(title="B", doi="10.1/b", year=2019, sources=["arxiv"], abstract="y")
    subs = [SubQuestion(id="q1", text="Does aspirin reduce stroke risk?", answer_shape="trials"),
            SubQuestion(id="q2", text="What is the cost of gene therapy?", answer_shape="costs")]
    passages = [
        _passage(a, "Aspirin significantly increased protection against stroke risk in adults. "
                    "Copyright 2020 Elsevier.", "q1"),
        _passage(b, "In older adults aspirin had no significant effect on stroke risk overall.",
                 "q1"),
    ]
    draft = extractive_draft(subs, passages, [a, b], ["aspirin", "stroke"])
    quoted = [f for f in draft.findings if f.kind == "finding"]
    assert len(quoted) == 2
    for finding in quoted:
        (pid,) = finding.passage_ids
        assert finding.text in next(p.text for p in passages if p.id == pid)
    assert not any("Copyright" in f.text for f in draft.findings)
    assert [f.kind for f in contradictions(quoted)] == ["contradiction"]
    assert len(draft.gaps) == 1 and "gene therapy" in draft.gaps[0]
    evaluation = score(subs, draft, passages, [a, b], ["pubmed", "arxiv"], 2026)
    assert evaluation.coverage["q2"] == 0.0 and evaluation.coverage["q1"] >= 0.5
    assert evaluation.citation_support == 1.0
    assert evaluation.source_diversity == 1.0
    assert verdict(evaluation, passages, per_question=6)[0] == "more_evidence"
    covered = evaluation.model_copy(update={"coverage": {"q1": 1.0}})
    assert verdict(covered, passages, 6)[0] == "accept"


def _run(state, **context):
    return supervisor(state, Runtime(context=ReviewContext(**context)))


def test_supervisor_routes_fresh_refine_and_stop():
    assert _run({"question": "q"}).goto == "clean_query"
    weak = Evaluation(coverage={"q1": 0.1}, verdict="more_evidence", reason="thin")
    question = "Does aspirin reduce stroke risk in older adults?"
    intent = detect_intent(question)
    subs = [SubQuestion(id="q1", text=question, answer_shape="trials")]
    state = {"question": question, "cleaned_question": question, "evaluation": weak,
             "iteration": 1, "intent": intent, "sub_questions": subs,
             "active_sources": ["pubmed"], "search_log": []}
    command = _run(state, max_iterations=2)
    assert command.goto == "query_generation" and command.update["iteration"] == 2
    # every query a refinement round could write already sent: no round to run
    sent: list[SearchLogEntry] = []
    while left := deterministic_queries([get_agent("pubmed")], subs, intent, round_number=2,
                                        targets=["q1"], question=question,
                                        already_sent={("pubmed", e.query) for e in sent}):
        sent += [SearchLogEntry(source="pubmed", query=q.query) for q in left]
    assert sent
    exhausted = _run({**state, "search_log": sent}, max_iterations=3)
    assert exhausted.goto == "__end__"
    assert exhausted.update["stop_reason"].startswith("nothing left to search: ")
    assert exhausted.update["stop_reason"].endswith("(still without evidence: q1)")
    # a model writes term queries of its own, so it gets the round
    with_model = _run({**state, "search_log": sent}, max_iterations=3, model="openai:gpt-x")
    assert with_model.goto == "query_generation"
    refilter = weak.model_copy(update={"verdict": "refilter"})
    command = _run({**state, "evaluation": refilter}, max_iterations=2)
    assert command.goto == "rag_filter" and command.update["filter_depth"] == 1
    stopped = _run({**state, "iteration": 2}, max_iterations=2)
    assert stopped.goto == "__end__" and "budget" in stopped.update["stop_reason"]
    accepted = _run({**state, "evaluation": weak.model_copy(update={"verdict": "accept"})})
    assert accepted.goto == "__end__" and accepted.update["stop_reason"].startswith("accepted")


def test_search_log_entry_keeps_status_and_error():
    entry = SearchLogEntry(source="pubmed", query="x", status="error", error="timeout")
    assert entry.model_dump()["error"] == "timeout"


def test_credibility_nudges_close_passages_but_not_clear_winners():
    from scholargraph.agents.rag_filter import with_credibility_prior

    article = Work(title="A", doi="10.1/a", venue="The Lancet", year=2024, sources=["pubmed"],
                   abstract="x", cited_by_count=50)
    page = Work(title="B", url="https://blog.example.com/b", kind="web", sources=["web"],
                abstract="y")
    works = {article.id: article, page.id: page}

    def passage(work: Work, score: float) -> Passage:
        return Passage(id=f"{work.id}#0-1", work_id=work.id, text="t", start=0, end=1,
                       score=score)

    close = with_credibility_prior([passage(page, 0.52), passage(article, 0.50)], works, 1, 2026)
    assert close[0].work_id == article.id
    clear = with_credibility_prior([passage(page, 0.90), passage(article, 0.50)], works, 1, 2026)
    assert clear[0].work_id == page.id
