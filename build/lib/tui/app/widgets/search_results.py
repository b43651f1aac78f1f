"""The search screen's hits: a conversation's title, then a line per hit under it.

A line says when, what kind (and tool) and the snippet, the words that matched picked out.
Every piece is literal text (``rich.text.Text`` built from plain strings, never markup: a
snippet and a title are what an agent or a user wrote, cleaned by the index), styled from
this widget's component classes, so the theme gives every colour. A title line cannot be
chosen; ``enter`` (or a click) on a hit posts :class:`HitChosen`.
"""

from __future__ import annotations

from datetime import UTC, datetime

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.search_index import Group, Hit


class SearchResults(OptionList):
    COMPONENT_CLASSES = {
        "search-results--title",
        "search-results--meta",
        "search-results--match",
        "search-results--snippet",
    }
    DEFAULT_CSS = """
    SearchResults {
        height: 1fr;
        border: round $foreground 25%;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    SearchResults:focus { border: round $accent; }
    SearchResults > .search-results--title { color: $text; text-style: bold; }
    SearchResults > .search-results--meta { color: $text-muted; }
    SearchResults > .search-results--match { color: $accent; text-style: bold underline; }
    SearchResults > .search-results--snippet { color: $text; }
    """

    class HitChosen(Message):
        def __init__(self, hit: Hit) -> None:
            super().__init__()
            self.hit = hit

    def __init__(self, **options: object) -> None:
        super().__init__(**options)  # type: ignore[arg-type]
        self._hits: dict[str, Hit] = {}
        self._groups: list[Group] = []

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.show(self._groups))

    def show(self, groups: list[Group]) -> None:
        """Replace the lines with these groups' (the highlight on the first hit)."""
        self._groups = groups
        style = self.get_component_rich_style
        title, meta = style("search-results--title"), style("search-results--meta")
        match, snippet = style("search-results--match"), style("search-results--snippet")
        options: list[Option] = []
        self._hits = {}
        for number, group in enumerate(groups):
            count = len(group.hits)
            head = Text(no_wrap=True, overflow="ellipsis")
            head.append(group.title or "(untitled)", title)
            head.append(f"  {group.conversation[:8]}  {count} hit{'s' * (count != 1)}", meta)
            options.append(Option(head, id=f"g{number}", disabled=True))
            for index, hit in enumerate(group.hits):
                key = f"h{number}-{index}"
                self._hits[key] = hit
                line = Text(no_wrap=True, overflow="ellipsis")
                line.append(f"  {_when(hit.time)}  ", meta)
                line.append(f"{hit.kind.removesuffix('Event')} {hit.tool}".strip() + "  ", meta)
                for text, lit in hit.snippet:
                    line.append(text, match if lit else snippet)
                options.append(Option(line, id=key))
        self.clear_options()
        self.add_options(options)
        first = next((n for n, option in enumerate(options) if not option.disabled), None)
        self.highlighted = first

    @property
    def chosen(self) -> Hit | None:
        """The hit the highlight is on."""
        if self.highlighted is None:
            return None
        option = self.get_option_at_index(self.highlighted)
        return self._hits.get(option.id or "")

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        message.stop()
        hit = self._hits.get(message.option.id or "")
        if hit is not None:
            self.post_message(self.HitChosen(hit))


def _when(ts: float | None) -> str:
    if ts is None:
        return "                "
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M")  # as the list shows it
