"""Live events by identity, never by clock (issue 32: findings 2, 10 and N2), against the
reference server on loopback.

- A run whose events carry a stamp of 9999-12-31, one a day ahead and one that is not a
  date, with the socket dropped between them (closes from the server, and a loopback
  proxy cutting the TCP connection): every event arrives once and the list equals the
  server's log. Before, the resume point was the newest stamp seen (as text) minus 60 s:
  the far stamp hid every later gap and the non-date one kept the stream offline.
- Events that reuse an id with other content: both rows shown, the later one marked as
  history marks it (before, the live copy was dropped as a duplicate).
- The app server's stored copy lags the sandbox's log by a webhook batch (the reference
  server's ``webhook_batch``): a conversation opened then shows "catching up" and ends with
  the whole log, the stats update logged last but stamped earlier included (before, the
  first connection asked the socket for ``since=<newest stored stamp>`` and never got it).

A snapshot pins the header while the sandbox's log is read ("◐ catching up").

Drops are made so the events fall in the gap for sure: the server closes its subscribers
and logs the event in one turn of its loop, before any reconnect can subscribe.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import datetime, timedelta
from typing import Any

from tests.app.test_app_live import FIXED
from tests.helpers.app_helpers import (
    SIZE,
    make_app,
    push_conversation,
    screen_text,
    settled,
    wait_for,
)
from tests.helpers.tcp_proxy import TcpProxy
from tests.server.test_faults import app_for, open_and_index, port_of, shown_ids
from tui.app.store.duplicate_rows import MARK, DuplicateRow, row_key
from tui.app.widgets.conversation.event_list import EventList
from tui.client import (
    EventStream,
    OpenHandsClient,
    StreamEvent,
    StreamState,
    StreamStatus,
    agent_endpoint,
)
from tui.server import Store, add_live_demo, load_demo
from tui.server.live import Close

FAR = "9999-12-31T23:59:59.999999"
NOT_A_DATE = "not a date"


def message(text: str, stamp: str, event_id: str | None = None) -> dict[str, Any]:
    return {
        "id": event_id or str(uuid.uuid4()),
        "timestamp": stamp,
        "source": "agent",
        "llm_message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
        "kind": "MessageEvent",
    }


def stats(stamp: str) -> dict[str, Any]:
    usage = {"prompt_tokens": 1234, "completion_tokens": 56}
    metrics = {"accumulated_cost": 0.5, "accumulated_token_usage": usage}
    return {
        "id": str(uuid.uuid4()),
        "timestamp": stamp,
        "source": "environment",
        "key": "stats",
        "value": {"usage_to_metrics": {"agent": metrics}},
        "kind": "ConversationStateUpdateEvent",
    }


def log_rows(server, cid: str) -> list[dict[str, Any]]:
    return [json.loads(row.json) for row in server.store.iter_events(cid)]


def newest_stamp(server, cid: str) -> str:
    """The newest usual stamp in the log (odd ones left out)."""
    return max(e["timestamp"] for e in log_rows(server, cid) if e["timestamp"][:2] == "20")


def a_day_ahead(server, cid: str) -> str:
    return (datetime.fromisoformat(newest_stamp(server, cid)) + timedelta(days=1)).isoformat()


def expected_list(server, cid: str) -> list[tuple[str, str]]:
    """What the list shows: the log as the app server sorts its history (stamp, then log
    position), whether an event came in a page or live (issue 32, N1); (id, timestamp)
    each."""
    rows = [(json.loads(r.json), r.seq, r.timestamp) for r in server.store.iter_events(cid)]
    history = sorted(rows, key=lambda r: (r[2], r[1]))
    return [(e["id"], e["timestamp"]) for e, _, _ in history]


def shown(screen) -> list[tuple[str, str]]:
    return [(row.id, row.timestamp) for row in screen.events.base.head]


def gap_drop(server, cid: str, code: int, events: list[dict[str, Any]]) -> None:
    """Close every subscriber and log ``events`` in the same turn of the server's loop:
    nobody can be subscribed when they are sent, so they are in the gap."""

    async def go() -> None:
        conv = server.live.require(cid)
        conv.close_all(Close(code, "test drop"))
        conv.publish(events)

    server.live.call(go)


def publish(server, cid: str, events: list[dict[str, Any]]) -> None:
    async def go() -> None:
        server.live.require(cid).publish(events)

    server.live.call(go)


async def step(server, cid: str, steps: int = 1) -> None:
    await asyncio.to_thread(server.live.step_sync, cid, steps)


# --- the client's stream -------------------------------------------------------------------


async def test_odd_stamps_and_drops_every_event_once_in_log_order(live_server):
    server, names = live_server()
    cid = names["live"]
    with TcpProxy(port_of(server.base_url)) as proxy:
        async with OpenHandsClient(proxy.base_url) as client:
            (conversation,) = await client.get_conversations([cid])
        stream = EventStream(
            agent_endpoint(proxy.base_url, conversation), backoff_base=0.02, backoff_max=0.1
        )
        state = StreamState()
        states: list[str] = []
        yielded: list[str] = []

        async def consume() -> None:
            async with stream:
                async for item in stream:
                    state.apply(item)
                    if isinstance(item, StreamStatus):
                        states.append(item.state)
                    elif isinstance(item, StreamEvent) and not (item.transient or item.replaces):
                        yielded.append(item.id)

        task = asyncio.create_task(consume())
        await wait_for(lambda: states[-1:] == ["live"])
        await asyncio.to_thread(server.live.send_message_sync, cid, "keep going for a while")
        odd = [FAR, a_day_ahead(server, cid), NOT_A_DATE]
        for n, stamp in enumerate(odd * 2):
            await step(server, cid)
            lives = states.count("live")
            if n % 2:  # the proxy cuts the TCP connection (1006): no close frame
                await asyncio.to_thread(proxy.drop_all)
                await asyncio.to_thread(publish, server, cid, [message(f"odd {n}", stamp)])
            else:
                code = (1011, 1012, 1013)[n % 3]
                await asyncio.to_thread(gap_drop, server, cid, code, [message(f"odd {n}", stamp)])
            await step(server, cid)  # maybe while nobody listens
            await wait_for(lambda lives=lives: states.count("live") > lives)  # back again
        await asyncio.to_thread(server.live.run_until_idle_sync, cid)
        logged = [e["id"] for e in log_rows(server, cid)]
        await wait_for(lambda: [e.id for e in state.events] == logged)
        await stream.close()
        await task
    assert len(yielded) == len(set(yielded)) == len(logged)  # each once, none lost
    assert states.count("catching up") == states.count("live") - 1 >= 6  # each gap filled
    assert states[-1] == "live" and "offline" not in states


# --- the app -------------------------------------------------------------------------------


async def test_the_list_equals_the_log_after_odd_stamps_and_drops(live_server):
    """Finding 2 as the issue saw it: the header said "● live" while events were missing."""
    server, names = live_server()
    cid = names["live"]
    with TcpProxy(port_of(server.base_url)) as proxy:
        app = app_for(proxy.base_url)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_and_index(app, pilot, cid)
            await wait_for(
                lambda: (
                    screen.live is not None
                    and screen.live.state.connection is not None
                    and screen.live.state.connection.state == "live"
                    and screen.events.base.complete
                ),
                pilot=pilot,
            )
            await asyncio.to_thread(server.live.send_message_sync, cid, "keep going")
            odd = [FAR, a_day_ahead(server, cid), NOT_A_DATE]
            for n, stamp in enumerate(odd):
                await step(server, cid)
                connections = screen.live.stream.connections
                await asyncio.to_thread(gap_drop, server, cid, 1011, [message(f"odd {n}", stamp)])
                await step(server, cid)
                if n == 1:
                    await asyncio.to_thread(proxy.drop_all)
                await wait_for(
                    lambda connections=connections: (
                        screen.live.stream.connections > connections
                        and screen.live.state.connection.state == "live"
                    ),
                    pilot=pilot,
                )
            await asyncio.to_thread(server.live.run_until_idle_sync, cid)
            expected = expected_list(server, cid)
            await wait_for(lambda: shown(screen) == expected, pilot=pilot)
            await wait_for(lambda: screen.live.state.connection.state == "live", pilot=pilot)
            assert "● live" in screen_text(app)
            ids = shown_ids(screen)
            assert len(ids) == len(set(ids)) == server.store.count_events(cid)
            summaries = [row.summary for row in screen.events.base.head]
            assert all(any(f"odd {n}" in s for s in summaries) for n in range(3))


async def test_a_reused_id_with_other_content_is_a_second_row_marked(live_server):
    """Finding 10: the live copy of an event that reuses an id was dropped as a duplicate
    (142 of 150 rows live, 150 in history). Both are rows now, the later one marked as
    history marks it, with its own detail."""
    server, names = live_server()
    cid = names["live"]
    app = app_for(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_and_index(app, pilot, cid)
        await wait_for(
            lambda: (
                screen.live is not None
                and screen.live.state.connection is not None
                and screen.live.state.connection.state == "live"
                and screen.events.base.complete
            ),
            pilot=pilot,
        )
        history_id = shown_ids(screen)[2]  # an event the list had from history
        await asyncio.to_thread(server.live.send_message_sync, cid, "keep going")
        await step(server, cid, 2)
        live_id = log_rows(server, cid)[-1]["id"]  # an event the stream brought
        later = (
            datetime.fromisoformat(newest_stamp(server, cid)) + timedelta(seconds=1)
        ).isoformat()
        reuses = [
            message("SECOND with a history id", later, history_id),
            message("SECOND with a live id", FAR, live_id),
        ]
        publish_live, publish_gap = reuses
        await asyncio.to_thread(publish, server, cid, [publish_live])  # on the socket
        connections = screen.live.stream.connections
        await asyncio.to_thread(gap_drop, server, cid, 1012, [publish_gap])  # in a gap
        await wait_for(
            lambda: (
                screen.live.stream.connections > connections
                and screen.live.state.connection.state == "live"
            ),
            pilot=pilot,
        )
        await asyncio.to_thread(server.live.run_until_idle_sync, cid)
        expected = expected_list(server, cid)
        await wait_for(lambda: shown(screen) == expected, pilot=pilot)
        rows = screen.events.base.head
        assert len(rows) == server.store.count_events(cid)  # as many rows as the log has
        for event in reuses:
            copies = [r for r in rows if r.id == event["id"]]
            assert len(copies) == 2
            first, second = copies
            assert not isinstance(first, DuplicateRow) and isinstance(second, DuplicateRow)
            assert second.summary.startswith(MARK) and "SECOND" in second.summary
            assert "SECOND" not in first.summary
            own = screen.events.cached(row_key(second))  # its detail and export: its own
            assert (
                own is not None
                and own.llm_message.content[0].text == event["llm_message"]["content"][0]["text"]
            )


async def test_a_lagging_stored_copy_catches_up_from_the_sandbox(live_server):
    """N2: reopened just after its run, a conversation showed 17 of 18 events with no sign
    of a gap: the app server stores the sandbox's events in webhook batches, late, and the
    last stats update (logged after a message, stamped before it) was never asked for."""
    server, names = live_server(webhook_batch=5)
    cid = names["live"]
    await asyncio.to_thread(server.live.run_until_idle_sync, cid)
    await asyncio.to_thread(server.live.flush_webhook_sync, cid)
    newest = newest_stamp(server, cid)
    final = message(
        "the run's last words", (datetime.fromisoformat(newest) + timedelta(seconds=1)).isoformat()
    )
    late = stats((datetime.fromisoformat(newest) - timedelta(seconds=1)).isoformat())
    await asyncio.to_thread(publish, server, cid, [final, late])  # two: not a whole batch
    logged = log_rows(server, cid)
    async with OpenHandsClient(server.base_url) as client:
        assert await client.count_events(cid) == len(logged) - 2  # the stored copy lags

    hold = server.app.state.faults.add("hold", path=f"/api/conversations/{cid}/events/search")
    app = app_for(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        try:
            screen = await open_and_index(app, pilot, cid)
            await wait_for(
                lambda: (
                    server.app.state.faults.hits["hold"] == 1 and "catching up" in screen_text(app)
                ),
                pilot=pilot,
            )
            # the stored history is shown, and the header does not say "live" meanwhile
            assert "● live" not in screen_text(app)
        finally:
            hold.gate.set()  # the sandbox's log is read now
        ids = [e["id"] for e in logged]
        await wait_for(lambda: sorted(shown_ids(screen)) == sorted(ids), pilot=pilot)
        await wait_for(lambda: "● live" in screen_text(app), pilot=pilot)
        # what the sandbox added, where the history has it: the stats update above the last
        # stored event, before which it is stamped
        assert shown_ids(screen) == [event_id for event_id, _ in expected_list(server, cid)]
        assert shown_ids(screen)[-1] == final["id"]
        assert shown_ids(screen).index(late["id"]) < len(ids) - 2
        assert len(shown_ids(screen)) == len(set(shown_ids(screen)))


def test_catching_up_snapshot(snap_compare, make_server):
    """What a conversation whose stored copy lags looks like while the sandbox's log is read:
    the stored rows, and "◐ catching up" where "● live" will be."""
    store = Store()
    load_demo(store)
    cid = add_live_demo(store, clock=lambda: FIXED)
    server = make_server(store, clock=lambda: FIXED, webhook_batch=5)
    server.live.send_message_sync(cid, "say hi please")
    server.live.run_until_idle_sync(cid)  # the stored copy lags by what is not a whole batch
    hold = server.app.state.faults.add("hold", path=f"/api/conversations/{cid}/events/search")

    async def run_before(pilot):
        screen = await push_conversation(pilot, cid)
        await wait_for(
            lambda: (
                server.app.state.faults.hits["hold"] == 1
                and "catching up" in screen_text(pilot.app)
                and screen.events.base.complete
            ),
            pilot=pilot,
        )
        screen.query_one(EventList).action_last()
        await settled(pilot, keep=("live",))

    try:
        assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=SIZE)
    finally:
        hold.gate.set()
