"""The graph's shape: what langgraph.json names compiles, and its drawing matches the snapshot."""

import importlib.util
import json
import os
from pathlib import Path

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
