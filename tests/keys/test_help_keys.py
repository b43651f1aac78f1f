"""The keys panel (``?``, F1) takes the keys while it is open (issue 31 item 4): it scrolls
by keyboard to its last key at 80×24, closes with esc, ``?``, F1 or q (never reaching the
screen underneath: esc is not "back", q does not quit), and lists every key of the screen
as it applies where the focus was."""

from __future__ import annotations

from tests.helpers.app_helpers import make_app, screen_ready, screen_text, settled, wait_for
from tests.snapshots.test_snapshots import _open
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.dialogs.help import HelpBody, HelpScreen, KeyList, key_groups

NARROW = (80, 24)


async def open_help(pilot, key: str = "question_mark") -> HelpScreen:
    app = pilot.app
    await pilot.press(key)
    await wait_for(lambda: screen_ready(app, HelpScreen), pilot=pilot)
    await settled(pilot)
    return app.screen


def shown_rows(app) -> list[str]:
    """The help's rows on screen now: the panel's part of each line, as one string each."""
    text = screen_text(app)
    return [line.split("▏", 1)[1].strip() for line in text.splitlines() if "▏" in line]


async def test_help_scrolls_by_keyboard_to_the_last_key_and_closes_by_esc(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(pilot, "hello")
        groups = key_groups(screen)
        last_keys, last_words, _ = groups[-1].rows[-1]
        help_screen = await open_help(pilot)
        body = help_screen.query_one(HelpBody)
        assert app.focused is body
        assert body.max_scroll_y > 0  # more keys than lines at 80×24
        assert not any(row.startswith(last_keys) and last_words in row for row in shown_rows(app))
        assert str(help_screen.query_one("#help-where").content).endswith("↓")

        for key, moved in (("j", 1), ("down", 2), ("k", 1), ("up", 0)):
            await pilot.press(key)
            await wait_for(lambda m=moved: body.scroll_y == m, pilot=pilot)
        await pilot.press("pagedown")
        await wait_for(lambda: body.scroll_y > 2, pilot=pilot)
        await pilot.press("space")  # as in less
        await pilot.press("G")
        await wait_for(lambda: body.scroll_y == body.max_scroll_y, pilot=pilot)
        await settled(pilot)
        assert any(row.startswith(last_keys) and last_words in row for row in shown_rows(app))
        assert not str(help_screen.query_one("#help-where").content).endswith("↓")
        await pilot.press("g")
        await wait_for(lambda: body.scroll_y == 0, pilot=pilot)
        await pilot.press("end", "pageup", "home")
        await wait_for(lambda: body.scroll_y == 0, pilot=pilot)

        await pilot.press("escape")  # closes the help only: the conversation stays open
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        await settled(pilot)
        assert isinstance(app.screen, ConversationScreen)


async def test_question_mark_f1_and_q_close_it_too(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(pilot, "hello")
        for opener, closer in (("question_mark", "question_mark"), ("f1", "f1"), ("f1", "q")):
            await open_help(pilot, opener)
            await pilot.press(closer)
            await wait_for(lambda: app.screen is screen, pilot=pilot)
        await settled(pilot)
        assert app.is_running and app.screen is screen  # q closed the help, not the app


async def test_it_lists_every_key_of_the_screen_as_it_applies(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(pilot, "hello")
        wanted = {
            binding.description
            for _key, (_node, binding, _on, _tip) in screen.active_bindings.items()
            if not binding.system
        }
        help_screen = await open_help(pilot)
        listed = help_screen.query_one(KeyList).text
        for description in wanted:
            assert f" {description}" in listed, description
        for title in ("Event list", "Conversation", "Everywhere"):
            assert title in [group.title for group in help_screen.groups]
        assert "Next failure" in listed and "Pause/run" in listed  # past where it used to stop


async def test_read_only_lists_no_key_that_steers(demo_server):
    app = make_app(demo_server.base_url, readonly=True)
    async with app.run_test(size=NARROW) as pilot:
        await _open(pilot, "hello")
        listed = (await open_help(pilot)).query_one(KeyList).text
        for words in ("Pause/run", "Message", "Interrupt", "Approve", "Reject"):
            assert words not in listed
        assert "Find" in listed


def test_help_80x24_scrolled_to_the_end(snap_compare, demo_server):
    async def run_before(pilot):
        await _open(pilot, "hello")
        help_screen = await open_help(pilot)
        body = help_screen.query_one(HelpBody)
        await pilot.press("end")
        await wait_for(lambda: body.scroll_y == body.max_scroll_y > 0, pilot=pilot)
        await settled(pilot)

    app = make_app(demo_server.base_url)
    assert snap_compare(app, run_before=run_before, terminal_size=NARROW)


def test_help_160x48(snap_compare, demo_server):
    async def run_before(pilot):
        await _open(pilot, "hello")
        await open_help(pilot)

    app = make_app(demo_server.base_url)
    assert snap_compare(app, run_before=run_before, terminal_size=(160, 48))
