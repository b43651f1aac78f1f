"""The transcript's blocks for single events: those that need nothing but the event (hooks,
errors, condensations…), raw events (unknown kinds listed as their fields), results whose
action is not in the export, and the note for an event that broke its renderer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tui.models import RawEvent, event_json
from tui.models.content import RedactedThinkingBlock, ThinkingBlock
from tui.models.failure import TOOL_ERROR, failure_of, observation_failure
from tui.models.fields import FIELD_CHARS, event_fields
from tui.models.redact import opaque

from .actions import texts
from .text import (
    code_span,
    details,
    error_quote,
    fence,
    inline,
    json_block,
    markdown_block,
    plural,
    when,
)


def _SystemPromptEvent(event: Any) -> str:
    names = ", ".join(inline(t.title) for t in event.tools)
    size = len(event.system_prompt.text)
    tools = f"{plural(len(event.tools), 'tool')}: {names}" if event.tools else "no tools"
    return f"*System prompt: {size:,} characters; {tools}.*"


def _HookExecutionEvent(event: Any) -> str:
    if event.blocked:
        verdict = "**blocked**" + (f": {inline(event.reason)}" if event.reason else "")
    elif event.success:
        verdict = "ok"
    else:
        verdict = f"**failed** (exit {event.exit_code})"
        if event.error:
            verdict += f": {inline(event.error)}"
    tool = f" on {code_span(event.tool_name)}" if event.tool_name else ""
    return (
        f"*{inline(event.hook_event_type)} hook {code_span(event.hook_command)}{tool}: {verdict}*"
    )


def _ConversationErrorEvent(event: Any) -> str:
    note = event.classification.kind if event.classification else ""
    return error_quote("Error", f"{event.code}: {event.detail}", note)


def _ServerErrorEvent(event: Any) -> str:
    return error_quote("Server error", f"{event.code}: {event.detail}")


def _Condensation(event: Any) -> str:
    line = (
        f"*Context condensed: {plural(len(event.forgotten_event_ids), 'earlier event')} forgotten.*"
    )
    if event.summary:
        line += "\n\n" + details("Summary", markdown_block(event.summary))
    return line


def _CondensationSummaryEvent(event: Any) -> str:
    return details("Summary of earlier context", markdown_block(event.summary))


def _PauseEvent(event: Any) -> str:
    return "*Paused by the user.*"


def _InterruptEvent(event: Any) -> str:
    return "*Interrupted by the user.*"


def _ACPToolCallEvent(event: Any) -> str:
    status = f" ({inline(event.status)})" if event.status else ""
    parts = [f"### {inline(event.title)}{status}"]
    if event.raw_input is not None:
        parts.append(json_block(event.raw_input))
    output = event.raw_output
    if isinstance(output, str):
        parts.append(fence(output))
    elif output is not None:
        parts.append(json_block(output))
    if failure_of(event) is not None:
        parts.append(error_quote("Error", "the tool call failed"))
    return "\n\n".join(parts)


def raw_block(event: RawEvent) -> str:
    if event.unknown_kind:
        return unknown_block(event)
    kind = f" {code_span(event.kind)}" if event.kind else ""
    return "\n\n".join(
        [
            f"### Unparsed event{kind}",
            f"This event does not match the service's schema ({inline(event.reason)}): "
            + "it is shown as sent.",
            fence(event.error, "text"),
            json_block(event.raw),
        ]
    )


def unknown_block(event: RawEvent) -> str:
    """An event of a kind newer than this ohtui: kind, source, time, then its fields."""
    facts = [f for f in (inline(event.source or ""), when(event.timestamp)) if f]
    lines = [
        f"### {code_span(event.kind or '?')} (unknown kind)"
        + (" · " + " · ".join(facts) if facts else "")
    ]
    items = []
    for name, value in event_fields(event, limit=FIELD_CHARS * 10):
        if name in ("source", "timestamp"):
            continue
        if "\n" in value or len(value) > 200:
            items.append(f"- **{inline(name)}**:\n\n{indented(fence(value))}")
        else:
            items.append(f"- **{inline(name)}**: {code_span(value, 200)}")
    lines.append("\n".join(items) if items else "*(no fields)*")
    return "\n\n".join(lines)


def unrenderable_block(event: Any, exc: Exception) -> str:
    """What an event that broke its renderer becomes: a note and its JSON."""
    kind = getattr(event, "kind", None) or "event"
    return "\n\n".join(
        [
            f"### {code_span(str(kind))} (could not be rendered)",
            f"*{inline(f'{type(exc).__name__}: {exc}')}*",
            json_block(event_json(event)),
        ]
    )


def result_alone(event: Any) -> str:
    """An observation or error whose action is not in the export."""
    if event.kind == "AgentErrorEvent":
        return agent_error(event)
    if event.kind == "UserRejectObservation":
        return rejection(event)
    obs = event.observation
    parts = [f"### Result of {code_span(event.tool_name)}"]
    text = texts(obs.content)
    if text:
        parts.append(fence(text))
    failure = observation_failure(obs)  # the one definition: an exit code fails it too
    if failure is not None and failure.why != TOOL_ERROR:
        parts.append(error_quote("Error", failure.why))
    elif failure is not None:
        parts.append(error_quote("Error", "" if text else "the tool reported an error"))
    return "\n\n".join(parts)


def agent_error(event: Any) -> str:
    note = ""
    if event.classification is not None:
        note = event.classification.kind + (", retryable" if event.classification.retryable else "")
    return error_quote("Error", event.error, note)


def rejection(event: Any) -> str:
    return error_quote("Rejected", event.rejection_reason, f"by {event.rejection_source}")


def indented(block: str) -> str:
    return "\n".join("    " + line if line else "" for line in block.split("\n"))


def thinking_block(reasoning: str | None, blocks: Any, item: Any) -> str:
    found = []
    if reasoning and reasoning.strip():
        found.append(reasoning)
    for block in blocks or ():
        if isinstance(block, ThinkingBlock) and block.thinking.strip():
            found.append(block.thinking)
        elif isinstance(block, RedactedThinkingBlock):  # the provider's blob: its size only
            found.append(f"*({opaque('redacted thinking', block.data)})*")
    if item is not None:
        found.extend(s for s in item.summary if s.strip())
        found.extend(s for s in item.content or () if s.strip())
    if not found:
        return ""
    return details("Thinking", markdown_block("\n\n".join(found)))


#: Blocks of the kinds that need nothing but the event itself.
BLOCKS: dict[str, Callable[[Any], str]] = {
    "SystemPromptEvent": _SystemPromptEvent,
    "HookExecutionEvent": _HookExecutionEvent,
    "ConversationErrorEvent": _ConversationErrorEvent,
    "ServerErrorEvent": _ServerErrorEvent,
    "Condensation": _Condensation,
    "CondensationSummaryEvent": _CondensationSummaryEvent,
    "PauseEvent": _PauseEvent,
    "InterruptEvent": _InterruptEvent,
    "ACPToolCallEvent": _ACPToolCallEvent,
}
