"""Keys that switch an option while a text field has the focus keep it there (issue 31 item
4): the find bar's ^r ^t ^o search again with the new option, and what is typed after them
is more of the query, never the conversation's commands (z zooms, a shows all, space or X
would steer a live agent). The lists' ^r refresh leaves their filter field typing too."""

from __future__ import annotations

from textual.widgets import Checkbox, Input

from tests.app.test_app_live import open_live
from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    list_ready,
    make_app,
    push_conversation,
    send_burst,
    settled,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.widgets.conversation.event_list import EventList
from tui.server import Store, load_demo

IDS = load_demo(Store())


TOGGLES = ("regex", "case", "only")


def toggled(screen) -> dict[str, bool]:
    return {name: screen.query_one(f"#find-{name}", Checkbox).value for name in TOGGLES}


async def test_each_toggle_searches_again_and_typing_goes_on_in_the_field(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, IDS["hello"])
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        await pilot.press("slash", *"hello", "enter")  # enter: the list takes the keys
        await wait_for(lambda: screen.finder is not None, pilot=pilot)
        assert isinstance(app.focused, EventList)
        await pilot.press("slash", *"hel")  # back in the query (selected: typed over)
        field = screen.query_one("#find-input", Input)
        await wait_for(lambda: app.focused is field and field.value == "hel", pilot=pilot)
        typed = "hel"
        for key, name, letter in (("ctrl+r", "regex", "l"), ("ctrl+t", "case", "o")):
            await pilot.press(key, letter)
            typed += letter
            await wait_for(lambda n=name: toggled(screen)[n], pilot=pilot)
            await wait_for(lambda t=typed: field.value == t, pilot=pilot)
            # searched again with the option on (the query as it was when it was switched)
            await wait_for(
                lambda n=name: screen.finder is not None and screen.finder.query.regex, pilot=pilot
            )
            await settled(pilot)
            assert app.focused is field and field.value == typed
        assert screen.finder.query.case
        await pilot.press("ctrl+o", "z", "a")  # only matches; z and a are typed, not run
        await wait_for(lambda: field.value == "helloza", pilot=pilot)
        await wait_for(lambda: toggled(screen)["only"], pilot=pilot)
        await settled(pilot)
        assert app.focused is field and screen.maximized is None  # no zoom
        assert screen.find_bar.has_class("-visible")


async def test_a_burst_after_a_toggle_in_a_live_conversation_steers_nothing(live_server):
    server, names = live_server()
    cid = names["hello"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        send_burst(app, [("slash", "/"), ("h", "h")])
        field = screen.query_one("#find-input", Input)
        await wait_for(lambda: field.value == "h", pilot=pilot)
        # one read from the terminal: the toggle, then a space and an X
        send_burst(app, [("ctrl+r", None), ("space", " "), ("X", "X"), ("m", "m")])
        await wait_for(lambda: field.value == "h Xm", pilot=pilot)
        await wait_for(lambda: toggled(screen)["regex"], pilot=pilot)
        await settled(pilot)
        assert isinstance(app.screen, ConversationScreen)  # no question to run or interrupt
        assert app.focused is field and not screen.message_line.is_open
        assert server.live.status_sync(cid) == "finished"


async def test_refresh_in_the_conversations_filter_keeps_typing_there(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        screen = app.screen
        await pilot.press("slash", *"Wri", "ctrl+r", *"te")
        field = screen.query_one("#conv-filter", Input)
        await wait_for(lambda: field.value == "Write", pilot=pilot)
        await settled(pilot)
        assert app.focused is field and app.screen is screen
