"""One definition of failure: whether an event is one, and why in a few words.

The list's marks, the ``e``/``E`` jumps, insights' counts, the board's "Last error" and the
exports all ask here, so that a failed command is a failure everywhere or nowhere. An event
is a failure when it is

* an error event: ``AgentErrorEvent`` (a call the agent could not make),
  ``ConversationErrorEvent`` (the run stopped), ``ServerErrorEvent``;
* a result that failed: an error result (the observation's ``is_error``), a terminal
  command that timed out or exited non-zero (``exit_code``, else ``metadata.exit_code``,
  as the SDK writes both; −1 means "still running", not a failure), an ACP tool call that
  says it failed;
* a rejected action (``UserRejectObservation``, by the user or by a hook);
* a hook that failed (one that *blocked* did its job: the rejection it caused is marked);
* an event that could not be read: a raw event, unless it is merely of a kind newer than
  this ohtui, and the local-folder server's row for an event file it could not read.

Any event form is judged (:mod:`.event_facts`): typed, raw, or a plain dict of its JSON (as
insights reads pages). A dict is judged by its fields, so one that would not validate
counts as what its fields say.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .event_facts import fields
from .parse import RawEvent

#: The local-folder server's row for an event file it could not read (a kind the models do
#: not know, so it is shown as its fields, but a failure all the same).
UNREADABLE_KIND = "UnreadableEventFile"

# What failed, for readers that count them apart (insights: a tool's failures, rejections).
ERROR = "error"  # an error event
FAILED = "failed"  # a result or a hook that failed
REJECTED = "rejected"  # an action the user or a hook refused
UNREADABLE = "unreadable"  # an event that could not be read

#: Why a result failed when only its tool's error flag says so.
TOOL_ERROR = "tool error"
#: The definition in one line, for the places that say what they count.
MEANS = (
    "error events, error results, commands that timed out or exited non-zero, rejected "
    "actions, failed hooks and unreadable events"
)

_ERROR_EVENTS = {
    "AgentErrorEvent": "agent error",
    "ConversationErrorEvent": "conversation error",
    "ServerErrorEvent": "server error",
}
#: Kinds that can fail: anything else is answered at once (most of a long log).
_JUDGED = frozenset(
    {
        *_ERROR_EVENTS,
        "ObservationEvent",
        "UserRejectObservation",
        "HookExecutionEvent",
        "ACPToolCallEvent",
        UNREADABLE_KIND,
    }
)


@dataclass(frozen=True, slots=True)
class Failure:
    """``what`` failed (:data:`ERROR`, :data:`FAILED`, :data:`REJECTED`,
    :data:`UNREADABLE`) and ``why``, in a few words ("exit code 2", "rejected by the user")."""

    what: str
    why: str


def failure_of(event: Any) -> Failure | None:
    """The event's failure, or None when it is not one (see the module doc)."""
    if isinstance(event, RawEvent) and not event.unknown_kind:
        return Failure(UNREADABLE, f"unreadable: {event.reason}")
    data = fields(event)
    kind = data.get("kind")
    if kind not in _JUDGED:
        return None
    if kind == "ObservationEvent":
        return observation_failure(data.get("observation"))
    error = _ERROR_EVENTS.get(kind)
    if error is not None:
        return Failure(ERROR, error)
    if kind == "UserRejectObservation":
        by = "a hook" if data.get("rejection_source") == "hook" else "the user"
        return Failure(REJECTED, f"rejected by {by}")
    if kind == "HookExecutionEvent":
        if data.get("success") is False and data.get("blocked") is not True:
            code = _code(data.get("exit_code"))
            return Failure(FAILED, "hook failed" + (f" (exit code {code})" if code else ""))
        return None
    if kind == "ACPToolCallEvent":
        if data.get("is_error") is True or data.get("status") == "failed":
            return Failure(FAILED, "tool call failed")
        return None
    return Failure(UNREADABLE, "unreadable event file")  # UNREADABLE_KIND


def observation_failure(observation: Any) -> Failure | None:
    """How a tool's result (an ``ObservationEvent``'s ``observation``, any form) failed:
    the terminal's own words first (timeout, exit code), then the tool's error flag."""
    observation = fields(observation)
    if observation.get("kind") == "TerminalObservation":
        if observation.get("timeout") is True:
            return Failure(FAILED, "timed out")
        code = observation.get("exit_code")
        if code is None:
            code = fields(observation.get("metadata")).get("exit_code")
        code = _code(code)
        if code is not None and code != -1:
            return Failure(FAILED, f"exit code {code}")
    if observation.get("is_error") is True:
        return Failure(FAILED, TOOL_ERROR)
    return None


def _code(value: Any) -> int | None:
    """A non-zero exit code (an int, not a bool), else None."""
    if type(value) is int and value != 0:
        return value
    return None
