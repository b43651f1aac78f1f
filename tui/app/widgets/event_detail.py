"""The event detail pane: one event in full, shaped by its kind.

Messages render as Markdown, thinking is collapsed, terminal actions show their command
with the paired observation's output, file edits show a coloured diff, errors stand out,
and ``r`` flips to the raw JSON. Every string from the event is cleaned and placed as
literal text; secrets are masked before anything is drawn.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rich.highlighter import JSONHighlighter
from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static

from tui.models import RawEvent
from tui.models.content import TextContent
from tui.models.parse import event_json
from tui.models.redact import redact
from tui.text import abbreviate, clean, one_line

if TYPE_CHECKING:
    from pydantic import BaseModel

    from tui.models import AnyEvent
    from tui.models import events as ev
    from tui.models.tools import TaskItem

    from ..search import Finder

MAX_MARKDOWN = 20_000
#: Longest single line of the raw JSON view; a 1 MB string value is cut with a note.
MAX_JSON_LINE = 2_000
#: Diffs of more than this many characters are not computed (difflib is quadratic).
MAX_DIFF_CHARS = 200_000
#: Items listed from a list field (tasks, tools) before a "… N more" line.
MAX_ITEMS = 500


def _lit(
    text: str,
    style: str = "",
    classes: str | None = None,
    *,
    max_chars: int = 20_000,
    max_lines: int = 400,
) -> Static:
    """A Static showing ``text`` literally (never markup), abbreviated if huge."""
    shown, hidden = abbreviate(text, max_chars, max_lines)
    body = Text(shown, style=style)
    if hidden:
        body.append(f"\n… {hidden:,} more lines (r: raw JSON shows everything)", style="dim italic")
    return Static(body, classes=classes)


def _highlight_hits(widgets: list[Widget], pattern: re.Pattern[str]) -> None:
    """Mark find hits in the literal texts about to be shown (Markdown is left as rendered)."""
    for widget in widgets:
        content = widget.content if isinstance(widget, Static) else None
        if isinstance(content, Text):
            content.highlight_regex(pattern, style="bold reverse")


def _dump(model: BaseModel) -> object:
    try:
        return model.model_dump(mode="json", exclude_none=True)
    except ValueError:  # a lone surrogate in a dict key: see event_json
        return model.model_dump(mode="python", exclude_none=True)


def _texts(blocks: Iterable[object] | None) -> str:
    return "\n".join(b.text for b in blocks or () if isinstance(b, TextContent))


def _short(text: str, limit: int = 200) -> str:
    """One cleaned line for a header or title (an id or tool name can be any size)."""
    return one_line(text, limit)


def diff_text(old: str, new: str, path: str = "") -> Text:
    """A unified diff as coloured, literal Text."""
    out = Text()
    path = _short(path, 500)
    if len(old) + len(new) > MAX_DIFF_CHARS:
        # difflib is quadratic in the worst case: a huge edit would freeze the app
        out.append(
            f"(edit of {len(old):,} → {len(new):,} characters: too large to diff; new text)\n",
            style="dim italic",
        )
        shown, hidden = abbreviate(new, max_line_chars=MAX_JSON_LINE)
        out.append(shown + (f"\n… {hidden:,} more lines" if hidden else ""))
        return out
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), f"a/{path}", f"b/{path}", lineterm="", n=3
    )
    for count, line in enumerate(lines):
        if count > 2000:
            out.append("… diff cut at 2,000 lines\n", style="dim italic")
            break
        style = (
            "bold"
            if line.startswith(("---", "+++"))
            else "cyan"
            if line.startswith("@@")
            else "green"
            if line.startswith("+")
            else "red"
            if line.startswith("-")
            else ""
        )
        out.append(abbreviate(line, max_chars=MAX_JSON_LINE)[0] + "\n", style=style)
    return out


class EventDetail(VerticalScroll, can_focus=True):
    """Shows the selected event. The screen calls :meth:`show`."""

    ALLOW_MAXIMIZE = True  # z zooms it (containers are not maximizable by default)

    BINDING_GROUP_TITLE = "Detail"
    BINDINGS = [
        Binding("r", "toggle_raw", "Raw JSON", id="detail.raw"),
        Binding("j,down", "scroll_down", "Down", show=False, id="detail.down"),
        Binding("k,up", "scroll_up", "Up", show=False, id="detail.up"),
    ]
    DEFAULT_CSS = """
    EventDetail { background: $surface; padding: 0 1; }
    EventDetail .detail-header { color: $text-muted; margin-bottom: 1; }
    EventDetail .detail-title { text-style: bold; color: $accent; }
    EventDetail .detail-error {
        background: $error 20%; color: $text; border-left: thick $error; padding: 0 1; margin-bottom: 1;
    }
    EventDetail .detail-command { background: $panel; color: $text; padding: 0 1; text-style: bold; }
    EventDetail .detail-output { background: $panel-darken-1; padding: 0 1; margin-bottom: 1; }
    EventDetail .detail-section { color: $text-muted; text-style: bold; margin-top: 1; }
    EventDetail Markdown { margin: 0; padding: 0; background: $surface; }
    EventDetail Collapsible { background: $surface; padding: 0; margin: 0; border: none; }
    """

    raw_mode: reactive[bool] = reactive(False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._event: AnyEvent | None = None
        self._paired: AnyEvent | None = None
        self._finder: Finder | None = None
        self.border_title = "Detail"

    def show(self, event: AnyEvent, paired: AnyEvent | None = None) -> None:
        """Display ``event``; ``paired`` is its observation (for an action) or action."""
        self._event, self._paired = event, paired
        self._rebuild()

    def set_finder(self, finder: Finder | None) -> None:
        """Highlight what ``finder`` matches in the plain text parts (None: no highlight)."""
        self._finder = finder
        if self._event is not None:
            self._rebuild()

    def clear_event(self, message: str = "Select an event to see it here.") -> None:
        self._event = self._paired = None
        self.remove_children()
        self.mount(Static(Text(message, style="dim italic")))

    def watch_raw_mode(self) -> None:
        if self._event is not None:
            self._rebuild()

    def action_toggle_raw(self) -> None:
        self.raw_mode = not self.raw_mode

    def _rebuild(self) -> None:
        self.remove_children()
        self.scroll_home(animate=False)
        event = self._event
        if event is None:
            return
        widgets: list[Widget] = [self._header(event)]
        if isinstance(event, RawEvent):
            widgets.append(
                _lit(
                    "This event could not be parsed:\n" + event.error,
                    classes="detail-error",
                    max_chars=4_000,
                    max_lines=40,
                )
            )
            widgets.append(self._json(event.raw))
        elif self.raw_mode:
            widgets.append(self._json(event_json(event)))
        else:
            widgets.extend(self._body(event))
        if self._finder is not None:
            _highlight_hits(widgets, self._finder.pattern)
        self.mount_all(widgets)

    def _header(self, event: AnyEvent) -> Static:
        text = Text()
        # each part cut to one short line: a RawEvent's kind or id can be a 1 MB string
        text.append(_short(event.kind or "unknown kind"), style="bold")
        text.append(
            f"  ·  {_short(event.source or '?')}  ·  {_short(event.timestamp or 'no time')}\n"
        )
        text.append(f"id {_short(event.id or '—')}")
        if event.parent_id:
            text.append(f"  ·  parent {_short(event.parent_id)}")
        if self.raw_mode and not isinstance(event, RawEvent):
            text.append("   raw JSON (r: back)", style="italic")
        return Static(text, classes="detail-header")

    def _json(self, data: object) -> Static:
        try:
            dumped = json.dumps(redact(data), indent=2, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError) as exc:
            dumped = f"<not serialisable: {exc}>"
        shown, hidden = abbreviate(
            dumped, max_chars=200_000, max_lines=5_000, max_line_chars=MAX_JSON_LINE
        )
        text = Text(shown)
        JSONHighlighter().highlight(text)  # colours only: no background, no markup
        if hidden:
            text.append(f"\n… {hidden:,} more lines", style="dim italic")
        return Static(text)

    # --- per kind -------------------------------------------------------------------------

    def _body(self, event: ev.EventBase) -> list[Widget]:
        kind = event.kind
        handler = getattr(self, f"_body_{kind}", None)
        if handler is not None:
            return handler(event)
        return [
            self._json(
                {
                    k: v
                    for k, v in event_json(event).items()
                    if k not in ("id", "timestamp", "source", "parent_id", "kind")
                }
            )
        ]

    def _markdown(self, text: str) -> Widget:
        if len(text) > MAX_MARKDOWN:
            return _lit(text)
        return Markdown(clean(text), open_links=False)

    def _thinking(self, owner: object) -> list[Widget]:
        out: list[Widget] = []
        reasoning = getattr(owner, "reasoning_content", None)
        if reasoning:
            out.append(Collapsible(_lit(reasoning, "italic"), title="reasoning", collapsed=True))
        for block in getattr(owner, "thinking_blocks", None) or ():
            body = getattr(block, "thinking", None)
            out.append(
                Collapsible(_lit(body, "italic"), title="thinking", collapsed=True)
                if body is not None
                else Static(Text("(redacted thinking block)", style="dim italic"))
            )
        item = getattr(owner, "responses_reasoning_item", None)
        if item is not None and (item.summary or item.content):
            text = "\n".join([*item.summary, *(item.content or [])])
            out.append(Collapsible(_lit(text, "italic"), title="reasoning summary", collapsed=True))
        return out

    def _body_MessageEvent(self, event: ev.MessageEvent) -> list[Widget]:
        msg = event.llm_message
        out: list[Widget] = [
            Static(
                Text(
                    f"{msg.role}" + (f" · {_short(event.sender)}" if event.sender else ""),
                    style="bold",
                ),
                classes="detail-title",
            )
        ]
        out.extend(self._thinking(msg))
        out.append(self._markdown(msg.text or "(no text)"))
        images = sum(len(c.image_urls) for c in msg.content if getattr(c, "type", "") == "image")
        if images:
            out.append(Static(Text(f"[{images} image(s) not shown]", style="dim")))
        if event.extended_content:
            out.append(Static(Text("extended content", style="bold"), classes="detail-section"))
            out.append(_lit(_texts(event.extended_content)))
        if event.activated_skills:
            out.append(
                Static(
                    Text("skills: " + _short(", ".join(event.activated_skills), 1_000), style="dim")
                )
            )
        return out

    def _body_ActionEvent(self, event: ev.ActionEvent) -> list[Widget]:
        out: list[Widget] = []
        action = event.action
        title = f"{event.tool_name}" + (f" · {action.kind}" if action else " · non-executable call")
        title += f" · risk {event.security_risk.value}"
        out.append(Static(Text(_short(title), style="bold"), classes="detail-title"))
        if event.summary:
            out.append(_lit(event.summary, "italic"))
        thought = _texts(event.thought)
        if thought:
            out.append(_lit(thought))
        out.extend(self._thinking(event))
        if action is None:
            out.append(Static(Text("arguments:", style="bold"), classes="detail-section"))
            out.append(_lit(event.tool_call.arguments))
        elif action.kind == "TerminalAction":
            out.append(_lit("$ " + action.command, classes="detail-command"))
        elif action.kind in ("FileEditorAction", "PlanningFileEditorAction"):
            out.append(Static(Text(f"{action.command} {_short(action.path, 500)}", style="bold")))
            if action.old_str is not None or action.new_str is not None:
                out.append(
                    Static(diff_text(action.old_str or "", action.new_str or "", action.path))
                )
            elif action.file_text is not None:
                out.append(Static(diff_text("", action.file_text, action.path)))
        elif action.kind == "FinishAction":
            out.append(self._markdown(action.message))
        elif action.kind == "ThinkAction":
            out.append(_lit(action.thought, "italic"))
        elif action.kind == "TaskTrackerAction":
            out.append(self._tasks(action.task_list))
        else:
            out.append(self._json(_dump(action)))
        paired = self._paired
        if paired is not None:
            out.append(Static(Text("result", style="bold"), classes="detail-section"))
            out.extend(self._observation_widgets(paired))
        else:
            out.append(Static(Text("no result yet", style="dim italic"), classes="detail-section"))
        return out

    def _tasks(self, tasks: Sequence[TaskItem]) -> Static:
        text = Text()
        marks = {"todo": "☐", "in_progress": "◐", "done": "☑"}
        for task in tasks[:MAX_ITEMS]:
            text.append(
                f"{marks.get(task.status, '·')} {_short(task.title, 500)}\n",
                style="dim" if task.status == "done" else "",
            )
            if task.notes:
                text.append(f"    {_short(task.notes, 500)}\n", style="italic dim")
        if len(tasks) > MAX_ITEMS:
            text.append(f"… {len(tasks) - MAX_ITEMS:,} more tasks\n", style="dim italic")
        return Static(text)

    def _observation_widgets(self, event: AnyEvent) -> list[Widget]:
        if isinstance(event, RawEvent):  # a duplicate id can pair an action with a raw event
            return [self._json(event_json(event))]
        if event.kind == "UserRejectObservation":
            return [
                _lit(
                    f"rejected by {event.rejection_source}: {event.rejection_reason}",
                    classes="detail-error",
                )
            ]
        if event.kind == "AgentErrorEvent":
            return [_lit(event.error, classes="detail-error")]
        if event.kind != "ObservationEvent":
            return [self._json(event_json(event))]
        obs = event.observation
        out: list[Widget] = []
        text = _texts(getattr(obs, "content", ()))
        if obs.kind == "TerminalObservation":
            code = obs.exit_code if obs.exit_code is not None else obs.metadata.exit_code
            status = Text(
                f"exit code {code}", style="bold red" if code not in (0, None) else "bold green"
            )
            if obs.timeout:
                status.append("  (timed out)", style="yellow")
            if obs.metadata.working_dir:
                status.append(f"  in {_short(obs.metadata.working_dir, 500)}", style="dim")
            out.append(Static(status))
            out.append(_lit(text or "(no output)", classes="detail-output"))
        elif obs.kind == "FileEditorObservation":
            if obs.old_content is not None or obs.new_content is not None:
                out.append(
                    Static(diff_text(obs.old_content or "", obs.new_content or "", obs.path or ""))
                )
            if text:
                out.append(_lit(text))
        elif obs.kind == "TaskTrackerObservation":
            out.append(self._tasks(obs.task_list))
        else:
            out.append(_lit(text) if text else self._json(_dump(obs)))
        if getattr(obs, "is_error", False):
            out.insert(0, Static(Text("the tool reported an error"), classes="detail-error"))
        return out

    def _body_ObservationEvent(self, event: ev.ObservationEvent) -> list[Widget]:
        out: list[Widget] = [
            Static(
                Text(f"{_short(event.tool_name)} · {event.observation.kind}", style="bold"),
                classes="detail-title",
            )
        ]
        out.extend(self._observation_widgets(event))
        if self._paired is not None and getattr(self._paired, "action", None) is not None:
            action = self._paired.action
            if action.kind == "TerminalAction":
                out.insert(1, _lit("$ " + action.command, classes="detail-command"))
        if event.extended_content:
            out.append(_lit(_texts(event.extended_content)))
        return out

    def _error(self, title: str, body: str) -> list[Widget]:
        return [Static(Text(_short(title), style="bold"), classes="detail-error"), _lit(body)]

    def _body_AgentErrorEvent(self, event: ev.AgentErrorEvent) -> list[Widget]:
        out = self._error(f"Agent error in {event.tool_name}", event.error)
        if event.classification:
            c = event.classification
            out.append(
                Static(
                    Text(
                        f"{c.kind} · retryable: {c.retryable} · suggested: {c.user_action}",
                        style="dim",
                    )
                )
            )
        return out

    def _body_ConversationErrorEvent(self, event: ev.ConversationErrorEvent) -> list[Widget]:
        out = self._error(f"Conversation error: {event.code}", event.detail)
        if event.classification:
            c = event.classification
            out.append(
                Static(
                    Text(
                        f"{c.kind} · retryable: {c.retryable} · suggested: {c.user_action}",
                        style="dim",
                    )
                )
            )
        return out

    def _body_ServerErrorEvent(self, event: ev.ServerErrorEvent) -> list[Widget]:
        return self._error(f"Server error: {event.code}", event.detail)

    def _body_UserRejectObservation(self, event: ev.UserRejectObservation) -> list[Widget]:
        return self._error(
            f"{event.tool_name}: action rejected by {event.rejection_source}",
            event.rejection_reason,
        )

    def _body_SystemPromptEvent(self, event: ev.SystemPromptEvent) -> list[Widget]:
        tools = Text()
        for tool in event.tools[:MAX_ITEMS]:
            tools.append(f"• {_short(tool.title)}", style="bold")
            tools.append(f"  ({_short(tool.kind)})\n", style="dim")
        if len(event.tools) > MAX_ITEMS:
            tools.append(f"… {len(event.tools) - MAX_ITEMS:,} more tools\n", style="dim italic")
        out: list[Widget] = [
            Static(Text(f"{len(event.tools)} tools", style="bold"), classes="detail-title"),
            Static(tools),
            Collapsible(_lit(event.system_prompt.text), title="system prompt", collapsed=True),
        ]
        if event.dynamic_context is not None:
            out.append(
                Collapsible(
                    _lit(event.dynamic_context.text), title="dynamic context", collapsed=True
                )
            )
        return out

    def _body_HookExecutionEvent(self, event: ev.HookExecutionEvent) -> list[Widget]:
        verdict = "BLOCKED" if event.blocked else ("ok" if event.success else "failed")
        head = Text(
            f"{event.hook_event_type} hook · {verdict} · exit {event.exit_code}", style="bold"
        )
        out: list[Widget] = [
            Static(
                head,
                classes="detail-error" if event.blocked or not event.success else "detail-title",
            )
        ]
        out.append(_lit("$ " + event.hook_command, classes="detail-command"))
        for label, value in (
            ("stdout", event.stdout),
            ("stderr", event.stderr),
            ("reason", event.reason),
            ("error", event.error),
        ):
            if value:
                out.append(Static(Text(label, style="bold"), classes="detail-section"))
                out.append(_lit(value))
        return out

    def _body_CondensationSummaryEvent(self, event: ev.CondensationSummaryEvent) -> list[Widget]:
        return [self._markdown(event.summary)]

    def _body_StreamingDeltaEvent(self, event: ev.StreamingDeltaEvent) -> list[Widget]:
        return [_lit(event.content or ""), _lit(event.reasoning_content or "", "italic")]
