"""Small display formatters shared by screens (times, money, tokens, statuses)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from rich.text import Text

from tui.models.redact import redact_text
from tui.text import one_line

if TYPE_CHECKING:  # the models load after the first frame (they take ~150 ms to build)
    from tui.models import AppConversation

#: status (agent's or sandbox's) → its style: a theme colour (``themes.VARIABLES``) and weight
STATUS_STYLES = {
    "RUNNING": "$status-running bold",
    "running": "$status-running bold",
    "PAUSED": "$status-paused",
    "paused": "$status-paused",
    "STARTING": "$status-starting",
    "ERROR": "$status-error bold",
    "error": "$status-error bold",
    "stuck": "$status-error bold",
    "MISSING": "dim",
    "finished": "$status-finished",
    "idle": "dim",
    "waiting_for_confirmation": "$status-waiting bold",
}


def parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


CLOCK_SKEW_S = 300


def relative_time(value: str | None, now: datetime | None = None) -> str:
    """ "3m ago" style; ``now`` is injectable so snapshots stay stable."""
    moment = parse_time(value)
    if moment is None:
        return "—"
    now = now or datetime.now(UTC)
    seconds = int((now - moment).total_seconds())
    if seconds < 0:
        # the server's clock runs ahead of ours: a little is "now", more is just the date
        # (a full timestamp was cut off by the table's column, run into the next one)
        return "just now" if seconds > -CLOCK_SKEW_S else moment.strftime("%Y-%m-%d")
    for size, unit in (
        (86400 * 365, "y"),
        (86400 * 30, "mo"),
        (86400, "d"),
        (3600, "h"),
        (60, "m"),
    ):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return "just now"


SHORT_STATUSES = {"waiting_for_confirmation": "confirm?"}  # fits a table column whole


def status_value(status: object) -> str | None:
    """A status as its plain string; None when there is none.

    Statuses (and triggers) are ``StrEnum | str``: a member where the model knows the value,
    the server's own string where it does not; both are strings that compare by value.
    This makes a plain ``str`` of either (or None for an empty or missing one)."""
    return str(status) if isinstance(status, str) and status else None


def status_text(value: object, *, short: bool = False) -> Text:
    raw = status_value(value)
    if raw is None:
        return Text("—", style="dim")
    label = one_line(raw)
    spec = STATUS_STYLES.get(label)
    from tui.app.themes import (
        theme_style,  # here: rows (format's other users) are built without Textual
    )

    style = theme_style(spec) if spec else ""
    return Text(SHORT_STATUSES.get(label, label) if short else label, style=style)


ROUTING_PREFIX = re.compile(r"^(?:[\w.-]+/)+(?=[^/])")  # "litellm_proxy/", "openrouter/anthropic/"


def short_model(model: str | None) -> str | None:
    """The model's own name, without the routing prefix ("litellm_proxy/", "openai/")."""
    if not model:
        return model
    return ROUTING_PREFIX.sub("", model, count=1)


def money(cost: float | None) -> str:
    return "—" if cost is None else f"${cost:,.2f}" if cost >= 0.01 or cost == 0 else f"${cost:.4f}"


def tokens(count: int | None) -> str:
    if not count:
        return "—"
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 1000:
        return f"{count / 1000:.1f}k"
    return str(count)


def conversation_cost(conv: AppConversation) -> tuple[float | None, int | None]:
    metrics = conv.metrics
    if metrics is None:
        return None, None
    usage = metrics.accumulated_token_usage
    total = (usage.prompt_tokens + usage.completion_tokens) if usage else None
    return metrics.accumulated_cost, total


def title_of(conv: AppConversation) -> str:
    return one_line(redact_text(conv.title or f"untitled {conv.id[:8]}"), 200)


def sandbox_text(conv: AppConversation) -> Text:
    """The sandbox column: its status, or "local folder" for a conversation served from disk
    (``ohtui PATH``), whose always-running pseudo sandbox is not a sandbox anyone controls."""
    if getattr(conv, "trigger", None) == "local":
        return Text("local folder", style="dim")
    if not has_sandbox(conv):
        return Text("—", style="dim")
    return status_text(conv.sandbox_status)


def has_sandbox(conv: AppConversation) -> bool:
    """A bare agent server runs its conversations itself: no sandbox id, nothing to show
    (its records say RUNNING only so that they can be followed)."""
    return bool(conv.sandbox_id) or getattr(conv, "trigger", None) == "local"
