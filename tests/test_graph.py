"""The graph's shape: what langgraph.json names compiles, and its drawing matches the snapshot."""

import importlib.util
import json
import os
from pathlib import Path

import pytest

from scholargraph.context import ReviewContext
from scholargraph.errors import InputError
from scholargraph.graph import build_graph
from scholargraph.sources.registry import source_names

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = Path(__file__).parent / "snapshots" / "graph.mmd"


def load_langgraph_json_graph():
    spec = json.loads((ROOT / "langgraph.json").read_text())
    (target,) = spec["graphs"].values()
    path, _, attribute = target.partition(":")
    module_spec = importlib.util.spec_from_file_location("graph_under_test", ROOT / path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return getattr(module, attribute)


def test_langgraph_json_names_a_compiled_graph_without_checkpointer():
    graph = load_langgraph_json_graph()
    assert graph.checkpointer is None
    nodes = set(graph.get_graph().nodes)
    assert {"supervisor", "clean_query", "intent", "planning", "query_generation", "retrieval",
            "rag_filter", "synthesis", "evaluation", *source_names()} <= nodes


def test_tool_loop_order_comes_from_the_registry():
    assert source_names()[:6] == ["library", "pubmed", "arxiv", "openalex", "materials", "web"]


def test_graph_drawing_matches_snapshot():
    """Regenerate deliberately with SCHOLARGRAPH_UPDATE_SNAPSHOTS=1, then review the diff."""
    drawing = build_graph().compile().get_graph().draw_mermaid()
    if os.environ.get("SCHOLARGRAPH_UPDATE_SNAPSHOTS"):
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(drawing)
    assert drawing == SNAPSHOT.read_text()


def test_supervisor_edges_are_typed():
    edges = {(e.source, e.target) for e in build_graph().compile().get_graph().edges}
    for target in ("clean_query", "query_generation", "rag_filter", "__end__"):
        assert ("supervisor", target) in edges
    assert ("evaluation", "supervisor") in edges
    assert ("query_generation", "pubmed") in edges and ("pubmed", "arxiv") in edges
    assert ("query_generation", "retrieval") in edges
    assert ("query_generation", "__end__") in edges  # a refinement round with nothing to send


def test_studio_can_describe_the_schemas():
    """Studio renders forms from these; TypedDicts must be typing_extensions' on Python 3.11."""
    graph = load_langgraph_json_graph()
    assert list(graph.get_input_jsonschema()["properties"]) == ["question"]
    context = graph.get_context_jsonschema()["properties"]
    assert {"model", "sources", "max_results", "since", "until", "max_iterations"} <= set(context)
    assert {"papers", "draft", "search_log", "evaluation", "prisma"} <= set(
        graph.get_output_jsonschema()["properties"])


def test_studios_context_form_describes_every_field_and_offers_only_what_json_can_fill():
    """Studio draws the assistant's configuration from the context schema: every field (and
    every setting under ``settings``) carries a description, and the chat model object, which
    no JSON value can be, is not offered."""
    schema = load_langgraph_json_graph().get_context_jsonschema()
    fields = schema["properties"]
    assert "chat_model" not in fields
    assert [name for name, field in fields.items() if not field.get("description")] == []
    settings = schema["$defs"]["Settings"]["properties"]
    assert [name for name, field in settings.items() if not field.get("description")] == []
    assert fields["max_results"]["default"] == 20 and fields["max_iterations"]["default"] == 2


@pytest.mark.parametrize("context, message", [
    ({"sources": ["pubmd"]}, "unknown source 'pubmd'; choose from library, pubmed"),
    ({"sources": []}, "no source given"),
    ({"settings": {"openalex_ur": "http://127.0.0.1:9"}}, "settings: unknown 'openalex_ur'"),
    ({"max_results": "5"}, "--max-results must be a whole number, not '5'"),
    ({"max_iterations": 50}, "--max-iterations must be between 1 and 10"),
    ({"full_text": -1}, "--full-text must be between 0 and 200"),
])
def test_a_studio_context_is_checked_before_any_request(context, message, replay):
    """A Server or Studio run's context arrives as JSON, past the CLI's checks: a misspelt source
    searched nothing and the run finished as if it had; now the run is refused with the CLI's
    one line, and no service is asked."""
    graph = load_langgraph_json_graph()
    with pytest.raises(InputError) as raised:
        graph.invoke({"question": "Does aspirin prevent colorectal cancer?"}, context=context)
    assert str(raised.value).startswith(message)
    assert replay.count() == 0


def test_a_studio_context_may_name_settings_as_the_form_shows_them():
    """The form shows each setting by its variable; the field name works as well."""
    by_variable = ReviewContext(settings={"SCHOLARGRAPH_OPENALEX_URL": "http://127.0.0.1:9/oa"})
    by_field = ReviewContext(settings={"openalex_url": "http://127.0.0.1:9/oa"})
    assert by_variable.run_settings.openalex_url == by_field.run_settings.openalex_url \
        == "http://127.0.0.1:9/oa"


def test_studio_sees_each_steps_queries_and_the_ids_each_query_found(replay):
    """LangGraph Server streams a run's values by the output's keys, and the queries and the
    records lived in the working state only: a person watching in Studio saw no query before
    the search log and no record before screening. The queries are now in the output, and each
    search's entry names the works it returned by id; the works themselves, with their
    abstracts, stay out of the steps until screened (``papers``)."""
    graph = load_langgraph_json_graph()
    context = ReviewContext(sources=["pubmed", "openalex"], max_iterations=1, max_results=5)
    steps, node = [], None
    question = "What is known about genetic variants and screening?"
    for mode, chunk in graph.stream({"question": question}, context=context,
                                    stream_mode=["updates", "values"],
                                    output_keys=graph.output_channels):
        if mode == "updates":
            node = next(iter(chunk))
        else:
            steps.append((node, chunk))
    seen = dict(steps)
    assert all("records" not in values for _, values in steps)
    queries = seen["query_generation"]["queries"]
    assert {q.source for q in queries} == {"pubmed", "openalex"}
    searched = seen["openalex"]["search_log"]
    assert [e.query for e in searched] == [q.query for q in queries if q.source in (
        "pubmed", "openalex")]
    assert any(e.record_ids for e in searched)
    assert all(len(e.record_ids) == e.n_results for e in searched)
    found = {i for e in searched for i in e.record_ids}
    for row in seen["retrieval"]["screening"]:  # each screened work is one a query found
        merged = {record.partition(":")[2] for record in row.merged_records}
        assert {row.work_id, *merged} & found, row.work_id
