"""Live agent runs and their event stream: the agent-server half of the reference server.

A real agent server runs the agent in its sandbox and pushes every event to websocket
subscribers as it happens (facts §6). Here a :class:`LiveHub` (one per app, on
``app.state.live``) keeps a :class:`LiveConversation` per conversation that was touched;
each plays a script of :mod:`tui.server.demo.agent_scripts` step by step, persists what a real server persists through
the :class:`~tui.server.store.Store` (so REST search sees it) and broadcasts every frame to
its subscribers' queues.

Concurrency model: everything here runs in uvicorn's event loop. Publishing is synchronous
(validate, one short SQLite transaction, ``put_nowait`` to each subscriber), so the order of
the persisted log and the order of the frames are the same by construction, and a subscriber
registered between two publishes misses nothing and gets nothing twice. A per-conversation
``asyncio.Lock`` is held for a whole step, so pause and control calls take effect between
steps, as in the SDK (whose run loop holds the state lock while it steps); interrupt cancels
the step instead. Worker threads (sync routes, tests) reach the loop only through
:meth:`LiveHub.call` / :meth:`LiveHub.notify`.

Pace: ``agent_pace`` seconds between steps, run by one task per running conversation; with
``agent_pace=None`` nothing runs by itself: a running conversation advances only when
:meth:`LiveHub.step_sync` (or :meth:`LiveConversation.step`) is called, which is how tests
drive it deterministically. Ids come from an RNG seeded by conversation and log length, so a
given sequence of requests gives the same ids and the same order on every run; timestamps
come from the app clock.

Memory: the builder's event list is emptied after every publish, per-call usage lists are
capped, subscriber queues are bounded (a subscriber that falls behind is closed with 1013);
the persisted log itself grows, as a real one does.
"""

from .conversation import LiveConversation
from .errors import AlreadyRunning, ConversationNotFound, LiveError, SandboxNotRunning
from .frames import MAX_BACKLOG, Close, Subscriber, frame_text, replay_frames
from .hub import MAX_SUBSCRIBERS, LiveHub

__all__ = [
    "MAX_BACKLOG",
    "MAX_SUBSCRIBERS",
    "AlreadyRunning",
    "Close",
    "ConversationNotFound",
    "LiveConversation",
    "LiveError",
    "LiveHub",
    "SandboxNotRunning",
    "Subscriber",
    "frame_text",
    "replay_frames",
]
