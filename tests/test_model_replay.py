"""The LLM engine against what a real server once answered, replayed on loopback.

``scholargraph/testing/fixtures/chat/smollm2_review.jsonl`` holds every exchange of one CLI review
(``scholargraph review "machine learning for public health surveillance" --offline --model
openai:smollm2``) with llama-cpp-python 0.3.36 serving SmolLM2-135M-Instruct, recorded by
:class:`~scholargraph.testing.chat.ChatRecorder`; ``smollm2_cases.jsonl`` holds single exchanges
recorded the same way (a reply cut at its token limit). The real ``ChatOpenAI`` client talks to
:class:`~scholargraph.testing.chat.ChatReplayServer`, so the requests the engine sends are read
back exactly as the server received them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_openai import ChatOpenAI
from langgraph.runtime import Runtime

from scholargraph.agents.intent import INTENT_TOKENS, detect_intent, intent
from scholargraph.agents.planning import planning
from scholargraph.agents.schemas import Intent
from scholargraph.context import ReviewContext
from scholargraph.engines import ModelSession
from scholargraph.testing.chat import ChatReplayServer, Exchange, load_exchanges

FIXTURES = Path(__file__).parents[1] / "scholargraph" / "testing" / "fixtures" / "chat"
QUESTION = "machine learning for public health surveillance"


@pytest.fixture(autouse=True)
def _no_model_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCHOLARGRAPH_MODEL", raising=False)
    monkeypatch.delenv("SCHOLARGRAPH_STRUCTURED_OUTPUT", raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")


def _review() -> list[Exchange]:
    return [e for e in load_exchanges(FIXTURES / "smollm2_review.jsonl")
            if e.path.endswith("/chat/completions")]


def _tool(exchange: Exchange) -> str | None:
    tools = (exchange.request or {}).get("tools") or []
    return tools[0]["function"]["name"] if tools else None


def _model(server: ChatReplayServer) -> ChatOpenAI:
    return ChatOpenAI(model="smollm2", base_url=server.base_url, api_key="x", temperature=0,
                      max_retries=0)


def test_a_server_refusing_json_schema_is_asked_with_tools_and_the_run_remembers():
    exchanges = _review()
    refusal = next(e for e in exchanges if e.status == 500)
    assert "response_format" in str(refusal.response)
    intent_reply = next(e for e in exchanges if e.status == 200 and _tool(e) == "Intent")
    plan_reply = next(e for e in exchanges if e.status == 200 and _tool(e) == "PlanReply")

    with ChatReplayServer([refusal, intent_reply]) as server:
        context = ReviewContext(chat_model=_model(server))
        update = intent({"cleaned_question": QUESTION}, Runtime(context=context))
        first, second = server.requests
    assert first["response_format"]["type"] == "json_schema" and "tools" not in first
    assert second["tool_choice"]["function"]["name"] == "Intent"
    assert first["max_tokens"] == second["max_tokens"] == INTENT_TOKENS
    (step,) = update["model_steps"]
    assert (step.refused, step.method, step.calls) == (["json_schema"], "function_calling", 2)
    assert step.answered_by == "model" and step.tokens_in > 0 and step.tokens_out > 0

    state = {"cleaned_question": QUESTION, "intent": update["intent"], **update}
    with ChatReplayServer([plan_reply, plan_reply]) as server:
        context = ReviewContext(chat_model=_model(server))
        planned = planning(state, Runtime(context=context))
        requests = server.requests
    assert all("response_format" not in r and r["tool_choice"]["function"]["name"] == "PlanReply"
               for r in requests)
    assert planned["model_steps"][0].refused == []
    assert 2 <= len(planned["sub_questions"]) <= 4
    # The recorded plan holds one question, its repeat and a statement: asked again, then the
    # template plan, with a note (the statement never becomes a sub-question).
    assert len(requests) == 2 and planned["model_steps"][0].answered_by == "fallback"
    assert not any("multi-faceted" in s.text for s in planned["sub_questions"])


def test_the_model_s_fields_the_question_does_not_touch_never_reach_the_sources():
    """The recorded intent reply says the question is about materials; it is not."""
    exchanges = _review()
    refusal = next(e for e in exchanges if e.status == 500)
    intent_reply = next(e for e in exchanges if e.status == 200 and _tool(e) == "Intent")
    with ChatReplayServer([refusal, intent_reply]) as server:
        update = intent({"cleaned_question": QUESTION},
                        Runtime(context=ReviewContext(chat_model=_model(server))))
    said = intent_reply.response["choices"][0]["message"]["tool_calls"][0]["function"]
    assert '"materials"' in said["arguments"]
    assert "materials" not in update["intent"].domains
    assert "materials" not in update["active_sources"]
    assert any("dropped the model's domains ['materials']" in n for n in update["notes"])


def test_a_reply_cut_at_its_token_limit_is_retried_tersely_then_falls_back():
    cases = load_exchanges(FIXTURES / "smollm2_cases.jsonl")
    cut = next(e for e in cases if e.response["choices"][0]["finish_reason"] == "length")
    with ChatReplayServer([cut, cut]) as server:
        session = ModelSession(_model(server), ReviewContext(structured_output="json_object"))
        fallback = detect_intent(QUESTION)
        answer, (note,) = session.ask(Intent, system="Classify.", user=QUESTION,
                                      fallback=lambda: fallback, step="intent",
                                      max_tokens=cut.request["max_tokens"])
        first, second = server.requests
    assert answer == fallback
    assert "cut at the token limit" in note and note.startswith("intent: ")
    assert first["response_format"] == {"type": "json_object"}
    assert "could not be used" in second["messages"][0]["content"]
    (step,) = session.steps
    assert (step.cut, step.calls, step.answered_by) == (2, 2, "fallback")
