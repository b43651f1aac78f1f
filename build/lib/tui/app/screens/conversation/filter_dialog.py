"""The filter dialog (``f`` on the conversation screen): kinds, plumbing, time range, order.

Kinds are a checklist, named as the event list names them (``state``) with the class name
beside each as a hint, sorted by name, each with how many events of it the open
conversation holds. Several can be checked at once; "all kinds" checks or clears them
all, and "hide plumbing" (``h``) folds state updates, LLM logs, token events and hook runs
that passed under the rows they follow. ``j``/``k`` and the arrows move, space checks,
enter applies exactly what is checked (nothing checked: the dialog says so and stays).

The counts are the server's count queries, run in a worker a few at a time ("…" until
each is known), so the dialog opens at once even on a slow server. Enter in a time field
applies too; esc leaves all as it was.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, RadioButton, RadioSet, SelectionList, Static
from textual.widgets.selection_list import Selection

from tui.app.screens.dialogs.dismiss_once import DismissOnce
from tui.app.screens.dialogs.field_keys import FIELD_KEYS
from tui.app.store.row_windows import EventQuery
from tui.app.store.step_kinds import PLUMBING_HINT, PLUMBING_KINDS
from tui.app.widgets.common.key_bar import KeyBar
from tui.app.widgets.common.ordered_input import OrderedInput
from tui.app.widgets.conversation.filter_bar import kind_choices, parse_when, show_time

#: How many count queries run at once (20 kinds: a slow server is not asked all at once).
PARALLEL_COUNTS = 4
ALL = "all"  # the option of "all kinds"
PLUMBING = "plumbing"  # the option of "hide plumbing"
NOTHING_CHECKED = "Check at least one kind (space), or all kinds."

#: Counts one query's events (None: the server cannot count, e.g. a shared link).
Counter = Callable[[EventQuery], Awaitable[int | None]]


class KindList(SelectionList[str]):
    """The kinds checklist: ``j``/``k`` move as the arrows do, space checks, enter applies.

    Every toggle (a key, a click) is answered at once by :attr:`on_toggle`, not by a
    message: keys typed in one burst (``j j space enter``) each find the boxes as the ones
    before left them."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="filter.down"),
        Binding("k", "cursor_up", "Up", show=False, id="filter.up"),
        Binding("space", "check", "Check", id="filter.check"),
        Binding("enter", "apply", "Apply", id="filter.apply"),
    ]

    def __init__(self, *selections: Selection[str], id: str | None = None) -> None:
        super().__init__(*selections, id=id)
        self.on_toggle: Callable[[str], None] = lambda value: None
        self.on_apply: Callable[[], None] = lambda: None

    def toggle(self, selection: Any) -> KindList:
        super().toggle(selection)
        self.on_toggle(selection.value if isinstance(selection, Selection) else selection)
        return self

    def action_check(self) -> None:
        """Space: the highlighted box, at once (Textual's own space toggles whichever box
        is highlighted when its message is read: ``space j space`` typed together checked
        the second box twice)."""
        if self.highlighted is not None:
            self.toggle(self.get_option_at_index(self.highlighted))

    def action_apply(self) -> None:
        self.on_apply()


class FilterDialog(DismissOnce, ModalScreen[EventQuery | None]):
    """Choose what the event list shows; dismissed with the new query, or None."""

    CSS_PATH = "filter_dialog.tcss"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="filter.cancel"),
        Binding("h", "toggle_plumbing", "Hide plumbing", id="filter.plumbing"),
        Binding("ctrl+o", "toggle_order", "Newest first", id="filter.order"),
        *FIELD_KEYS,
    ]

    def __init__(self, query: EventQuery, counter: Counter | None = None) -> None:
        super().__init__()
        self.current = query
        self.counter = counter
        self.counts: dict[str, int | None | str] = {}  # option id → count ("?" if it failed)
        self._choices = kind_choices()
        self._kinds = [kind for _label, kind in self._choices]
        self._width = max(len(label) + len(kind) + 3 for label, kind in self._choices)

    def compose(self) -> ComposeResult:
        yield KeyBar()  # the dialog's own keys: the screen's underneath do not reach it
        shown = self.current.selected_kinds
        hide = self.current.hide_plumbing
        checked = {
            kind
            for kind in self._kinds
            if (shown is None or kind in shown) and not (hide and kind in PLUMBING_KINDS)
        }
        with Vertical(id="filter-box") as box:
            box.border_title = "Filter events"
            yield Label(self._kind_title(), id="filter-kind-title")
            kinds = KindList(
                Selection(self._prompt("all kinds", None, ALL), ALL, shown is None, id=ALL),
                Selection(self._plumbing_prompt(), PLUMBING, hide, id=PLUMBING),
                *(
                    Selection(self._prompt(label, kind, kind), kind, kind in checked, id=kind)
                    for label, kind in self._choices
                ),
                id="filter-kind",
            )
            kinds.on_toggle = self._toggled
            kinds.on_apply = self.apply
            yield kinds
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
            yield Static(
                "space check · h hide plumbing · enter apply · ^o order · esc cancel",
                id="filter-hint",
            )

    def on_mount(self) -> None:
        kinds = self.query_one("#filter-kind", KindList)
        kinds.highlighted = 0
        kinds.focus()
        if self.counter is not None:
            self.count_kinds()

    def _kind_title(self) -> str:
        if self.current.since or self.current.until:
            span = (
                f"{show_time(self.current.since) or '…'} → {show_time(self.current.until) or '…'}"
            )
            return f"Kinds (events {span})"
        return "Kinds (events in this conversation)"

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

    def _plumbing_prompt(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("hide plumbing")
        text.append(f": {PLUMBING_HINT}", style="dim")
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
            for kinds in self.query("#filter-kind").results(KindList):
                kinds.replace_option_prompt(option_id, self._prompt(label, kind, option_id))

        await asyncio.gather(
            one(ALL, "all kinds", None),
            *(one(kind, label, kind) for label, kind in self._choices),
        )

    # --- checking ---------------------------------------------------------------------------

    def _toggled(self, value: str) -> None:
        """Keep the boxes agreeing after ``value`` was toggled: "all kinds" checks or clears
        every kind; hiding plumbing clears its kinds (showing it again brings them back
        where every other kind is checked); checking a plumbing kind shows plumbing."""
        kinds = self.query_one("#filter-kind", KindList)
        selected = set(kinds.selected)
        hide = PLUMBING in selected
        if value == ALL:
            for kind in self._kinds:
                on = ALL in selected and not (hide and kind in PLUMBING_KINDS)
                (kinds.select if on else kinds.deselect)(kind)
        elif value == PLUMBING:
            every = all(k in selected for k in self._kinds if k not in PLUMBING_KINDS)
            for kind in PLUMBING_KINDS:
                if hide:
                    kinds.deselect(kind)
                elif every:
                    kinds.select(kind)
        elif value in PLUMBING_KINDS and value in selected:
            kinds.deselect(PLUMBING)
        self._agree_all()
        self.query_one("#filter-status", Static).update("")

    def _agree_all(self) -> None:
        """ "all kinds" is checked exactly when every kind is (but plumbing, while hidden)."""
        kinds = self.query_one("#filter-kind", KindList)
        selected = set(kinds.selected)
        hide = PLUMBING in selected
        every = all(k in selected for k in self._kinds if not (hide and k in PLUMBING_KINDS))
        (kinds.select if every else kinds.deselect)(ALL)

    def action_toggle_plumbing(self) -> None:
        """``h``: the "hide plumbing" preset, on or off (enter applies it)."""
        self.query_one("#filter-kind", KindList).toggle(PLUMBING)

    # --- applying -------------------------------------------------------------------------

    def chosen(self) -> EventQuery | None:
        """What the boxes say (None: no kind checked), times and order aside."""
        selected = set(self.query_one("#filter-kind", KindList).selected)
        hide = PLUMBING in selected
        kinds = [kind for kind in self._kinds if kind in selected]
        if not kinds:
            return None
        query = replace(self.current, hide_plumbing=hide)
        return query.with_kinds(None if ALL in selected else kinds)

    def apply(self) -> None:
        """Dismiss with what the fields say, or keep the dialog open on a time it can't read
        or with no kind checked."""
        status = self.query_one("#filter-status", Static)
        times: dict[str, str | None] = {}
        for field in ("since", "until"):
            box = self.query_one(f"#filter-{field}", Input)
            try:
                times[field] = parse_when(box.value)
            except ValueError:
                box.add_class("-invalid")
                box.focus()
                status.update(Text(f"Not a date/time: {box.value!r} (YYYY-MM-DD HH:MM)"))
                return
            box.remove_class("-invalid")
        chosen = self.chosen()
        if chosen is None:
            status.update(NOTHING_CHECKED)
            self.query_one("#filter-kind", KindList).focus()
            return
        descending = self.query_one("#filter-newest", RadioButton).value
        self.dismiss(replace(chosen, descending=descending, **times))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.apply()

    def action_toggle_order(self) -> None:
        newest = self.query_one("#filter-newest", RadioButton)
        (self.query_one("#filter-oldest", RadioButton) if newest.value else newest).value = True

    def action_cancel(self) -> None:
        self.dismiss(None)
