"""Two small things people read: a diff's file names, and the header before the title loads."""

from __future__ import annotations

import asyncio

import httpx

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    make_app,
    screen_ready,
    settled,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.widgets.conversation.conversation_header import ConversationHeader
from tui.app.widgets.conversation.detail_parts import diff_label, diff_text
from tui.server import Store, load_demo

IDS = load_demo(Store())


def test_diff_names_have_one_slash_for_absolute_paths():
    assert diff_label("a", "/workspace/project/x.py") == "a/workspace/project/x.py"
    assert diff_label("b", "src/x.py") == "b/src/x.py"
    assert diff_label("a", "") == "a"
    text = diff_text("one\n", "two\n", "/workspace/x.py").plain
    assert "--- a/workspace/x.py" in text and "+++ b/workspace/x.py" in text
    assert "//" not in text


class HeldRecord(httpx.AsyncHTTPTransport):
    """The real server, except that the record of conversation ``cid`` waits until ``release``
    is set (only that one: the list's own look-ups by id, e.g. of sub-conversations, go on)."""

    def __init__(self, cid: str) -> None:
        super().__init__()
        self.cid = cid
        self.release = asyncio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if url.path.endswith("/app-conversations") and self.cid in url.params.get_list("ids"):
            await self.release.wait()
        return await super().handle_async_request(request)


async def test_the_header_shows_the_id_once_until_the_title_loads(demo_server):
    cid = IDS["hello"]
    transport = HeldRecord(cid)
    app = make_app(demo_server.base_url, transport=transport)
    async with app.run_test(size=SIZE) as pilot:
        # pushed as a screen that knows only the id (``--conversation`` and the palette look
        # the record up first, so they open with the title)
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        app.push_screen(ConversationScreen(cid))
        await wait_for(lambda: screen_ready(app, ConversationScreen), pilot=pilot)
        header = app.screen.query_one(ConversationHeader)
        await settled(pilot, keep={"load"})  # the load waits for the held record
        text = str(header.render())
        assert text.count(cid) == 1 and text.strip().split()[0] == cid  # then the server kind
        transport.release.set()
        await wait_for(lambda: "Write hello.py" in str(header.render()), pilot=pilot)
        assert str(header.render()).count(cid) == 1  # the title, then the id, once
