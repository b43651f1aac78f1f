"""Export a conversation's events as JSONL or as a readable Markdown transcript.

No Textual here: pure functions over any iterable of events, plus
:func:`export_conversation`, which pages through a client's ``iter_events``.

**JSONL**: one event per line, the event's JSON as the server sent it
(:func:`tui.models.event_json`), with one deliberate exception: secret-bearing values
(``encrypted_content``, keys, tokens in URLs) are masked by :func:`tui.models.redact.redact`
so an export can be shared. C1 controls, bidi overrides, line separators and lone
surrogates are written as ``\\uXXXX`` escapes, so the file is safe to ``cat`` and still
decodes to the same strings.

**Markdown**: a transcript. User and agent messages are sections (their text is Markdown
already and is kept, with thinking collapsed in ``<details>``); terminal commands are
``console`` blocks with their output; file edits are unified ``diff`` blocks; plans are
checklists; errors are ``> **Error**`` quotes; an unparsed event is its JSON with the
validation error. Observations are paired with their action by ``tool_call_id`` and shown
under it. State updates, token and LLM-log events are left out (the footer counts them).
Untrusted text cannot break the structure: code fences are longer than any backtick run
inside them, unclosed fences in message text are closed, HTML that could hide or swallow
what follows is escaped, and control characters are made visible.
"""

from __future__ import annotations

import difflib
import inspect
import json
import re
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from tui.models import RawEvent, event_json
from tui.models.content import ImageContent, RedactedThinkingBlock, TextContent, ThinkingBlock
from tui.models.redact import redact
from tui.text import clean

FORMATS = ("md", "jsonl")
SUFFIXES = {".md": "md", ".markdown": "md", ".jsonl": "jsonl", ".ndjson": "jsonl"}

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


class ExportError(Exception):
    """The conversation cannot be exported (unknown id, …)."""


# --- JSONL ----------------------------------------------------------------------------------

# Characters json.dumps(ensure_ascii=False) leaves raw that a terminal or an editor may act on,
# plus lone surrogates (not encodable as UTF-8). They only ever occur inside JSON strings.
_JSON_UNSAFE = re.compile(
    "[\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def event_line(event: Any) -> str:
    """One event as one line of JSON (no trailing newline), secrets masked."""
    text = json.dumps(redact(event_json(event)), ensure_ascii=False, separators=(",", ":"))
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def jsonl_lines(events: Iterable[Any]) -> Iterator[str]:
    """Each event as a line of JSONL, newline included."""
    for event in events:
        yield event_line(event) + "\n"


def to_jsonl(events: Iterable[Any]) -> str:
    return "".join(jsonl_lines(events))


# --- safe Markdown pieces -------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")


def _safe(text: str) -> str:
    """Newlines normalised, carriage-return overwrites resolved, controls made visible."""
    text = text.replace("\r\n", "\n")
    if "\r" in text:
        lines = []
        for line in text.split("\n"):
            if "\r" in line:
                # What a terminal shows: each return overwrites the line from its start.
                shown = ""
                for part in line.split("\r"):
                    shown = part + shown[len(part) :]
                line = shown
            lines.append(line)
        text = "\n".join(lines)
    return _SURROGATE.sub("\ufffd", clean(text))


def _inline(text: str, limit: int = 300) -> str:
    """Untrusted text for a heading or a one-line note: one line, no HTML."""
    line = " ".join(_safe(text).split())
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    return line.replace("<", "&lt;")


def _code_span(text: str, limit: int = 300) -> str:
    """Untrusted text as inline code, delimited by more backticks than it contains."""
    line = " ".join(_safe(text).split())
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    longest = max((len(run) for run in re.findall(r"`+", line)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if line.startswith("`") or line.endswith("`") or not line.strip() else ""
    return f"{ticks}{pad}{line}{pad}{ticks}"


def fence(text: str, info: str = "") -> str:
    """A fenced code block that no content can close early."""
    body = _safe(text).rstrip("\n")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{body}\n{ticks}" if body else f"{ticks}{info}\n{ticks}"


_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_DETAILS_TAG = re.compile(r"<(?=/?(?:details|summary)\b)", re.IGNORECASE)
# HTML block starts (CommonMark types 1-5) that run until a terminator, not a blank line.
_SWALLOWING_HTML = re.compile(
    r"^( {0,3})<(?=(?:script|pre|style|textarea)\b|!--|\?|![A-Za-z]|!\[CDATA\[)",
    re.IGNORECASE | re.MULTILINE,
)


def _neutralise_html(text: str) -> str:
    out = []
    pos = 0
    for match in _CODE_SPAN.finditer(text):
        out.append(_escape_html(text[pos : match.start()]))
        out.append(match.group(0))
        pos = match.end()
    out.append(_escape_html(text[pos:]))
    return "".join(out)


def _escape_html(text: str) -> str:
    text = _DETAILS_TAG.sub("&lt;", text)
    return _SWALLOWING_HTML.sub(r"\1&lt;", text)


def markdown_block(text: str) -> str:
    """Untrusted Markdown kept as Markdown, but unable to affect what follows it.

    Fences left open are closed; ``<details>``/``<summary>`` tags and HTML blocks that
    only end at a terminator (``<!--``, ``<pre>``, ``<script>``…) are escaped outside code.
    """
    lines = _safe(text).strip("\n").split("\n")
    out: list[str] = []
    prose: list[str] = []
    open_fence: tuple[str, int] | None = None

    def flush() -> None:
        if prose:
            out.append(_neutralise_html("\n".join(prose)))
            prose.clear()

    for line in lines:
        match = _FENCE_LINE.match(line)
        if open_fence is None:
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                flush()
                open_fence = (match.group(1)[0], len(match.group(1)))
                out.append(line)
            else:
                prose.append(line)
        else:
            out.append(line)
            if (
                match
                and match.group(1)[0] == open_fence[0]
                and len(match.group(1)) >= open_fence[1]
                and not match.group(2).strip()
            ):
                open_fence = None
    flush()
    if open_fence is not None:
        out.append(open_fence[0] * open_fence[1])
    return "\n".join(out)


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def _details(summary: str, body: str) -> str:
    return f"<details>\n<summary>{summary}</summary>\n\n{body}\n\n</details>"


def _when(timestamp: str | None) -> str:
    if not timestamp:
        return ""
    return _inline(timestamp[:19].replace("T", " "))


def _texts(blocks: Any) -> str:
    return "\n\n".join(b.text for b in blocks or () if isinstance(b, TextContent) and b.text)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _json_block(value: Any) -> str:
    return fence(json.dumps(redact(value), indent=2, ensure_ascii=False), "json")


def _error_quote(label: str, text: str, note: str = "") -> str:
    """``> **Error** (note): text``; a multi-line text goes in a fence inside the quote."""
    head = f"**{label}**" + (f" ({_inline(note)})" if note else "")
    lines = _safe(text).strip("\n").split("\n") if text else []
    if len(lines) <= 1:
        return _quote(f"{head}: {_inline(lines[0])}" if lines and lines[0] else head)
    return _quote(f"{head}\n\n{fence(text)}")


# --- Markdown transcript --------------------------------------------------------------------


class _Pending:
    """An action waiting for its observation, so the two are shown together."""

    __slots__ = ("done", "event", "results")

    def __init__(self, event: Any) -> None:
        self.event = event
        self.results: list[Any] = []
        self.done = False


class MarkdownExporter:
    """Turns events, fed one at a time in log order, into Markdown text.

    Memory stays bounded: an action is held back only until its observation arrives (or
    ``max_pending`` later blocks have queued up behind it).
    """

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
        self.omitted: Counter[str] = Counter()
        self._queue: deque[str | _Pending] = deque()
        self._waiting: dict[str, _Pending] = {}
        self._section: str | None = None

    # -- public --------------------------------------------------------------------------

    def header(self) -> str:
        title = self.title or (
            f"Conversation {self.conversation_id}" if self.conversation_id else "Conversation"
        )
        lines = [f"# {_inline(title)}", ""]
        facts = []
        if self.conversation_id:
            facts.append(f"- Conversation: {_code_span(self.conversation_id)}")
        for label, value in self.info.items():
            if value:
                facts.append(f"- {_inline(label)}: {_inline(str(value))}")
        if facts:
            lines += [*facts, ""]
        return "\n".join(lines) + "\n"

    def feed(self, event: Any) -> str:
        """Take one event; returns the Markdown that is ready (maybe empty)."""
        self.total += 1
        if isinstance(event, RawEvent):
            self._queue.append(self._raw(event))
            return self._flush()
        kind = event.kind
        if kind in OMITTED_KINDS:
            self.omitted[kind] += 1
            return ""
        if kind in RESULT_KINDS:
            pending = self._waiting.pop(event.tool_call_id, None)
            if pending is not None:
                pending.results.append(event)
                pending.done = True
                return self._flush()
            self._queue.append(self._result_alone(event))
            return self._flush()
        if kind == "ActionEvent":
            heading = self._enter("Agent", event.timestamp)
            if heading:
                self._queue.append(heading)
            pending = _Pending(event)
            self._queue.append(pending)
            self._waiting[event.tool_call_id] = pending
            return self._flush()
        block = self._render(event)
        if block:
            self._queue.append(block)
        return self._flush()

    def finish(self) -> str:
        """Everything still held back, then the footer."""
        out = self._flush(force=True)
        note = f"{_plural(self.total, 'event')} exported by ohtui"
        if self.omitted:
            left_out = ", ".join(
                _plural(n, OMITTED_KINDS[kind]) for kind, n in sorted(self.omitted.items())
            )
            note += f"; not shown: {left_out}"
        return out + f"---\n\n*{note}.*\n"

    # -- queue ---------------------------------------------------------------------------

    def _flush(self, force: bool = False) -> str:
        out: list[str] = []
        queue = self._queue
        while queue:
            head = queue[0]
            if isinstance(head, str):
                out.append(head)
            elif head.done or force or len(queue) > self.max_pending:
                if not head.done:
                    self._waiting.pop(head.event.tool_call_id, None)
                out.append(self._action(head.event, head.results))
            else:
                break
            queue.popleft()
        return "".join(block + "\n\n" for block in out)

    def _enter(self, title: str, timestamp: str | None) -> str:
        """A ``## title`` heading when the speaker changes, else nothing."""
        if self._section == title:
            return ""
        self._section = title
        when = _when(timestamp)
        return f"## {title}" + (f" · {when}" if when else "")

    # -- events --------------------------------------------------------------------------

    def _render(self, event: Any) -> str:
        kind = event.kind
        method = getattr(self, f"_render_{kind}", None)
        if method is not None:
            return method(event)
        return f"*{_inline(kind)} event.*"

    def _render_MessageEvent(self, event: Any) -> str:
        msg = event.llm_message
        title = ROLE_TITLES.get(msg.role, msg.role.title())
        if event.sender:
            title += f" ({_inline(event.sender)})"
        heading = self._enter(title, event.timestamp)
        parts = [heading] if heading else []
        thinking = _thinking(
            msg.reasoning_content, msg.thinking_blocks, msg.responses_reasoning_item
        )
        if thinking:
            parts.append(thinking)
        text = msg.text
        parts.append(markdown_block(text) if text.strip() else "*(no text)*")
        images = sum(len(c.image_urls) for c in msg.content if isinstance(c, ImageContent))
        if images:
            parts.append(f"*({_plural(images, 'image')} not included)*")
        if event.activated_skills:
            parts.append("*Skills: " + ", ".join(_inline(s) for s in event.activated_skills) + "*")
        extended = _texts(event.extended_content)
        if extended:
            parts.append(_details("Extended content", markdown_block(extended)))
        return "\n\n".join(parts)

    def _render_SystemPromptEvent(self, event: Any) -> str:
        names = ", ".join(_inline(t.title) for t in event.tools)
        size = len(event.system_prompt.text)
        tools = f"{_plural(len(event.tools), 'tool')}: {names}" if event.tools else "no tools"
        return f"*System prompt: {size:,} characters; {tools}.*"

    def _render_HookExecutionEvent(self, event: Any) -> str:
        if event.blocked:
            verdict = "**blocked**" + (f": {_inline(event.reason)}" if event.reason else "")
        elif event.success:
            verdict = "ok"
        else:
            verdict = f"**failed** (exit {event.exit_code})"
            if event.error:
                verdict += f": {_inline(event.error)}"
        tool = f" on {_code_span(event.tool_name)}" if event.tool_name else ""
        return f"*{_inline(event.hook_event_type)} hook {_code_span(event.hook_command)}{tool}: {verdict}*"

    def _render_ConversationErrorEvent(self, event: Any) -> str:
        note = event.classification.kind if event.classification else ""
        return _error_quote("Error", f"{event.code}: {event.detail}", note)

    def _render_ServerErrorEvent(self, event: Any) -> str:
        return _error_quote("Server error", f"{event.code}: {event.detail}")

    def _render_Condensation(self, event: Any) -> str:
        line = f"*Context condensed: {_plural(len(event.forgotten_event_ids), 'earlier event')} forgotten.*"
        if event.summary:
            line += "\n\n" + _details("Summary", markdown_block(event.summary))
        return line

    def _render_CondensationSummaryEvent(self, event: Any) -> str:
        return _details("Summary of earlier context", markdown_block(event.summary))

    def _render_PauseEvent(self, event: Any) -> str:
        return "*Paused by the user.*"

    def _render_InterruptEvent(self, event: Any) -> str:
        return "*Interrupted by the user.*"

    def _render_ACPToolCallEvent(self, event: Any) -> str:
        status = f" ({_inline(event.status)})" if event.status else ""
        parts = [f"### {_inline(event.title)}{status}"]
        if event.raw_input is not None:
            parts.append(_json_block(event.raw_input))
        output = event.raw_output
        if isinstance(output, str):
            parts.append(fence(output))
        elif output is not None:
            parts.append(_json_block(output))
        if event.is_error:
            parts.append(_error_quote("Error", "the tool call failed"))
        return "\n\n".join(parts)

    def _raw(self, event: RawEvent) -> str:
        kind = f" {_code_span(event.kind)}" if event.kind else ""
        return "\n\n".join(
            [
                f"### Unparsed event{kind}",
                "This event does not match the service's schema; it is shown as sent.",
                fence(event.error, "text"),
                _json_block(event.raw),
            ]
        )

    def _result_alone(self, event: Any) -> str:
        """An observation or error whose action is not in the export."""
        if event.kind == "AgentErrorEvent":
            return self._agent_error(event)
        if event.kind == "UserRejectObservation":
            return self._rejection(event)
        obs = event.observation
        parts = [f"### Result of {_code_span(event.tool_name)}"]
        text = _texts(obs.content)
        if text:
            parts.append(fence(text))
        if obs.is_error:
            parts.append(_error_quote("Error", "" if text else "the tool reported an error"))
        return "\n\n".join(parts)

    @staticmethod
    def _agent_error(event: Any) -> str:
        note = ""
        if event.classification is not None:
            note = event.classification.kind + (
                ", retryable" if event.classification.retryable else ""
            )
        return _error_quote("Error", event.error, note)

    @staticmethod
    def _rejection(event: Any) -> str:
        return _error_quote("Rejected", event.rejection_reason, f"by {event.rejection_source}")

    # -- actions -------------------------------------------------------------------------

    def _action(self, event: Any, results: list[Any]) -> str:
        observation = next((r for r in results if r.kind == "ObservationEvent"), None)
        obs = observation.observation if observation is not None else None
        action = event.action
        summary = _summary(event)
        if action is None:
            heading = _heading(f"{_code_span(event.tool_name)} (not executed)", summary)
            body = [_arguments(event.tool_call.arguments)]
        else:
            heading, *body = _ACTION_RENDERERS.get(action.kind, _generic)(
                event, action, obs, summary
            )
        # The agent's words about the step go under the step's heading, before what it did.
        parts = [heading]
        thought = _texts(event.thought)
        if thought:
            parts.append(markdown_block(thought))
        thinking = _thinking(
            event.reasoning_content, event.thinking_blocks, event.responses_reasoning_item
        )
        if thinking:
            parts.append(thinking)
        parts.extend(body)
        for result in results:
            if result.kind == "AgentErrorEvent":
                parts.append(self._agent_error(result))
            elif result.kind == "UserRejectObservation":
                parts.append(self._rejection(result))
        if not results:
            parts.append("*(no result recorded)*")
        return "\n\n".join(p for p in parts if p)


def _thinking(reasoning: str | None, blocks: Any, item: Any) -> str:
    texts = []
    if reasoning and reasoning.strip():
        texts.append(reasoning)
    for block in blocks or ():
        if isinstance(block, ThinkingBlock) and block.thinking.strip():
            texts.append(block.thinking)
        elif isinstance(block, RedactedThinkingBlock):
            texts.append("*(redacted thinking)*")
    if item is not None:
        texts.extend(s for s in item.summary if s.strip())
        texts.extend(s for s in item.content or () if s.strip())
    if not texts:
        return ""
    return _details("Thinking", markdown_block("\n\n".join(texts)))


def _summary(event: Any) -> str | None:
    """The model's own one-line summary, unless it is just ``tool: {arguments}``."""
    summary = (event.summary or "").strip()
    if not summary or summary.startswith(f"{event.tool_name}:"):
        return None
    return summary


def _heading(label: str, summary: str | None) -> str:
    return f"### {label}" + (f" — {_inline(summary)}" if summary else "")


def _arguments(arguments: str) -> str:
    try:
        return _json_block(json.loads(arguments))
    except ValueError:
        return fence(arguments, "text")


def _obs_text(obs: Any) -> str:
    return _texts(getattr(obs, "content", None)) if obs is not None else ""


def _obs_error(obs: Any) -> str:
    if obs is not None and getattr(obs, "is_error", False):
        return _error_quote("Error", _obs_text(obs) or "the tool reported an error")
    return ""


def _not_applied(obs: Any) -> str:
    """The error of an edit that failed, said so (the diff above shows what was attempted)."""
    if obs is not None and getattr(obs, "is_error", False):
        return _error_quote("Not applied", _obs_text(obs) or "the tool reported an error")
    return ""


def _diff(old: str, new: str, old_name: str, new_name: str, whole: bool = False) -> str:
    a, b = old.splitlines(), new.splitlines()
    if a == b:
        return "*(no changes)*"
    context = max(len(a), len(b)) if whole else 3
    lines = difflib.unified_diff(a, b, old_name, new_name, n=context, lineterm="")
    return fence("\n".join(lines), "diff")


def _terminal(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    label = "Terminal input" if action.is_input else "Terminal"
    command = _safe(action.command).split("\n")
    if action.is_input:
        lines = command
    else:
        lines = [f"$ {command[0]}", *(f"> {line}" for line in command[1:])]
    status = ""
    if obs is not None:
        output = _obs_text(obs)
        if output:
            lines.append(output)
        code = getattr(obs, "exit_code", None)
        if code is None and getattr(obs, "metadata", None) is not None:
            code = obs.metadata.exit_code
        notes = []
        if getattr(obs, "timeout", False):
            notes.append("**Timed out**")
        if code not in (None, 0, -1):
            notes.append(f"**Exit code {code}**")
        status = " · ".join(notes)
    parts = [_heading(label, summary), fence("\n".join(lines), "console")]
    if status:
        parts.append(status)
    if obs is not None and obs.is_error and not status:
        parts.append(_error_quote("Error", "the command failed"))
    return parts


def _file_editor(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    path = action.path
    command = action.command
    old = getattr(obs, "old_content", None) if obs is not None else None
    new = getattr(obs, "new_content", None) if obs is not None else None
    failed = obs is not None and obs.is_error
    labels = {
        "view": "View",
        "create": "Create",
        "str_replace": "Edit",
        "insert": "Insert into",
        "undo_edit": "Undo edit of",
    }
    label = f"{labels.get(command, command)} {_code_span(path)}"
    if command == "insert" and action.insert_line is not None:
        label += f" after line {action.insert_line}"
    if summary and path in summary:
        summary = None  # "View /x/y.py" says nothing the heading does not
    parts = [_heading(label, summary)]
    if command == "view":
        text = _obs_text(obs)
        if text and not failed:
            parts.append(fence(text))
    elif old is not None and new is not None and not failed:
        parts.append(_diff(old, new, path if old else "/dev/null", path))
    elif command == "create":
        parts.append(
            _diff(
                "",
                new if new is not None else action.file_text or "",
                "/dev/null",
                path,
                whole=True,
            )
        )
    elif command == "str_replace":
        parts.append(_diff(action.old_str or "", action.new_str or "", path, path, whole=True))
    elif command == "insert":
        parts.append(_diff("", action.new_str or "", path, path, whole=True))
    elif command == "undo_edit":
        text = _obs_text(obs)
        if text and not failed:
            parts.append(fence(text))
    if failed:
        parts.append(_obs_error(obs) if command == "view" else _not_applied(obs))
    return parts


def _edit(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    path = action.file_path
    parts = [_heading(f"Edit {_code_span(path)}", summary)]
    old = getattr(obs, "old_content", None)
    new = getattr(obs, "new_content", None)
    if old is not None and new is not None and not obs.is_error:
        parts.append(_diff(old, new, path, path))
    else:
        parts.append(_diff(action.old_string, action.new_string, path, path, whole=True))
    parts.append(_not_applied(obs))
    return parts


def _write_file(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    path = action.file_path
    old = getattr(obs, "old_content", None) or ""
    parts = [_heading(f"Write {_code_span(path)}", summary)]
    parts.append(_diff(old, action.content, path if old else "/dev/null", path, whole=not old))
    parts.append(_not_applied(obs))
    return parts


def _apply_patch(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    return [_heading("Apply patch", summary), fence(action.patch, "diff"), _not_applied(obs)]


def _read_file(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    parts = [_heading(f"Read {_code_span(action.file_path)}", summary)]
    content = getattr(obs, "file_content", None) or _obs_text(obs)
    if content and not (obs is not None and obs.is_error):
        parts.append(fence(content))
    parts.append(_obs_error(obs))
    return parts


def _task_tracker(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    tasks = action.task_list or (getattr(obs, "task_list", None) or [])
    label = "Plan" if action.command == "plan" else "Plan (viewed)"
    parts = [_heading(label, summary)]
    if tasks:
        items = []
        for task in tasks:
            box = "[x]" if task.status == "done" else "[ ]"
            line = f"- {box} {_inline(task.title)}"
            if task.status == "in_progress":
                line += " *(in progress)*"
            if task.notes:
                line += f" — {_inline(task.notes)}"
            items.append(line)
        parts.append("\n".join(items))
    else:
        parts.append("*(no tasks)*")
    parts.append(_obs_error(obs))
    return parts


def _think(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    return ["### Think", _quote(markdown_block(action.thought)), _obs_error(obs)]


def _finish(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    return ["### Finish", markdown_block(action.message), _obs_error(obs)]


def _generic(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    arguments = {
        k: v for k, v in action.model_dump(mode="json", exclude_none=True).items() if k != "kind"
    }
    parts = [_heading(_code_span(event.tool_name), summary)]
    if arguments:
        parts.append(_json_block(arguments))
    text = _obs_text(obs)
    if text and not obs.is_error:
        parts.append(fence(text))
    parts.append(_obs_error(obs))
    return parts


_ACTION_RENDERERS: dict[str, Callable[[Any, Any, Any, str | None], list[str]]] = {
    "TerminalAction": _terminal,
    "FileEditorAction": _file_editor,
    "PlanningFileEditorAction": _file_editor,
    "EditAction": _edit,
    "WriteFileAction": _write_file,
    "ApplyPatchAction": _apply_patch,
    "ReadFileAction": _read_file,
    "TaskTrackerAction": _task_tracker,
    "ThinkAction": _think,
    "FinishAction": _finish,
}


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


# --- from a server --------------------------------------------------------------------------


def format_for(path: str | None, fmt: str | None = None) -> str:
    """``fmt`` if given, else from the output file's suffix, else Markdown."""
    if fmt:
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
        return fmt
    if path:
        for suffix, name in SUFFIXES.items():
            if path.lower().endswith(suffix):
                return name
    return "md"


async def export_conversation(
    client: Any,
    conversation_id: str,
    write: Callable[[str], Any],
    *,
    fmt: str = "md",
    shared: bool = False,
) -> int:
    """Page through a conversation's events and ``write`` them as ``fmt``; returns the count.

    For a private conversation the record is looked up first (an unknown id raises
    :class:`ExportError`; its title heads the Markdown). Servers without the
    app-conversations endpoint (an agent server) are exported without a title.
    """
    fmt = format_for(None, fmt)
    title = None
    info: dict[str, str] = {}
    if not shared:
        from tui.client import NotFound

        try:
            found = await client.get_conversations([conversation_id])
        except NotFound:
            found = None
        if found is not None:
            record = found[0] if found else None
            if record is None:
                raise ExportError(f"no conversation {conversation_id!r} on this server")
            title = record.title
            info = {
                "Created": (record.created_at or "")[:19].replace("T", " "),
                "Model": record.llm_model or "",
                "Repository": record.selected_repository or "",
            }

    async def emit(text: str) -> None:
        if text:
            result = write(text)
            if inspect.isawaitable(result):
                await result

    events = client.iter_events(conversation_id, shared=shared)
    count = 0
    if fmt == "jsonl":
        async for event in events:
            await emit(event_line(event) + "\n")
            count += 1
        return count
    exporter = MarkdownExporter(conversation_id, title, info)
    await emit(exporter.header())
    async for event in events:
        await emit(exporter.feed(event))
        count += 1
    await emit(exporter.finish())
    return count
