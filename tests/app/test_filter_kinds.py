"""Several kinds at once, and plumbing folded: the filter dialog's checklist and ``h``.

Against the reference server's demo data: the list shows exactly the kinds checked, its
length is right before its pages are walked (the server counts each kind), and keys typed
in one burst, as a terminal sends them, act in order."""

from __future__ import annotations

from textual.widgets import Static

from tests.helpers.app_helpers import (
    dialog_ready,
    list_ready,
    make_app,
    notes_told,
    send_burst,
    settled,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversation.filter_dialog import (
    ALL,
    NOTHING_CHECKED,
    PLUMBING,
    FilterDialog,
    KindList,
)
from tui.app.store.step_kinds import PLUMBING_KINDS, is_plumbing
from tui.app.widgets.conversation.filter_bar import FilterBar
from tui.server import Store, load_demo

IDS = load_demo(Store())
#: the demo's long conversation, by kind (1,492 events: 15 pages)
LONG_ACTIONS, LONG_MESSAGES = 434, 65


async def _open(pilot, name: str) -> ConversationScreen:
    app = pilot.app
    await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
    screen = app.screen
    await wait_for(lambda: list_ready(screen), pilot=pilot)
    return screen


async def _dialog(pilot) -> FilterDialog:
    await pilot.press("f")
    await wait_for(lambda: dialog_ready(pilot.app, FilterDialog), pilot=pilot)
    return pilot.app.screen


def _moves_to(dialog: FilterDialog, value: str) -> list[tuple[str, str | None]]:
    """The ``j``/``k`` keys that take the checklist's highlight to ``value``."""
    kinds = dialog.query_one(KindList)
    target = kinds.get_option_index(value)
    step = ("j", "j") if target > kinds.highlighted else ("k", "k")
    return [step] * abs(target - kinds.highlighted)


def _rows(window) -> list:
    return [window.row(i) for i in range(len(window))]


async def test_j_and_k_move_and_enter_applies_exactly_what_is_checked(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, "hello")
        dialog = await _dialog(pilot)
        # clear every kind, check "action", apply: typed in one burst
        send_burst(app, [("space", " "), *_moves_to(dialog, "ActionEvent"), ("space", " ")])
        send_burst(app, [("enter", "\r")])
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        await wait_for(lambda: screen.window.query.selected_kinds == {"ActionEvent"}, pilot=pilot)
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        assert {row.kind for row in _rows(screen.window)} == {"ActionEvent"}
        # j j enter used to apply "all kinds" (j did not move, enter took the highlight):
        # now enter applies what is checked, wherever the highlight is
        dialog = await _dialog(pilot)
        kinds = dialog.query_one(KindList)
        assert kinds.highlighted == 0 and set(kinds.selected) - {PLUMBING} == {"ActionEvent"}
        send_burst(app, [("j", "j"), ("j", "j"), ("k", "k")])
        await wait_for(lambda: kinds.highlighted == 1, pilot=pilot)
        send_burst(app, [("down", None), ("up", None), ("j", "j"), ("enter", "\r")])
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        await settled(pilot)
        assert screen.window.query.selected_kinds == {"ActionEvent"}


async def test_several_kinds_at_once_are_exact_before_their_pages_are_walked(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["long"])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, "long")
        dialog = await _dialog(pilot)
        keys = [("space", " "), *_moves_to(dialog, "ActionEvent"), ("space", " ")]
        send_burst(app, keys)
        await wait_for(
            lambda: set(dialog.query_one(KindList).selected) - {PLUMBING} == {"ActionEvent"},
            pilot=pilot,
        )
        send_burst(app, [*_moves_to(dialog, "MessageEvent"), ("space", " "), ("enter", "\r")])
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        wanted = {"ActionEvent", "MessageEvent"}
        await wait_for(lambda: screen.window.query.selected_kinds == wanted, pilot=pilot)
        window = screen.window
        assert window.query.kind is None  # the server filters one kind: these are folded
        # the length comes from the server's counts of each kind, not from a walk
        await wait_for(lambda: window.counts is not None, pilot=pilot)
        assert len(window) == LONG_ACTIONS + LONG_MESSAGES and not window.complete
        assert "action, message" in str(screen.query_one(FilterBar).render())
        await pilot.press("G")  # the end, from the other side: the walk meets later
        await wait_for(lambda: window.row(len(window) - 1) is not None, pilot=pilot)
        await screen.events.load_all(window)
        rows = _rows(window)
        assert len(rows) == LONG_ACTIONS + LONG_MESSAGES
        assert {row.kind for row in rows} == wanted
        assert [r.timestamp for r in rows] == sorted(r.timestamp for r in rows)


async def test_nothing_checked_is_said_and_the_dialog_stays(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, "hello")
        before = screen.window.query
        dialog = await _dialog(pilot)
        send_burst(app, [("space", " "), ("enter", "\r")])
        status = dialog.query_one("#filter-status", Static)
        await wait_for(lambda: NOTHING_CHECKED in str(status.render()), pilot=pilot)
        assert app.screen is dialog and not set(dialog.query_one(KindList).selected) - {PLUMBING}
        send_burst(app, [("space", " ")])  # all kinds again: the message goes
        await wait_for(lambda: str(status.render()) == "", pilot=pilot)
        assert ALL in dialog.query_one(KindList).selected
        await pilot.press("escape")
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        assert screen.window.query == before


async def test_hide_plumbing_one_key_on_the_screen_and_in_the_dialog(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    notes = notes_told(app)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, "hello")
        events = 46  # the demo's hello conversation: 19 state updates, 3 hooks that passed
        hidden = screen.window.query.hide_plumbing
        if hidden:  # the steps view folds it already: h shows it
            await pilot.press("h")
            await wait_for(lambda: not screen.window.query.hide_plumbing, pilot=pilot)
            await wait_for(lambda: list_ready(screen), pilot=pilot)
        await pilot.press("h")
        await wait_for(lambda: screen.window.query.hide_plumbing, pilot=pilot)
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        window = screen.window
        assert any("Plumbing folded" in note for note in notes)
        await screen.events.load_all(window)
        rows = _rows(window)
        assert not any(is_plumbing(row) for row in rows)
        assert window.events == events  # the rows and what folded under them
        # the dialog shows it checked, plumbing's kinds cleared; h there shows it again
        dialog = await _dialog(pilot)
        kinds = dialog.query_one(KindList)
        assert PLUMBING in kinds.selected and ALL in kinds.selected
        assert not PLUMBING_KINDS & set(kinds.selected)
        send_burst(app, [("h", "h"), ("enter", "\r")])
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        await wait_for(lambda: not screen.window.query.hide_plumbing, pilot=pilot)
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        assert screen.window.query.selected_kinds is None  # every kind, plumbing too
        await screen.events.load_all(screen.window)
        assert any(row.kind == "ConversationStateUpdateEvent" for row in _rows(screen.window))


async def test_a_hook_that_blocked_is_no_plumbing(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["confirm"])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, "confirm")
        if not screen.window.query.hide_plumbing:
            await pilot.press("h")
            await wait_for(lambda: screen.window.query.hide_plumbing, pilot=pilot)
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        await screen.events.load_all(screen.window)
        hooks = [row for row in _rows(screen.window) if row.kind == "HookExecutionEvent"]
        assert len(hooks) == 1 and hooks[0].brief == "blocked"
