"""Export a conversation's events as JSONL or as a readable Markdown transcript.

No Textual here: pure functions over any iterable of events, an incremental
:class:`Exporter` with progress and cancellation (:func:`export_chunks`,
:func:`write_export`) for a worker thread, and :func:`export_conversation`, which pages
through a client's ``iter_events`` (``ohtui export``).

Both formats hold every event (duplicates too; the transcript marks the second of two
events with one id), mask secrets by the one policy (:mod:`tui.models.redact`), keep
numbers as sent (``1e400`` is never ``null``) and show controls visibly. The transcript is
built in time linear in its input: long blocks keep their head and tail with a line saying
what was cut, diffs align at most a bounded changed part (:mod:`tui.models.textdiff`).

* :mod:`.jsonl` — one event per line, its JSON as sent, secrets masked.
* :mod:`.markdown` — the transcript (:class:`MarkdownExporter`), with :mod:`.actions`
  for agent steps and :mod:`.text` for the safe Markdown pieces.
* :mod:`.run` — formats, the incremental exporter, files, and the server export.
"""

from __future__ import annotations

from .jsonl import event_line, jsonl_lines, to_jsonl
from .markdown import OMITTED_KINDS, MarkdownExporter, markdown_chunks, to_markdown
from .run import (
    FORMATS,
    SUFFIXES,
    ExportCancelled,
    Exporter,
    ExportError,
    ExportProgress,
    export_chunks,
    export_conversation,
    format_for,
    write_export,
)
from .text import MAX_BLOCK_CHARS, fence, markdown_block

__all__ = [
    "FORMATS",
    "MAX_BLOCK_CHARS",
    "OMITTED_KINDS",
    "SUFFIXES",
    "ExportCancelled",
    "ExportError",
    "ExportProgress",
    "Exporter",
    "MarkdownExporter",
    "event_line",
    "export_chunks",
    "export_conversation",
    "fence",
    "format_for",
    "jsonl_lines",
    "markdown_block",
    "markdown_chunks",
    "to_jsonl",
    "to_markdown",
    "write_export",
]
