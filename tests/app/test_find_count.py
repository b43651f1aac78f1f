"""Find says where the cursor is among all the hits ("hit 3 of 31"), counting the whole
view in a worker ("at least 12" meanwhile), and never keeps words from an old query or view."""

from __future__ import annotations

import asyncio
import json

import httpx

from tests.helpers.app_helpers import SIZE, list_ready, make_app, tree_ready, wait_for
from tui.app.screens.conversation import ConversationScreen
from tui.app.store.row_windows import PathWindow
from tui.app.store.search import Hits
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.find_bar import FindBar
from tui.server import Store, load_demo
from tui.server.demo import generate_conversation

IDS = load_demo(Store())


def test_hits_say_where_the_cursor_is():
    hits = Hits([2, 5, 9], scanned=10, complete=True)
    assert hits.describe(5) == "hit 2 of 3"
    assert hits.describe(9, wrapped=True) == "hit 3 of 3 · wrapped"
    assert hits.describe(4) == "3 hits · n next, N previous"
    assert Hits([], scanned=10, complete=True).describe(0) == "no hits"
    assert Hits([4], scanned=5, complete=True).describe(0) == "1 hit · n next, N previous"
    counting = Hits([2, 5], scanned=6)
    assert counting.describe(5) == "hit 2 of at least 2 (counting…)"
    assert counting.describe(40) == "2 hits so far (counting…)"  # past what was checked
    assert counting.rank(7) is None and counting.rank(2) == 1 and counting.rank(3) is None


def _status(screen) -> str:
    return str(screen.query_one("#find-status").content)


async def _open(app, pilot, cid: str) -> ConversationScreen:
    await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
    screen = app.screen
    await wait_for(lambda: list_ready(screen), pilot=pilot)
    return screen


async def test_hit_i_of_n_follows_the_cursor(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(app, pilot, IDS["hello"])
        await wait_for(lambda: tree_ready(screen), pilot=pilot)
        rows = [screen.window.row(i) for i in range(len(screen.window))]
        hits = [i for i, r in enumerate(rows) if "hello" in (r.summary + r.text).lower()]
        await pilot.press("slash", *"hello", "enter")
        await wait_for(lambda: _status(screen) == f"hit 1 of {len(hits)}", pilot=pilot)
        await pilot.press("n", "n")
        await wait_for(lambda: _status(screen) == f"hit 3 of {len(hits)}", pilot=pilot)
        event_list = screen.query_one(EventList)
        event_list.cursor = hits[2] + 1 if hits[2] + 1 not in hits else hits[2]
        if hits[2] + 1 not in hits:  # between hits: the count and how to move on
            await wait_for(lambda: _status(screen).startswith(f"{len(hits)} hits"), pilot=pilot)
        event_list.cursor = hits[0]
        await pilot.press("N")  # wraps to the last
        await wait_for(
            lambda: _status(screen) == f"hit {len(hits)} of {len(hits)} · wrapped", pilot=pilot
        )


class HeldPages(httpx.AsyncHTTPTransport):
    """The real server, except that event pages after the first wait for ``release``."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.held = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/events/search") and request.url.params.get("page_id"):
            self.held += 1
            await self.release.wait()
        return await super().handle_async_request(request)


async def test_the_count_covers_the_whole_conversation_and_says_at_least_meanwhile(make_server):
    store = Store()
    cid = generate_conversation(store, 400, seed=5)
    words = [json.loads(r.json) for r in store.iter_events(cid)]
    server = make_server(store)
    transport = HeldPages()
    app = make_app(server.base_url, transport=transport, conversation_id=cid)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, cid)
        first = screen.window.row(0)
        needle = first.summary.split()[0]  # a word of the first row: the first hit is row 0
        screen.query_one(EventList).cursor = 0  # (it opens on the first user message)
        await pilot.press("slash", *needle, "enter")
        await wait_for(lambda: transport.held > 0, pilot=pilot)
        await wait_for(lambda: "at least" in _status(screen), pilot=pilot)
        assert _status(screen).startswith("hit 1 of at least ")
        assert "(counting…)" in _status(screen)
        # the whole conversation is counted up front, its rows are not all loaded
        assert screen.window.events == len(words) and not screen.window.complete
        transport.release.set()
        await wait_for(lambda: screen.hits is not None and screen.hits.complete, pilot=pilot)
        window = screen.window
        expected = sum(screen.finder.matches(window.row(i)) for i in range(len(window)))
        assert expected > 1
        await wait_for(lambda: _status(screen) == f"hit 1 of {expected:,}", pilot=pilot)


async def test_no_stale_words_after_close_a_new_query_or_a_switch_of_view(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, IDS["hello"])
        # the object, built with the screen: it is mounted only after the first rows are
        # painted (deferred.py), which a busy machine can leave for after list_ready
        bar: FindBar = screen.find_bar
        await pilot.press("slash", *"hello", "enter")
        await wait_for(lambda: _status(screen).startswith("hit 1 of"), pilot=pilot)
        await pilot.press("escape")  # closed: nothing left to say
        assert _status(screen) == "" and not bar.has_class("-visible")
        await pilot.press("slash")
        assert _status(screen) == ""  # reopened: the old words are gone
        # typing replaces it: the input selects its text as it takes the focus, a message the
        # press's own wait may return before (it waits only for what was queued as it began)
        field = screen.query_one("#find-input")
        await wait_for(lambda: field.selected_text == "hello", pilot=pilot)
        await pilot.press(*"zzqqxx", "enter")  # a new query
        await wait_for(lambda: _status(screen) == "no event matches 'zzqqxx'", pilot=pilot)
        await wait_for(lambda: screen.hits is not None and screen.hits.complete, pilot=pilot)
        await pilot.press("slash", "backspace", "enter")  # emptied: no query at all
        await wait_for(lambda: _status(screen) == "" and screen.finder is None, pilot=pilot)
        assert app.focused is screen.query_one("#find-input")  # still there to type in
        await pilot.press(*"hello", "enter")
        await wait_for(lambda: _status(screen).startswith("hit 1 of"), pilot=pilot)
        before = _status(screen)
        screen.filter_kind("MessageEvent")  # another view: counted afresh there
        await wait_for(
            lambda: (
                screen.window.query.selected_kinds == {"MessageEvent"}
                and screen.window.total is not None
            ),
            pilot=pilot,
        )
        window = screen.window
        await wait_for(
            lambda: (
                screen.hits is not None and screen.hits.complete and screen._hits_window is window
            ),
            pilot=pilot,
        )
        n = sum(screen.finder.matches(window.row(i)) for i in range(len(window)))
        assert n > 0 and (f"of {n}" in _status(screen) or f"{n} hit" in _status(screen))
        assert _status(screen) != before
        await pilot.press("ctrl+o")  # only matches: every row is a hit
        await wait_for(
            lambda: isinstance(screen.window, PathWindow) and screen.window.what == "find",
            pilot=pilot,
        )
        await wait_for(lambda: f"hit 1 of {n}" in _status(screen), pilot=pilot)
        assert f"{n} of {len(window)} steps match" in _status(screen)
