"""What the conversations list holds, and in which order it shows it (no Textual here).

The server lists top-level conversations newest first, page by page; a conversation that
an agent started from another (a sub-conversation) is listed under its parent, indented,
whether the server names it in the parent's ``sub_conversation_ids`` (app server) or lists
it with a ``parent_conversation_id`` (bare agent server). Refreshes bring statuses changed
elsewhere and conversations started meanwhile (on top); rows are keyed by id throughout,
so the screen keeps its cursor on the same conversation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from rich.text import Text

from tui.app.format import (
    conversation_cost,
    money,
    relative_time,
    sandbox_text,
    short_model,
    status_text,
    status_value,
    title_of,
    tokens,
)
from tui.app.tables.conversation_sort import conversation_duration, short_duration
from tui.text import one_line

if TYPE_CHECKING:
    from tui.models import AppConversation

MAX_DEPTH = 4  # sub-conversations of sub-conversations… indented no deeper than this
BRANCH = "└ "


class ConversationRows:
    """The loaded conversations by id, the top level in the server's order."""

    def __init__(self) -> None:
        self.top: list[str] = []
        self.rows: dict[str, AppConversation] = {}

    def __len__(self) -> int:
        return len(self.rows)

    def __contains__(self, conversation_id: object) -> bool:
        return conversation_id in self.rows

    def get(self, conversation_id: str | None) -> AppConversation | None:
        return self.rows.get(conversation_id) if conversation_id is not None else None

    def clear(self) -> None:
        self.top.clear()
        self.rows.clear()

    def add_page(self, items: Iterable[AppConversation]) -> None:
        """A page of the listing, below what is loaded."""
        for conv in items:
            if conv.id not in self.rows:
                self.top.append(conv.id)
            self.rows[conv.id] = conv

    def refresh_first_page(self, items: list[AppConversation]) -> list[str]:
        """The listing's first page again: records updated, conversations that were not
        there before put on top (in the server's order). Returns the new ids."""
        fresh = [conv.id for conv in items if conv.id not in self.rows]
        for conv in items:
            self.rows[conv.id] = conv
        if fresh:
            self.top[:0] = [cid for cid in fresh if cid not in self.top]
        return fresh

    def put(self, conv: AppConversation) -> bool:
        """An updated record of a loaded conversation (False when it is not loaded)."""
        if conv.id not in self.rows:
            return False
        self.rows[conv.id] = conv
        return True

    def add_children(self, items: Iterable[AppConversation]) -> None:
        """Sub-conversations fetched by id (shown under their parents)."""
        for conv in items:
            self.rows[conv.id] = conv

    def remove(self, conversation_id: str) -> None:
        self.rows.pop(conversation_id, None)
        if conversation_id in self.top:
            self.top.remove(conversation_id)

    def missing_children(self) -> list[str]:
        """Sub-conversations the loaded parents name that are not loaded yet."""
        wanted: dict[str, None] = {}
        for conv in self.rows.values():
            for child in conv.sub_conversation_ids or ():
                if child not in self.rows:
                    wanted[child] = None
        return list(wanted)

    def order(
        self, sort: Callable[[list[str], dict[str, AppConversation]], None] | None = None
    ) -> list[tuple[str, int]]:
        """``(id, depth)`` top to bottom: each conversation followed by its children.
        ``sort`` (``conversation_sort.sorter``) orders the top level and each parent's
        children among themselves; sub-conversations stay under their parents."""
        children: dict[str, list[str]] = {}
        for conv in self.rows.values():
            for child in conv.sub_conversation_ids or ():
                children.setdefault(conv.id, []).append(child)
            parent = conv.parent_conversation_id
            if parent and parent in self.rows:
                children.setdefault(parent, []).append(conv.id)
        top = list(self.top)
        if sort is not None:
            sort(top, self.rows)
            for kids in children.values():
                kids[:] = dict.fromkeys(kids)
                sort(kids, self.rows)
        out: list[tuple[str, int]] = []
        placed: set[str] = set()

        def place(cid: str, depth: int) -> None:
            if cid in placed or cid not in self.rows:
                return
            placed.add(cid)
            out.append((cid, depth))
            for child in dict.fromkeys(children.get(cid, ())):
                place(child, min(depth + 1, MAX_DEPTH))

        for cid in top:
            parent = self.rows[cid].parent_conversation_id if cid in self.rows else None
            if parent and parent in self.rows and parent != cid:
                continue  # listed under its parent
            place(cid, 0)
        for cid in top:  # a parent that is its own descendant: shown anyway
            place(cid, 0)
        for cid in self.rows:  # fetched children whose parent went away
            place(cid, 0)
        return out

    def counts(self) -> tuple[int, int]:
        """``(top-level, sub-conversations)`` loaded."""
        subs = sum(
            1
            for conv in self.rows.values()
            if conv.parent_conversation_id and conv.parent_conversation_id in self.rows
        )
        return len(self.rows) - subs, subs


def _cut(text: Text) -> Text:
    """A cell that ends in … where its column cuts it."""
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def conversation_cells(
    conv: AppConversation,
    *,
    depth: int = 0,
    now: datetime | None = None,
    events: Text | None = None,
    sandbox_ids: bool = False,
) -> dict[str, Text]:
    """The table's cells for one conversation. ``events``: local folders show an event
    count where the sandbox would be; ``sandbox_ids``: the sandbox column names the sandbox."""
    cost, used = conversation_cost(conv)
    title = Text()
    if depth:
        title.append("  " * (depth - 1) + BRANCH, style="dim")
    title.append(title_of(conv))
    if events is not None:
        sandbox = events
    else:
        sandbox = sandbox_text(conv)
        if sandbox_ids and conv.sandbox_id and getattr(conv, "trigger", None) != "local":
            sandbox.append(f" {one_line(conv.sandbox_id, 80)}", style="dim")
    return {
        "title": _cut(title),
        "agent": _cut(status_text(conv.execution_status, short=True)),
        "sandbox": _cut(sandbox),
        # the routing prefix (litellm_proxy/, openai/) is noise here; the detail line has it
        "model": _cut(Text(one_line(short_model(conv.llm_model) or "—", 80), style="dim")),
        "cost": Text(money(cost), justify="right"),
        # known zero is 0; unknown (no metrics from the server) is —
        "tokens": Text("0" if used == 0 else tokens(used), justify="right"),
        "duration": Text(short_duration(conversation_duration(conv)), justify="right"),
        "created": _cut(Text(relative_time(conv.created_at, now), style="dim")),
        "updated": _cut(Text(relative_time(conv.updated_at, now), style="dim")),
        "trigger": _cut(Text(one_line(status_value(conv.trigger) or "—", 40), style="dim")),
    }


def conversation_detail(conv: AppConversation, now: datetime | None = None) -> Text:
    """The line under the table: the selected conversation's whole id and what the columns
    leave out (sandbox id, parent, model with its routing prefix, times)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(one_line(conv.id, 200), style="bold")
    parts: list[str] = []
    if conv.sandbox_id and getattr(conv, "trigger", None) != "local":
        parts.append(f"sandbox {one_line(conv.sandbox_id, 120)}")
    if conv.parent_conversation_id:
        parts.append(f"sub-conversation of {one_line(conv.parent_conversation_id, 80)}")
    if conv.sub_conversation_ids:
        count = len(conv.sub_conversation_ids)
        parts.append(f"{count} sub-conversation{'s' if count != 1 else ''}")
    if conv.llm_model:
        parts.append(one_line(conv.llm_model, 120))
    if conv.created_at:
        parts.append(f"created {relative_time(conv.created_at, now)}")
    for part in parts:
        text.append("  ·  ", style="dim")
        text.append(part, style="dim")
    return text
