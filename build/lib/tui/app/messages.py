"""Messages that screens post up to the app (small dataclasses, handled by ``on_<name>``).

A screen's workers do the I/O and update their own screen; what another part of the app
must act on travels as one of these, so no screen calls into the app's internals.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class AgentStatusChanged(Message):
    """A watched conversation's agent status changed: seen on the open conversation's
    stream or by the conversations list's polling. The app decides whether it is news
    (``notices.Notifier``) and tells the user. ``old`` None: not known before (not news)."""

    conversation_id: str
    title: str
    old: str | None
    new: str | None
