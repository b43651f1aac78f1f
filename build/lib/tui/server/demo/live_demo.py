"""The demo's live conversations: stamped with the current time, one run each.

The demo teaches by showing agents at work: a long session always running (lap after lap,
each in a fresh conversation: ``session_script.py``), and now and then a short story — a
user's request, the agent working on it, finished — in a fresh conversation too
(``tui.server.live.autoplay`` plays them), never one endless log whose cost climbs forever.
:data:`DEMO_STORIES` are the stories in turn; each costs cents and tens of thousands of
tokens, as a real run of that size does. :func:`load_live_demo` sets all of it up.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from tui.models import ROOT_PARENT

from ..store import Store
from ..times import utc_from_clock
from ..views import conversation_info
from .conversation_builder import ConversationBuilder
from .dataset import DEMO_SEED, load_demo
from .hooks import HOOK_CONFIG
from .ids import SeededIds
from .session_script import LAP_FILES, REPOSITORY, REQUEST, TITLE

#: Seconds between two steps of the demo's live runs (``start_demo_server``, ``ohtui serve``).
DEMO_PACE = 0.7
LIVE_TITLE = "Live: the agent at work (follow it over the websocket)"
#: The script the long session's laps play (``agent_scripts.SCRIPTS``).
LOOP_SCRIPT = "session"


@dataclass(frozen=True)
class Story:
    """One live run: the script the agent plays, the user's request, the title."""

    script: str
    message: str
    title: str
    repository: str | None = None


#: The stories the demo plays, one fresh conversation each, in turn (after the first one,
#: which :func:`add_live_demo` sets up).
DEMO_STORIES = (
    Story(
        "flaky",
        "`test_refund_idempotency` fails about 1 run in 20 — find out why.",
        "Live: find why test_refund_idempotency is flaky",
        "acme/payments",
    ),
    Story(
        "verbose",
        "Add a --verbose flag to cli/main.py.",
        "Live: add a --verbose flag",
        "acme/fetch-cli",
    ),
    Story(
        "confirm",
        "Free some disk space in the project (ask me before deleting anything).",
        "Live: free disk space (asks before deleting)",
    ),
    Story(
        "docs",
        "Document the CLI in docs/usage.md.",
        "Live: document the CLI",
        "acme/fetch-cli",
    ),
    Story(
        "hello",
        "Please say hello, write hello.py and run it.",
        "Live: say hello",
        "octo-org/hello-world",
    ),
    Story(
        "fail",
        "Summarize the open bugs in acme/widgets.",
        "Live: summarize open bugs",
        "acme/widgets",
    ),
)


def add_live_conversation(
    store: Store,
    *,
    sandbox_id: str,
    message: str,
    title: str,
    repository: str | None = None,
    clock: Callable[[], float] = time.time,
    conversation_id: str | None = None,
    rng: random.Random | None = None,
) -> str:
    """A fresh conversation on ``sandbox_id`` that ends with the user's unanswered
    ``message`` (status idle): the next run answers it. Returns its id."""
    conversation_id = conversation_id or uuid.uuid4().hex
    now = clock()
    builder = ConversationBuilder(
        rng or random.Random(conversation_id),
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
    builder.user(message, run=False)
    builder.status("idle")
    with store.transaction():
        store.put_conversation(
            conversation_info(
                id=conversation_id,
                sandbox_id=sandbox_id,
                selected_repository=repository,
                selected_branch="main" if repository else None,
                git_provider="github" if repository else None,
                title=title,
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


def load_live_demo(store: Store, *, clock: Callable[[], float] = time.time) -> dict[str, str]:
    """The demo as ``ohtui`` shows it: the dataset, moved to ``clock()`` (minutes old, not
    months), the first story (``"live"``) and the first lap of the long session
    (``"loop"``); for ``create_app(..., autoplay=[live], looping=[loop])``."""
    names = load_demo(store, now=clock())
    names["live"] = add_live_demo(store, clock=clock)
    names["loop"] = add_lap(store, sandbox_id=_running_sandboxes(store)[0], clock=clock)
    return names


def add_lap(store: Store, *, sandbox_id: str, clock: Callable[[], float] = time.time) -> str:
    """A fresh conversation for a lap of the long session (its request unanswered)."""
    return add_live_conversation(
        store,
        sandbox_id=sandbox_id,
        message=REQUEST,
        title=TITLE,
        repository=REPOSITORY,
        clock=clock,
    )


def reset_lap(store: Store) -> None:
    """Put the files a lap starts from back into the demo's workspace (a store without
    one is left alone): what the agent reads is what is there."""
    workspace = getattr(store, "workspace", None)
    if workspace is not None:
        workspace.prepare(LAP_FILES)


def _running_sandboxes(store: Store) -> list[str]:
    sandboxes, _ = store.search_sandboxes(limit=100)
    running = [s["id"] for s in sandboxes if s["status"] == "RUNNING"]
    if not running:
        raise ValueError("the live demo needs a RUNNING sandbox (load_demo first)")
    return running


def add_live_demo(
    store: Store, *, clock: Callable[[], float] = time.time, seed: int = DEMO_SEED
) -> str:
    """Add the demo's first live conversation; returns its id.

    Kept out of :func:`load_demo` so the demo dataset stays identical run to run: this one
    is stamped with the current time (its run produces wall-clock events) and is meant to be
    played by ``create_app(..., autoplay=[id])``. It sits on the oldest RUNNING sandbox
    (so it carries ``conversation_url`` and ``session_api_key``) and ends with an unanswered
    user message, which the first run answers.
    """
    rng = random.Random(f"{seed}:live")
    conversation_id = SeededIds(rng).hex32()
    return add_live_conversation(
        store,
        sandbox_id=_running_sandboxes(store)[-1],
        message="Please say hello, write hello.py and run it.",
        title=LIVE_TITLE,
        repository="octo-org/hello-world",
        clock=clock,
        conversation_id=conversation_id,
        rng=random.Random(rng.getrandbits(64)),
    )
