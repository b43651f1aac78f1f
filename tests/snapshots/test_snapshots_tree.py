"""The tree pane as people see it at 80×24 and 160×48: a long session that forked at a
condensation, its branches numbered in words, labels cut at a word, and the list and the
detail on the event under the tree's cursor."""

from __future__ import annotations

import pytest

from tests.helpers.app_helpers import make_app, settled, wait_for
from tests.snapshots.test_snapshots import _open
from tui.app.store.step_rows import holds
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.app.widgets.conversation.tree_nodes import node_position


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_the_tree_of_a_forked_session_with_the_list_on_its_cursor(snap_compare, demo_server, size):
    async def run_before(pilot):
        screen = await _open(pilot, "long")
        tree = screen.query_one(EventTreeView)
        await pilot.press("t", "j", "right")  # the side branch, opened
        await settled(pilot)
        await pilot.press("j", "j")  # the branch's own run, then its first event
        wanted = screen.events.base.head[node_position(tree.cursor_node.data)]
        detail, event_list = screen.query_one(EventDetail), screen.query_one(EventList)
        await wait_for(lambda: holds(event_list.current, wanted.id), pilot=pilot)  # its step
        await wait_for(
            lambda: detail._event is not None and detail._event.id == event_list.current.id,
            pilot=pilot,
        )
        await settled(pilot)

    assert snap_compare(make_app(demo_server.base_url), run_before=run_before, terminal_size=size)
