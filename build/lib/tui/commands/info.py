"""``ohtui info``: paths, settings and their origins, and what the server is.

When a URL is configured the server is probed once, with a short timeout (the client's
``detect()``): its kind, version and title are printed, and a server that cannot be reached,
refuses the key or is not an OpenHands server is said so in words — never a traceback.
Keys show only as set / not set.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from tui.text import say

from .connect import keys_sent, make_client, quiet_client_logs, settings_flags

#: Seconds for one probe request, and for the whole probe.
PROBE_TIMEOUT = 3.0
PROBE_DEADLINE = 8.0
KIND_NAMES = {
    "app": "an OpenHands app server",
    "agent": "a bare OpenHands agent server",
    "shared": "a server of shared conversations only",
}


def _kind_line(kind: Any, origin: str) -> str:
    value = str(kind)
    return f"{'kind':<13}{value} ({KIND_NAMES.get(value, value)})  [{origin}]"


def _answered(exc: BaseException) -> bool:
    """Whether the server said anything (a status, a body): then it is not "unreachable"."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    unreachable = {"ConnectionLost", "RequestTimeout", "ConnectError", "TimeoutError", "OSError"}
    return getattr(exc, "status", None) is not None or not (names & unreachable)


def _info_lines(info: Any, origin: str) -> list[str]:
    lines = [_kind_line(info.kind, origin)]
    lines.append(f"{'version':<13}{info.version or 'not given'}")
    if info.title:
        lines.append(f"{'title':<13}{info.title}")
    return lines


async def _detect(client: Any, forced: bool) -> tuple[Any, int | None]:
    """A fresh probe (never the process's cached answer: a wrong key must show), then one
    call that needs the key, so "reached" also means "the key works"."""

    async def probe() -> tuple[Any, int | None]:
        info = await client.detect(refresh=True)
        kind = str(info.kind)
        if forced and kind == "agent":
            info = await client.server_info()  # a forced kind is not probed: ask for details
        count = await client.count_conversations() if kind in ("app", "agent") else None
        return info, count

    async with client:
        return await asyncio.wait_for(probe(), PROBE_DEADLINE)


def probe_lines(resolved: Any) -> list[str]:
    """What the server at the resolved URL is, as ``ohtui info`` lines."""
    from tui.failures import explain

    quiet_client_logs()
    forced = resolved.server_kind != "auto"
    origin = resolved.origins.get("server_kind", "default") if forced else "detected"
    client = make_client(resolved, resolved.url, timeout=PROBE_TIMEOUT, max_retries=0)
    try:
        info, count = asyncio.run(_detect(client, forced))
    except Exception as exc:  # noqa: BLE001 - said in words, whatever it is
        failure = explain(exc, keys_sent=keys_sent(resolved))
        next_step = failure.next_step
        if forced and getattr(exc, "status", None) == 404:
            next_step = f"it may be another kind of server: let ohtui detect it (auto; {origin})"
        lines = []
        known = getattr(client, "info", None)
        if known is not None:  # it answered enough to tell what it is
            lines += _info_lines(known, origin)
        if _answered(exc):
            lines.append(f"{'problem':<13}{failure.title}")
        else:
            lines.append(f"{'reached':<13}no: {failure.title}")
        if failure.detail and failure.detail != failure.title:
            lines.append(f"{'':<13}{failure.detail}")
        if next_step:
            lines.append(f"{'next':<13}{next_step}")
        return lines
    lines = _info_lines(info, origin)
    if count is not None:
        lines.append(f"{'access':<13}ok: {count:,} conversation{'' if count == 1 else 's'}")
    return lines


def run_info(args: argparse.Namespace) -> int:
    from tui.config import ConfigError, describe, load
    from tui.paths import config_location

    location = config_location(args.config)
    try:
        resolved = load(settings_flags(args), config=args.config)
    except ConfigError as exc:
        say(describe(None, location, str(exc)), end="")
        return 1
    server: list[str] = []
    if resolved.url and not resolved.errors and not args.no_probe:
        server = probe_lines(resolved)
    say(describe(resolved, location, server=server), end="")
    return 1 if resolved.errors else 0
