"""The langchain side of ``bench/sources.py``: one fetch through a langchain-community wrapper.

Runs in the peer's own virtual environment (``bench/sources.py`` makes it under the bench
cache, never in the project's), so it imports nothing of scholargraph:

    PEER_PYTHON langchain_fetch.py --source pubmed|arxiv --n N --server URL --query TEXT

``PubMedAPIWrapper`` takes its E-utilities URLs as fields and is pointed at the server that
way; ``ArxivAPIWrapper`` calls arxiv 2's ``Search.results()`` (the peer venv installs arxiv 2,
which still has it) with ``arxiv.Client.query_url_format`` pointed at the server. Prints one
JSON line: records got, wall and CPU seconds of the fetch alone (imports excluded), and the
error if it failed.
"""

from __future__ import annotations

import argparse
import json
import time


def pubmed(n: int, server: str, query: str) -> int:
    from langchain_community.utilities import pubmed as module
    from langchain_community.utilities.pubmed import PubMedAPIWrapper

    module.print = lambda *args, **kwargs: None  # type: ignore[attr-defined]  # its 429 lines
    base = f"{server}/pubmed/"
    wrapper = PubMedAPIWrapper(top_k_results=n, base_url_esearch=f"{base}esearch.fcgi?",
                               base_url_efetch=f"{base}efetch.fcgi?")
    return len(wrapper.load(query))


def arxiv_fetch(n: int, server: str, query: str) -> int:
    import arxiv
    from langchain_community.utilities.arxiv import ArxivAPIWrapper

    arxiv.Client.query_url_format = f"{server}/arxiv/api/query?{{}}"
    wrapper = ArxivAPIWrapper(top_k_results=n, load_max_docs=n, doc_content_chars_max=None)
    docs = wrapper.get_summaries_as_docs(query)
    if len(docs) == 1 and docs[0].page_content.startswith("Arxiv exception"):
        raise RuntimeError(docs[0].page_content)
    return len(docs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", choices=["pubmed", "arxiv"], required=True)
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--server", required=True)
    parser.add_argument("--query", required=True)
    args = parser.parse_args()
    fetch = {"pubmed": pubmed, "arxiv": arxiv_fetch}[args.source]
    import langchain_community.utilities  # noqa: F401 - imports are not part of the fetch

    started, cpu = time.monotonic(), time.process_time()
    got, error = 0, ""
    try:
        got = fetch(args.n, args.server, args.query)
    except Exception as exc:  # noqa: BLE001 - the bench reports what failed
        error = f"failed: {type(exc).__name__}: {str(exc)[:100]}"
    print(json.dumps({"got": got, "seconds": time.monotonic() - started,
                      "cpu": time.process_time() - cpu, "error": error}), flush=True)


if __name__ == "__main__":
    main()
