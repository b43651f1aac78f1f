"""Security risks on screen: the analyzer's verdict in the detail pane, a risk's colour.

SDK 1.58 logs a ``SecurityAnalysisEvent`` whenever a security analyzer is configured: the
risk of each action about to run (``risks``, keyed by action id), the analyzer and the
policy that acts on it. The detail pane lists them most serious first; the confirmation
bar (``agent_bar.py``) names the waiting action's risk with the same colours, all from the
theme.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from tui.app.store.rows import RISK_ORDER, make_row, risk_text
from tui.app.themes import theme_style
from tui.models import json_text
from tui.models.redact import redact
from tui.text import abbreviate, clean, one_line

if TYPE_CHECKING:
    from tui.models import AnyEvent
    from tui.models import events as ev

#: a risk → the theme colour it is drawn in (bold: it decides what the user does)
RISK_STYLES = {
    "HIGH": "$error bold",
    "MEDIUM": "$warning bold",
    "LOW": "$success bold",
    "UNKNOWN": "dim bold",
}


def risk_style(risk: object) -> Style:
    return theme_style(RISK_STYLES.get(risk_text(risk), "bold"))


def _rank(item: tuple[str, object]) -> int:
    level = risk_text(item[1])
    return RISK_ORDER.index(level) if level in RISK_ORDER else len(RISK_ORDER)


def security_widgets(event: ev.SecurityAnalysisEvent, paired: AnyEvent | None) -> list[Widget]:
    """Analyzer and policy, then each action's risk, most serious first. ``paired``: the
    most serious action, when the store has it (its summary is shown beside its risk)."""
    risks = sorted(event.risks.items(), key=_rank)
    title = Text(
        f"{len(risks)} action{'s' if len(risks) != 1 else ''} assessed by "
        f"{one_line(event.analyzer, 100)} · policy {one_line(event.policy, 100)}",
        style="bold",
    )
    out: list[Widget] = [Static(title, classes="detail-title")]
    named = make_row(paired).summary if paired is not None and paired.id else ""
    lines = Text()
    for action_id, risk in risks[:500]:
        lines.append(f"{risk_text(risk):<8}", style=risk_style(risk))
        if paired is not None and action_id == paired.id and named:
            lines.append(one_line(named, 200) + "  ")
        lines.append(f"action {one_line(action_id, 80)}\n", style="dim")
    if len(risks) > 500:
        lines.append(f"… {len(risks) - 500:,} more actions\n", style="dim italic")
    out.append(Static(lines))
    details = {k: v for k, v in event.details.items() if v}
    if details:
        out.append(Static(Text("details", style="bold"), classes="detail-section"))
        shown, hidden = abbreviate(clean(json_text(redact(details), indent=2)), max_lines=200)
        body = Text(shown)
        if hidden:
            body.append(f"\n… {hidden:,} more lines (r: raw JSON)", style="dim italic")
        out.append(Static(body))
    return out
