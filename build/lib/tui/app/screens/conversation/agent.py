"""Steering a live conversation's agent: pause/run, interrupt, approve or reject, message.

The keys are the screen's (``space``, ``X``, ``A``, ``R``, ``m``); they apply only while
the conversation is live and not read-only (``ConversationScreen.check_action``; a key
pressed where it does not apply says why: ``why_not``). The confirmation bar and the
message line (``widgets/agent_bar.py``) show and ask; the requests to the agent server
run here, in workers of the ``agent`` group.

``space`` pauses a running agent at once (that stops the spending), but asks before it
runs one that is not running: a run calls the model again, which costs money, and a key
pressed by habit (``less`` pages with space) must not start one.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual import work

from tui.app.format import conversation_cost, money, status_value, title_of
from tui.app.refusals import read_only_reason
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.store.live_session import can_follow
from tui.app.widgets.conversation.agent_bar import MessageLine
from tui.app.widgets.conversation.event_list import EventList
from tui.client import Conflict
from tui.models import ExecutionStatus
from tui.text import one_line

if TYPE_CHECKING:
    from tui.app.store.conversation_events import ConversationEvents
    from tui.app.store.live_session import LiveSession

#: "run" answered 409 just after a pause is asked again this often, this many times in all.
RUN_RETRY_S = 0.5
RUN_TRIES = 7

CONTROL_DONE = {
    "pause": "Pause requested (takes effect between steps).",
    "run": "Agent running.",
    "interrupt": "Agent interrupted.",
}


class AgentMixin:
    """Part of :class:`~.screen.ConversationScreen`, which provides what is declared here."""

    events: ConversationEvents
    live: LiveSession | None

    def _agent(self) -> LiveSession | None:
        """The live session, if the agent may be steered now (else says why not)."""
        if self.app.readonly:
            self.notify(read_only_reason(self.app), severity="warning", markup=False)
            return None
        if self.live is None:
            self.notify(self.not_live_reason(), severity="warning", markup=False)
            return None
        return self.live

    def not_live_reason(self) -> str:
        """Why there is no agent to steer: what the conversation's record says."""
        record = self.events.record
        if record is None:
            return "The conversation is still loading: its agent can be steered once it is."
        if not can_follow(record):
            status = status_value(record.sandbox_status)
            if status and status != "RUNNING":
                return (
                    f"Its sandbox is {status}: the agent can be steered only while the"
                    " sandbox runs (resume it on the sandboxes screen)."
                )
            return "This conversation has no agent to steer (the server gives no address)."
        return "Connecting to the agent…: its keys work once the stream is live."

    def render_confirm(self) -> None:
        """Show what the agent waits to run while it waits for the user's approval."""
        waiting = self.live is not None and self.live.waiting_for_confirmation
        pending = self.events.pending_actions() if waiting else None
        if self.confirm_bar.show(pending, self.events.risk_of):
            self.refresh_bindings()  # A/R appear in the key bar only while they apply

    def action_toggle_run(self) -> None:
        """Pause a running agent now; ask first before running one (a new, paid run)."""
        live = self._agent()
        if live is None:
            return
        if live.running:
            self.control("pause")
            return

        def answered(yes: bool | None) -> None:
            if not yes or self.closing or self.live is not live:
                return
            if live.running:  # it was run meanwhile (another client, the board)
                self.notify("The agent is already running.", markup=False)
                return
            self.control("run")

        self.app.push_screen(ConfirmScreen(self.run_question(live), "Run"), answered)

    def run_question(self, live: LiveSession) -> str:
        """What running the agent now would do: a paid run of this conversation."""
        conversation = self.events.record
        what = f"“{one_line(title_of(conversation), 80)}”" if conversation else "this conversation"
        cost = live.state.cost or (conversation_cost(conversation)[0] if conversation else None)
        spent = f"; {money(cost)} spent on it so far" if cost else ""
        status = status_value(live.state.execution_status) or "stopped"
        if status == "paused":
            return (
                "Resume the agent?\n"
                f"It goes on with the paused run of {what}: the model is called, and paid,"
                f" again{spent}."
            )
        return (
            "Run the agent again?\n"
            f"It starts a new, paid run of {what} (the agent is {status.replace('_', ' ')}"
            f"{spent})."
        )

    def action_interrupt(self) -> None:
        if self._agent() is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.control("interrupt")

        self.app.push_screen(
            ConfirmScreen(
                "Interrupt the agent now?\nThe model call in flight is cancelled.", "Interrupt"
            ),
            answered,
        )

    @work(group="agent")
    async def control(self, verb: str) -> None:
        live = self.live
        assert live is not None
        for attempt in range(RUN_TRIES):
            try:
                await getattr(live.agent, verb)()
                break
            except Conflict as exc:
                # Right after a pause the agent server still says "already running" for
                # ~1.4 s (facts §10): say so, and ask again for a few seconds.
                if verb != "run" or attempt == RUN_TRIES - 1 or self.live is not live:
                    self.failed(f"Could not {verb} the agent", exc)
                    return
                if attempt == 0:
                    self.notify("The agent is still stopping…; run is asked for again shortly.")
                await asyncio.sleep(RUN_RETRY_S)
            except Exception as exc:  # noqa: BLE001
                self.failed(f"Could not {verb} the agent", exc)
                return
        if verb == "interrupt":  # takes effect at once: show it before the stream says so
            live.state.execution_status = ExecutionStatus.PAUSED
            self.render_header()
        self.notify(CONTROL_DONE[verb])

    def action_approve(self) -> None:
        if self._agent() is not None:
            self.respond(True, "")

    def action_reject(self) -> None:
        if self._agent() is not None:
            self.message_line.ask_reason()

    @work(group="agent")
    async def respond(self, accept: bool, reason: str) -> None:
        live = self.live
        assert live is not None
        try:
            if accept:
                await live.agent.respond_to_confirmation(True)
            elif reason:
                await live.agent.respond_to_confirmation(False, reason)
            else:
                await live.agent.respond_to_confirmation(False)
        except Exception as exc:  # noqa: BLE001
            self.failed("Could not answer the confirmation", exc)
            return
        self.notify(
            "Approved: the agent runs the action."
            if accept
            else "Rejected: the agent was told why.",
            markup=False,
        )

    def action_message(self) -> None:
        if self._agent() is not None:
            self.message_line.ask_message()

    def on_message_line_sent(self, message: MessageLine.Sent) -> None:
        self.close_message_line()
        if message.reject:
            self.respond(False, message.text)
        elif message.text:
            self.send_message(message.text)

    def close_message_line(self) -> None:
        self.message_line.close()
        self.query_one(EventList).focus()

    @work(group="agent")
    async def send_message(self, text: str) -> None:
        live = self.live
        assert live is not None
        try:
            await live.agent.send_message(text)
        except Exception as exc:  # noqa: BLE001
            self.failed("Could not send the message", exc)
            return
        self.notify("Message sent.")
