"""Generated logs for tests and benchmarks: any length, fast, valid, reproducible."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from typing import Any

from tui.models import ROOT_PARENT, parse_event

from ..store import Store
from ..times import utc_text
from ..views import conversation_info
from .conversation_builder import ConversationBuilder
from .dataset import BASE_TIME
from .events_builder import text
from .ids import SeededIds


def _prototypes() -> dict[str, dict[str, Any]]:
    """Full dumps (nulls included) of the few event shapes a generated log repeats."""
    b = ConversationBuilder(random.Random(0), BASE_TIME, conversation_id="0" * 32)
    b.system_prompt()
    b.user("Start the benchmark task.")
    b.terminal("pytest -q", "1 passed", 0)
    b.agent("Progress report.")
    shapes: dict[str, dict[str, Any]] = {}
    for event in b.events:
        key = event["kind"]
        if key == "MessageEvent":
            key = "user" if event["source"] == "user" else "agent"
        elif key == "ConversationStateUpdateEvent":
            key = "state:" + event["key"]
        parsed = parse_event(event)
        shapes.setdefault(key, parsed.model_dump(mode="json"))
    return shapes


def _uuid(getrandbits: Any) -> str:
    h = f"{(getrandbits(128) & ~(0xF000 << 64) & ~(0xC000 << 48)) | (0x4000 << 64) | (0x8000 << 48):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def generate_events(
    n_events: int,
    *,
    seed: int = 0,
    branches: int = 0,
    start: datetime = BASE_TIME,
    conversation_id: str = "0" * 32,
) -> list[dict[str, Any]]:
    """``n_events`` valid events (full dumps) in a repeating work pattern, built fast.

    Pattern per step: ActionEvent (terminal) → ObservationEvent → stats state update
    (back-dated, so log order is not time order), an agent message every ~20 events and a
    user message every ~60. Every 37th event repeats the previous timestamp (ties).
    ``branches`` user messages are re-parented onto an event ~10 positions back.
    """
    rng = random.Random(seed)
    bits = rng.getrandbits
    proto = _prototypes()
    events: list[dict[str, Any]] = []
    now = start
    head = ROOT_PARENT
    branch_at = (
        {int(n_events * (k + 1) / (branches + 1)) for k in range(branches)} if branches else set()
    )
    system = dict(
        proto["SystemPromptEvent"],
        id=_uuid(bits),
        timestamp=now.isoformat(timespec="microseconds"),
        parent_id=ROOT_PARENT,
    )
    events.append(system)
    head = system["id"]
    step = 0
    while len(events) < n_events:
        index = len(events)
        if index % 37 != 0:
            now += timedelta(microseconds=rng.randint(1000, 400000))
        stamp = now.isoformat(timespec="microseconds")
        if index in branch_at or index % 60 == 1:
            parent = head
            if index in branch_at and index > 12:
                parent = (
                    events[index - 10]["id"]
                    if events[index - 10]["kind"] != "ConversationStateUpdateEvent"
                    else events[index - 11]["id"]
                )
            event = dict(proto["user"], id=_uuid(bits), timestamp=stamp, parent_id=parent)
            event["llm_message"] = dict(
                event["llm_message"],
                content=[
                    text(
                        f"Step {step}: try a different approach."
                        if index in branch_at
                        else f"Continue with step {step}."
                    )
                ],
            )
            head = event["id"]
        elif index % 20 == 0:
            event = dict(
                proto["agent"],
                id=_uuid(bits),
                timestamp=stamp,
                parent_id=head,
                llm_response_id=f"chatcmpl-{bits(64):016x}",
            )
            event["llm_message"] = dict(
                event["llm_message"], content=[text(f"Progress report {step}.")]
            )
            head = event["id"]
        else:
            kind = events[-1]["kind"]
            if kind == "ActionEvent":
                action = events[-1]
                event = dict(
                    proto["ObservationEvent"],
                    id=_uuid(bits),
                    timestamp=stamp,
                    parent_id=head,
                    tool_call_id=action["tool_call_id"],
                    action_id=action["id"],
                )
                observation = dict(
                    event["observation"],
                    command=action["action"]["command"],
                    content=[text(f"test_{step}.py .... ok\n{step % 7 + 1} passed")],
                )
                event["observation"] = observation
                head = event["id"]
            elif kind == "ObservationEvent":
                back = (now - timedelta(microseconds=rng.randint(500, 5000))).isoformat(
                    timespec="microseconds"
                )
                event = dict(
                    proto["state:stats"],
                    id=_uuid(bits),
                    timestamp=back,
                    parent_id=head,
                    value={
                        "usage_to_metrics": {
                            "agent": {
                                "model_name": "bench",
                                "accumulated_cost": round(step * 0.0021, 6),
                            }
                        }
                    },
                )
            else:
                step += 1
                call = f"call_{bits(48):012x}"
                command = f"pytest -q tests/test_{step}.py"
                event = dict(
                    proto["ActionEvent"],
                    id=_uuid(bits),
                    timestamp=stamp,
                    parent_id=head,
                    tool_call_id=call,
                    llm_response_id=f"chatcmpl-{bits(64):016x}",
                    summary=f"Run test step {step}",
                )
                event["action"] = dict(event["action"], command=command)
                event["tool_call"] = dict(
                    event["tool_call"],
                    id=call,
                    arguments=json.dumps({"command": command, "security_risk": "LOW"}),
                )
                head = event["id"]
        events.append(event)
    return events[:n_events]


def generate_conversation(
    store: Store,
    n_events: int,
    *,
    seed: int = 0,
    branches: int = 0,
    conversation_id: str | None = None,
    title: str | None = None,
    sandbox_id: str | None = None,
    start: datetime = BASE_TIME,
) -> str:
    """Create one conversation of ``n_events`` generated events; returns its id.

    Fast path for benchmarks: the events are already full dumps, so they are stored without
    re-validation (``normalize=False``). 100,000 events take about a second or two.
    """
    rng = random.Random(f"conversation:{seed}")
    conversation_id = conversation_id or SeededIds(rng).hex32()
    events = generate_events(
        n_events, seed=seed, branches=branches, start=start, conversation_id=conversation_id
    )
    with store.transaction():
        store.put_conversation(
            conversation_info(
                id=conversation_id,
                sandbox_id=sandbox_id or "oh-agent-server-benchmark",
                title=title or f"Generated: {n_events} events",
                llm_model="litellm_proxy/claude-sonnet-4-5",
                created_at=utc_text(start),
                updated_at=utc_text(datetime.fromisoformat(events[-1]["timestamp"]))
                if events
                else utc_text(start),
                execution_status="finished",
                public=True,
            )
        )
        store.append_events(conversation_id, events, normalize=False)
    return conversation_id


def add_state_update_stretch(
    store: Store, conversation_id: str, n_events: int, *, viewable_every: int = 25, seed: int = 0
) -> int:
    """Append ``n_events`` events of which only every ``viewable_every``-th is viewable (an
    agent MessageEvent); the rest are ConversationStateUpdateEvents. Returns how many
    viewable events were added. For testing the shared search's refill rule."""
    rng = random.Random(f"stretch:{seed}")
    proto = _prototypes()
    last = store.last_event_timestamp(conversation_id)
    now = datetime.fromisoformat(last) if last else BASE_TIME
    head = store.head_event_id(conversation_id) or ROOT_PARENT
    events = []
    viewable = 0
    for index in range(n_events):
        now += timedelta(microseconds=rng.randint(1000, 50000))
        stamp = now.isoformat(timespec="microseconds")
        if (index + 1) % viewable_every == 0:
            event = dict(proto["agent"], id=_uuid(rng.getrandbits), timestamp=stamp, parent_id=head)
            event["llm_message"] = dict(
                event["llm_message"], content=[text(f"Still working ({index}).")]
            )
            head = event["id"]
            viewable += 1
        else:
            event = dict(
                proto["state:execution_status"],
                id=_uuid(rng.getrandbits),
                timestamp=stamp,
                parent_id=head,
                value=rng.choice(["running", "idle", "running"]),
            )
        events.append(event)
    store.append_events(conversation_id, events, normalize=False)
    return viewable
