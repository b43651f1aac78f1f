"""The answers at a glance, as ``(question, answer)`` lines: the same words in the view's
summary and at the top of the Markdown report."""

from __future__ import annotations

from tui.text import one_line

from .figures import Insights
from .timeline import QUIET_S
from .words import UNKNOWN, clock, duration, money, plural, share, tokens


def _time(insights: Insights) -> str:
    far = f"{plural(insights.far_off, 'event')} with far-off times" if insights.far_off else ""
    if insights.span_s is None:
        return f"unknown (only {far})" if far else "unknown (no timestamps)"
    text = f"{duration(insights.span_s)} from {clock(insights.first_timestamp)} to {clock(insights.last_timestamp)}"
    if insights.quiet_gaps:
        gaps = plural(insights.quiet_gaps, "quiet gap")
        text += (
            f"; active {duration(insights.active_s)} ({gaps} of {QUIET_S / 60:.0f}+ min left out)"
        )
    if far:
        text += f"; {far} left out"
    return text


def _where(insights: Insights) -> str:
    parts = [f"tools {duration(insights.tool_s)}"]
    if insights.model_s is None:
        parts.append("model calls unknown (no response times in the log)")
    else:
        parts.append(f"model calls {duration(insights.model_s)}")
    if insights.active_s:
        known = insights.tool_s + (insights.model_s or 0.0)
        parts.append(f"{share(known, insights.active_s)} of the active time accounted for")
    slowest = next(iter(insights.tools), None)
    if slowest is not None and slowest.total_s > 0:
        parts.append(f"slowest tool: {one_line(slowest.tool, 40)} ({duration(slowest.total_s)})")
    return " · ".join(parts)


def _cost(insights: Insights) -> str:
    if insights.cost is None:
        return "unknown (no stats updates in the log)"
    text = f"{money(insights.cost)} (from {insights.cost_from})"
    if (
        insights.record_cost is not None
        and insights.cost_from != "conversation record"
        and abs(insights.record_cost - insights.cost) > 0.005
    ):
        text += f"; the conversation record says {money(insights.record_cost)}"
    costly = next(iter(insights.costly), None)
    if costly is not None and insights.costly_by == "cost" and insights.cost:
        text += f" · dearest step {money(costly.cost)} ({share(costly.cost, insights.cost)})"
    return text


def _tokens(insights: Insights) -> str:
    if insights.tokens is None:
        return UNKNOWN
    text = (
        f"{tokens(insights.tokens)} ({tokens(insights.prompt_tokens)} prompt, "
        f"{tokens(insights.completion_tokens)} completion)"
    )
    if insights.prompt_tokens:
        text += f"; cache read {share(insights.cache_read_tokens, insights.prompt_tokens)} of the prompt"
    return text


def _calls(insights: Insights) -> str:
    known = [m.calls for m in insights.models if m.calls is not None]
    if not known:
        return UNKNOWN
    text = plural(sum(known), "call")
    if len(insights.models) > 1:
        text += (
            " ("
            + ", ".join(
                f"{one_line(m.usage_id, 30)} {m.calls if m.calls is not None else UNKNOWN}"
                for m in insights.models
            )
            + ")"
        )
    return text


def _events(insights: Insights) -> str:
    """The list's count: what it folds away and what could not be read, said."""
    parts = [f"{insights.events:,} (as the event log shows them)"]
    if insights.folded:
        folded = plural(insights.folded, "transient event")
        parts.append(
            f"{folded} (streaming deltas, state snapshots) folded away, as in the event log"
        )
    if insights.unreadable:
        parts.append(f"{insights.unreadable:,} unreadable")
    return " · ".join(parts)


def _trouble(insights: Insights) -> str:
    """The failures the list marks, then what they were."""
    failed = sum(t.failed for t in insights.tools)
    rejected = sum(t.rejected for t in insights.tools)
    calls = sum(t.calls for t in insights.tools)
    kinds = ", ".join(
        f"{one_line(why, 40)} ×{n:,}" for why, n in list(insights.failed_by.items())[:3]
    )
    more = ", …" if len(insights.failed_by) > 3 else ""
    parts = [
        f"{insights.errors:,} (as the list marks them)" + (f": {kinds}{more}" if kinds else "")
    ]
    tools = f"{failed:,} of {plural(calls, 'tool call')} failed"
    parts.append(tools + (f", {rejected:,} rejected" if rejected else ""))
    if insights.failures:
        worst = insights.failures[0]
        parts.append(f"worst repeat: {one_line(worst.label, 60)} ×{worst.count}")
    if insights.conversation_errors:
        parts.append(plural(len(insights.conversation_errors), "conversation error"))
    return " · ".join(parts)


def glance(insights: Insights) -> list[tuple[str, str]]:
    """The questions people ask after a long run, each answered in one line."""
    lines = [
        ("Events", _events(insights)),
        ("How long", _time(insights)),
        ("Where the time went", _where(insights)),
        ("Cost", _cost(insights)),
        ("Tokens", _tokens(insights)),
        ("Model calls", _calls(insights)),
        ("Failures", _trouble(insights)),
        (
            "Lost the thread",
            plural(len(insights.condensations), "condensation")
            + (
                f", first at {clock(insights.condensations[0].timestamp)}"
                if insights.condensations
                else ""
            ),
        ),
        ("User messages", f"{insights.user_messages:,}"),
    ]
    return lines
