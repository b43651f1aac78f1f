"""A live conversation sends an event over the stream's size limit: the list gets one row for
it (the socket closes on it; the gap fill reads it whole from the sandbox's log), later
events keep arriving, and the header says "● live" only when it is; a refused stream says
why in words.

The stream's limit is lowered for the test (100 kB, not 16 MiB) so the frame stays small.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools

from tests.app.test_app_live import open_live
from tests.helpers.app_helpers import SIZE, event_log, make_app, screen_text, settled, wait_for
from tui.app.store import live_session
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.client import EventStream
from tui.client.stream import is_oversize
from tui.models import parse_event
from tui.models.events import ObservationEvent

LIMIT = 100_000


def _huge_output(parent: str, stamp: str) -> dict:
    return {
        "id": "huge-live-output",
        "timestamp": stamp,
        "source": "environment",
        "tool_name": "terminal",
        "tool_call_id": "call_huge",
        "action_id": parent,
        "parent_id": parent,
        "observation": {
            "kind": "TerminalObservation",
            "command": "cat big.log",
            "exit_code": 0,
            "content": [{"type": "text", "text": "a big log line\n" * 20_000}],
        },
        "kind": "ObservationEvent",
    }


async def test_an_oversize_live_event_is_one_whole_row_and_the_stream_goes_on(
    live_server, monkeypatch
):
    monkeypatch.setattr(live_session, "EventStream", functools.partial(EventStream, max_size=LIMIT))
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        await event_log(pilot, screen)  # every event a row: the big one is one whole row
        event_list = screen.query_one(EventList)
        event_list.action_last()
        newest = screen.window.row(len(screen.window) - 1)
        big = _huge_output(newest.id, newest.timestamp[:19] + ".999999")
        assert isinstance(parse_event(big), ObservationEvent)

        async def publish() -> None:
            server.live.require(cid).publish([big])

        await asyncio.to_thread(server.live.call, publish)
        await wait_for(lambda: "huge-live-output" in screen.events.base.ids, pilot=pilot)
        held = [r for r in screen.events.base.head if r.id == "huge-live-output"]
        # the socket closed on it; the gap fill read it from the sandbox's log, whole
        assert len(held) == 1 and "over the live stream's" not in held[0].summary
        # …and the stream is live again, with what comes after it
        await asyncio.to_thread(server.live.send_message_sync, cid, "after the big one")
        await asyncio.to_thread(server.live.run_until_idle_sync, cid)
        stored = server.store.count_events(cid)
        await wait_for(lambda: len(screen.window) == stored, pilot=pilot)
        assert screen.live.state.connection.state == "live" and "● live" in screen_text(app)
        assert screen.live.stream.connections == 2  # one reconnect, no loop
        # opened, its detail is the event itself
        position = next(i for i, r in enumerate(screen.events.base.head) if r.id == big["id"])
        event_list.cursor = position
        detail = screen.query_one(EventDetail)
        await wait_for(
            lambda: detail._event is not None and detail._event.id == big["id"], pilot=pilot
        )
        assert isinstance(detail._event, ObservationEvent) and not is_oversize(detail._event)


async def test_a_refused_stream_says_why_in_the_header(live_server, monkeypatch):
    server, names = live_server()
    cid = names["live"]

    def refused(endpoint, **options):  # the agent server refuses this session key: 4001
        return EventStream(dataclasses.replace(endpoint, key="not-the-key"), **options)

    monkeypatch.setattr(live_session, "EventStream", refused)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: app.screen.query("DataTable"), pilot=pilot)
        app.open_conversation(cid)
        await wait_for(
            lambda: (
                getattr(app.screen, "live", None) is not None
                and app.screen.live.state.connection is not None
                and app.screen.live.state.connection.state == "failed"
            ),
            pilot=pilot,
        )
        await settled(pilot)
        assert "✕ stream failed: the server refused the session key (4001)" in screen_text(app)
