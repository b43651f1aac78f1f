"""Insights: where a conversation's time and money went, from its events alone.

Pure computations over event sequences (no Textual, no I/O but the client's paging in
:mod:`.load`): one pass, bounded memory, every figure derived from what the server sent
(stats updates, full metrics, completion logs, event timestamps), and a figure that cannot
be known says so instead of being guessed.

* :mod:`.figures` — the results (:class:`Insights` and its parts), JSON-ready.
* :mod:`.builder` — :class:`InsightsBuilder` (``feed`` / ``finish``) and
  :func:`compute_insights`; :mod:`.usage` (cost, tokens, model calls), :mod:`.actions`
  (tools, timing, repeated failures), :mod:`.steps` (what each response cost),
  :mod:`.timeline` (activity over time), :mod:`.reading` (fields of any event).
* :mod:`.report` — Markdown and JSON (``ohtui insights``).
* :mod:`.load` — a conversation's insights from a client, page by page, resumable.
"""

from __future__ import annotations

from .builder import InsightsBuilder, compute_insights
from .figures import (
    Insights,
    Latency,
    Mark,
    ModelUsage,
    RepeatedFailure,
    Step,
    TimedAction,
    Timeline,
    TimelinePoint,
    ToolFigures,
)

__all__ = [
    "Insights",
    "InsightsBuilder",
    "Latency",
    "Mark",
    "ModelUsage",
    "RepeatedFailure",
    "Step",
    "TimedAction",
    "Timeline",
    "TimelinePoint",
    "ToolFigures",
    "compute_insights",
]
