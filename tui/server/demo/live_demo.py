"""The demo's live conversation: stamped with the current time, kept busy by autoplay."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import datetime

from tui.models import ROOT_PARENT

from ..store import Store
from ..times import utc_from_clock
from ..views import conversation_info
from .conversation_builder import ConversationBuilder
from .dataset import DEMO_SEED
from .hooks import HOOK_CONFIG
from .ids import SeededIds

#: Seconds between two steps of the demo's live runs (``start_demo_server``, ``ohtui serve``).
DEMO_PACE = 0.7
LIVE_TITLE = "Live: the agent at work (follow it over the websocket)"


def add_live_demo(
    store: Store, *, clock: Callable[[], float] = time.time, seed: int = DEMO_SEED
) -> str:
    """Add the demo's live conversation; returns its id.

    Kept out of :func:`load_demo` so the demo dataset stays identical run to run: this one
    is stamped with the current time (its run produces wall-clock events) and is meant to be
    kept busy by ``create_app(..., autoplay=[id])``. It sits on the oldest RUNNING sandbox
    (so it carries ``conversation_url`` and ``session_api_key``) and ends with an unanswered
    user message, which the first run answers.
    """
    sandboxes, _ = store.search_sandboxes(limit=100)
    running = [s for s in sandboxes if s["status"] == "RUNNING"]
    if not running:
        raise ValueError("add_live_demo needs a RUNNING sandbox (load_demo first)")
    sandbox = running[-1]
    rng = random.Random(f"{seed}:live")
    conversation_id = SeededIds(rng).hex32()
    now = clock()
    builder = ConversationBuilder(
        random.Random(rng.getrandbits(64)),
        datetime.fromtimestamp(now - 5),
        conversation_id=conversation_id,
    )
    builder.emit(
        "ConversationStateUpdateEvent",
        {"key": "hook_config", "value": HOOK_CONFIG},
        source="environment",
        parent=ROOT_PARENT,
        move=False,
    )
    builder.system_prompt()
    builder.user("Please say hello, write hello.py and run it.", run=False)
    builder.status("idle")
    with store.transaction():
        store.put_conversation(
            conversation_info(
                id=conversation_id,
                sandbox_id=sandbox["id"],
                selected_repository="octo-org/hello-world",
                selected_branch="main",
                git_provider="github",
                title=LIVE_TITLE,
                trigger="gui",
                llm_model=builder.model,
                created_at=utc_from_clock(now - 5),
                updated_at=utc_from_clock(now),
                execution_status="idle",
                public=True,
            )
        )
        store.append_events(conversation_id, builder.events, strict=True)
    return conversation_id
