"""The key bar: the screen's shown bindings on one line, drawn by a single widget.

Textual's ``Footer`` mounts one widget per key and recomposes them all whenever the
bindings change (a focus move, a key enabled or hidden); each new key then restyles
itself. With our ~15 keys that measured 100–200 ms on this machine, paid on every screen
open and every focus change, and a key pressed meanwhile waits for it. This bar keeps the
same look (key, description, the palette key on the right) and rebuilds one line of text
in well under a millisecond. A click on a key presses it, as with the footer.

When the keys do not fit (80 columns), the last ones give way first, but help and quit are
kept at every width: a "…" before them says keys were left out, and ``?`` lists them all.

While a text field has the focus (a dialog's input, a prompt, the filter box), a key that
types a character goes into the field, not to the screen: the bar leaves those out and
shows only what still works there (enter, escape, ctrl keys). A dialog (a modal screen)
has a bar of its own, so the screen underneath never advertises keys it cannot get.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import events
from textual.keys import key_to_character
from textual.screen import Screen
from textual.widget import Widget

DIVIDER = "▏"
#: keys kept on the bar at every width (after a "…" when others had to go): help and quit,
#: by binding id or by action (a screen's own quit key, as the error screen has)
ESSENTIAL = frozenset({"app.help", "app.quit"})
ESSENTIAL_ACTIONS = frozenset({"quit", "app.quit", "toggle_help", "app.toggle_help"})
MORE = "…"  # stands for the keys left out; a click on it opens the help (which lists them)


#: key names whose character ``key_to_character`` does not find
_NAMED_CHARACTERS = {"slash": "/", "backslash": "\\", "at": "@", "minus": "-", "plus": "+"}


def types_text(key: str) -> bool:
    """A key that, in a text field, types a character (``j``, ``?``, ``space``, ``slash``)."""
    character = key_to_character(key) or _NAMED_CHARACTERS.get(key)
    return character is not None and len(character) == 1 and character.isprintable()


def typing_in(screen: Screen) -> bool:
    """A text field of ``screen`` has the focus: printable keys go into it."""
    from textual.widgets import Input, TextArea

    return isinstance(screen.focused, (Input, TextArea))


@dataclass(frozen=True)
class KeyItem:
    key: str  # what a click presses
    display: str  # how the key is written ("^p", "enter")
    description: str
    enabled: bool
    essential: bool = False  # kept at every width (ESSENTIAL)


#: the "…" on the bar: a click opens the help, where every key is listed
MORE_ITEM = KeyItem("question_mark", MORE, "", True)


class KeyBar(Widget, can_focus=False):
    """One line of the keys that apply now; left to right in binding order."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description", "key-bar--divider"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
    }
    KeyBar > .key-bar--key {
        color: $footer-key-foreground;
        background: $footer-key-background;
        text-style: bold;
    }
    KeyBar > .key-bar--description {
        color: $footer-description-foreground;
        background: $footer-description-background;
    }
    KeyBar > .key-bar--divider { color: $foreground 20%; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.items: list[KeyItem] = []
        self.palette: KeyItem | None = None
        self._spans: list[tuple[int, int, KeyItem]] = []  # cells each key covers, for clicks

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._collect()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        if self.is_attached and screen is self.screen:
            self._collect()

    def _collect(self) -> None:
        app = self.app
        active = self.screen.active_bindings
        typing = typing_in(self.screen)
        items: list[KeyItem] = []
        seen: set[str] = set()
        for key, (_node, binding, enabled, _tooltip) in active.items():
            if not binding.show or binding.action in seen:
                continue
            if typing and not binding.priority and types_text(key):
                continue  # it types into the field
            seen.add(binding.action)  # one entry per action, as the footer shows them
            items.append(
                KeyItem(
                    binding.key,
                    app.get_key_display(binding),
                    binding.description,
                    enabled,
                    binding.id in ESSENTIAL or binding.action in ESSENTIAL_ACTIONS,
                )
            )
        palette = None
        if (
            app.ENABLE_COMMAND_PALETTE
            and (found := active.get(app.COMMAND_PALETTE_BINDING)) is not None
        ):
            _node, binding, enabled, _tooltip = found
            palette = KeyItem(
                binding.key, app.get_key_display(binding), binding.description, enabled
            )
            items = [item for item in items if item.key != binding.key]
        if items != self.items or palette != self.palette:
            self.items, self.palette = items, palette
            self.refresh()

    # --- drawing -------------------------------------------------------------------------

    def _piece(
        self, item: KeyItem, key_style: Style, description_style: Style, *, pad: bool = True
    ) -> Text:
        dim = Style(dim=True) if not item.enabled else Style()
        piece = Text.assemble((f" {item.display} " if pad else f"{item.display} ", key_style + dim))
        if item.description:
            piece.append(f"{item.description} ", description_style + dim)
        return piece

    def fitted(self, room: int) -> list[KeyItem | None]:
        """The items shown in ``room`` cells, in order; None marks where keys were left out.

        Everything, if it fits. Otherwise the essential keys (help, quit) stay, after a "…",
        and the others are kept from the left while they fit."""
        key_style = description_style = Style()
        width = {
            id(item): self._piece(item, key_style, description_style).cell_len
            for item in self.items
        }
        if sum(width.values()) <= room:
            return list(self.items)
        essential = [item for item in self.items if item.essential]
        left = room - sum(width[id(item)] for item in essential) - len(f" {MORE} ")
        shown: list[KeyItem | None] = []
        for item in self.items:
            if item.essential:
                continue
            if width[id(item)] > left:
                break
            shown.append(item)
            left -= width[id(item)]
        return [*shown, None, *essential]

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-bar--key")
        description_style = self.get_component_rich_style("key-bar--description")
        width = self.size.width
        shown_palette = self.palette
        palette = (
            self._piece(shown_palette, key_style, description_style, pad=False)
            if shown_palette
            else None
        )
        essentials = sum(
            self._piece(item, key_style, description_style).cell_len
            for item in self.items
            if item.essential
        )
        if palette is not None and width - palette.cell_len - 2 < essentials + len(MORE) + 2:
            palette = shown_palette = None  # too narrow for both: help and quit win
        room = width - (palette.cell_len + 2 if palette is not None else 0)
        line, spans, at = Text(no_wrap=True, overflow="crop"), [], 0
        for item in self.fitted(room):
            if item is None:
                piece = Text(f" {MORE} ", style=description_style)
                spans.append((at, at + piece.cell_len, MORE_ITEM))
            else:
                piece = self._piece(item, key_style, description_style)
                spans.append((at, at + piece.cell_len, item))
            line.append_text(piece)
            at += piece.cell_len
        if palette is not None and shown_palette is not None:  # one implies the other
            start = max(at, width - palette.cell_len - 2)
            line.append(" " * (start - at))
            line.append(DIVIDER, self.get_component_rich_style("key-bar--divider"))
            spans.append((start + 1, start + 1 + palette.cell_len, shown_palette))
            line.append_text(palette)
        self._spans = spans
        return line

    def on_click(self, event: events.Click) -> None:
        for start, end, item in self._spans:
            if start <= event.x < end:
                event.stop()
                if item.enabled:
                    self.app.simulate_key(item.key)
                else:
                    self.app.bell()
                return

    @property
    def text(self) -> str:
        """Every key that applies now as plain text (shown or left out), for tests and tools."""
        return "  ".join(f"{item.display} {item.description}".strip() for item in self.items)

    @property
    def shown_text(self) -> str:
        """The keys as the bar shows them at its width (with "…" where some were left out)."""
        return "  ".join(
            f"{item.display} {item.description}".strip()
            for _start, _end, item in self._spans
            if item is not self.palette
        )
