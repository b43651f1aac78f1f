"""What a reading view folds: which events are plumbing, which are results, and what an
event adds to its step's row (no Textual here).

A person reads a run as steps: a message, an action and what it gave back. Around them a
log holds plumbing that says nothing of its own to a reader: state updates (a third of a
real log), LLM-log entries, token ids and hook runs that passed. A view that hides
plumbing folds it under the step it follows (counted on that row); a hook that failed or
blocked is news and stays a row. A result (an observation, a rejection, an agent error
about a tool call) joins its action's row in the steps view.

:func:`step_brief` is made once with each row (``rows.make_row``, also in the helper
process that reads a long log's pages), so folding and joining never read full events:
a command's result says its exit code and first output line, an edit says how many lines
it adds and removes, a hook says whether it failed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.models import RawEvent
from tui.models.content import block_texts
from tui.models.redact import redact_text
from tui.text import one_line

if TYPE_CHECKING:
    from tui.models import AnyEvent

#: Kinds that are always plumbing (hook runs are plumbing only when they passed).
PLUMBING_KINDS = frozenset({"ConversationStateUpdateEvent", "LLMCompletionLogEvent", "TokenEvent"})
HOOK_KIND = "HookExecutionEvent"
#: The kinds a plumbing fold leaves out, as the filter dialog names them.
PLUMBING_HINT = "state, llm log, tokens, hooks that passed"
#: Kinds whose events answer an action.
RESULT_KINDS = frozenset({"ObservationEvent", "UserRejectObservation", "AgentErrorEvent"})
ACTION_KIND = "ActionEvent"
#: Results that add nothing to their action's row unless they failed: an edit's
#: "has been edited" (the row says +5 -3), a thought's "logged", a finish's echo.
QUIET_RESULTS = frozenset({"FileEditorObservation", "ThinkObservation", "FinishObservation"})
#: Characters of a result's first line kept for its step's row.
BRIEF_CHARS = 200


def is_plumbing(row: Any) -> bool:
    """State updates, LLM-log entries, token events, hook runs that passed (an event that
    could not be read is never plumbing: it is shown, with its error)."""
    kind = row.kind
    if row.flag == "raw":
        return False
    if kind in PLUMBING_KINDS:
        return True
    return kind == HOOK_KIND and not row.brief


def is_result(row: Any) -> bool:
    """An event that answers an action: names it by ``action_id``, or (an agent error about
    a tool call) shares its ``tool_call_id``."""
    if row.action_id is not None:
        return True
    return row.kind == "AgentErrorEvent" and row.tool_call_id is not None


def _lines(text: str | None) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def _edit_counts(action: Any) -> str:
    """``+5 -3``: the lines an edit writes and the lines it replaces ("" for a view)."""
    fields = action.__dict__
    command = fields.get("command")
    if command == "create":
        added, removed = _lines(fields.get("file_text")), 0
    elif command == "str_replace":
        added, removed = _lines(fields.get("new_str")), _lines(fields.get("old_str"))
    elif command == "insert":
        added, removed = _lines(fields.get("new_str")), 0
    elif "old_string" in fields and "new_string" in fields:  # the edit tool's own shape
        added, removed = _lines(fields.get("new_string")), _lines(fields.get("old_string"))
    else:
        return ""
    return f"+{added} -{removed}"


def step_brief(event: AnyEvent, summary: str) -> str:
    """What ``event`` adds to its step's row (``summary``: its own row's, masked)."""
    if isinstance(event, RawEvent):
        return ""
    kind = event.kind
    if kind == "ObservationEvent":
        obs = event.observation
        if obs.kind == "TerminalObservation":
            return summary  # "exit 0 · first line of the output"
        failed = getattr(obs, "is_error", False)
        if obs.kind in QUIET_RESULTS and not failed:
            return ""  # the action's row says it all (what an edit changed, a thought)
        text = block_texts(getattr(obs, "content", ()), "\n")
        return redact_text(one_line(text, BRIEF_CHARS)) if text else ""
    if kind == "AgentErrorEvent":
        return redact_text(one_line(event.error, BRIEF_CHARS))
    if kind == "UserRejectObservation":
        return redact_text(one_line(f"rejected: {event.rejection_reason}", BRIEF_CHARS))
    if kind == ACTION_KIND:
        action = event.action
        if action is not None and (
            action.kind in ("FileEditorAction", "PlanningFileEditorAction")
            or "new_string" in action.__dict__
        ):
            return _edit_counts(action)
        return ""
    if kind == HOOK_KIND:
        if event.blocked:
            return "blocked"
        return "" if event.success else "failed"
    return ""
