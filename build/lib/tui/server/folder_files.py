"""Reading files from conversation folders someone else wrote: bounded, and never trusted.

A folder may hold anything under an event file's name: a FIFO (opening it would wait for a
writer forever), a device or a link to ``/dev/zero`` (reading it never ends), a link into
the home folder (``~/.netrc``, ``~/.pgpass``, a kube client key), a file of gigabytes, bytes
that are not UTF-8, JSON nested 10,000 deep (Python's parser recurses and dies), numbers no
float can hold (``1e400``), ``NaN``. Each becomes an :class:`Unreadable` with a one-line
reason, so the folder store serves the file as a raw row that says what is wrong and every
other event as usual. Nothing here ever blocks or reads without a bound: non-regular files
are refused from ``lstat`` before any open, a link is followed only when its target stays
under the root (the folder ohtui was pointed at), the open is non-blocking and refuses a
link, it is re-checked on the descriptor, and a read stops at the size cap.

A file that is not an event is never quoted: its row names the file, its size and what is
wrong (with a position for bad JSON), and none of its bytes. Whatever the server sends can be
copied and exported, and a file under an event's name may be anything — a password file
linked or copied in; the name and size are enough to find it and look at it with one's own
tools.

The depth guard is local to the folder store for now (``tui.models`` grows its own
``jsonscan``; one of them will serve both).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from itertools import accumulate
from pathlib import Path
from typing import Any

from tui import untrusted_files

from .folder_scan import leaves

#: Largest event file read (a bigger one is a raw row saying so).
MAX_EVENT_BYTES = 32 * 1024 * 1024
#: Largest ``base_state.json`` / ``meta.json`` read (bigger: treated as absent).
MAX_STATE_BYTES = 16 * 1024 * 1024
#: Deepest nesting parsed (Python's parser recurses; the SDK's events nest a dozen deep).
MAX_DEPTH = 200
#: Why a link whose target leaves the root is not read (its target is never named).
LINK_OUT = "a link out of the folder, not read"

_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEPS = bytes.maketrans(b"[{]}", bytes([1, 1, 255, 255]))  # 255 is -1 as a signed byte
_SURROGATES = re.compile(r"[\ud800-\udfff]")


class Unreadable(Exception):
    """A file that cannot be served as an event; ``reason`` says why in one line. ``read``:
    its bytes were read and are not an event (the agent may still be writing it); ``size``:
    its size in bytes when known."""

    def __init__(self, reason: str, *, read: bool = False, size: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.read = read
        self.size = size


def read_bounded(path: str | Path, limit: int, *, root: str) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes under ``root`` (a
    :func:`~.folder_scan.real_path`).

    ``lstat`` first. A link is followed only when its target, every link resolved, is under
    ``root`` (a link to a regular file in the folder is read; one out of it is never opened,
    whatever it points at; one to a device is not read). Then a non-blocking open that
    refuses a link (``O_NOFOLLOW``: the file may have been swapped for one in between) and an
    ``fstat`` of what was opened, then a read of at most ``limit + 1`` bytes
    (:func:`tui.untrusted_files.read_bounded`, the one bounded reader)."""
    try:
        before = os.lstat(path)
        if stat.S_ISLNK(before.st_mode):
            path = os.path.realpath(path)
            if leaves(path, root):
                raise Unreadable(LINK_OUT)
            before = os.lstat(path)
    except OSError as exc:
        raise Unreadable(f"cannot stat: {exc.strerror or exc}") from None
    if stat.S_ISLNK(before.st_mode):  # realpath gives up inside a loop of links
        raise Unreadable("a loop of links: not read")
    try:
        return untrusted_files.read_bounded(path, limit, follow_links=False).data
    except untrusted_files.FileRefused as exc:
        raise Unreadable(f"the file {exc.reason}", size=exc.size) from None


def clean_text(text: str) -> str:
    """``text`` with lone surrogates (from ``"\\ud800"`` escapes) as U+FFFD, so it can be
    encoded wherever it goes (a JSON response, a websocket frame, a title)."""
    return _SURROGATES.sub("\ufffd", text) if _SURROGATES.search(text) else text


def nesting_depth_over(text: str, limit: int = MAX_DEPTH) -> bool:
    """Does ``text`` nest deeper than ``limit``? Linear, no recursion: strings are cut out,
    brackets become +1/-1 bytes, and the deepest running sum is found at C speed."""
    if text.count("[") + text.count("{") <= limit:
        return False
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text)).encode("ascii")
    steps = memoryview(brackets.translate(_STEPS)).cast("b")
    return max(accumulate(steps), default=0) > limit


def _bad_constant(name: str) -> Any:
    raise Unreadable(f"non-standard number {name}")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise Unreadable(f"number out of range: {text[:40]}")
    return value


def load_json_bytes(data: bytes) -> tuple[str, Any]:
    """``(text, value)`` of a JSON document, or :class:`Unreadable` with the reason."""
    size = len(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"invalid UTF-8 at byte {exc.start:,}", read=True, size=size) from None
    del data  # a 20 MB file is not held three times (bytes, text, value) while it is parsed
    if nesting_depth_over(text):
        raise Unreadable(f"nested deeper than {MAX_DEPTH} levels: not parsed", read=True, size=size)
    try:
        value = json.loads(text, parse_float=_float, parse_constant=_bad_constant)
    except Unreadable as exc:
        raise Unreadable(exc.reason, read=True, size=size) from None
    except (ValueError, RecursionError) as exc:  # RecursionError: belt and braces
        reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise Unreadable(f"invalid JSON: {reason}", read=True, size=size) from None
    return text, value


def read_event_file(path: str | Path, *, root: str) -> tuple[str, dict[str, Any]]:
    """``(text, event)`` of one event file under ``root``; :class:`Unreadable` when it is
    not a JSON object that can be served as it is."""
    text, value = load_json_bytes(read_bounded(path, MAX_EVENT_BYTES, root=root))
    if not isinstance(value, dict):
        size = len(text.encode("utf-8", "surrogatepass"))
        raise Unreadable(f"a JSON {type(value).__name__}, not an object", read=True, size=size)
    return text, value


def read_json_or_none(path: Path, limit: int = MAX_STATE_BYTES, *, root: str) -> Any:
    """A side file (``meta.json``, ``base_state.json``) under ``root``: its value, or None
    if it is absent, a link out of the root or unreadable in any way."""
    try:
        return load_json_bytes(read_bounded(path, limit, root=root))[1]
    except Unreadable:
        return None


# -- what a conversation record takes from base_state.json ------------------------------------

_TOKEN_FIELDS = ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens")
_MAX_USAGES = 1000
_MAX_TOKENS = 10**15


def _count(value: Any) -> int:
    return (
        value
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < _MAX_TOKENS
        else 0
    )


def _cost(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return float(value) if math.isfinite(value) and 0 <= value < 1e9 else 0.0


def metrics_from_state(state: Any, model: str | None = None) -> dict[str, Any] | None:
    """A MetricsSnapshot for the conversation record: ``stats.usage_to_metrics`` summed over
    every usage (the agent's, a condenser's, …). None when the state has no stats."""
    stats = state.get("stats") if isinstance(state, dict) else None
    usages = stats.get("usage_to_metrics") if isinstance(stats, dict) else None
    if not isinstance(usages, dict) or not usages:
        return None
    cost = 0.0
    tokens = dict.fromkeys(_TOKEN_FIELDS, 0)
    names = []
    for _, metrics in zip(range(_MAX_USAGES), usages.values()):
        if not isinstance(metrics, dict):
            continue
        cost += _cost(metrics.get("accumulated_cost"))
        usage = metrics.get("accumulated_token_usage")
        if isinstance(usage, dict):
            for field in _TOKEN_FIELDS:
                tokens[field] += _count(usage.get(field))
        if isinstance(metrics.get("model_name"), str):
            names.append(clean_text(metrics["model_name"][:200]))
    name = model or (names[0] if names else "default")
    return {
        "model_name": name,
        "accumulated_cost": round(cost, 6),
        "max_budget_per_task": None,
        "accumulated_token_usage": {
            "model": name,
            **tokens,
            "reasoning_tokens": 0,
            "context_window": 0,
            "per_turn_token": 0,
            "response_id": "",
        },
    }
