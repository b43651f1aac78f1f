"""What the conversation screen builds only after the list's first rows are painted.

Opening a conversation is the path a user waits on most. Composing every part of the screen
before the first frame made the first rows wait behind widgets nobody sees yet: the find
bar (an input and three checkboxes), the agent's banners, the stream preview and the message
line are all hidden until something asks for them, and the detail pane's "nothing selected"
content is replaced by the first row's detail moments later. They were about a third of the
screen's opening work (bench/RESULTS.md: open vs the bare limit).

So the screen composes the header, the filter bar, the tree, the list and the detail pane;
the hidden bars exist from the start as objects (:attr:`find_bar` …, so they can be asked
about) and are mounted in their places right after the first frame with rows (or right
after the first frame, if the rows were not in when the screen mounted). The background index and the
tree's timer start then, and a key that needs a hidden bar waits for it
(:meth:`rest_built`), so nothing anyone can see or do changes.
"""

from __future__ import annotations

import asyncio

from tui.app.widgets.common.key_bar import KeyBar
from tui.app.widgets.conversation.agent_bar import (
    ConfirmBar,
    MessageLine,
    RunErrorBanner,
    StreamPreview,
)
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.app.widgets.conversation.filter_bar import FilterBar
from tui.app.widgets.conversation.find_bar import FindBar


class DeferredPartsMixin:
    """Part of :class:`~.screen.ConversationScreen`: the hidden bars, built after first paint."""

    def make_deferred_parts(self) -> None:
        """The hidden parts, as objects (from the constructor); mounted by :meth:`build_rest`."""
        self.find_bar = FindBar(id="find-bar")
        self.error_banner = RunErrorBanner(id="error-banner")
        self.confirm_bar = ConfirmBar(id="confirm-bar")
        self.stream_preview = StreamPreview(id="stream-preview")
        self.message_line = MessageLine(id="message-line")
        self._rest_started = False
        self._rest_done = asyncio.Event()

    def build_rest(self) -> None:
        """Mount the hidden parts now (once; later calls do nothing)."""
        if self._rest_started or self.closing:
            return
        self._rest_started = True
        self.run_worker(self._mount_rest(), group="build-rest")

    async def rest_built(self) -> None:
        """Return once the hidden parts are mounted and composed (building them now if not yet)."""
        self.build_rest()
        await self._rest_done.wait()

    async def _mount_rest(self) -> None:
        await self.mount_all(
            [self.find_bar, self.error_banner, self.confirm_bar], after=self.query_one(FilterBar)
        )
        await self.query_one("#conv-right").mount(
            self.stream_preview, after=self.query_one(EventList)
        )
        await self.mount(self.message_line, before=self.query_one(KeyBar))
        if self.closing:
            return
        detail = self.query_one(EventDetail)
        if not detail.children:  # no row was highlighted yet: say what the pane is for
            detail.clear_event()
        self.query_one(EventTreeView).follow(self.events)
        self._rest_done.set()
        self.rest_ready()
