"""An event of a kind this client does not know, shown as what it is: its fields.

The SDK adds event kinds every few releases, and the local-folder server reports a file
it cannot read as an ``UnreadableEventFile``. Neither is an error wall: the detail pane
says "unknown kind" and lists the fields as names and values (``tui.models.event_fields``:
secrets masked, long values cut with a note), every value literal text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from tui.models import event_fields
from tui.text import abbreviate, clean, one_line

if TYPE_CHECKING:
    from tui.models import AnyEvent

#: fields the detail pane's header already shows
HEADER_FIELDS = frozenset({"id", "timestamp", "source", "parent_id"})
MAX_FIELDS = 200


def fields_widgets(event: AnyEvent) -> list[Widget]:
    fields = [(n, v) for n, v in event_fields(event) if n not in HEADER_FIELDS]
    note = Text("unknown kind", style="bold")
    note.append(" · newer than this ohtui, or not an agent event: shown as its fields", style="dim")
    out: list[Widget] = [Static(note, classes="detail-title")]
    text = Text()
    for name, value in fields[:MAX_FIELDS]:
        text.append(one_line(name, 80), style="bold")
        shown, hidden = abbreviate(clean(value), max_chars=4_000, max_lines=40)
        multi = "\n" in shown
        text.append(":\n" if multi else ": ")
        text.append(shown + "\n")
        if hidden:
            text.append(f"  … {hidden:,} more lines\n", style="dim italic")
    if len(fields) > MAX_FIELDS:
        text.append(f"… {len(fields) - MAX_FIELDS:,} more fields (r: raw JSON)\n", style="dim")
    if not fields:
        text.append("(no fields)", style="dim italic")
    out.append(Static(text))
    return out
