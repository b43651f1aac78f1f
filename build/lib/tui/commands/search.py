"""``ohtui search QUERY`` and ``ohtui index``: every conversation of a server searched at once.

The server is named as for ``ohtui export`` (the configured one, else the bundled demo; a
local folder of conversations with ``--local DIR``), and its index is the one the app keeps
(:func:`tui.search_index.index_path` of its source: the URL, ``demo``, ``folder:<path>``).
``search`` brings the index up to date first (``--no-update``: search what it holds), then
prints the hits grouped by conversation, each with its time, kind, event id and snippet
(highlights between « »), and how complete the index is; JSON for scripts. ``index``
fills it (``--rebuild``: from nothing) or only says where it is (``--status``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tui.text import say

from .connect import load_settings, make_client, quiet_client_logs
from .target import OpenFolder

DEFAULT_MB = 1024  # the settings' default bound of an index (search_index_mb)


def index_source(args: argparse.Namespace, resolved: Any) -> str:
    """What the index is of: a folder root, the configured URL, or the bundled demo."""
    if args.local:
        return f"folder:{Path(args.local).expanduser().resolve()}"
    return resolved.url if resolved is not None and resolved.url else "demo"


def _open(args: argparse.Namespace, open_folder: OpenFolder, prog: str) -> Any:
    """``(client, stop, source, resolved)``, or an exit code after saying why not."""
    quiet_client_logs()
    if args.local:
        opened = open_folder(args.local)
        if opened is None:
            return 2
        client, stop = opened
        return client, stop, index_source(args, None), None
    resolved = load_settings(args, prog)
    if resolved is None:
        return 2
    url, stop = resolved.url, None
    if not url:
        from tui.server.embedded import start_demo_server

        url, stop = start_demo_server()
    return make_client(resolved, url), stop, index_source(args, resolved), resolved


def run_index_command(args: argparse.Namespace, open_folder: OpenFolder) -> int:
    """``ohtui search`` and ``ohtui index`` (``args.command`` says which)."""
    from tui.search_index import IndexUnavailable, QueryError, SearchIndex, index_path
    from tui.search_index import search as search_index

    prog = f"ohtui {args.command}"
    searching = args.command == "search"
    text = " ".join(args.query) if searching else ""
    if searching:
        try:
            from tui.search_index import parse_query

            if parse_query(text).empty:
                say(
                    f"{prog}: give words to look for, or a filter (kind:, tool:, since:…)",
                    file=sys.stderr,
                )
                return 2
        except QueryError as exc:
            say(f"{prog}: {exc}", file=sys.stderr)
            return 2
    status_only = not searching and args.status
    fill = not status_only and not (searching and args.no_update)
    opened = _open(args, open_folder, prog) if fill else None
    if isinstance(opened, int):
        return opened
    resolved = opened[3] if opened else None
    if resolved is None:
        if args.local:  # a folder's run reads the settings for the index's bound only
            with contextlib.redirect_stderr(io.StringIO()):
                resolved = load_settings(args, prog)
        else:
            resolved = load_settings(args, prog)
            if resolved is None:
                return 2
    source = opened[2] if opened else index_source(args, resolved)
    max_mb = resolved.settings.search_index_mb if resolved is not None else DEFAULT_MB
    try:
        index = SearchIndex(index_path(source), max_bytes=max_mb << 20)
    except IndexUnavailable as exc:
        if opened and opened[1] is not None:
            opened[1]()
        say(f"{prog}: {exc}", file=sys.stderr)
        return 1
    if index.notice:
        say(f"{prog}: {index.notice}", file=sys.stderr)
    if not searching and args.rebuild:
        index.rebuild()
    try:
        if opened is not None:
            code = _fill(opened, index, prog)
            if code:
                return code
        if not searching:
            say(index.status().words())
            say(f"  {index.path} (at most {max_mb:,} MB: search_index_mb)")
            return 0
        try:
            found = search_index(index, text, limit=args.limit, newest=args.newest)
        except QueryError as exc:
            say(f"{prog}: {exc}", file=sys.stderr)
            return 2
        if args.format == "json":
            say(json.dumps(results_json(found), ensure_ascii=False, indent=1))
        else:
            for line in results_lines(found):
                say(line)
        return 0 if found.groups else 1
    except BrokenPipeError:
        from tui.safe_output import reader_gone

        reader_gone()
        return 0
    finally:
        index.close()


def _fill(opened: tuple, index: Any, prog: str) -> int:
    from tui.search_index import fill_index

    client, stop, _source, resolved = opened

    async def run() -> Any:
        async with client:
            return await fill_index(client, index)

    try:
        progress = asyncio.run(run())
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - one message, never a traceback
        from tui.failures import explain

        text = "\n".join(explain(exc).lines(prog))
        say(resolved.scrub(text) if resolved is not None else text, file=sys.stderr)
        return 1
    finally:
        if stop is not None:
            stop()
    for failure in progress.failed[:5]:
        say(f"{prog}: skipped {failure}", file=sys.stderr)
    return 0


def _when(ts: float | None) -> str:
    if ts is None:
        return "(no time)"
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M")


def results_lines(found: Any) -> list[str]:
    """The hits for people: a conversation's title and id, then a line per hit."""
    lines: list[str] = []
    for group in found.groups:
        count = len(group.hits)
        lines.append(
            f"{group.title or '(untitled)'}  [{group.conversation}]  {count} hit{'s' * (count != 1)}"
        )
        for hit in group.hits:
            snippet = "".join(f"«{text}»" if lit else text for text, lit in hit.snippet)
            what = f"{hit.kind} {hit.tool}".strip()
            lines.append(f"  {_when(hit.time)}  {what}  {hit.event_id[:8]}  {snippet}")
    if not found.groups:
        lines.append("no match")
    more = " (more hits than --limit: narrow the search or raise it)" if found.limited else ""
    lines.append(f"{found.hits} hit(s) in {len(found.groups)} conversation(s){more}")
    if found.newest_over:
        lines.append(f"newest first: more than {found.newest_over:,} matches to weigh")
    lines.append(f"index: {found.status.words()}")
    return lines


def results_json(found: Any) -> dict[str, Any]:
    status = found.status
    return {
        "query": found.query,
        "hits": found.hits,
        "limited": found.limited,
        "newest_first_over": found.newest_over,
        "index": {
            "conversations": status.conversations,
            "indexed": status.current,
            "dropped": status.dropped,
            "events": status.events,
        },
        "results": [
            {
                "conversation": group.conversation,
                "title": group.title,
                "hits": [
                    {
                        "event_id": hit.event_id,
                        "kind": hit.kind,
                        "tool": hit.tool or None,
                        "source": hit.source or None,
                        "time": None
                        if hit.time is None
                        else datetime.fromtimestamp(hit.time, UTC).isoformat(),
                        "snippet": hit.snippet_text,
                        "highlighted": [text for text, lit in hit.snippet if lit],
                    }
                    for hit in group.hits
                ],
            }
            for group in found.groups
        ],
    }
