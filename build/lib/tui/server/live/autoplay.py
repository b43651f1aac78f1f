"""The demo's live agent: a long session that loops, and short stories now and then.

``create_app(..., agent_pace=P, looping=[lid], autoplay=[cid])``:

- :func:`play_loop` plays ``lid``'s long session (``demo/session_script.py``) and, as each
  lap begins to wrap up, the next lap in a fresh conversation: one run is going at any
  moment, and no log or cost grows without end (the newest :data:`KEEP_LAPS` laps stay);
- :func:`play_stories` plays ``cid`` (its unanswered request) and then, forever: rest
  :data:`REST_PACES` steps, start the next story of
  :data:`~tui.server.demo.live_demo.DEMO_STORIES` as a fresh conversation on the same
  sandbox, play it to its end; of the conversations it made, the newest :data:`KEEP` stay.

A run waiting for confirmation is approved after :data:`APPROVE_PACES` steps unless someone
answered first; a run the user paused (or whose sandbox was paused) is left alone until it
goes on. Older conversations are deleted unless someone is following them, so the demo's
list does not grow without end.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from typing import TYPE_CHECKING

from ..demo.live_demo import DEMO_STORIES, LOOP_SCRIPT, add_lap, add_live_conversation, reset_lap
from .errors import LiveError

if TYPE_CHECKING:
    from .conversation import LiveConversation
    from .hub import LiveHub

log = logging.getLogger("tui.server.live")

#: Steps of rest between the end of one story and the start of the next (70 s at the
#: demo's pace: the long session goes on meanwhile).
REST_PACES = 100
#: Steps a run waits for confirmation before the demo's patient user says yes.
APPROVE_PACES = 20
#: Conversations made by autoplay that are kept (the newest ones; the first one included).
KEEP = 5
#: Laps of the long session kept: the one running and the one before it.
KEEP_LAPS = 2

_ENDED = ("finished", "error", "idle", "stuck")
#: Statuses in which a lap is still under way (a user may have paused it: it waits for them).
_UNDER_WAY = ("running", "paused", "waiting_for_confirmation")
_STARTABLE = ("idle", "finished", "error", "stuck")


async def play_stories(hub: LiveHub, first_id: str) -> None:
    """Play ``first_id`` to its end, then a fresh conversation per story, forever."""
    pace = hub.pace or 0.5
    current = first_id
    made: deque[str] = deque([first_id])
    turn = 0
    try:
        while True:
            conv = hub.get(current)
            if conv is None:
                return
            conv.autoplay = True
            await play_one(conv, pace)
            await rest(conv, pace)
            story = DEMO_STORIES[turn % len(DEMO_STORIES)]
            turn += 1
            current = await asyncio.to_thread(
                add_live_conversation,
                hub.store,
                sandbox_id=conv.sandbox_id,
                message=story.message,
                title=story.title,
                repository=story.repository,
                clock=hub.clock,
            )
            hub.get(current).request_script = story.script  # type: ignore[union-attr]
            made.append(current)
            await forget_old(hub, made)
    except LiveError as exc:
        log.info("autoplay stopped: %s", exc.detail)


async def play_one(conv: LiveConversation, pace: float) -> None:
    """Run ``conv`` until its run ends (approving a confirmation nobody answers). A request
    refused on the way (the sandbox paused meanwhile, someone else started it) is not the
    end of the story: it goes on from what the conversation does next."""
    started = False
    waited = 0.0
    while True:
        if not conv.sandbox_running():
            await asyncio.sleep(pace)  # paused elsewhere: the story waits with its sandbox
            continue
        if not started and conv.status in _STARTABLE:
            with contextlib.suppress(LiveError):
                await conv.run()
            started = True
        await asyncio.sleep(pace)
        if conv.status == "waiting_for_confirmation":
            waited += pace
            if waited >= APPROVE_PACES * pace:  # a patient demo user says yes
                with contextlib.suppress(LiveError):
                    await conv.respond(True, "")
                waited = 0.0
        elif started and conv.status in _ENDED:
            return
        elif conv.status == "running":
            started, waited = True, 0.0
        # paused by the user: wait until they run it again


async def rest(conv: LiveConversation, pace: float) -> None:
    """A quiet moment after a story (longer while its sandbox is paused)."""
    rested = 0
    while rested < REST_PACES:
        await asyncio.sleep(pace)
        if conv.sandbox_running():
            rested += 1


async def play_loop(hub: LiveHub, first_id: str) -> None:
    """Play the long session lap after lap, each lap's conversation started as the one
    before begins to wrap up (or ends otherwise: failed, answered a message, deleted; a lap
    the user paused is theirs until it goes on)."""
    pace = hub.pace or 0.5
    made: deque[str] = deque([first_id])
    try:
        conv = await start_lap(hub, first_id, pace)
        if conv is None:
            return
        sandbox_id = conv.sandbox_id
        while True:
            while (
                conv is not None
                and not conv.wrapping_up
                and conv.status in _UNDER_WAY
                and hub.conversations.get(conv.id) is conv  # not deleted meanwhile
            ):
                await asyncio.sleep(pace)
            # made and started here, awaiting nothing on the way (no thread): the lap wrapping
            # up waits paces before its last step, so the two overlap, never leave a gap
            current = add_lap(hub.store, sandbox_id=sandbox_id, clock=hub.clock)
            made.append(current)
            conv = await start_lap(hub, current, pace)
            await forget_old(hub, made, KEEP_LAPS)
    except LiveError as exc:
        log.info("the demo's long session stopped: %s", exc.detail)


async def start_lap(hub: LiveHub, conversation_id: str, pace: float) -> LiveConversation | None:
    """Put the lap's files back, then run its conversation (once its sandbox runs); None
    when the conversation is gone."""
    conv = hub.get(conversation_id)
    if conv is None:
        return None
    conv.autoplay = True
    conv.request_script = LOOP_SCRIPT
    reset_lap(hub.store)  # two small files (or, before the workspace is made, none yet)
    while conv.status != "running":
        if conv.sandbox_running():
            with contextlib.suppress(LiveError):
                await conv.run()
        if conv.status != "running":
            await asyncio.sleep(pace)
        if hub.get(conversation_id) is None:
            return None
    return conv


async def forget_old(hub: LiveHub, made: deque[str], keep: int | None = None) -> None:
    """Delete autoplay's conversations beyond the newest ``keep`` (:data:`KEEP`), except
    any that someone follows or that runs (they go later)."""
    keep = KEEP if keep is None else keep
    for cid in list(made)[:-keep]:
        conv = hub.conversations.get(cid)
        if conv is not None and (conv.subscribers or conv.status == "running"):
            continue
        made.remove(cid)
        if await asyncio.to_thread(hub.store.delete_conversation, cid):
            await hub.forget(cid)
