"""Server faults against the real reference server: clear messages, recovery, nothing lost.

HTTP faults come from the server's own fault queue (``tui/server/faults.py``); connection
drops from a loopback TCP proxy (``tests/helpers/tcp_proxy.py``); websocket closes from the server's
live hub. After recovery the event list must equal the server's log: 0 lost, 0 duplicated.
"""

from __future__ import annotations

import asyncio
import json
import threading
from functools import partial
from urllib.parse import urlsplit

import httpx

from tests.helpers.app_helpers import SIZE, conversations_shown, make_app, screen_text, wait_for
from tests.helpers.tcp_proxy import TcpProxy
from tui.app.screens.conversation import ConversationScreen
from tui.app.store import conversation_events
from tui.app.store.conversation_events import JitteredBackoff
from tui.app.widgets.conversation.event_list import EventList
from tui.client import OpenHandsClient
from tui.server import Store
from tui.server.demo import generate_conversation
from tui.server.live import Close

MAX_RETRIES = 2


def logged_ids(store: Store, cid: str) -> list[str]:
    """The server's log as the (authenticated, oldest-first) event list must show it."""
    rows = sorted(store.iter_events(cid), key=lambda row: (row.timestamp, row.seq))
    return [json.loads(row.json)["id"] for row in rows]


def port_of(url: str) -> int:
    return urlsplit(url).port


def app_for(url: str, **client_options):
    from tests.helpers.app_helpers import FIXED_NOW
    from tui.app.app import OhtuiApp

    options = {"max_retries": MAX_RETRIES, "backoff": 0.01, "timeout": 2.0, **client_options}
    return OhtuiApp(OpenHandsClient(url, **options), url=url, clock=lambda: FIXED_NOW)


async def open_and_index(app, pilot, cid: str) -> ConversationScreen:
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    app.open_conversation(cid)
    await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
    return app.screen


def following(screen: ConversationScreen) -> bool:
    """The screen's live worker is still there (it returns when its stream ends)."""
    return any(w.node is screen and w.group == "live" for w in screen.app.workers)


def shown_ids(screen: ConversationScreen) -> list[str]:
    return [row.id for row in screen.events.base.head]


async def test_http_faults_during_indexing_are_recovered_and_nothing_is_lost(
    make_server, monkeypatch
):
    # the store's own backoff between outage tries, quick like the client's (``app_for``):
    # what is tested is that the load comes through, not how long it waits
    monkeypatch.setattr(
        conversation_events, "JitteredBackoff", partial(JitteredBackoff, base=0.01, cap=0.1)
    )
    store = Store()
    cid = generate_conversation(store, 1_200, seed=3)
    server = make_server(store)
    faults = server.app.state.faults
    search = f"/api/v1/conversation/{cid}/events/search"
    # more failures in a row than the client retries: the screen's own backoff takes over
    faults.add("status", search, times=MAX_RETRIES + 2, status=500, body='{"detail": "boom"}')
    faults.add("status", search, times=MAX_RETRIES + 1, status=502)  # no body at all
    faults.add("status", search, times=1, status=429, headers={"retry-after": "0"})
    faults.add("slow", search, times=MAX_RETRIES + 1, delay=2.5)  # past the 2 s client timeout
    faults.add("malformed", search, times=MAX_RETRIES + 1)
    notes: list[str] = []
    app = app_for(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        screen = await open_and_index(app, pilot, cid)
        await wait_for(lambda: screen.events.base.complete, timeout=60, pilot=pilot)
        assert faults.pending == 0
        assert dict(faults.hits) == {
            "status": 2 * MAX_RETRIES + 4,
            "slow": MAX_RETRIES + 1,
            "malformed": MAX_RETRIES + 1,
        }
        ids = shown_ids(screen)
        assert ids == logged_ids(store, cid)  # every event, in order, once
        assert len(ids) == len(set(ids))
        assert any("retrying" in note for note in notes), notes
        assert all("Traceback" not in note for note in notes)
        await pilot.press("G")
        await wait_for(
            lambda: screen.query_one(EventList).cursor == len(screen.window) - 1, pilot=pilot
        )


async def test_a_page_cursor_that_loops_is_stopped_with_a_message(make_server):
    store = Store()
    cid = generate_conversation(store, 450, seed=4)
    server = make_server(store)
    server.app.state.faults.add(
        "repeat_page", f"/api/v1/conversation/{cid}/events/search", times=-1
    )
    notes: list[str] = []
    app = app_for(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        screen = await open_and_index(app, pilot, cid)
        await wait_for(lambda: any("repeats" in n for n in notes), pilot=pilot)
        ids = shown_ids(screen)
        assert ids == logged_ids(store, cid)[: len(ids)] and len(ids) == len(set(ids)) == 100
        start = screen.query_one(EventList).cursor
        await pilot.press("j", "j")  # still responsive
        assert screen.query_one(EventList).cursor == start + 2
        assert app.is_running


async def test_key_revoked_mid_session_is_a_clear_error(make_server):
    store = Store()
    cid = generate_conversation(store, 50, seed=5)
    server = make_server(store, session_key="first-key")
    app = make_app(server.base_url)
    app.client = OpenHandsClient(server.base_url, session_api_key="first-key", max_retries=0)
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        server.app.state.session_key = "rotated-key"  # the key is revoked on the server
        app.open_conversation(cid)
        # no rows came: the list says why in their place (r tries again), not a toast
        await wait_for(
            lambda: (
                isinstance(app.screen, ConversationScreen) and app.screen.load_failure is not None
            ),
            pilot=pilot,
        )
        text = " ".join([*notes, app.screen.query_one(EventList).empty_text])
        assert "Could not load the events: the server refused the key" in text
        assert "401" in text
        assert "first-key" not in text and "rotated-key" not in text
        assert app.is_running


async def test_dropped_connections_while_paging_lose_nothing(make_server):
    store = Store()
    cid = generate_conversation(store, 3_000, seed=6)
    server = make_server(store)
    with TcpProxy(port_of(server.base_url)) as proxy:
        stop = threading.Event()

        def cutter() -> None:  # cut every connection, over and over, while the app pages
            while not stop.wait(0.03):
                proxy.drop_all()

        app = app_for(proxy.base_url, max_retries=4)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_and_index(app, pilot, cid)
            thread = threading.Thread(target=cutter, daemon=True)
            thread.start()
            try:
                await wait_for(lambda: screen.events.base.complete, timeout=90, pilot=pilot)
            finally:
                stop.set()
                thread.join()
            ids = shown_ids(screen)
            assert ids == logged_ids(store, cid)
        assert proxy.drops >= 3, f"only {proxy.drops} connections were cut"


async def test_twenty_stream_drops_during_a_run_lose_nothing(live_server):
    """1006 (proxy cut), 1011, 1012 and 1013 closes mid-run: the list ends equal to the log."""
    server, names = live_server()
    cid = names["live"]
    with TcpProxy(port_of(server.base_url)) as proxy:
        app = app_for(proxy.base_url)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_and_index(app, pilot, cid)
            await wait_for(
                lambda screen=screen: (
                    screen.live is not None
                    and screen.live.state.connection is not None
                    and screen.live.state.connection.state == "live"
                ),
                pilot=pilot,
            )
            await asyncio.to_thread(server.live.send_message_sync, cid, "keep going for a while")
            codes = [None, 1011, 1012, 1013]  # None: the proxy cuts the TCP connection (1006)
            for n in range(20):
                await asyncio.to_thread(server.live.step_sync, cid, 1)
                code = codes[n % len(codes)]
                if code is None:
                    await asyncio.to_thread(proxy.drop_all)
                else:
                    await asyncio.to_thread(
                        lambda code=code: server.live.require(cid).close_all(
                            Close(code, "test drop")
                        )
                    )
                await asyncio.to_thread(server.live.step_sync, cid, 1)  # sent while reconnecting
                # pacing the drops (the scenario, not a wait: the end waits for the log)
                await asyncio.sleep(0.05)
            await asyncio.to_thread(server.live.run_until_idle_sync, cid)
            expected = logged_ids(server.store, cid)
            await wait_for(lambda: shown_ids(screen) == expected, timeout=60, pilot=pilot)
            await wait_for(lambda: screen.live.state.connection.state == "live", pilot=pilot)
            assert len(set(shown_ids(screen))) == len(expected)


async def test_stream_closed_4001_and_4004_mid_stream_are_clear_and_final(live_server):
    server, names = live_server()
    cid = names["live"]
    for code, words in ((4001, "key"), (4004, "not found")):
        app = app_for(server.base_url)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_and_index(app, pilot, cid)
            await wait_for(
                lambda screen=screen: (
                    screen.live is not None
                    and screen.live.state.connection is not None
                    and screen.live.state.connection.state == "live"
                ),
                pilot=pilot,
            )
            await asyncio.to_thread(
                lambda code=code: server.live.require(cid).close_all(Close(code, "test close"))
            )
            await wait_for(
                lambda screen=screen: screen.live.state.connection.state in ("failed", "offline"),
                pilot=pilot,
            )
            # not retried: the stream ended, so the screen's live worker returns and nothing
            # is left that could reconnect
            await wait_for(lambda screen=screen: not following(screen), pilot=pilot)
            assert screen.live.state.connection.state in ("failed", "offline")
            text = screen_text(app).lower()
            assert "offline" in text or "failed" in text
            assert app.is_running


async def test_oversized_and_hostile_requests_are_refused_cleanly(make_server):
    store = Store()
    cid = generate_conversation(store, 30, seed=7)
    server = make_server(store, max_body=64 * 1024)
    base = server.base_url
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        big = "x" * (65 * 1024)
        response = await http.post(
            f"/api/conversations/{cid}/events",
            json={"role": "user", "content": [{"type": "text", "text": big}]},
        )
        assert response.status_code == 413 and "detail" in response.json()

        async def chunks():
            for _ in range(80):
                yield b"x" * 1024

        response = await http.post(
            f"/api/conversations/{cid}/events",
            content=chunks(),
            headers={"content-type": "application/json"},
        )
        assert response.status_code == 413
        hostile = [
            "' OR 1=1 --",
            "%",
            "_",
            "x'); DROP TABLE events; --",
            "\\",
            "\x00",
            "ü' UNION SELECT * FROM sandboxes --",
        ]
        for value in hostile:
            r = await http.get(
                "/api/v1/app-conversations/search", params={"title__contains": value}
            )
            assert r.status_code == 200 and r.json()["items"] == [], value
            r = await http.get("/api/shared-events/search", params={"conversation_id": value})
            assert r.status_code in (200, 422), value
            if r.status_code == 200:
                assert r.json()["items"] == []
            r = await http.get(
                f"/api/v1/conversation/{cid}/events/search", params={"kind__eq": value}
            )
            assert r.status_code == 422, value  # not one of the 19 kinds
            r = await http.get(
                f"/api/v1/conversation/{cid}/events/search", params={"page_id": value}
            )
            assert r.status_code in (200, 400, 422), value
        # the data is intact and still served
        r = await http.get(f"/api/v1/conversation/{cid}/events/count")
        assert r.status_code == 200 and r.json() == store.count_events(cid)
