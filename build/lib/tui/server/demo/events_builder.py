"""Building realistic event logs, one conversation at a time.

Why: the demo dataset, the conversations a start task creates and the benchmark logs all
need events shaped exactly like a real agent server's (``agent-server-capture/persisted``):
SDK field order, dashed uuid4 ids, naive microsecond timestamps, ``parent_id`` stamped the
way ``ConversationState.append_event`` does it (each event hangs under the current head;
state updates are siblings of the next step). Everything is driven by a ``random.Random``
and an explicit start time, never the wall clock, so output is reproducible.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from typing import Any

from tui.models import ROOT_PARENT

from .ids import SeededIds
from .system_prompt import SYSTEM_PROMPT, TOOLS

#: Tokens of earlier turns a prompt carries at most (a condensed context window).
MAX_CARRIED_CONTEXT = 5000
#: Where the demo's agents work.
WORKDIR = "/workspace/project"


def text(value: str) -> dict[str, Any]:
    return {"cache_prompt": False, "type": "text", "text": value}


class EventsBuilder:
    """Appends events to an in-memory log the way an agent server would write them.

    ``head`` is the event the next step hangs under. ``navigate(event_id)`` moves it back
    to an earlier event, so what follows becomes a sibling branch (as after the agent
    server's ``/navigate``).
    """

    def __init__(
        self,
        rng: random.Random,
        start: datetime,
        *,
        conversation_id: str,
        model: str = "litellm_proxy/claude-sonnet-4-5",
        workdir: str = "/workspace/project",
        price_in: float = 3e-6,
        price_out: float = 15e-6,
    ) -> None:
        self.rng = rng
        self.ids = SeededIds(rng)
        self.now = start
        self.conversation_id = conversation_id
        self.model = model
        self.workdir = workdir
        self.events: list[dict[str, Any]] = []
        self.head: str = ROOT_PARENT
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cache_read_tokens = 0
        self.cost = 0.0
        self.context_tokens = 0
        self.execution_status = "idle"
        self.last_user_message_id: str | None = None

    # -- primitives ---------------------------------------------------------------------------

    def tick(self, low_ms: float = 2, high_ms: float = 600) -> str:
        self.now += timedelta(
            microseconds=self.rng.randint(int(low_ms * 1000), int(high_ms * 1000))
        )
        return self.now.isoformat(timespec="microseconds")

    def emit(
        self,
        kind: str,
        body: dict[str, Any] | None = None,
        *,
        source: str | None = None,
        parent: str | None = None,
        move: bool = True,
        event_id: str | None = None,
        timestamp: str | None = None,
    ) -> str:
        """Append one event in SDK field order; ``move`` makes it the new head."""
        event_id = event_id or self.ids.uuid()
        event: dict[str, Any] = {
            "id": event_id,
            "timestamp": timestamp or self.tick(),
        }
        if source is not None:
            event["source"] = source
        event["parent_id"] = parent if parent is not None else self.head
        if body:
            event.update(body)
        event["kind"] = kind
        self.events.append(event)
        if move:
            self.head = event_id
        return event_id

    def navigate(self, event_id: str) -> None:
        self.head = event_id

    # -- state updates (non-viewable) -------------------------------------------------------

    def state(self, key: str, value: Any, *, earlier: bool = False) -> str:
        """A keyed ConversationStateUpdateEvent; ``earlier`` back-dates it slightly, like the
        stats updates a real server logs from another thread (log order != time order)."""
        stamp = None
        if earlier:
            stamp = (self.now - timedelta(microseconds=self.rng.randint(500, 9000))).isoformat(
                timespec="microseconds"
            )
        return self.emit(
            "ConversationStateUpdateEvent",
            {"key": key, "value": value},
            source="environment",
            move=False,
            timestamp=stamp,
        )

    def status(self, value: str) -> str:
        self.execution_status = value
        return self.state("execution_status", value)

    def metrics(self) -> dict[str, Any]:
        """MetricsSnapshot of the usage so far (for ``stats`` updates and conversation records)."""
        return {
            "model_name": self.model,
            "accumulated_cost": round(self.cost, 6),
            "max_budget_per_task": None,
            "accumulated_token_usage": {
                "model": self.model,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "cache_read_tokens": self.cache_read_tokens,
                "cache_write_tokens": 0,
                "reasoning_tokens": 0,
                "context_window": 200000,
                "per_turn_token": 0,
                "response_id": "",
            },
        }

    def llm_call(self, prompt: int | None = None, completion: int | None = None) -> str:
        """Account one model call; returns its response id."""
        # The prompt is a fixed base plus the context carried over from earlier turns. That
        # context grows with each turn's output but is capped (condensation keeps it bounded),
        # so a long session costs dollars, not millions: it must not compound with the
        # accumulated total. (Same RNG draws as before, so seeded ids do not move.)
        prompt = prompt if prompt is not None else self.rng.randint(900, 4000) + self.context_tokens
        completion = completion if completion is not None else self.rng.randint(20, 400)
        self.context_tokens = min(self.context_tokens + completion + 300, MAX_CARRIED_CONTEXT)
        cached = int(prompt * 0.7)
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.cache_read_tokens += cached
        self.cost += (prompt - cached) * 3e-6 + cached * 0.3e-6 + completion * 15e-6
        return self.ids.response_id()

    def stats(self) -> str:
        return self.state("stats", {"usage_to_metrics": {"agent": self.metrics()}}, earlier=True)

    # -- conversation steps -----------------------------------------------------------------

    def system_prompt(self, dynamic_context: str | None = None) -> str:
        body: dict[str, Any] = {"system_prompt": text(SYSTEM_PROMPT), "tools": TOOLS}
        if dynamic_context:
            body["dynamic_context"] = text(dynamic_context)
        return self.emit("SystemPromptEvent", body, source="agent", parent=ROOT_PARENT)

    def user(self, message: str, *, parent: str | None = None, run: bool = True) -> str:
        if parent is not None:
            self.navigate(parent)
        event_id = self.emit(
            "MessageEvent",
            {
                "llm_message": {"role": "user", "content": [text(message)], "thinking_blocks": []},
                "activated_skills": [],
                "extended_content": [],
            },
            source="user",
        )
        self.last_user_message_id = event_id
        self.state("last_user_message_id", event_id)
        if run:
            self.status("running")
        return event_id

    def agent(
        self,
        message: str,
        *,
        reasoning: str | None = None,
        thinking: str | None = None,
        redacted: str | None = None,
    ) -> str:
        llm_message: dict[str, Any] = {"role": "assistant", "content": [text(message)]}
        blocks: list[dict[str, Any]] = []
        if thinking:
            blocks.append(
                {"type": "thinking", "thinking": thinking, "signature": self.ids.base62(48)}
            )
        if redacted:
            blocks.append({"type": "redacted_thinking", "data": redacted})
        if reasoning:
            llm_message["reasoning_content"] = reasoning
        llm_message["thinking_blocks"] = blocks
        event_id = self.emit(
            "MessageEvent",
            {
                "llm_message": llm_message,
                "llm_response_id": self.llm_call(),
                "activated_skills": [],
                "extended_content": [],
            },
            source="agent",
        )
        self.stats()
        return event_id

    def action(
        self,
        tool_name: str,
        action: dict[str, Any] | None,
        *,
        summary: str | None = None,
        thought: str = "",
        security_risk: str = "LOW",
        reasoning: str | None = None,
        thinking: str | None = None,
        response_id: str | None = None,
        arguments: dict[str, Any] | None = None,
        event_id: str | None = None,
    ) -> tuple[str, str]:
        """An ActionEvent; ``action=None`` is a non-executable call (unknown tool)."""
        call_id = self.ids.call_id()
        if arguments is None:
            arguments = {k: v for k, v in (action or {}).items() if k != "kind" and v is not None}
            if summary:
                arguments["summary"] = summary
            arguments["security_risk"] = security_risk
        body: dict[str, Any] = {"thought": [text(thought)] if thought else []}
        if reasoning:
            body["reasoning_content"] = reasoning
        body["thinking_blocks"] = (
            [{"type": "thinking", "thinking": thinking, "signature": self.ids.base62(48)}]
            if thinking
            else []
        )
        if action is not None:
            body["action"] = action
        body.update(
            {
                "tool_name": tool_name,
                "tool_call_id": call_id,
                "tool_call": {
                    "id": call_id,
                    "name": tool_name,
                    "arguments": json.dumps(arguments),
                    "origin": "completion",
                },
                "llm_response_id": response_id or self.llm_call(),
                "security_risk": security_risk if action is not None else "UNKNOWN",
            }
        )
        if summary:
            body["summary"] = summary
        return self.emit("ActionEvent", body, source="agent", event_id=event_id), call_id

    def observe(
        self, action_id: str, call_id: str, tool_name: str, observation: dict[str, Any]
    ) -> str:
        event_id = self.emit(
            "ObservationEvent",
            {
                "tool_name": tool_name,
                "tool_call_id": call_id,
                "observation": observation,
                "action_id": action_id,
                "extended_content": [],
            },
            source="environment",
        )
        return event_id
