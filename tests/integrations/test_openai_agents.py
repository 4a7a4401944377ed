"""The memory tools in a real OpenAI Agents SDK run, driven by a scripted model (offline: no LLM,
no network, tracing off): the SDK's runner calls the tools as it would for a real model."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, FunctionTool, ModelResponse, Runner, Usage, set_tracing_disabled
from agents.models.interface import Model
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from memctl.api import MemoryStore
from memctl.integrations.openai_agents import memory_tools


class ScriptedModel(Model):
    """Answers each turn from a script: tool calls first, then a final message; records what the
    runner sent back (the tool outputs)."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        self.calls = calls
        self.inputs: list[Any] = []

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        self.inputs.append(input)
        turn = len(self.inputs) - 1
        if turn < len(self.calls):
            name, arguments = self.calls[turn]
            output: list[Any] = [ResponseFunctionToolCall(type="function_call", call_id=f"c{turn}", name=name,
                                                          arguments=json.dumps(arguments), id=f"f{turn}")]
        else:
            output = [ResponseOutputMessage(id="m", type="message", role="assistant", status="completed", content=[
                ResponseOutputText(type="output_text", text="done", annotations=[])])]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


def _outputs(model: ScriptedModel) -> list[str]:
    last = model.inputs[-1]
    return [item["output"] for item in last if isinstance(item, dict) and item.get("type") == "function_call_output"]


def test_an_agent_adds_and_searches_memories_through_the_tools(store: MemoryStore) -> None:
    set_tracing_disabled(True)
    tools = memory_tools(store, user="alice")
    assert all(isinstance(t, FunctionTool) for t in tools)
    assert [t.name for t in tools] == ["memory_search", "memory_add", "memory_context", "memory_update",
                                       "memory_forget", "memory_list", "memory_query", "memory_show"]
    model = ScriptedModel([
        ("memory_add", {"content": "Alice prefers window seats on flights", "memory_type": "preference"}),
        ("memory_search", {"query": "which seat does Alice like"}),
        ("memory_add", {"content": "My card number is 4111 1111 1111 1111"}),
        ("memory_list", {"limit": "many"}),
    ])
    agent = Agent(name="assistant", instructions="Use memory.", model=model, tools=tools)
    result = asyncio.run(Runner.run(agent, "Remember my seat preference."))
    assert result.final_output == "done"

    added, found, refused, invalid = _outputs(model)
    memory = json.loads(added)["memory"]
    assert memory["user"] == "alice" and memory["source"] == "ai" and memory["type"] == "preference"
    assert json.loads(found)["hits"][0]["id"] == memory["id"]
    assert refused.startswith("sensitive: ")  # the model reads why, and nothing was stored
    assert invalid.startswith("invalid_arguments: ")
    assert [m.body for m in store.list()] == ["Alice prefers window seats on flights"]


def test_arguments_nested_too_deep_are_an_error_the_model_reads(store: MemoryStore) -> None:
    tool = memory_tools(store, user="alice")[0]
    deep = '{"query": ' + "[" * 20_000 + "]" * 20_000 + "}"  # past Python's recursion limit
    out = asyncio.run(tool.on_invoke_tool(None, deep))  # type: ignore[arg-type]
    assert out.startswith("invalid_arguments: not JSON: JSON nested deeper")
