"""Is a chat model good enough for scholargraph? Offline reviews through an OpenAI-compatible
server, with what each step asked of the model.

    python bench/llm.py [--base-url http://127.0.0.1:8088/v1 --model smollm2]
                        [--questions N] [--max-results N] [--method json_object]

Each question is reviewed with ``--offline`` (the sources answer from the recorded corpus, so
only the model varies) and the model at ``--base-url``. Printed per step, summed over the
reviews: questions asked of the model, requests sent, replies usable the first time, fallbacks
to the deterministic engine, replies cut at the token limit, tokens in and out, seconds. Then
one line per review (wall time, findings, steps the model answered) and, last, the structured-
output method the server ended with and ``review-seconds <mean>``.

Point it at your own server (Ollama, vLLM, LM Studio, llama.cpp) to see whether your model
answers the steps or the deterministic engine does the work.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

from langchain_openai import ChatOpenAI

from scholargraph import review
from scholargraph.report import StepUsage

QUESTIONS = [
    "machine learning for public health surveillance",
    "Does aspirin reduce the risk of colorectal cancer?",
    "What is the band gap of TiO2 thin films?",
]
"""Questions of three fields whose sources the offline corpus answers."""

COLUMNS = ("step", "asks", "calls", "valid-1st", "fallbacks", "cut", "tokens-in", "tokens-out",
           "seconds")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default=os.environ.get("SCHOLARGRAPH_REAL_MODEL_URL",
                                                             "http://127.0.0.1:8088/v1"))
    parser.add_argument("--model", default=os.environ.get("SCHOLARGRAPH_REAL_MODEL_NAME",
                                                          "smollm2"))
    parser.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY", "x"))
    parser.add_argument("--questions", type=int, default=1, help="how many of the questions")
    parser.add_argument("--max-results", type=int, default=5)
    parser.add_argument("--method", default=None,
                        help="force json_schema, tools or json_object (default: per server)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per model call")
    args = parser.parse_args(argv)

    model = ChatOpenAI(model=args.model, base_url=args.base_url, api_key=args.api_key,
                       temperature=0, timeout=args.timeout, max_retries=0)
    totals: dict[str, StepUsage] = {}
    walls: list[float] = []
    method = None
    for question in QUESTIONS[:args.questions]:
        started = time.monotonic()
        with tempfile.TemporaryDirectory() as out:
            report = review(question, out=out, offline=True, chat_model=model,
                            max_results=args.max_results, max_iterations=1,
                            structured_output=args.method)
        walls.append(time.monotonic() - started)
        engine = report.engine
        method = engine.method
        for step in engine.steps:
            total = totals.setdefault(step.step, StepUsage(step=step.step))
            for name in ("asks", "calls", "valid_first_time", "fallbacks", "cut", "tokens_in",
                         "tokens_out"):
                setattr(total, name, getattr(total, name) + getattr(step, name))
            total.seconds = round(total.seconds + step.seconds, 1)
        print(f"review {question[:50]!r}: {walls[-1]:.1f} s, {len(report.findings)} findings, "
              f"model answered: {', '.join(engine.answered_by_model()) or 'none'}, "
              f"refused methods: {', '.join(engine.refused) or 'none'}", flush=True)

    print()
    print("  ".join(f"{c:>11}" for c in COLUMNS))
    for step in totals.values():
        print("  ".join(f"{v:>11}" for v in (
            step.step[:11], step.asks, step.calls, step.valid_first_time, step.fallbacks,
            step.cut, step.tokens_in, step.tokens_out, f"{step.seconds:.1f}")))
    print()
    print(f"method {method}")
    print(f"review-seconds {sum(walls) / len(walls):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
