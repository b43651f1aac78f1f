"""Search every conversation at once (``S`` on the conversations list, palette "Search all
conversations").

What is typed is searched in the local index (``tui.search_index``) as it is typed, in a
thread worker (only the newest query's hits are shown); the hits are grouped by
conversation with the words that matched picked out (``widgets/search_results.py``). The
index fills in the background meanwhile (``search_fill.py``), its progress on the status
line ("indexed 312 of 1,040 conversations"), and the hits are asked again as it grows;
while the screen is shown it is brought up to date every :data:`REFILL_S` seconds (a live
run's new output is found while it runs).
``enter`` opens the conversation over this screen at the hit's event (the conversation
screen's "go to event", as insights' rows do), the query's words marked by its find bar
(``n``/``N`` walk them); ``escape`` back to this screen, then to
the list.
"""

from __future__ import annotations

import time

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from tui.app.widgets.common.key_bar import KeyBar
from tui.app.widgets.search_results import SearchResults
from tui.search_index import FillProgress, Hit, QueryError, Results, find_pattern, search

LIMIT = 200  # hits asked for (grouped, a screen or a few of them)
REFRESH_S = 1.0  # while the index grows, the hits are asked again at most this often
REFILL_S = 10.0  # while shown, the index is brought up to date this often (what changed)
HINT = 'words, "a phrase", prefix*, -not, kind: tool: source: in:"title" since:7d until:DATE'


class SearchScreen(Screen):
    BINDING_GROUP_TITLE = "Search all conversations"
    AUTO_FOCUS = "#search-input"
    BINDINGS = [
        Binding("enter", "open_hit", "Open at the event", id="search.open"),
        Binding("down", "to_results", "Hits", show=False, id="search.hits"),
        Binding("escape", "back", "Back", id="search.back"),
    ]
    CSS_PATH = "search.tcss"

    def __init__(self, query: str = "") -> None:
        super().__init__()
        self._query = query
        self._asked = 0  # the newest query's number: older answers are dropped
        self._answered = 0  # the number of the query whose hits are shown
        self._results: Results | None = None
        self._problem: str | None = None
        self._last_refresh = 0.0
        self._unlisten = lambda: None

    def compose(self) -> ComposeResult:
        yield Static("Search all conversations", id="search-title")
        yield Input(self._query, placeholder=HINT, id="search-input", select_on_focus=False)
        yield Static(id="search-status")
        yield SearchResults(id="search-results")
        yield KeyBar()

    def on_mount(self) -> None:
        search_state = self.app.search
        index = search_state.current()
        if index is None:
            self._problem = search_state.problem or "the search index cannot be opened"
        else:
            if index.notice:
                self.notify(index.notice, severity="warning", markup=False, timeout=8)
                index.notice = None
            self._unlisten = search_state.listen(self._filled)
            search_state.fill()
            self.set_interval(REFILL_S, search_state.fill)
        self._say()
        self.ask(self._query)

    def on_unmount(self) -> None:
        self._unlisten()

    # --- asking ------------------------------------------------------------------------

    @on(Input.Changed, "#search-input")
    def _typed(self, message: Input.Changed) -> None:
        self._query = message.value
        self.ask(message.value)

    @on(Input.Submitted, "#search-input")
    def _submitted(self) -> None:
        self.action_open_hit()

    def ask(self, text: str) -> None:
        self._asked += 1
        index = self.app.search.index
        if index is None or not text.strip():
            self._show(self._asked, None, None)
            return
        self._search(self._asked, index, text)

    @work(thread=True, exclusive=True, group="search-query")
    def _search(self, number: int, index: object, text: str) -> None:
        try:
            found, problem = search(index, text, limit=LIMIT), None  # type: ignore[arg-type]
        except QueryError as exc:
            found, problem = None, str(exc)
        except Exception as exc:  # noqa: BLE001 - said on the status line, never raised
            found, problem = None, f"the search failed: {exc}"
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, number, found, problem)

    def _show(self, number: int, found: Results | None, problem: str | None) -> None:
        if number != self._asked or not self.is_attached:
            return  # a newer query was typed meanwhile
        self._answered = number
        self._results, self._problem = found, problem or self.app.search.problem
        self.query_one(SearchResults).show(found.groups if found is not None else [])
        self._say()

    def _filled(self, progress: FillProgress) -> None:
        """A step of the background fill: the status line, and the hits again now and then."""
        self._say()
        now = time.monotonic()
        if self._query.strip() and (progress.done or now - self._last_refresh >= REFRESH_S):
            self._last_refresh = now
            self.ask(self._query)

    # --- what the status line says -----------------------------------------------------

    def _say(self) -> None:
        status = self.query_one("#search-status", Static)
        parts: list[str] = []
        found = self._results
        if self._problem:
            parts.append(self._problem)
        elif found is not None:
            count = len(found.groups)
            more = "+" if found.limited else ""
            parts.append(
                f"{found.hits}{more} hit{'s' * (found.hits != 1)} in {count} "
                f"conversation{'s' * (count != 1)}"
                if found.hits
                else "no match"
            )
            if found.newest_over:
                parts.append(f"newest first (over {found.newest_over:,} matches)")
        elif not self._query.strip():
            parts.append("type to search every conversation")
        state = self.app.search
        progress = state.progress
        working = progress is not None and not progress.done
        if working and (state.rounds == 0 or progress.events):  # a refill finding nothing: quiet
            parts.append(progress.words() + "…")
        elif state.index is not None:
            parts.append(state.index.status().words(size=False))
        status.update(" · ".join(parts))
        status.set_class(bool(self._problem), "-error")

    # --- keys --------------------------------------------------------------------------

    def action_to_results(self) -> None:
        self.query_one(SearchResults).focus()

    def action_open_hit(self) -> None:
        hit = self.query_one(SearchResults).chosen
        if hit is not None:
            self._open(hit)

    @on(SearchResults.HitChosen)
    def _chosen(self, message: SearchResults.HitChosen) -> None:
        self._open(message.hit)

    def _open(self, hit: Hit) -> None:
        """The hit's conversation at its event, the query's words marked by its find bar."""
        self.app.search.touch(hit.conversation)
        self.app.open_conversation_at(
            hit.conversation,
            hit.event_id,
            title=hit.title or None,
            words=find_pattern(self._query),
        )

    def action_back(self) -> None:
        results = self.query_one(SearchResults)
        if results.has_focus:
            self.query_one("#search-input").focus()
            return
        self.dismiss()
