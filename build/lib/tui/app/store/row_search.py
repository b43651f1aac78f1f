"""What find looks through on a row: an event's own words beyond its one-line summary.

Made once with the row (``rows.make_row``) and kept short, so find over 100,000 rows never
reads the full events again.
"""

from __future__ import annotations

from tui.models import AnyEvent, RawEvent, event_text
from tui.models.content import block_texts

#: Characters of an event's own words kept on its row for find (message text, command,
#: output…). Enough for what people search for; a 50 MB output is not kept whole.
SEARCH_CHARS = 2_000


#: What an action's own fields say that find looks through (``search_text``).
_ACTION_WORDS = ("command", "path", "file_text", "new_str", "message", "thought", "url", "query")


def search_text(event: AnyEvent) -> str:
    """The words of an event that find looks through, beyond its one-line summary."""
    if isinstance(event, RawEvent):
        if event.unknown_kind:  # its fields are its words
            return event_text(event, limit=SEARCH_CHARS)[:SEARCH_CHARS]
        return event.error[:SEARCH_CHARS]
    parts: list[str] = []
    kind = event.kind
    if kind == "MessageEvent":
        parts.append(event.llm_message.text or "")
        parts.append(getattr(event.llm_message, "reasoning_content", None) or "")
    elif kind == "ActionEvent":
        parts.append(block_texts(event.thought, " "))
        parts.append(getattr(event, "reasoning_content", None) or "")
        # the model's own fields only: getattr of a field a model lacks costs a pydantic
        # AttributeError each time (a third of a 100,000-event index walk went there)
        action = event.action
        if action is not None:
            fields = action.__dict__
            extra = action.__pydantic_extra__  # never a key of the model's own fields
            for attr in _ACTION_WORDS:
                value = fields.get(attr)
                if value is None and extra:
                    value = extra.get(attr)
                if isinstance(value, str):
                    parts.append(value)
    elif kind == "ObservationEvent":
        parts.append(block_texts(getattr(event.observation, "content", ()), " "))
    elif kind in ("AgentErrorEvent",):
        parts.append(event.error)
    elif kind in ("ConversationErrorEvent", "ServerErrorEvent"):
        parts.append(event.detail or "")
    elif kind == "CondensationSummaryEvent":
        parts.append(event.summary or "")
    elif kind == "SecurityAnalysisEvent":
        parts.extend((event.analyzer, event.policy, *map(str, event.risks.values())))
    text = "\n".join([p for p in parts if p])
    return text[:SEARCH_CHARS]
