"""Running an export: incrementally, with progress and cancellation, from any events.

:class:`Exporter` turns events into text one at a time in either format;
:func:`export_chunks` drives it over an iterable, reporting progress and stopping when
asked (for a worker thread: the UI never waits for an export); :func:`write_export` writes
it by :mod:`tui.safe_output` (a file appears whole or not at all);
:func:`export_conversation` pages through a server (``ohtui export``).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tui.safe_output import open_output

from .jsonl import event_line
from .markdown import MarkdownExporter

FORMATS = ("md", "jsonl")
SUFFIXES = {".md": "md", ".markdown": "md", ".jsonl": "jsonl", ".ndjson": "jsonl"}
#: Events between two progress reports.
PROGRESS_EVERY = 200


class ExportError(Exception):
    """The conversation cannot be exported (unknown id, …)."""


class ExportCancelled(Exception):
    """The export was stopped by its caller (``cancelled()`` said so)."""


@dataclass(frozen=True)
class ExportProgress:
    """How far an export has come: events written, of ``total`` when known; characters."""

    events: int
    total: int | None
    chars: int
    done: bool = False


def format_for(path: str | None, fmt: str | None = None) -> str:
    """``fmt`` if given, else from the output file's suffix, else Markdown."""
    if fmt:
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
        return fmt
    if path:
        for suffix, name in SUFFIXES.items():
            if path.lower().endswith(suffix):
                return name
    return "md"


class Exporter:
    """One export in ``fmt`` ("md" or "jsonl"), fed events in log order.

    ``header()`` first, ``feed(event)`` for each event, ``finish()`` last; each returns the
    text that is ready (maybe empty). Every call costs time linear in the event's size."""

    def __init__(
        self,
        fmt: str = "md",
        *,
        conversation_id: str | None = None,
        title: str | None = None,
        info: Mapping[str, str] | None = None,
    ) -> None:
        self.fmt = format_for(None, fmt)
        self.count = 0
        self._markdown = (
            MarkdownExporter(conversation_id, title, info) if self.fmt == "md" else None
        )

    def header(self) -> str:
        return self._markdown.header() if self._markdown is not None else ""

    def feed(self, event: Any) -> str:
        self.count += 1
        if self._markdown is not None:
            return self._markdown.feed(event)
        return event_line(event) + "\n"

    def finish(self) -> str:
        return self._markdown.finish() if self._markdown is not None else ""


def export_chunks(
    events: Iterable[Any],
    fmt: str = "md",
    *,
    conversation_id: str | None = None,
    title: str | None = None,
    info: Mapping[str, str] | None = None,
    total: int | None = None,
    progress: Callable[[ExportProgress], Any] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Iterator[str]:
    """The export's text piece by piece. ``progress`` is called every
    :data:`PROGRESS_EVERY` events and once at the end; ``cancelled`` is asked before each
    event and a true answer raises :class:`ExportCancelled`."""
    exporter = Exporter(fmt, conversation_id=conversation_id, title=title, info=info)
    chars = 0

    def report(done: bool = False) -> None:
        if progress is not None:
            progress(ExportProgress(exporter.count, total, chars, done))

    chunk = exporter.header()
    chars += len(chunk)
    if chunk:
        yield chunk
    for event in events:
        if cancelled is not None and cancelled():
            raise ExportCancelled(f"export stopped after {exporter.count:,} events")
        chunk = exporter.feed(event)
        if chunk:
            chars += len(chunk)
            yield chunk
        if exporter.count % PROGRESS_EVERY == 0:
            report()
    chunk = exporter.finish()
    chars += len(chunk)
    if chunk:
        yield chunk
    report(done=True)


def write_export(
    events: Iterable[Any],
    path: str | os.PathLike[str],
    fmt: str | None = None,
    *,
    exclusive: bool = False,
    **options: Any,
) -> int:
    """Write an export to ``path`` (format from ``fmt`` or the suffix) and return how many
    events it holds. Written by :func:`tui.safe_output.open_output`: a file appears whole
    or not at all (a failed or cancelled export leaves nothing behind), a device or FIFO is
    written as a stream; ``exclusive``: never over an existing name. ``options`` are those
    of :func:`export_chunks` (progress, cancelled, title…)."""
    target = os.fspath(path)
    count = 0

    def counted() -> Iterator[Any]:
        nonlocal count
        for event in events:
            count += 1
            yield event

    with open_output(target, exclusive=exclusive) as out:
        out.writelines(export_chunks(counted(), format_for(target, fmt), **options))
    return count


def record_info(record: Any) -> dict[str, str]:
    """The lines under a transcript's title from the conversation's record (an
    ``AppConversation``): the same from ``ohtui export`` and from the app's ``ctrl+s``."""
    return {
        "Created": (record.created_at or "")[:19].replace("T", " "),
        "Model": record.llm_model or "",
        "Repository": record.selected_repository or "",
    }


async def export_conversation(
    client: Any,
    conversation_id: str,
    write: Callable[[str], Any],
    *,
    fmt: str = "md",
    shared: bool = False,
    progress: Callable[[ExportProgress], Any] | None = None,
) -> int:
    """Page through a conversation's events and ``write`` them as ``fmt``; returns the count.

    For a private conversation the record is looked up first (an unknown id raises
    :class:`ExportError`; its title heads the Markdown). Servers without the
    app-conversations endpoint (an agent server) are exported without a title.
    """
    fmt = format_for(None, fmt)
    title = None
    info: dict[str, str] = {}
    if not shared:
        from tui.client import NotFound

        lookup = lambda: client.get_conversations([conversation_id])
        patient = getattr(client, "patiently", None)  # outlasts a flaky server if it can
        try:
            found = await (patient(lookup, "the conversation's record") if patient else lookup())
        except NotFound:
            found = None
        if found is not None:
            record = found[0] if found else None
            if record is None:
                raise ExportError(f"no conversation {conversation_id!r} on this server")
            title = record.title
            info = record_info(record)

    async def emit(text: str) -> None:
        if text:
            result = write(text)
            if inspect.isawaitable(result):
                await result

    exporter = Exporter(fmt, conversation_id=conversation_id, title=title, info=info)
    chars = 0
    # the header waits for the first page: a walk that fails at once (no shared route, a
    # refused key) leaves nothing half-written on stdout
    header: str | None = exporter.header()
    async for event in client.iter_events(conversation_id, shared=shared):
        if header is not None:
            await emit(header)
            header = None
        chunk = exporter.feed(event)
        chars += len(chunk)
        await emit(chunk)
        if progress is not None and exporter.count % PROGRESS_EVERY == 0:
            progress(ExportProgress(exporter.count, None, chars))
    if header is not None:
        await emit(header)
    await emit(exporter.finish())
    if progress is not None:
        progress(ExportProgress(exporter.count, None, chars, done=True))
    return exporter.count
