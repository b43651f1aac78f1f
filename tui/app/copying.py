"""What the copy keys put on the clipboard for an event (no Textual here).

``c`` copies the part people paste elsewhere — a command, a message, an output, an error;
``C`` copies the whole event as JSON. Secrets (``encrypted_content``, keys, URL tokens) are
masked exactly as in exports, so a paste can be shared.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from tui.models import AnyEvent, RawEvent
from tui.models.content import TextContent
from tui.models.parse import event_json
from tui.models.redact import redact


def _texts(blocks: Iterable[object] | None) -> str:
    return "\n".join(b.text for b in blocks or () if isinstance(b, TextContent))


def event_json_text(event: AnyEvent) -> str:
    return json.dumps(redact(event_json(event)), indent=2, ensure_ascii=False, default=str)


def useful_text(event: AnyEvent) -> tuple[str, str]:
    """``(what it is, text)``: the most useful part of ``event`` to paste."""
    if isinstance(event, RawEvent):
        return "raw event JSON", event_json_text(event)
    kind = event.kind
    if kind == "MessageEvent":
        text = event.llm_message.text or _texts(event.extended_content)
        if text:
            return "message text", text
    elif kind == "ActionEvent" and event.action is not None:
        action = event.action
        command = getattr(action, "command", None)
        if action.kind == "TerminalAction" and command:
            return "command", command
        path = getattr(action, "path", None)
        if path:
            new = getattr(action, "file_text", None) or getattr(action, "new_str", None)
            return ("file path", path) if not new else ("new text", new)
        for attr in ("message", "thought", "code", "url", "query"):
            value = getattr(action, attr, None)
            if isinstance(value, str) and value:
                return attr, value
    elif kind == "ObservationEvent":
        text = _texts(getattr(event.observation, "content", ()))
        if text:
            return "output", text
    elif kind == "AgentErrorEvent":
        return "error", event.error
    elif kind in ("ConversationErrorEvent", "ServerErrorEvent"):
        return "error", f"{event.code}: {event.detail}"
    elif kind == "UserRejectObservation":
        return "rejection reason", event.rejection_reason
    elif kind == "CondensationSummaryEvent":
        return "summary", event.summary
    return "event JSON", event_json_text(event)
