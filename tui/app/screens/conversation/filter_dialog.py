"""The filter dialog (``f`` on the conversation screen): kind, time range and order.

Kinds are listed as the event list names them (``state``), the class name beside each as
a hint, sorted by name, each with how many events of it the open conversation holds. The
counts are the server's count queries, run in a worker a few at a time ("…" until each is
known), so the dialog opens at once even on a slow server. Enter on a kind applies it
with the time range typed; enter in a time field applies too; esc leaves all as it was.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, RadioButton, RadioSet, Static
from textual.widgets.option_list import Option

from ...row_windows import EventQuery
from ...widgets.filter_bar import kind_choices, parse_when, show_time
from ...widgets.key_bar import KeyBar
from ...widgets.ordered_input import OrderedInput
from ..dismiss_once import DismissOnce
from ..field_keys import FIELD_KEYS

#: How many count queries run at once (20 kinds: a slow server is not asked all at once).
PARALLEL_COUNTS = 4
ALL = "all"  # the option id of "all kinds"

#: Counts one query's events (None: the server cannot count, e.g. a shared link).
Counter = Callable[[EventQuery], Awaitable[int | None]]


class FilterDialog(DismissOnce, ModalScreen[EventQuery | None]):
    """Choose what the event list shows; dismissed with the new query, or None."""

    CSS_PATH = "filter_dialog.tcss"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="filter.cancel"),
        Binding("ctrl+o", "toggle_order", "Newest first", id="filter.order"),
        *FIELD_KEYS,
    ]

    def __init__(self, query: EventQuery, counter: Counter | None = None) -> None:
        super().__init__()
        self.current = query
        self.counter = counter
        self.counts: dict[str, int | None | str] = {}  # option id → count ("?" if it failed)
        self._choices = kind_choices()
        self._width = max(len(label) + len(kind) + 3 for label, kind in self._choices)

    def compose(self) -> ComposeResult:
        yield KeyBar()  # the dialog's own keys: the screen's underneath do not reach it
        with Vertical(id="filter-box") as box:
            box.border_title = "Filter events"
            yield Label(self._kind_title(), id="filter-kind-title")
            yield OptionList(
                Option(self._prompt("all kinds", None, ALL), id=ALL),
                *(
                    Option(self._prompt(label, kind, kind), id=kind)
                    for label, kind in self._choices
                ),
                id="filter-kind",
            )
            with Horizontal(id="filter-times"):
                yield Label("from")
                yield OrderedInput(
                    show_time(self.current.since),
                    placeholder="YYYY-MM-DD HH:MM",
                    id="filter-since",
                    compact=True,
                )
                yield Label("before")
                yield OrderedInput(
                    show_time(self.current.until),
                    placeholder="YYYY-MM-DD HH:MM",
                    id="filter-until",
                    compact=True,
                )
            with Horizontal(id="filter-order-row"):
                yield Label("order")
                with RadioSet(id="filter-order", compact=True):
                    yield RadioButton(
                        "oldest first", not self.current.descending, id="filter-oldest"
                    )
                    yield RadioButton("newest first", self.current.descending, id="filter-newest")
            yield Static(id="filter-status")
            yield Static("enter apply · tab next field · ^o order · esc cancel", id="filter-hint")

    def on_mount(self) -> None:
        kinds = self.query_one("#filter-kind", OptionList)
        kinds.highlighted = kinds.get_option_index(self.current.kind or ALL)
        kinds.focus()
        if self.counter is not None:
            self.count_kinds()

    def _kind_title(self) -> str:
        if self.current.since or self.current.until:
            span = (
                f"{show_time(self.current.since) or '…'} → {show_time(self.current.until) or '…'}"
            )
            return f"Kind (events {span})"
        return "Kind (events in this conversation)"

    def _prompt(self, label: str, kind: str | None, option_id: str) -> Text:
        count = self.counts.get(option_id, "…" if self.counter is not None else "")
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(label)
        if kind is not None:
            text.append(f" ({kind})", style="dim")
        text.append(" " * max(1, self._width - text.cell_len + 1))
        text.append(f"{count:>7,}" if isinstance(count, int) else f"{count or '':>7}")
        if count == 0:
            text.stylize("dim")
        return text

    @work(group="counts")
    async def count_kinds(self) -> None:
        """Each kind's count (and the total), a few queries at a time, shown as they come."""
        assert self.counter is not None
        counter, limit = self.counter, asyncio.Semaphore(PARALLEL_COUNTS)
        base = {"since": self.current.since, "until": self.current.until}

        async def one(option_id: str, label: str, kind: str | None) -> None:
            async with limit:
                try:
                    count: int | None | str = await counter(EventQuery(kind=kind, **base))
                except Exception:  # noqa: BLE001 - a count is a hint: "?" says it failed
                    count = "?"
            self.counts[option_id] = "" if count is None else count
            # the dialog may be closing (its widgets already gone while it is still attached)
            for kinds in self.query("#filter-kind").results(OptionList):
                kinds.replace_option_prompt(option_id, self._prompt(label, kind, option_id))

        await asyncio.gather(
            one(ALL, "all kinds", None),
            *(one(kind, label, kind) for label, kind in self._choices),
        )

    # --- applying -------------------------------------------------------------------------

    def _chosen_kind(self) -> str | None:
        option = self.query_one("#filter-kind", OptionList).highlighted_option
        return None if option is None or option.id == ALL else option.id

    def apply(self) -> None:
        """Dismiss with what the fields say, or keep the dialog open on a time it can't read."""
        times: dict[str, str | None] = {}
        for field in ("since", "until"):
            box = self.query_one(f"#filter-{field}", Input)
            try:
                times[field] = parse_when(box.value)
            except ValueError:
                box.add_class("-invalid")
                box.focus()
                self.query_one("#filter-status", Static).update(
                    Text(f"Not a date/time: {box.value!r} (YYYY-MM-DD HH:MM)")
                )
                return
            box.remove_class("-invalid")
        descending = self.query_one("#filter-newest", RadioButton).value
        self.dismiss(EventQuery(kind=self._chosen_kind(), descending=descending, **times))

    @on(OptionList.OptionSelected, "#filter-kind")
    def _kind_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.apply()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.apply()

    def action_toggle_order(self) -> None:
        newest = self.query_one("#filter-newest", RadioButton)
        (self.query_one("#filter-oldest", RadioButton) if newest.value else newest).value = True

    def action_cancel(self) -> None:
        self.dismiss(None)
