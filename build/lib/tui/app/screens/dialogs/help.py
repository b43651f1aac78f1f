"""The keys panel (``?``, F1): every key of the screen it was opened on, scrolled by keyboard.

It is a dialog over the screen's right edge: the panes underneath do not move, and while
it is open its own keys apply (up/down, j/k, page up/down, space, home/end, g/G scroll;
esc, ``?``, F1 and q close). Textual's help panel was a widget that could not take the
focus, so a list longer than the terminal (the conversation's ~40 keys at 80×24) could
not be read to its end, and esc went to the screen underneath (back to the list).

What it lists is taken when it opens, from where the focus was: the keys that apply there
now, grouped by the pane or screen that owns them, as ``check_action`` offers them (so a
read-only app lists no key that changes anything).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.app.screens.dialogs.help_notes import copy_note, elsewhere
from tui.app.widgets.common.key_bar import KeyBar

if TYPE_CHECKING:
    from textual.screen import Screen

#: the title of the app's own keys (the app has no BINDING_GROUP_TITLE)
APP_GROUP = "Everywhere"


@dataclass
class KeyGroup:
    """The keys one screen, pane or widget owns: (keys, description, tooltip) rows."""

    title: str | None
    rows: list[tuple[str, str, str]] = field(default_factory=list)


def key_groups(screen: Screen) -> list[KeyGroup]:
    """The keys that apply on ``screen`` now, grouped by owner (the focused pane's first),
    the keys of one action together (``/ ^f``); a screen's key that means something else
    on another screen says so (``help_notes.py``)."""
    app = screen.app
    owners: dict[int, tuple[KeyGroup, dict[str, list[str]]]] = {}
    descriptions: dict[tuple[int, str], tuple[str, str]] = {}
    elsewhere_notes = elsewhere(screen)
    notes: dict[tuple[int, str], list[str]] = {}
    for namespace, binding, _enabled, tooltip in screen.active_bindings.values():
        if binding.system:
            continue
        if id(namespace) not in owners:
            title = namespace.BINDING_GROUP_TITLE or (APP_GROUP if namespace is app else None)
            owners[id(namespace)] = (KeyGroup(title), {})
        keys = owners[id(namespace)][1].setdefault(binding.action, [])
        shown = app.get_key_display(binding)
        if shown not in keys:
            keys.append(shown)
        if binding.action == "screen.copy_text":
            tooltip = copy_note(screen)
        descriptions.setdefault(
            (id(namespace), binding.action), (binding.description, tooltip or "")
        )
        note = elsewhere_notes.get(binding.key) if namespace is screen else None
        if note:
            notes.setdefault((id(namespace), binding.action), []).append(note)
    groups = []
    for owner, (group, actions) in owners.items():
        for action, keys in actions.items():
            description, tooltip = descriptions[(owner, action)]
            said = " · ".join(([tooltip] if tooltip else []) + notes.get((owner, action), []))
            group.rows.append((" ".join(keys), description, said))
        groups.append(group)
    return groups


class KeyList(Static):
    """The groups as a table; colours from the theme (its component classes)."""

    COMPONENT_CLASSES = {
        "key-list--key",
        "key-list--description",
        "key-list--tooltip",
        "key-list--header",
    }

    def __init__(self, groups: list[KeyGroup]) -> None:
        super().__init__()
        self.groups = groups

    def render(self) -> Table:
        key_style = self.get_component_rich_style("key-list--key")
        description_style = self.get_component_rich_style("key-list--description")
        tooltip_style = self.get_component_rich_style("key-list--tooltip")
        header_style = self.get_component_rich_style("key-list--header")
        table = Table.grid(padding=(0, 2, 0, 0), expand=True)
        table.add_column(no_wrap=True)
        table.add_column(ratio=1)
        for index, group in enumerate(self.groups):
            if index:
                table.add_row("", "")
            if group.title:
                table.add_row(Text(group.title, style=header_style), "")
            for keys, description, tooltip in group.rows:
                text = Text(description, style=description_style)
                if tooltip:
                    text.append(f" {tooltip}" if description else tooltip, style=tooltip_style)
                table.add_row(Text(keys, style=key_style), text)
        return table

    @property
    def text(self) -> str:
        """Every row as plain text (keys, description), for tests and tools."""
        return "\n".join(
            f"{keys} {description}" for group in self.groups for keys, description, _ in group.rows
        )


class HelpBody(VerticalScroll, inherit_bindings=False):
    """The scrolled list; its keys are the screen's (so the key bar names the arrows)."""


class HelpScreen(ModalScreen[None]):
    """Every key of the screen underneath; its own keys scroll the list and close it."""

    CSS_PATH = "help.tcss"
    BINDINGS = [
        Binding("escape,question_mark,f1,q", "close", "Close", id="help.close"),
        Binding("down,j", "scroll('down')", "Down", id="help.down"),
        Binding("up,k", "scroll('up')", "Up", id="help.up"),
        Binding("pagedown,space", "scroll('page_down')", "Page down", id="help.page-down"),
        Binding("pageup,b", "scroll('page_up')", "Page up", show=False, id="help.page-up"),
        Binding("home,g", "scroll('home')", "Top", show=False, id="help.top"),
        Binding("end,G", "scroll('end')", "End", show=False, id="help.end"),
    ]

    def __init__(self, title: str, groups: list[KeyGroup]) -> None:
        super().__init__()
        self.title_text = title
        self.groups = groups

    def compose(self) -> ComposeResult:
        with Vertical(id="help-panel"):
            with Horizontal(id="help-head"):
                yield Static(Text(self.title_text), id="help-title")
                yield Static(id="help-where")
            with HelpBody(id="help-body"):
                yield KeyList(self.groups)
        yield KeyBar()

    def on_mount(self) -> None:
        body = self.query_one(HelpBody)
        self.set_focus(body)  # at once: a key typed right after ? already scrolls
        self.watch(body, "scroll_y", lambda _y: self._where(), init=False)
        self.call_after_refresh(self._where)

    def on_resize(self) -> None:
        self.call_after_refresh(self._where)

    def _where(self) -> None:
        """Say which lines of the list are shown, and that there are more."""
        body = self.query_one(HelpBody)
        total, shown = body.virtual_size.height, body.scrollable_content_region.height
        where = self.query_one("#help-where", Static)
        if total <= shown:
            where.update("")
            return
        top = round(body.scroll_y)
        bottom = min(total, top + shown)
        where.update(f"{top + 1}–{bottom} of {total}" + (" ↓" if bottom < total else ""))

    def action_scroll(self, how: str) -> None:
        """At once, not animated: a key held down or typed twice lands where it should."""
        body = self.query_one(HelpBody)
        {
            "down": body.scroll_down,
            "up": body.scroll_up,
            "page_down": body.scroll_page_down,
            "page_up": body.scroll_page_up,
            "home": body.scroll_home,
            "end": body.scroll_end,
        }[how](animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
