"""The conversation screen's header: what is open, and how its agent is doing.

Line one: the title and the id (and "shared link" for one). Line two, once the record
is loaded: the agent's status, the sandbox's, the live stream's mark, cost, tokens and
model — the live stream's figures win over the record's while it runs. Each line is cut
at the edge (the screen's stylesheet), so a long title never pushes the status out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from tui.app.format import (
    conversation_cost,
    has_sandbox,
    money,
    sandbox_text,
    status_text,
    title_of,
    tokens,
)
from tui.app.themes import theme_style
from tui.text import clean

if TYPE_CHECKING:
    from tui.client import StreamState
    from tui.models import AppConversation

#: the live stream's connection state → (what the header says, its style)
LIVE_MARKS = {
    "connecting": ("◌ connecting", "italic"),
    # connected, reading what the sandbox logged that the list lacks: not "live" until done
    "catching up": ("◐ catching up", "$live-retrying bold"),
    "live": ("● live", "$live-ok bold"),
    "reconnecting": ("◌ reconnecting", "$live-retrying bold"),
    "offline": ("○ offline", "$live-down bold"),
    "failed": ("✕ stream failed", "$live-down bold"),
}


def live_mark(state: StreamState | None, *, local: bool = False) -> Text:
    """The stream's state for the header; ``local``: a folder is watched, not an agent run."""
    if state is None or state.connection is None:
        return Text("")
    label, style = LIVE_MARKS.get(state.connection.state, (state.connection.state, ""))
    if local and state.connection.state == "live":
        label = "● watching the folder"
    mark = Text(label, style=theme_style(style) if style else "")
    if state.connection.state in ("reconnecting", "offline") and state.connection.attempt:
        mark.append(f" (try {state.connection.attempt})", style="dim")
    why = getattr(state.connection, "why", None)
    if why and state.connection.state != "live":  # why it is not live, in words
        mark.append(f": {clean(why)}", style="dim" if state.connection.state != "failed" else "")
    return mark


#: how the header names a confirmation policy or security analyzer, by kind
POLICY_NAMES = {
    "NeverConfirm": "confirm off",
    "AlwaysConfirm": "confirm on",
    "ConfirmRisky": "confirm risky",
    "LLMSecurityAnalyzer": "LLM analyzer",
    "PatternSecurityAnalyzer": "pattern analyzer",
    "PolicyRailSecurityAnalyzer": "policy-rail analyzer",
}


NEVER = "NeverConfirm"


def policy_words(conv: AppConversation, live: StreamState | None) -> str:
    """``confirm on · LLM analyzer``: the policies the agent runs under, as its stream last
    said them, else as the record says (a bare agent server's; an app server's has none)."""
    if live is not None and live.policies_known:
        kinds = (live.confirmation_policy, live.security_analyzer)
    elif conv.confirmation_policy or conv.security_analyzer:
        kinds = (conv.confirmation_policy, conv.security_analyzer)
    else:
        return ""
    # the default (no confirmation, no analyzer) goes unsaid: the header says what differs
    parts = [POLICY_NAMES.get(kind, clean(kind)) for kind in kinds if kind and kind != NEVER]
    return " · ".join(parts)


def origin_words(conv: AppConversation, branched: bool) -> str:
    """Where a fork came from and, in a tree with branches, where the current one ends."""
    parts = []
    if conv.forked_from_conversation_id:
        source = clean(conv.forked_from_conversation_id.replace("-", "")[:8])
        at = conv.forked_from_event_id
        parts.append(f"forked from {source}" + (f" at event {clean(at[:8])}" if at else ""))
    if branched and conv.leaf_event_id:
        parts.append(f"current branch ends at {clean(conv.leaf_event_id[:8])}")
    return "   ".join(parts)


def runtime_words(conv: AppConversation) -> str:
    """Why the conversation cannot run (``runtime_info``, 1.58), and what can be done."""
    status = conv.runtime_status
    if not status or status == "available":
        return ""
    words = f"runtime {clean(status).replace('_', ' ')}"
    # what can be done first: a narrow terminal cuts the line's end
    words += " · P provisions it again" if conv.can_resume else " · it cannot be resumed"
    if conv.runtime_error:
        words += f" · {clean(conv.runtime_error)}"
    return words


class ConversationHeader(Static):
    """Two lines about the open conversation; the screen calls :meth:`show` when they change."""

    def __init__(
        self,
        conversation_id: str,
        title: str | None = None,
        *,
        shared: bool = False,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.conversation_id = conversation_id
        self.fallback_title = title  # what the list said, until the record is loaded
        self.shared = shared
        self._shown: tuple[AppConversation | None, StreamState | None, tuple | None, bool] = (
            None,
            None,
            None,
            False,
        )

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.show(*self._shown))

    def show(
        self,
        conversation: AppConversation | None,
        live: StreamState | None,
        seen: tuple[float, int] | None = None,
        branched: bool = False,
    ) -> None:
        """Draw from the record (None: not loaded yet) and the live stream's state;
        ``seen``: the newest cost and tokens among the loaded events, for a record that
        has none."""
        self._shown = (conversation, live, seen, branched)  # drawn again if the theme changes
        conv = conversation
        text = Text()
        if conv is not None or self.fallback_title:
            title = title_of(conv) if conv is not None else clean(self.fallback_title or "")
            text.append(title, style="bold")
            text.append(f"  {self.conversation_id}", style="dim")
        else:  # no title yet: the id once (it is not the title), until the record says more
            text.append(self.conversation_id, style="dim")
        if self.shared:
            text.append("  shared link (read-only)", style="italic")
        mark = getattr(self.app, "server_mark", "")  # what the app is connected to
        if mark and not self.shared:
            text.append(f"  · {mark}", style="dim")
        if conv is not None:
            text.append("\nagent ")
            status = (
                live.execution_status
                if live is not None and live.execution_status
                else conv.execution_status
            )
            text.append_text(status_text(status))
            if has_sandbox(conv):
                text.append("   sandbox ")
                text.append_text(sandbox_text(conv))
            mark = live_mark(live, local=self.app.local)
            if mark:  # before cost and model: a narrow terminal cuts the line's end
                text.append("   ")
                text.append_text(mark)
            policies = policy_words(conv, live)
            if policies:  # before cost too: what waits for approval matters more
                text.append(f"   {policies}")
            cost, used = conversation_cost(conv)
            if live is not None and (live.cost or live.total_tokens):
                cost, used = live.cost, live.total_tokens
            elif not cost and not used and seen is not None and any(seen):
                cost, used = seen
            text.append(f"   cost {money(cost)}   tokens {tokens(used)}")
            if conv.llm_model:
                text.append(f"   model {clean(conv.llm_model)}", style="dim")
            runtime = runtime_words(conv)
            origin = origin_words(conv, branched)
            if runtime or origin:
                text.append("\n")
            if runtime:  # first: why nothing moves matters more than where it came from
                text.append(runtime, style=theme_style("$live-down bold"))
                text.append("   " if origin else "")
            if origin:
                text.append(origin, style="dim")
        self.update(text)
