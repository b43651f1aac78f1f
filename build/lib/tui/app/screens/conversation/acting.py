"""Acting on the conversation through its agent server (issue 30): fork from an event
(``Y``: a fork looks like one), make a branch the current one (``B``), a side question
(``s``), the policies (``M``, modes: confirmation, security analyzer) and the runtime
provisioned again where the header says it is missing (``P``).

Fork and navigate are offered where the server can do them (``app.can``: a bare agent
server's capabilities, ``tui/client/kinds.py``; an app server has neither), the others
where there is an agent to ask (a live conversation); none in ``--readonly``. Pressed where
they do not apply, ``why_not`` says why; a refusal or a server error is said in words
(``failed``). The requests run here, in workers of the ``acting`` group.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work

from tui.app.format import title_of
from tui.app.refusals import read_only_reason
from tui.app.screens.conversation.side_answer import SideAnswerScreen
from tui.app.screens.conversations.conversations import ConversationsScreen
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.screens.dialogs.errors import describe_error
from tui.app.screens.dialogs.path_dialog import PathDialog
from tui.app.screens.dialogs.policy_dialog import PolicyDialog
from tui.app.widgets.conversation.conversation_header import POLICY_NAMES
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.app.widgets.conversation.tree_nodes import node_position
from tui.client.kinds import FORK, NAVIGATE, RUNTIME
from tui.models.tree import NO_PARENT
from tui.text import one_line

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tui.app.store.conversation_events import ConversationEvents
    from tui.app.store.live_session import LiveSession
    from tui.app.store.rows import EventRow
    from tui.models import EventTree

#: the keys of this module, and the capability each needs (None: only a live agent)
ACTING_KEYS = {
    "fork": FORK,
    "navigate": NAVIGATE,
    "ask_aside": None,
    "policies": None,
    "reprovision": RUNTIME,
}


#: why a key is not offered on a server without the capability
CANNOT = {
    "fork": "This server cannot fork a conversation (only a bare agent server can).",
    "navigate": "This server cannot switch a conversation's branch (only a bare agent server can).",
    "reprovision": "This server has no runtime routes (an agent server 1.58 or later has them).",
}


def branch_head(tree: EventTree, rows: Sequence[EventRow], position: int) -> int:
    """Where the branch ``position`` is on ends, as the agent server counts a head: its
    newest leaf, less the state updates hung under it (the real server logs those as side
    children of its head, and makes the next event a child of the head, not of them)."""
    at = tree.leaf_of(position)
    while rows[at].kind == "ConversationStateUpdateEvent" and tree.parent[at] != NO_PARENT:
        at = tree.parent[at]
    return at


def short_id(event_id: str) -> str:
    return event_id.replace("-", "")[:8]


class ActingMixin:
    """Part of :class:`~.screen.ConversationScreen`, which provides what is declared here."""

    events: ConversationEvents
    live: LiveSession | None
    conversation_id: str
    forks_made: list[tuple[str, str]]  # (event id, title) of the forks made from this screen

    def action_llm_profiles(self) -> None:
        """The server's LLM profiles, with this conversation to switch (``t``)."""
        if not self.app.offers("show_llm_profiles"):
            self.notify(self.app.why_not("show_llm_profiles", ()) or "No LLM profiles here.")
            return
        self.app.action_show_llm_profiles(self.conversation_id, self._title)

    def acting_commands(self) -> list[tuple[str, object, str]]:
        """The palette's entries for what applies here now (as the keys are offered)."""
        entries = [
            ("ask_aside", "Ask the agent aside", "An answer in a panel, not added to the run (s)"),
            ("policies", "Modes: confirmation and analyzer", "Confirmation on/off, risky (M)"),
            ("fork", "Fork from the selected event", "A new conversation up to that event (Y)"),
            ("navigate", "Make the selected branch current", "The next message goes there (B)"),
            ("reprovision", "Provision the runtime again", "The header says why it is needed (P)"),
        ]
        return [
            (name, getattr(self, f"action_{action}"), help_text)
            for action, name, help_text in entries
            if self.acting_refused(action) is None
        ]

    # --- whether a key applies ---------------------------------------------------------------

    def acting_refused(self, action: str) -> str | None:
        """Why ``action`` (one of :data:`ACTING_KEYS`) cannot be done here, or None."""
        if self.app.readonly:
            return read_only_reason(self.app)
        capability = ACTING_KEYS[action]
        if capability is not None and not self.app.can(capability):
            return CANNOT[action]
        if self.live is None:
            return self.not_live_reason()
        if action == "reprovision":
            return self.runtime_refused()
        return None

    def runtime_refused(self) -> str | None:
        """Why the runtime is not to be provisioned again: the server's own words."""
        record = self.events.record
        status = record.runtime_status if record is not None else None
        if status in (None, "available"):
            return "The conversation's runtime is available: nothing to provision."
        if not record.can_resume:
            return f"The server says this runtime ({status}) cannot be resumed."
        return None

    def selected_row(self) -> EventRow | None:
        """The event under the tree's cursor while the tree has focus, else the list's."""
        if isinstance(self.focused, EventTreeView):
            node = self.focused.cursor_node
            position = node_position(node.data) if node is not None else None
            rows = self.events.base.head
            if position is not None and 0 <= position < len(rows):
                return rows[position]
        return self.query_one(EventList).current

    # --- fork ------------------------------------------------------------------------------

    def action_fork(self) -> None:
        if (why := self.acting_refused("fork")) is not None:
            self.notify(why, severity="warning", markup=False)
            return
        row = self.selected_row()
        if row is None or not row.id:
            self.notify("Select the event to fork from first.", markup=False)
            return
        title = one_line(title_of(self.events.record), 60) if self.events.record else "it"

        def answered(name: str | None) -> None:
            if name:
                self.fork_at(row.id, name)

        self.app.push_screen(
            PathDialog(
                f"Fork from event {short_id(row.id)}",
                "A new conversation with the events up to this one; enter makes it and opens"
                " it, esc does not.",
                value=f"Fork of {title}",
            ),
            answered,
        )

    def on_screen_resume(self, _event: object) -> None:
        """Back on this conversation (or first shown): the forks made from it meanwhile."""
        self.show_forks()

    def show_forks(self) -> None:
        """Mark in the tree the events other conversations were forked from, as the forks'
        records say (the conversations list's, and the ones made here)."""
        notes: dict[str, list[str]] = {}
        mine = self.conversation_id.replace("-", "")  # an agent server spells ids dashed
        for screen in self.app.screen_stack:
            if isinstance(screen, ConversationsScreen):
                for conv in screen.rows.rows.values():
                    origin = (conv.forked_from_conversation_id or "").replace("-", "")
                    if origin == mine and conv.forked_from_event_id:
                        title = one_line(title_of(conv), 40)
                        notes.setdefault(conv.forked_from_event_id, []).append(title)
        for event_id, title in self.forks_made:
            titles = notes.setdefault(event_id, [])
            if title not in titles:
                titles.append(title)
        said = {
            event_id: "forked: " + ", ".join(f"“{t}”" for t in titles)
            for event_id, titles in notes.items()
        }
        self.query_one(EventTreeView).set_fork_notes(said)

    @work(group="acting", exit_on_error=False)
    async def fork_at(self, event_id: str, title: str) -> None:
        live = self.live
        if live is None:
            self.notify(self.not_live_reason(), severity="warning", markup=False)
            return
        try:
            info = await live.agent.fork(event_id, title)
        except Exception as exc:  # noqa: BLE001 - said, never raised
            self.failed("Could not fork the conversation", exc)
            return
        new_id = str(info["id"]).replace("-", "")
        self.forks_made.append((event_id, one_line(title, 40)))
        self.notify(f"Forked at event {short_id(event_id)}: opening “{title}”.", markup=False)
        self.app.open_conversation(new_id, title=title)

    # --- switching branch ------------------------------------------------------------------

    def action_navigate(self) -> None:
        if (why := self.acting_refused("navigate")) is not None:
            self.notify(why, severity="warning", markup=False)
            return
        tree, row = self.events.tree, self.selected_row()
        if tree is None or row is None:
            self.notify("The tree is still being built: try again in a moment.", markup=False)
            return
        position = tree.index_of(row.id) if row.id else None
        if position is None:
            self.notify("Choose an event of a branch in the tree first.", markup=False)
            return
        rows = self.events.base.head
        leaf = rows[branch_head(tree, rows, position)]
        record = self.events.record
        if record is not None and record.leaf_event_id == leaf.id:
            self.notify("This branch is already the current one.", markup=False)
            return
        self.navigate_to(leaf.id)

    @work(group="acting", exit_on_error=False)
    async def navigate_to(self, event_id: str) -> None:
        live = self.live
        if live is None:
            return
        try:
            leaf = await live.agent.navigate(event_id)
        except Exception as exc:  # noqa: BLE001
            self.failed("Could not switch the branch", exc)
            return
        self.set_record(leaf_event_id=leaf or event_id)
        self.notify(
            f"The current branch now ends at event {short_id(leaf or event_id)}: the next"
            " message continues from there.",
            markup=False,
        )

    # --- a side question ---------------------------------------------------------------------

    def action_ask_aside(self) -> None:
        if (why := self.acting_refused("ask_aside")) is not None:
            self.notify(why, severity="warning", markup=False)
            return

        def answered(question: str | None) -> None:
            if question:
                self.ask_aside(question)

        self.app.push_screen(
            PathDialog(
                "Ask the agent aside",
                "Its answer shows in a panel; neither is added to the conversation.",
            ),
            answered,
        )

    @work(group="acting", exit_on_error=False)
    async def ask_aside(self, question: str) -> None:
        live = self.live
        if live is None:
            return
        panel = SideAnswerScreen(question)  # open at once, saying it waits
        self.app.push_screen(panel)
        try:
            answer = await live.agent.ask_agent(question)
        except Exception as exc:  # noqa: BLE001
            if panel.is_attached:
                panel.failed(describe_error(exc))
            else:
                self.failed("The agent could not answer", exc)
            return
        if panel.is_attached:
            panel.answered(answer)

    # --- policies ----------------------------------------------------------------------------

    def action_policies(self) -> None:
        if (why := self.acting_refused("policies")) is not None:
            self.notify(why, severity="warning", markup=False)
            return
        record = self.events.record

        def chosen(choice: tuple[str, str | None] | None) -> None:
            if choice is not None:
                self.set_policy(*choice)

        self.app.push_screen(
            PolicyDialog(
                record.confirmation_policy if record else None,
                record.security_analyzer if record else None,
            ),
            chosen,
        )

    @work(group="acting", exit_on_error=False)
    async def set_policy(self, what: str, kind: str | None) -> None:
        live = self.live
        if live is None:
            return
        try:
            if what == "confirmation":
                assert kind is not None
                await live.agent.set_confirmation_policy(kind)
            else:
                await live.agent.set_security_analyzer(kind)
        except Exception as exc:  # noqa: BLE001
            self.failed(f"Could not set the {what} policy", exc)
            return
        field = "confirmation_policy" if what == "confirmation" else "security_analyzer"
        if self.live is live and live.state.policies_known:  # what the server confirmed,
            setattr(live.state, field, kind)  # before its stream says it too
        self.set_record(**{field: kind})
        self.notify(f"Now: {POLICY_NAMES.get(kind or '', 'no security analyzer')}.", markup=False)

    # --- the runtime ---------------------------------------------------------------------------

    def action_reprovision(self) -> None:
        if (why := self.acting_refused("reprovision")) is not None:
            self.notify(why, severity="warning", markup=False)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.reprovision()

        record = self.events.record
        status = record.runtime_status if record is not None else "missing"
        self.app.push_screen(
            ConfirmScreen(
                f"Provision this conversation's runtime again?\nIt is {status}; the server"
                " starts a new one where the old one was.",
                "Provision",
            ),
            answered,
        )

    @work(group="acting", exit_on_error=False)
    async def reprovision(self) -> None:
        live = self.live
        if live is None:
            return
        try:
            fields = await live.agent.reprovision()
        except Exception as exc:  # noqa: BLE001
            self.failed("Could not provision the runtime", exc)
            return
        self.set_record(**fields)
        status = fields.get("runtime_status")
        self.notify(f"The runtime is {status}.", markup=False)

    def set_record(self, **changes: object) -> None:
        """What the server just confirmed, in the record at once (the next poll agrees)."""
        record = self.events.record
        if record is not None:
            self.events.record = record.model_copy(update=changes)
        self.render_header()
