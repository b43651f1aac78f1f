"""``[board]``: what the live board of running agents shows and how it keeps up.

A section of its own (``board.statuses``, ``board.sockets``…) so the board's knobs do not
crowd the top level; ``OHTUI_BOARD`` takes the same as JSON.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

#: Agent statuses shown by default; the ended ones (error, stuck, finished, idle) only
#: while recent (``recent_minutes``): a run that finished minutes ago is still news.
BOARD_STATUSES = ("running", "waiting_for_confirmation", "paused", "stuck", "error", "finished")


class BoardSettings(BaseModel):
    """``[board]`` of the config file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    statuses: list[str] = list(BOARD_STATUSES)
    """Agent statuses a conversation must have to be on the board."""
    recent_minutes: float = Field(60.0, gt=0)
    """Ended statuses (error, stuck, finished, idle) show only if updated this recently."""
    sockets: int = Field(20, ge=0, le=200)
    """Rows followed live over websockets (the first ones in the board's order); the rest
    are polled."""
    poll_seconds: float = Field(4.0, ge=0.5)
    """Seconds between two looks at each server's conversations (and the polled rows)."""
    scan: int = Field(500, ge=1, le=5000)
    """Conversations looked at per server, newest first, to find the active ones."""
    all_profiles: bool = False
    """Open the board on every configured profile at once (also ``--all-profiles``)."""
