"""The progress lines read as English: "1 query", counts of records, failures named."""

import io
import json

from scholargraph.progress import JsonlEvents, describe_update, searched
from scholargraph.records import SearchLogEntry


def entry(n: int, status: str = "ok", error: str | None = None) -> SearchLogEntry:
    return SearchLogEntry(source="pubmed", query="vitamin d fractures", n_results=n,
                          status=status, error=error)  # type: ignore[arg-type]


def test_one_query_is_a_query_and_its_results_are_records():
    assert describe_update("web", {"search_log": [entry(20)]}) == "web: 1 query -> 20 records"
    assert searched([entry(1)]) == "1 query -> 1 record"


def test_several_queries_give_a_total_and_each_query_s_share():
    assert searched([entry(0, "empty"), entry(0, "empty")]) == "2 queries -> 0 records"
    assert searched([entry(25), entry(7), entry(0, "empty")]) == (
        "3 queries -> 32 records (25 + 7 + 0)")


def test_failed_and_skipped_queries_are_named_with_their_reason():
    line = searched([entry(12), entry(0, "error", "HTTP 503 from eutils"),
                     entry(0, "error", "HTTP 503 from eutils"), entry(0, "skipped")])
    assert line == "4 queries -> 12 records, 2 failed (HTTP 503 from eutils), 1 skipped"
    long = searched([entry(0, "error", "read timed out " * 20)])
    assert long.startswith("1 query -> 1 failed (read timed out") and long.endswith("...)")
    assert searched([]) == "no queries"


def test_the_jsonl_event_carries_the_same_summary_and_every_query():
    stream = io.StringIO()
    JsonlEvents(stream)("pubmed", {"search_log": [entry(3), entry(0, "empty")]})
    event = json.loads(stream.getvalue())
    assert event["summary"] == "pubmed: 2 queries -> 3 records (3 + 0)"
    assert [s["n_results"] for s in event["searches"]] == [3, 0]


def test_retrieval_says_what_it_is_doing_before_its_summary(replay):
    """A long retrieval is not silent: screening (with its embedding) and the full-text reading
    each get a line as they start, through the same callback and wording as the steps, before
    the retrieval's own summary line."""
    from scholargraph import review

    lines: list[str] = []
    filtering: list[str] = []

    def watch(node: str, update: dict) -> None:
        line = describe_update(node, update)
        if line and line.startswith("retrieval"):
            lines.append(line)
        elif line and line.startswith("rag filter"):
            filtering.append(line)

    review("machine learning for public health surveillance", sources=["arxiv", "openalex"],
           max_iterations=1, full_text=2, on_progress=watch)
    assert lines[0].startswith("retrieval: looking up up to ")
    assert lines[1].startswith("retrieval: screening ")
    assert lines[1].endswith(" works against the question (embedding those not embedded before)")
    assert lines[2].startswith("retrieval: screened ") and " kept" in lines[2]
    assert lines[3].startswith("retrieval: reading up to 2 full texts of the ")
    assert lines[4].startswith("retrieval: ") and " included" in lines[4]
    assert len(lines) == 5
    # so is the ranking of the included works' passages, which embeds them
    assert filtering[0].startswith("rag filter: ranking the passages of ")
    assert filtering[0].endswith(" for 3 sub-questions (embedding those not embedded before)")
    assert filtering[1].startswith("rag filter: ") and filtering[1].endswith(" passages")
