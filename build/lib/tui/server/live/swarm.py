"""Many simulated agents at once, for the board and its benchmark (``--agents N``).

``create_app(..., agents=N)`` adds N conversations, each on its own RUNNING sandbox, and
plays each as one agent that works through the demo's stories one after another in that
same conversation, with a short rest between. The agents start at different stories, so
at any moment some run, some wait for confirmation (the patient simulated user approves
after a while, unless someone answered first), some were paused by the user for a while,
some failed or got stuck; their costs and step counts climb as they go.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui.models import SandboxStatus

from ..demo.dataset import SPECS
from ..demo.events_builder import text
from ..demo.ids import SeededIds
from ..demo.live_demo import DEMO_PACE, DEMO_STORIES, Story, add_live_conversation
from .errors import LiveError

if TYPE_CHECKING:
    from ..lifecycle import Lifecycle
    from ..store import Store
    from .conversation import LiveConversation
    from .hub import LiveHub

log = logging.getLogger("tui.server.live")

#: The stories in turn: the demo's, and one that gets stuck.
SWARM_STORIES = (
    *DEMO_STORIES,
    Story(
        "stuck",
        "Make the payments integration tests pass.",
        "make the integration tests pass",
        "acme/payments",
    ),
)
#: Paces of rest after a story (plus the agent's index modulo 5, so they drift apart).
REST_PACES = 6
#: Paces a confirmation waits before the simulated user approves it.
APPROVE_PACES = 40
#: Every ``PAUSER``-th agent is paused by its user a few steps into each story, for a while.
PAUSER = 7
PAUSE_AFTER_PACES = 4
PAUSED_PACES = 20
_ENDED = ("finished", "error", "idle", "stuck")


def add_swarm(
    store: Store, lifecycle: Lifecycle, count: int, *, clock: Callable[[], float]
) -> list[str]:
    """``count`` agents' conversations, each on a new RUNNING sandbox, ending with the
    request of its first story (unanswered). Returns their ids, in order."""
    if store.default_spec_id() is None:
        store.put_spec(dict(SPECS[0]))
    spec = store.default_spec_id()
    ids = []
    for index in range(count):
        story = SWARM_STORIES[index % len(SWARM_STORIES)]
        sandbox = lifecycle.new_sandbox(spec, clock(), SandboxStatus.RUNNING)
        rng = random.Random(f"swarm:{index}")
        ids.append(
            add_live_conversation(
                store,
                sandbox_id=sandbox["id"],
                message=story.message,
                title=story_title(index, story),
                repository=story.repository,
                clock=clock,
                conversation_id=SeededIds(rng).hex32(),
                rng=rng,
            )
        )
    return ids


def story_title(index: int, story: Story) -> str:
    return f"Agent {index + 1:03d}: {story.title.removeprefix('Live: ')}"


def retitle(store: Store, conversation_id: str, title: str) -> None:
    """A new task in the same conversation: its title says what the agent works on now."""
    with store.transaction():
        info = store.get_conversation(conversation_id)
        if info is not None:
            store.put_conversation({**info, "title": title})


async def play_agent(hub: LiveHub, conversation_id: str, index: int) -> None:
    """One agent of the swarm, forever: a story, a rest, the next story."""
    pace = hub.pace or DEMO_PACE
    turn = index
    conv = hub.get(conversation_id)
    if conv is None:
        return
    conv.request_script = SWARM_STORIES[turn % len(SWARM_STORIES)].script
    pauser = index % PAUSER == PAUSER - 1
    await asyncio.sleep(pace * (index % 5) / 5)  # not all on the same tick
    try:
        while True:
            conv = hub.get(conversation_id)
            if conv is None:
                return
            conv.autoplay = True
            await play_story(conv, pace, pause=pauser)
            rested = 0
            while rested < REST_PACES + index % 5:
                await asyncio.sleep(pace)
                rested += conv.sandbox_running()
            turn += 1
            story = SWARM_STORIES[turn % len(SWARM_STORIES)]
            while True:
                try:
                    await conv.send_message([text(story.message)], run=False, script=story.script)
                    break
                except LiveError:  # the sandbox was paused meanwhile: the user waits for it
                    await asyncio.sleep(pace)
            retitle(hub.store, conversation_id, story_title(index, story))
    except LiveError as exc:
        log.info("swarm agent %s stopped: %s", index, exc.detail)


async def play_story(conv: LiveConversation, pace: float, *, pause: bool = False) -> None:
    """Run the conversation's request to its end (see the module doc for who answers)."""
    started = paused = False
    waited = ran = 0
    while True:
        if not conv.sandbox_running():
            await asyncio.sleep(pace)
            continue
        if not started and conv.status in (*_ENDED, "paused"):
            with contextlib.suppress(LiveError):
                await conv.run()
            started = True
        await asyncio.sleep(pace)
        status = conv.status
        if status == "waiting_for_confirmation":
            waited += 1
            if waited >= APPROVE_PACES:
                with contextlib.suppress(LiveError):
                    await conv.respond(True, "")
                waited = 0
        elif status == "running":
            waited, ran = 0, ran + 1
            if pause and not paused and ran >= PAUSE_AFTER_PACES:
                paused = True
                with contextlib.suppress(LiveError):
                    await conv.pause()
                await _resume_later(conv, pace)
        elif started and status in _ENDED:
            return


async def _resume_later(conv: LiveConversation, pace: float) -> None:
    """The user looks away for a while, then lets the paused agent go on."""
    for _ in range(PAUSED_PACES):
        await asyncio.sleep(pace)
        if conv.status != "paused":
            return  # someone else ran it
    with contextlib.suppress(LiveError):
        await conv.run()
