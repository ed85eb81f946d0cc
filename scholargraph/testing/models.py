"""A scripted chat model, to test the LLM engine (ours or a plug-in's) without a model or a network.

:class:`ScriptedChatModel` is LangChain's own ``FakeMessagesListChatModel`` with two additions:
it supports ``bind_tools``, so ``with_structured_output(Schema)`` works through the tool-calling
path every ``BaseChatModel`` has, and it records what it was sent, so a test can read the prompts.
Unlike its parent it never cycles: a reply asked for beyond the script is an error, so a test
notices an unexpected call. Script a reply with the helpers::

    from scholargraph.testing import ScriptedChatModel, malformed_reply, structured_reply

    model = ScriptedChatModel(responses=[
        malformed_reply(Intent, {"kind": "not a kind"}),   # fails validation: the engine retries
        structured_reply(Intent(kind="mechanism", domains=["biomedical"], keywords=["x"])),
    ])
    runtime = Runtime(context=ReviewContext(chat_model=model))
    intent(state, runtime)
    model.received[0]          # the messages of the first call

A plain string in ``responses`` is a text reply without a tool call: structured output reads it as
no answer at all, which is the other way a model gets it wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import count
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, Field, field_validator

_call_ids = count(1)


class ScriptExhaustedError(AssertionError):
    """The code under test asked the scripted model for more replies than the test scripted.

    An ``AssertionError``, so no engine mistakes it for a malformed reply and falls back quietly.
    """


class ScriptedChatModel(FakeMessagesListChatModel):
    """Replays ``responses`` in order, one per call, and records each call's messages."""

    received: list[list[BaseMessage]] = Field(
        default_factory=list, description="The messages of every call, in order"
    )

    @field_validator("responses", mode="before")
    @classmethod
    def _text_to_message(cls, value: Sequence[BaseMessage | str]) -> list[BaseMessage]:
        return [AIMessage(content=item) if isinstance(item, str) else item for item in value]

    @property
    def remaining(self) -> int:
        """Replies scripted but not yet asked for (0 when the script was used up exactly)."""
        return len(self.responses) - len(self.received)

    def bind_tools(
        self,
        tools: Sequence[Mapping[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Accept tools as a real model would; the scripted replies decide which one is called."""
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.received.append(list(messages))
        if len(self.received) > len(self.responses):
            raise ScriptExhaustedError(
                f"the model was called {len(self.received)} times but only "
                f"{len(self.responses)} replies were scripted; last prompt: "
                f"{str(messages[-1].content)[:200]!r}"
            )
        reply = self.responses[len(self.received) - 1]
        return ChatResult(generations=[ChatGeneration(message=reply)])


def _tool_name(schema: type[BaseModel] | str) -> str:
    """The tool name LangChain's structured-output parser looks for: the schema's title."""
    if isinstance(schema, str):
        return schema
    return schema.model_config.get("title") or schema.__name__


def tool_call_reply(schema: type[BaseModel] | str, args: Mapping[str, Any]) -> AIMessage:
    """A reply calling the ``schema`` tool with ``args`` as given, valid or not."""
    return AIMessage(content="", tool_calls=[{
        "name": _tool_name(schema), "args": dict(args), "id": f"call_{next(_call_ids)}",
        "type": "tool_call",
    }])


def structured_reply(answer: BaseModel) -> AIMessage:
    """The well-formed reply that ``with_structured_output(type(answer))`` parses into
    ``answer``."""
    return tool_call_reply(type(answer), answer.model_dump(mode="json"))


def malformed_reply(schema: type[BaseModel] | str,
                    args: Mapping[str, Any] | None = None) -> AIMessage:
    """A reply calling the ``schema`` tool with arguments that fail its validation.

    Without ``args`` the call carries a field no schema of ours has (records forbid extra fields)
    and none of the required ones.
    """
    return tool_call_reply(schema, args if args is not None else {"unexpected": "field"})
