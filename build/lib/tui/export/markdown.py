"""The Markdown transcript, built one event at a time.

User and agent messages are sections (their text is Markdown already and is kept, with
thinking collapsed in ``<details>``); agent steps are shown with their results (paired by
``action_id``, then by ``tool_call_id``); errors are ``> **Error**`` quotes; a security
analysis puts its verdict on the step it judged; an event of a kind this ohtui does not
know is listed as its fields, marked "unknown kind"; an event that does not match the
schema is its JSON with the reason. State updates, token and LLM-log events are left out
(the footer counts them). A second event with an id already seen is shown too, marked.
One event that cannot be rendered becomes a note with its JSON: it never stops the rest.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from tui.models import RawEvent
from tui.models.content import ImageContent
from tui.models.failure import failure_of

from .actions import RENDERERS, action_label, arguments, generic, heading, summary_of, texts
from .blocks import (
    BLOCKS,
    agent_error,
    raw_block,
    rejection,
    result_alone,
    thinking_block,
    unrenderable_block,
)
from .text import (
    code_span,
    details,
    inline,
    markdown_block,
    plural,
    when,
)

#: Kinds the transcript leaves out, with how the footer names them.
OMITTED_KINDS = {
    "ConversationStateUpdateEvent": "state update",
    "TokenEvent": "token event",
    "LLMCompletionLogEvent": "LLM log",
    "StreamingDeltaEvent": "streaming delta",
    "CondensationRequest": "condensation request",
}
RESULT_KINDS = frozenset({"ObservationEvent", "AgentErrorEvent", "UserRejectObservation"})
ROLE_TITLES = {"user": "User", "assistant": "Agent", "system": "System", "tool": "Tool"}
#: Actions remembered by id for a later security analysis to name (oldest forgotten first).
_LABELS_KEPT = 10_000


class _Pending:
    """An action waiting for its results, so that they are shown together."""

    __slots__ = ("done", "duplicate", "event", "results", "risks")

    def __init__(self, event: Any, duplicate: bool) -> None:
        self.event = event
        self.results: list[Any] = []
        self.risks: list[str] = []
        self.done = False
        self.duplicate = duplicate


def _duplicate_note(event_id: str) -> str:
    return f"*(duplicate id {code_span(event_id)}: an earlier event has the same id)*"


class MarkdownExporter:
    """Turns events, fed one at a time in log order, into Markdown text.

    Memory stays bounded: an action is held back only until its result arrives (or
    ``max_pending`` later blocks have queued up behind it); ids seen are kept to mark
    duplicates (one string per event)."""

    def __init__(
        self,
        conversation_id: str | None = None,
        title: str | None = None,
        info: Mapping[str, str] | None = None,
        *,
        max_pending: int = 500,
    ) -> None:
        self.conversation_id = conversation_id
        self.title = title
        self.info = dict(info or {})
        self.max_pending = max_pending
        self.total = 0
        self.failures = 0  # by the one definition (tui.models.failure): each one is marked
        self.omitted: Counter[str] = Counter()
        self.duplicates = 0
        self._queue: deque[str | _Pending] = deque()
        self._by_action: dict[str, _Pending] = {}
        self._by_call: dict[str, _Pending] = {}
        self._labels: dict[str, str] = {}
        self._seen: set[str] = set()
        self._section: str | None = None

    # -- public --------------------------------------------------------------------------

    def header(self) -> str:
        title = self.title or (
            f"Conversation {self.conversation_id}" if self.conversation_id else "Conversation"
        )
        lines = [f"# {inline(title)}", ""]
        facts = []
        if self.conversation_id:
            facts.append(f"- Conversation: {code_span(self.conversation_id)}")
        for label, value in self.info.items():
            if value:
                facts.append(f"- {inline(label)}: {inline(str(value))}")
        if facts:
            lines += [*facts, ""]
        return "\n".join(lines) + "\n"

    def feed(self, event: Any) -> str:
        """Take one event; returns the Markdown that is ready (maybe empty)."""
        self.total += 1
        self.failures += failure_of(event) is not None
        event_id = event.id if isinstance(event.id, str) else None
        duplicate = event_id is not None and event_id in self._seen
        if event_id is not None:
            self._seen.add(event_id)
        if duplicate:
            self.duplicates += 1
        try:
            self._take(event, duplicate)
        except Exception as exc:  # noqa: BLE001 - one event never stops the transcript
            self._queue.append(unrenderable_block(event, exc))
        return self._flush()

    def finish(self) -> str:
        """Everything still held back, then the footer."""
        out = self._flush(force=True)
        note = f"{plural(self.total, 'event')} exported by ohtui"
        if self.failures:
            note += f"; {plural(self.failures, 'failure')}, marked as in the list"
        if self.duplicates:
            note += f"; {plural(self.duplicates, 'event')} with an id seen before (marked)"
        if self.omitted:
            left_out = ", ".join(
                plural(n, OMITTED_KINDS[kind]) for kind, n in sorted(self.omitted.items())
            )
            note += f"; not shown: {left_out}"
        return out + f"---\n\n*{note}.*\n"

    # -- queue ---------------------------------------------------------------------------

    def _take(self, event: Any, duplicate: bool) -> None:
        if isinstance(event, RawEvent):
            self._add(raw_block(event), duplicate, event)
            return
        kind = event.kind
        if kind in OMITTED_KINDS and not duplicate:
            self.omitted[kind] += 1
            return
        if kind in RESULT_KINDS:
            pending = self._pending_for(event)
            if pending is not None:
                pending.results.append(event)
                pending.done = True
                self._release(pending)
                return
            self._add(result_alone(event), duplicate, event)
            return
        if kind == "ActionEvent":
            heading_line = self._enter("Agent", event.timestamp)
            if heading_line:
                self._queue.append(heading_line)
            pending = _Pending(event, duplicate)
            self._queue.append(pending)
            if isinstance(event.id, str):
                self._by_action[event.id] = pending
                self._remember(event.id, action_label(event))
            self._by_call[event.tool_call_id] = pending
            return
        if kind == "SecurityAnalysisEvent":
            self._add(self._analysis(event), duplicate, event)
            return
        self._add(self._render(event), duplicate, event)

    def _add(self, block: str, duplicate: bool, event: Any) -> None:
        if duplicate:
            block = _duplicate_note(event.id) + ("\n\n" + block if block else "")
        if block:
            self._queue.append(block)

    def _pending_for(self, result: Any) -> _Pending | None:
        """The waiting action a result belongs to: by ``action_id`` (results point at their
        action by id; ``tool_call_id`` values are not unique), else by ``tool_call_id``."""
        action_id = getattr(result, "action_id", None)
        pending = self._by_action.get(action_id) if isinstance(action_id, str) else None
        return pending if pending is not None else self._by_call.get(result.tool_call_id)

    def _release(self, pending: _Pending) -> None:
        event = pending.event
        if self._by_action.get(event.id) is pending:
            del self._by_action[event.id]
        if self._by_call.get(event.tool_call_id) is pending:
            del self._by_call[event.tool_call_id]

    def _remember(self, action_id: str, label: str) -> None:
        self._labels[action_id] = label
        if len(self._labels) > _LABELS_KEPT:
            del self._labels[next(iter(self._labels))]

    def _flush(self, force: bool = False) -> str:
        out: list[str] = []
        queue = self._queue
        while queue:
            head = queue[0]
            if isinstance(head, str):
                out.append(head)
            elif head.done or force or len(queue) > self.max_pending:
                self._release(head)
                try:
                    block = self._action(head)
                except Exception as exc:  # noqa: BLE001 - one event never stops the rest
                    block = unrenderable_block(head.event, exc)
                out.append(
                    _duplicate_note(head.event.id) + "\n\n" + block if head.duplicate else block
                )
            else:
                break
            queue.popleft()
        return "".join(block + "\n\n" for block in out)

    def _enter(self, title: str, timestamp: str | None) -> str:
        """A ``## title`` heading when the speaker changes, else nothing."""
        if self._section == title:
            return ""
        self._section = title
        stamp = when(timestamp)
        return f"## {title}" + (f" · {stamp}" if stamp else "")

    # -- events --------------------------------------------------------------------------

    def _render(self, event: Any) -> str:
        kind = event.kind
        if kind == "MessageEvent":
            return self._message(event)
        block = BLOCKS.get(kind)
        if block is not None:
            return block(event)
        if kind in OMITTED_KINDS:  # a duplicate of a left-out kind: its mark says enough
            return f"*{inline(OMITTED_KINDS[kind])}.*"
        return f"*{inline(kind)} event.*"

    def _message(self, event: Any) -> str:
        msg = event.llm_message
        title = ROLE_TITLES.get(msg.role, msg.role.title())
        if event.sender:
            title += f" ({inline(event.sender)})"
        heading_line = self._enter(title, event.timestamp)
        parts = [heading_line] if heading_line else []
        thinking = thinking_block(
            msg.reasoning_content, msg.thinking_blocks, msg.responses_reasoning_item
        )
        if thinking:
            parts.append(thinking)
        text = msg.text
        parts.append(markdown_block(text) if text.strip() else "*(no text)*")
        images = sum(len(c.image_urls) for c in msg.content if isinstance(c, ImageContent))
        if images:
            parts.append(f"*({plural(images, 'image')} not included)*")
        if event.activated_skills:
            parts.append("*Skills: " + ", ".join(inline(s) for s in event.activated_skills) + "*")
        extended = texts(event.extended_content)
        if extended:
            parts.append(details("Extended content", markdown_block(extended)))
        return "\n\n".join(parts)

    def _analysis(self, event: Any) -> str:
        """Risks go on the steps still waiting for their results; the rest are listed."""
        source = f"{inline(event.analyzer)}, policy {inline(event.policy)}"
        listed = []
        for action_id, risk in event.risks.items():
            level = str(risk)
            pending = self._by_action.get(action_id)
            if pending is not None:
                pending.risks.append(f"**Risk: {inline(level)}** ({source})")
                continue
            label = self._labels.get(action_id)
            what = code_span(label) if label else f"action {code_span(action_id)}"
            listed.append(f"{what} **{inline(level)}**")
        if not listed:
            return ""
        return f"*Security analysis ({source}):* " + "; ".join(listed)

    # -- actions -------------------------------------------------------------------------

    def _action(self, pending: _Pending) -> str:
        event, results = pending.event, pending.results
        observation = next((r for r in results if r.kind == "ObservationEvent"), None)
        obs = observation.observation if observation is not None else None
        action = event.action
        summary = summary_of(event)
        if action is None:
            head = heading(f"{code_span(event.tool_name)} (not executed)", summary)
            body = [arguments(event.tool_call.arguments)]
        else:
            head, *body = RENDERERS.get(action.kind, generic)(event, action, obs, summary)
        # The agent's words about the step go under the step's heading, before what it did.
        parts = [head, *pending.risks]
        thought = texts(event.thought)
        if thought:
            parts.append(markdown_block(thought))
        thinking = thinking_block(
            event.reasoning_content, event.thinking_blocks, event.responses_reasoning_item
        )
        if thinking:
            parts.append(thinking)
        parts.extend(body)
        for result in results:
            if result.kind == "AgentErrorEvent":
                parts.append(agent_error(result))
            elif result.kind == "UserRejectObservation":
                parts.append(rejection(result))
        if not results:
            parts.append("*(no result recorded)*")
        return "\n\n".join(p for p in parts if p)


def markdown_chunks(
    events: Iterable[Any],
    *,
    conversation_id: str | None = None,
    title: str | None = None,
    info: Mapping[str, str] | None = None,
) -> Iterator[str]:
    """The transcript piece by piece (for writing a long conversation as it is read)."""
    exporter = MarkdownExporter(conversation_id, title, info)
    yield exporter.header()
    for event in events:
        chunk = exporter.feed(event)
        if chunk:
            yield chunk
    yield exporter.finish()


def to_markdown(
    events: Iterable[Any],
    *,
    conversation_id: str | None = None,
    title: str | None = None,
    info: Mapping[str, str] | None = None,
) -> str:
    """The whole transcript as one string."""
    return "".join(markdown_chunks(events, conversation_id=conversation_id, title=title, info=info))


__all__ = ["OMITTED_KINDS", "MarkdownExporter", "markdown_chunks", "to_markdown"]
