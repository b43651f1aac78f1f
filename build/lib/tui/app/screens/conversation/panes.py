"""How wide the tree pane is: what its lines need, up to a share of the screen, or the
user's choice (``<`` / ``>``), which holds for the rest of the session.

A fixed 38 % left a one-run tree most of an 80-column screen's width while the event
list's summaries shrank to a dozen letters. Now the tree takes the width of its widest
line, at most :data:`SHARE` of the screen (:data:`LINEAR_SHARE` while the conversation
never forked: one run has little to show), so the list keeps the rest, and never less than
:data:`MIN_WIDTH`; it only grows while a conversation is open, so opening a run does not
make the panes jump back and forth. ``<`` at the narrowest hides the tree; ``>`` or ``t``
brings it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from tui.app.widgets.conversation.event_tree import EventTreeView

if TYPE_CHECKING:
    from textual.app import App
    from textual.geometry import Size

SHARE = 0.3  # the tree's widest automatic width, as a share of the screen
LINEAR_SHARE = 0.2  # ... while the conversation never forked (one run: little to show)
MAX_WIDTH = 60  # ... and in columns (a wide terminal gives the list the rest)
MIN_WIDTH = 16  # narrower than this a tree line says nothing
LIST_ROOM = 40  # what the user's widening always leaves to the list
STEP = 4  # columns per < or >
BORDER = 2  # the pane's round border, left and right
HIDDEN = 0


@dataclass
class SessionPanes:
    """What the user chose this session (across conversations): the tree's width in
    columns, HIDDEN, or None for the automatic width."""

    tree_width: int | None = None


_SESSIONS: WeakKeyDictionary[App, SessionPanes] = WeakKeyDictionary()


def session_panes(app: App) -> SessionPanes:
    """This app run's pane choices (one per app, so tests' apps never share them)."""
    return _SESSIONS.setdefault(app, SessionPanes())


def auto_width(screen_width: int, content_width: int, *, forked: bool = True) -> int:
    """What the tree takes unasked: its widest line (and border), within its share (a
    smaller one while the conversation is one unforked run)."""
    share = SHARE if forked else LINEAR_SHARE
    cap = max(MIN_WIDTH, min(MAX_WIDTH, int(screen_width * share)))
    return max(MIN_WIDTH, min(cap, content_width + BORDER))


def clamp_user_width(screen_width: int, width: int) -> int:
    """A width asked for with < / >: at least MIN_WIDTH, and the list keeps LIST_ROOM."""
    return max(MIN_WIDTH, min(width, screen_width - LIST_ROOM))


class PanesMixin:
    """Part of :class:`~.screen.ConversationScreen`: sizes the tree pane."""

    _tree_auto = 0  # the automatic width so far this visit (it only grows)
    _tree_width = 0  # the width fit_tree set last (the layout catches up at the next refresh)

    def _tree(self) -> EventTreeView:
        return self.query_one(EventTreeView)

    def watch_tree_content(self) -> None:
        """Size the tree now and whenever its lines (their widest) change."""
        tree = self._tree()
        self.watch(tree, "virtual_size", self._tree_content_changed, init=False)
        self.fit_tree()

    def _tree_content_changed(self, _size: Size) -> None:
        self.fit_tree()
        self.render_header()  # its forks may have changed: the header names the current branch

    def on_resize(self) -> None:
        self.fit_tree()

    def fit_tree(self) -> None:
        """Apply the session's choice, or the automatic width, to the tree pane."""
        tree = self._tree()
        if tree.has_class("-maximized"):
            tree.styles.clear_rule("width")  # zoomed (z): the stylesheet's full width
            self._tree_width = 0
            return
        screen_width = self.size.width
        if not screen_width:
            return
        chosen = session_panes(self.app).tree_width
        tree.display = chosen != HIDDEN
        if chosen == HIDDEN:
            return
        if chosen is not None:
            width = clamp_user_width(screen_width, chosen)
        else:
            forked = bool(tree.forks)
            self._tree_auto = max(
                self._tree_auto, auto_width(screen_width, tree.virtual_size.width, forked=forked)
            )
            width = min(self._tree_auto, auto_width(screen_width, 10**6, forked=forked))
        if width != self._tree_width:
            self._tree_width = width
            tree.styles.width = width

    def resize_tree(self, step: int) -> None:
        """``<`` / ``>``: the tree by STEP columns; below the narrowest it hides."""
        panes = session_panes(self.app)
        tree = self._tree()
        screen_width = self.size.width
        if panes.tree_width == HIDDEN:
            if step < 0:
                return
            panes.tree_width = MIN_WIDTH
        else:
            # the width set last, not the laid-out one: keys typed together each count
            wanted = (panes.tree_width or self._tree_width or tree.outer_size.width) + step
            if wanted < MIN_WIDTH:
                panes.tree_width = HIDDEN
                if tree.has_focus:
                    self.set_focus(self.query_one("#event-list"))
                self.notify("Tree hidden: > or t shows it again.", markup=False)
            else:
                panes.tree_width = clamp_user_width(screen_width, wanted)
        self.fit_tree()

    def show_tree(self) -> None:
        """The tree is wanted (``t``): bring it back if it was hidden."""
        panes = session_panes(self.app)
        if panes.tree_width == HIDDEN:
            panes.tree_width = MIN_WIDTH
            self.fit_tree()

    def action_tree_narrower(self) -> None:
        self.resize_tree(-STEP)

    def action_tree_wider(self) -> None:
        self.resize_tree(STEP)

    def action_tree_auto(self) -> None:
        """``=``: back to the automatic width."""
        session_panes(self.app).tree_width = None
        self._tree_auto = 0
        self.fit_tree()
