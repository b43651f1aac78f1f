"""The filter bar and its dialog: kinds named as the list names them, sorted, with counts
for the open conversation from the server's count queries ("…" until each is known)."""

from __future__ import annotations

import asyncio

import httpx
from textual.widgets import SelectionList

from tests.helpers.app_helpers import (
    SIZE,
    list_ready,
    make_app,
    screen_ready,
    screen_text,
    send_burst,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversation.filter_dialog import ALL, PLUMBING, FilterDialog, KindList
from tui.app.store.rows import KIND_LABELS
from tui.app.widgets.conversation.filter_bar import FilterBar, kind_choices, kind_label, show_time
from tui.models import EVENT_KINDS
from tui.server import Store, load_demo

IDS = load_demo(Store())


class HeldCounts(httpx.AsyncHTTPTransport):
    """The real server, except that event counts wait until ``release`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.counts = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/events/count") and "kind__eq" in request.url.params:
            self.counts += 1
            await self.release.wait()
        return await super().handle_async_request(request)


def test_every_kind_has_the_lists_name_sorted():
    choices = kind_choices()
    assert [kind for _label, kind in choices] != list(EVENT_KINDS)  # not the class order
    assert sorted(kind for _label, kind in choices) == sorted(EVENT_KINDS)
    labels = [label for label, _kind in choices]
    assert labels == sorted(labels)
    assert all(kind_label(kind) == KIND_LABELS[kind] for kind in EVENT_KINDS)
    assert ("state", "ConversationStateUpdateEvent") in choices
    assert show_time("2026-11-21T14:05:00") == "2026-11-21 14:05"
    assert show_time("2026-11-21T00:00:00") == "2026-11-21"


def _prompts(dialog) -> dict[str, str]:
    options = dialog.query_one("#filter-kind", SelectionList)
    return {
        options.get_option_at_index(i).id: str(options.get_option_at_index(i).prompt)
        for i in range(options.option_count)
    }


async def test_the_dialog_lists_kinds_with_counts_as_they_arrive(demo_server):
    transport = HeldCounts()
    app = make_app(demo_server.base_url, transport=transport, conversation_id=IDS["hello"])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        await screen.events.load_all(screen.events.base)  # every event, one a row
        rows = list(screen.events.base.head)
        await pilot.press("f")
        await wait_for(lambda: screen_ready(app, FilterDialog), pilot=pilot)
        dialog = app.screen
        await wait_for(lambda: transport.counts >= 1, pilot=pilot)
        total = f"{len(rows):,}"  # the total needs no kind: shown while the kinds are held
        await wait_for(lambda: _prompts(dialog)[ALL].rstrip().endswith(total), pilot=pilot)
        prompts = _prompts(dialog)
        names = [
            text.split(" (")[0].strip()
            for key, text in prompts.items()
            if key not in (ALL, PLUMBING)
        ]
        assert names == sorted(names) and "state" in names and "action" in names
        assert prompts["ConversationStateUpdateEvent"].startswith(
            "state (ConversationStateUpdateEvent)"
        )
        assert prompts["ActionEvent"].rstrip().endswith("…")  # not counted yet
        transport.release.set()
        expected = {kind: sum(r.kind == kind for r in rows) for kind in EVENT_KINDS}
        await wait_for(
            lambda: all(
                _prompts(dialog)[kind].rstrip().endswith(f" {n:,}") for kind, n in expected.items()
            ),
            pilot=pilot,
        )
        options = dialog.query_one("#filter-kind", KindList)
        assert options.highlighted_option.id == ALL and ALL in options.selected
        # as a terminal sends them: clear every kind, down past "hide plumbing" to the
        # first kind by name ("acp tool"), check it, apply exactly that
        send_burst(app, [("space", " "), ("j", "j"), ("down", None), ("space", " ")])
        send_burst(app, [("enter", "\r")])
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        first = kind_choices()[0][1]
        await wait_for(lambda: screen.window.query.selected_kinds == {first}, pilot=pilot)
        bar = screen.query_one(FilterBar)
        assert bar.applied.selected_kinds == {first}
        await wait_for(lambda: f"filter {kind_label(first)}" in screen_text(app), pilot=pilot)
        assert f"Steps · {kind_label(first)} ·" in screen_text(app)  # the list's title too


async def test_the_dialog_changes_order_and_time_and_keeps_what_esc_leaves(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        second = screen.window.row(2).timestamp
        await pilot.press("f")
        await wait_for(lambda: screen_ready(app, FilterDialog), pilot=pilot)
        await pilot.press("ctrl+o", "escape")  # esc: nothing changes
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        assert screen.window.query.is_plain and not screen.window.query.descending
        await pilot.press("f")
        await wait_for(lambda: screen_ready(app, FilterDialog), pilot=pilot)
        dialog = app.screen
        await pilot.press("ctrl+o")  # newest first
        dialog.query_one("#filter-since").value = second[:19].replace("T", " ")
        dialog.query_one("#filter-since").focus()
        await pilot.press("enter")
        await wait_for(
            lambda: (
                screen.window.query.descending
                and screen.window.query.since == second[:19]
                and screen.window.row(0) is not None
            ),
            pilot=pilot,
        )
        assert "newest first" in screen_text(app)
        await pilot.press("a")  # all events: the bar says so again
        await wait_for(lambda: screen.window.query.kind is None, pilot=pilot)
        await wait_for(lambda: "any time" in screen_text(app), pilot=pilot)


async def test_a_click_on_the_bar_opens_the_dialog(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        bar = screen.query_one(FilterBar)
        assert not bar.can_focus and bar.region.right <= 80
        # True when the click landed on the bar: a failure then says whether it was the
        # click's place or what the bar did with it
        landed = await pilot.click(FilterBar, offset=(3, 0))
        assert landed, app.screen.get_widget_at(bar.region.x + 3, bar.region.y)
        await wait_for(lambda: screen_ready(app, FilterDialog), pilot=pilot)
