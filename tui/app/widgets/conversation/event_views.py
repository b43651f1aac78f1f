"""How each kind of event is drawn in the detail pane: widgets built from one event.

Messages render as Markdown, thinking is collapsed, terminal actions show their command
with the paired observation's output, file edits show a coloured diff, errors stand out.
Every string from the event is cleaned and placed as literal text (never markup), long
text is abbreviated, and secrets are masked before anything is drawn (the one policy,
``tui.models.redact``: :func:`masked`, the raw JSON as ``json_text(redact(x))``). Colours
come from the theme (``themes.theme_style``); the pane's stylesheet styles the
``detail-*`` classes.

The pieces (literal text, masked text, diffs, JSON, all bounded) are ``detail_parts.py``;
this module decides which pieces each kind gets.

To draw a new kind: write ``_<kind>(event, paired) -> list[Widget]`` and add it to
:data:`BODIES`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static

from tui.app.store.rows import KIND_LABELS
from tui.app.themes import theme_style
from tui.app.widgets.conversation.detail_parts import diff_text, json_view, literal, masked, short
from tui.app.widgets.conversation.fields_view import fields_widgets
from tui.app.widgets.conversation.risk_views import security_widgets
from tui.models import RawEvent
from tui.models.content import block_texts
from tui.models.failure import observation_failure
from tui.models.parse import event_json
from tui.models.redact import opaque
from tui.text import clean

if TYPE_CHECKING:
    from pydantic import BaseModel

    from tui.app.store.rows import EventRow
    from tui.models import AnyEvent
    from tui.models import events as ev
    from tui.models.tool_objects import TaskItem

MAX_MARKDOWN = 20_000
#: Items listed from a list field (tasks, tools) before a "… N more" line.
MAX_ITEMS = 500


def _dump(model: BaseModel) -> object:
    try:
        return model.model_dump(mode="json", exclude_none=True)
    except ValueError:  # a lone surrogate in a dict key: see event_json
        return model.model_dump(mode="python", exclude_none=True)


def body(event: AnyEvent, paired: AnyEvent | None) -> list[Widget]:
    """The widgets under the header for ``event``; ``paired``: its action or observation."""
    if isinstance(event, RawEvent):  # an unknown kind (a broken event never gets here)
        return fields_widgets(event)
    build = BODIES.get(event.kind)
    if build is not None:
        return build(event, paired)
    return [
        json_view(
            {
                k: v
                for k, v in event_json(event).items()
                if k not in ("id", "timestamp", "source", "parent_id", "kind")
            }
        )
    ]


def markdown(text: str) -> Widget:
    if len(text) > MAX_MARKDOWN:
        return literal(text)
    return Markdown(clean(masked(text)), open_links=False)


def thinking(owner: object) -> list[Widget]:
    out: list[Widget] = []
    reasoning = getattr(owner, "reasoning_content", None)
    if reasoning:
        out.append(Collapsible(literal(reasoning, "italic"), title="reasoning", collapsed=True))
    for block in getattr(owner, "thinking_blocks", None) or ():
        body = getattr(block, "thinking", None)
        if body is not None:
            out.append(Collapsible(literal(body, "italic"), title="thinking", collapsed=True))
        else:  # a redacted block's data is the provider's blob: its size only
            size = opaque("redacted thinking", getattr(block, "data", None))
            out.append(Static(Text(f"({size})", style="dim italic")))
    item = getattr(owner, "responses_reasoning_item", None)
    if item is not None and (item.summary or item.content):
        text = "\n".join([*item.summary, *(item.content or [])])
        out.append(Collapsible(literal(text, "italic"), title="reasoning summary", collapsed=True))
    return out


def _message(event: ev.MessageEvent, paired: AnyEvent | None) -> list[Widget]:
    msg = event.llm_message
    out: list[Widget] = [
        Static(
            Text(
                f"{msg.role}" + (f" · {short(event.sender)}" if event.sender else ""),
                style="bold",
            ),
            classes="detail-title",
        )
    ]
    out.extend(thinking(msg))
    out.append(markdown(msg.text or "(no text)"))
    images = sum(len(c.image_urls) for c in msg.content if getattr(c, "type", "") == "image")
    if images:
        out.append(Static(Text(f"[{images} image(s) not shown]", style="dim")))
    if event.extended_content:
        out.append(Static(Text("extended content", style="bold"), classes="detail-section"))
        out.append(literal(block_texts(event.extended_content)))
    if event.activated_skills:
        out.append(
            Static(Text("skills: " + short(", ".join(event.activated_skills), 1_000), style="dim"))
        )
    return out


def _action(event: ev.ActionEvent, paired: AnyEvent | None) -> list[Widget]:
    out: list[Widget] = []
    action = event.action
    title = f"{event.tool_name}" + (f" · {action.kind}" if action else " · non-executable call")
    title += f" · risk {event.security_risk.value}"
    out.append(Static(Text(short(title), style="bold"), classes="detail-title"))
    if event.summary:
        out.append(literal(event.summary, "italic"))
    thought = block_texts(event.thought)
    if thought:
        out.append(literal(thought))
    out.extend(thinking(event))
    if action is None:
        out.append(Static(Text("arguments:", style="bold"), classes="detail-section"))
        out.append(literal(event.tool_call.arguments))
    elif action.kind == "TerminalAction":
        out.append(literal("$ " + action.command, classes="detail-command"))
    elif action.kind in ("FileEditorAction", "PlanningFileEditorAction"):
        out.append(Static(Text(f"{action.command} {short(action.path, 500)}", style="bold")))
        if action.old_str is not None or action.new_str is not None:
            out.append(Static(diff_text(action.old_str or "", action.new_str or "", action.path)))
        elif action.file_text is not None:
            out.append(Static(diff_text("", action.file_text, action.path)))
    elif action.kind == "FinishAction":
        out.append(markdown(action.message))
    elif action.kind == "ThinkAction":
        out.append(literal(action.thought, "italic"))
    elif action.kind == "TaskTrackerAction":
        out.append(tasks_view(action.task_list))
    else:
        out.append(json_view(_dump(action)))
    if paired is not None:
        out.append(Static(Text("result", style="bold"), classes="detail-section"))
        out.extend(observation_widgets(paired))
    else:
        out.append(Static(Text("no result yet", style="dim italic"), classes="detail-section"))
    return out


def tasks_view(tasks: Sequence[TaskItem]) -> Static:
    text = Text()
    marks = {"todo": "☐", "in_progress": "◐", "done": "☑"}
    for task in tasks[:MAX_ITEMS]:
        text.append(
            f"{marks.get(task.status, '·')} {short(task.title, 500)}\n",
            style="dim" if task.status == "done" else "",
        )
        if task.notes:
            text.append(f"    {short(task.notes, 500)}\n", style="italic dim")
    if len(tasks) > MAX_ITEMS:
        text.append(f"… {len(tasks) - MAX_ITEMS:,} more tasks\n", style="dim italic")
    return Static(text)


def observation_widgets(event: AnyEvent) -> list[Widget]:
    if isinstance(event, RawEvent):  # a duplicate id can pair an action with a raw event
        return [json_view(event_json(event))]
    if event.kind == "UserRejectObservation":
        return [
            literal(
                f"rejected by {event.rejection_source}: {event.rejection_reason}",
                classes="detail-error",
            )
        ]
    if event.kind == "AgentErrorEvent":
        return [literal(event.error, classes="detail-error")]
    if event.kind != "ObservationEvent":
        return [json_view(event_json(event))]
    obs = event.observation
    out: list[Widget] = []
    text = block_texts(getattr(obs, "content", ()))
    if obs.kind == "TerminalObservation":
        code = obs.exit_code if obs.exit_code is not None else obs.metadata.exit_code
        failed = observation_failure(obs) is not None  # as the list marks it
        status = Text(
            f"exit code {code}" + (" (still running)" if code == -1 and not failed else ""),
            style=theme_style("$error bold" if failed else "$success bold"),
        )
        if obs.timeout:
            status.append("  (timed out)", style=theme_style("$warning"))
        if obs.metadata.working_dir:
            status.append(f"  in {short(obs.metadata.working_dir, 500)}", style="dim")
        out.append(Static(status))
        out.append(literal(text or "(no output)", classes="detail-output"))
    elif obs.kind == "FileEditorObservation":
        if obs.old_content is not None or obs.new_content is not None:
            out.append(
                Static(diff_text(obs.old_content or "", obs.new_content or "", obs.path or ""))
            )
        if text:
            out.append(literal(text))
    elif obs.kind == "TaskTrackerObservation":
        out.append(tasks_view(obs.task_list))
    else:
        out.append(literal(text) if text else json_view(_dump(obs)))
    if getattr(obs, "is_error", False):
        out.insert(0, Static(Text("the tool reported an error"), classes="detail-error"))
    return out


def _observation(event: ev.ObservationEvent, paired: AnyEvent | None) -> list[Widget]:
    out: list[Widget] = [
        Static(
            Text(f"{short(event.tool_name)} · {event.observation.kind}", style="bold"),
            classes="detail-title",
        )
    ]
    out.extend(observation_widgets(event))
    if paired is not None and getattr(paired, "action", None) is not None:
        action = paired.action
        if action.kind == "TerminalAction":
            out.insert(1, literal("$ " + action.command, classes="detail-command"))
    if event.extended_content:
        out.append(literal(block_texts(event.extended_content)))
    return out


def error_widgets(title: str, body: str, classification: Any = None) -> list[Widget]:
    """An error's title and text, and its classification (kind, retryable, what to do)."""
    out: list[Widget] = [
        Static(Text(short(title), style="bold"), classes="detail-error"),
        literal(body),
    ]
    if classification:
        c = classification
        line = f"{c.kind} · retryable: {c.retryable} · suggested: {c.user_action}"
        out.append(Static(Text(line, style="dim")))
    return out


def _agent_error(event: ev.AgentErrorEvent, paired: AnyEvent | None) -> list[Widget]:
    return error_widgets(f"Agent error in {event.tool_name}", event.error, event.classification)


def _conversation_error(event: ev.ConversationErrorEvent, paired: AnyEvent | None) -> list[Widget]:
    return error_widgets(f"Conversation error: {event.code}", event.detail, event.classification)


def _server_error(event: ev.ServerErrorEvent, paired: AnyEvent | None) -> list[Widget]:
    return error_widgets(f"Server error: {event.code}", event.detail)


def _user_reject(event: ev.UserRejectObservation, paired: AnyEvent | None) -> list[Widget]:
    return error_widgets(
        f"{event.tool_name}: action rejected by {event.rejection_source}",
        event.rejection_reason,
    )


def _system_prompt(event: ev.SystemPromptEvent, paired: AnyEvent | None) -> list[Widget]:
    tools = Text()
    for tool in event.tools[:MAX_ITEMS]:
        tools.append(f"• {short(tool.title)}", style="bold")
        tools.append(f"  ({short(tool.kind)})\n", style="dim")
    if len(event.tools) > MAX_ITEMS:
        tools.append(f"… {len(event.tools) - MAX_ITEMS:,} more tools\n", style="dim italic")
    out: list[Widget] = [
        Static(Text(f"{len(event.tools)} tools", style="bold"), classes="detail-title"),
        Static(tools),
        Collapsible(literal(event.system_prompt.text), title="system prompt", collapsed=True),
    ]
    if event.dynamic_context is not None:
        out.append(
            Collapsible(
                literal(event.dynamic_context.text), title="dynamic context", collapsed=True
            )
        )
    return out


def _hook_execution(event: ev.HookExecutionEvent, paired: AnyEvent | None) -> list[Widget]:
    verdict = "BLOCKED" if event.blocked else ("ok" if event.success else "failed")
    head = Text(f"{event.hook_event_type} hook · {verdict} · exit {event.exit_code}", style="bold")
    out: list[Widget] = [
        Static(
            head,
            classes="detail-error" if event.blocked or not event.success else "detail-title",
        )
    ]
    out.append(literal("$ " + event.hook_command, classes="detail-command"))
    for label, value in (
        ("stdout", event.stdout),
        ("stderr", event.stderr),
        ("reason", event.reason),
        ("error", event.error),
    ):
        if value:
            out.append(Static(Text(label, style="bold"), classes="detail-section"))
            out.append(literal(value))
    return out


def _condensation_summary(
    event: ev.CondensationSummaryEvent, paired: AnyEvent | None
) -> list[Widget]:
    return [markdown(event.summary)]


def _streaming_delta(event: ev.StreamingDeltaEvent, paired: AnyEvent | None) -> list[Widget]:
    return [literal(event.content or ""), literal(event.reasoning_content or "", "italic")]


def folded_widgets(rows: Sequence[EventRow]) -> list[Widget]:
    """The plumbing a steps view folds under a row, one line each (its row's own words:
    cleaned and masked when the row was made), so the detail says what "+3" stands for."""
    count = len(rows)
    head = f"{count:,} folded under this step (state, LLM logs, tokens, hooks that passed)"
    text = Text()
    for row in rows[:MAX_ITEMS]:
        text.append(f"{row.time}  ", style="dim")
        text.append(f"{KIND_LABELS.get(row.kind, row.kind):<12} ", style="dim")
        text.append(f"{row.summary}\n")
    if count > MAX_ITEMS:
        text.append(f"… {count - MAX_ITEMS:,} more\n", style="dim italic")
    return [Static(Text(head, style="bold"), classes="detail-section"), Static(text)]


#: event kind → how its body is drawn (kinds not here: their fields as JSON)
BODIES: dict[str, Callable[..., list[Widget]]] = {
    "MessageEvent": _message,
    "ActionEvent": _action,
    "ObservationEvent": _observation,
    "AgentErrorEvent": _agent_error,
    "ConversationErrorEvent": _conversation_error,
    "ServerErrorEvent": _server_error,
    "UserRejectObservation": _user_reject,
    "SystemPromptEvent": _system_prompt,
    "HookExecutionEvent": _hook_execution,
    "CondensationSummaryEvent": _condensation_summary,
    "StreamingDeltaEvent": _streaming_delta,
    "SecurityAnalysisEvent": security_widgets,
}
