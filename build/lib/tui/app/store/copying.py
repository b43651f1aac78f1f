"""What the copy keys put on the clipboard for an event (no Textual here).

``c`` copies the part people paste elsewhere — a command, a message, an output, an error;
``C`` copies the whole event as JSON. Both go through one policy before the clipboard:

* secrets are masked exactly as on screen and in exports (``tui.models.redact``);
* terminal control sequences are removed (:func:`for_clipboard`): pasted into a shell, an
  ``ESC[201~`` ends bracketed paste, so the lines after it run as typed, and a carriage
  return runs what came before it (pastejacking); bidi overrides reorder what the reader
  sees. Carriage returns become line breaks, so every line pasted is a line you can see;
* lone surrogates (a truncated emoji in valid JSON) are replaced by U+FFFD: the clipboard
  write encodes UTF-8 and raised on them, which closed the app.

What was changed is said (:attr:`Clip.notes`), and so is how many lines the copy has.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tui.models import AnyEvent, RawEvent
from tui.models.content import block_texts
from tui.models.jsontext import json_text
from tui.models.parse import event_json
from tui.models.redact import MASK, redact, redact_text

# Escape sequences as terminals read them (ECMA-48): CSI (bracketed-paste markers, colours,
# cursor moves), OSC (clipboard writes, titles, links; ended by BEL or ST), DCS/SOS/PM/APC
# strings (ended by ST), then any other ESC + one character, and the 8-bit CSI/OSC forms.
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|\x9d[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b"
)
#: Other characters a paste must not carry: C0 controls but tab and newline, DEL, C1,
#: bidi marks/overrides/isolates, the line/paragraph separators (a carriage return is
#: handled on its own: it becomes a line break).
_CONTROL = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_RETURN = re.compile("\r")  # a lone carriage return (CR LF is a plain line break)


@dataclass(frozen=True)
class Clip:
    """What goes on the clipboard: ``what`` it is, the ``text``, and what was changed."""

    what: str
    text: str
    notes: list[str] = field(default_factory=list)

    @property
    def lines(self) -> int:
        return self.text.count("\n") + 1 if self.text else 0

    def summary(self) -> str:
        """One sentence for the notification: what, how big, what was changed."""
        size = f"{len(self.text):,} characters"
        if self.lines > 1:
            size = f"{self.lines:,} lines, {size}"
        said = f"Copied the {self.what} ({size})."
        if self.notes:
            said += " " + "; ".join(self.notes).capitalize() + "."
        return said


def _plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def for_clipboard(text: str) -> tuple[str, list[str]]:
    """``text`` safe to paste anywhere, and what was changed to make it so."""
    notes: list[str] = []
    if text.isprintable() or not (
        "\x1b" in text or "\r" in text or _CONTROL.search(text) or _SURROGATE.search(text)
    ):
        return text, notes
    text, sequences = _SEQUENCE.subn("", text)
    if sequences:
        notes.append(f"removed {_plural(sequences, 'terminal control sequence')}")
    text, returns = _RETURN.subn("\n", text.replace("\r\n", "\n"))
    if returns:
        notes.append(
            f"{_plural(returns, 'carriage return')} made "
            + ("a line break" if returns == 1 else "line breaks")
        )
    text, controls = _CONTROL.subn("", text)
    if controls:
        notes.append(f"removed {_plural(controls, 'control or direction character')}")
    text, surrogates = _SURROGATE.subn("\ufffd", text)
    if surrogates:
        notes.append(f"replaced {_plural(surrogates, 'lone surrogate')} (not valid Unicode) with �")
    return text, notes


def event_json_text(event: AnyEvent) -> str:
    """The event's JSON, secrets masked, numbers as sent; never raises."""
    return json_text(redact(event_json(event)), indent=2)


def useful_text(event: AnyEvent) -> tuple[str, str]:
    """``(what it is, text)``: the most useful part of ``event`` to paste (unmasked)."""
    if isinstance(event, RawEvent):
        return "raw event JSON", event_json_text(event)
    kind = event.kind
    if kind == "MessageEvent":
        text = event.llm_message.text or block_texts(event.extended_content)
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
        text = block_texts(getattr(event.observation, "content", ()))
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


def clip_events(events: list[AnyEvent], what: str) -> Clip:
    """Several events' JSON as one list (a step's action and its result), as :func:`clip`
    makes one event's: masked, safe to paste."""
    text = json_text([redact(event_json(event)) for event in events], indent=2)
    masked = redact_text(text)
    hidden = masked.count(MASK) - text.count(MASK)
    pasted, notes = for_clipboard(masked)
    if hidden > 0:
        notes.insert(0, f"{_plural(hidden, 'secret')} masked")
    return Clip(what, pasted, notes)


def clip(event: AnyEvent, what: str = "text") -> Clip:
    """What ``c`` (``what="text"``) or ``C`` (``"json"``) puts on the clipboard."""
    if what == "json":
        label, text = "event JSON", event_json_text(event)
    else:
        label, text = useful_text(event)
    masked = redact_text(text)
    hidden = masked.count(MASK) - text.count(MASK)
    text, notes = for_clipboard(masked)
    if hidden > 0:
        notes.insert(0, f"{_plural(hidden, 'secret')} masked")
    return Clip(label, text, notes)
