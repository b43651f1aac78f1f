"""The board's actions on its rows: pause/run, interrupt, approve/reject, pause a sandbox.

A mixin of :class:`~.board.BoardScreen` (its keys and its rows are the screen's); the
requests themselves are ``board/steer.py``'s. Each acts on the marked rows, else on the
cursor's, and one notice says what worked, one per row what did not. Pausing is done at
once (it stops the spending); running an agent that is not running asks first, as does
interrupting: a run is a new, paid one.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING

from textual import work

from tui.app.board import steer
from tui.app.screens.board.board_answer import BoardAnswerScreen
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.widgets.board.board_table import BoardTable
from tui.text import one_line

if TYPE_CHECKING:
    from tui.app.board.feed import BoardFeed
    from tui.app.board.model import BoardModel
    from tui.app.board.row import BoardRow
    from tui.app.board.steer import Outcome


class BoardActions:
    """Part of :class:`~.board.BoardScreen`, which provides what is declared here."""

    model: BoardModel
    feed: BoardFeed | None

    def targets(self) -> list[BoardRow]:
        """The marked rows, else the cursor's (never a server's failure row)."""
        marked = self.model.marked()
        if marked:
            return marked
        row = self.query_one(BoardTable).current
        return [row] if row is not None and row.failure is None else []

    def action_toggle_run(self) -> None:
        """Pause running agents at once (that stops the spending); ask before running any
        other: each run calls the model again, a new, paid run."""
        rows = self.targets()
        if not rows:
            return
        verbs = {row.key: steer.toggle_verb(row) for row in rows}

        def toggle() -> None:
            self.act(
                rows,
                lambda source, row: steer.control(source, row, verbs[row.key]),
                steer.toggle_words(rows),
            )

        runs = [row for row in rows if verbs[row.key] == "run"]
        if not runs:
            toggle()
            return
        self.app.push_screen(
            ConfirmScreen(
                steer.run_question(runs, self._names(runs), len(rows) - len(runs)), "Run"
            ),
            lambda yes: toggle() if yes else None,
        )

    def _names(self, rows: list[BoardRow]) -> str:
        """The rows' titles for a question, one a line (with their server, watching several)."""
        several = self.feed is not None and len(self.feed.sources) > 1
        names = [f"{row.source}: {row.title}" if several else row.title for row in rows[:5]]
        if len(rows) > 5:
            names.append(f"and {len(rows) - 5} more")
        return "".join(f"  {one_line(name, 100)}\n" for name in names)

    def action_interrupt(self) -> None:
        rows = self.targets()
        if not rows:
            return
        what = "this agent" if len(rows) == 1 else f"these {len(rows)} agents"

        def answered(yes: bool | None) -> None:
            if yes:
                self.act(rows, partial(steer.control, verb="interrupt"), "Interrupted")

        self.app.push_screen(
            ConfirmScreen(
                f"Interrupt {what} now?\n"
                + self._names(rows)
                + "The model call in flight is cancelled.",
                "Interrupt",
            ),
            answered,
        )

    def action_approve(self) -> None:
        self.answer(True)

    def action_reject(self) -> None:
        self.answer(False)

    def action_pause_sandbox(self) -> None:
        rows = self.targets()
        if rows:
            self.act(rows, steer.pause_sandbox, "Sandbox paused", needs_agent=False)

    @work(group="board-act")
    async def act(
        self, rows: list[BoardRow], action, done: str = "", *, needs_agent: bool = True
    ) -> None:
        feed = self.feed
        if feed is None:
            return
        outcomes = await steer.act_on(rows, feed.source, action, needs_agent=needs_agent)
        self.report(outcomes, done)
        self.model.marks.clear()
        feed.refresh_now()
        self.flush(force=True)

    def report(self, outcomes: list[Outcome], done: str = "") -> None:
        """One notification for what worked, one per row that did not."""
        worked = [o.row for o in outcomes if o.error is None]
        if worked:
            what = done or "Done"
            whom = worked[0].title if len(worked) == 1 else f"{len(worked)} agents"
            self.notify(f"{what}: {whom}", markup=False)
        for outcome in [o for o in outcomes if o.error][:5]:
            self.notify(
                f"{outcome.row.title}: {outcome.error}",
                title="Not done",
                severity="error",
                markup=False,
            )

    @work(group="board-act")
    async def answer(self, accept: bool) -> None:
        """Approve or reject: shows what each waiting agent would run, then asks."""
        rows = [row for row in self.targets() if row.status == "waiting_for_confirmation"]
        if not rows:
            self.notify("No chosen agent waits for confirmation.", severity="warning")
            return
        feed = self.feed
        assert feed is not None

        async def waits(row: BoardRow) -> tuple[str, list]:
            label = row.title if len(feed.sources) == 1 else f"{row.source}: {row.title}"
            source = feed.source(row.source)
            try:
                return label, await steer.waiting_actions(source, row) if source else []
            except Exception:  # noqa: BLE001 - the question says it could not be read
                return label, []

        waiting = list(await asyncio.gather(*(waits(row) for row in rows)))
        reason = await self.app.push_screen_wait(BoardAnswerScreen(waiting, accept=accept))
        if reason is None:
            return
        outcomes = await steer.act_on(
            rows, feed.source, partial(steer.respond, accept=accept, reason=reason)
        )
        self.report(outcomes, "Approved" if accept else "Rejected")
        self.model.marks.clear()
        feed.refresh_now()
        self.flush(force=True)
