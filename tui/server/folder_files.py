"""Reading files from conversation folders someone else wrote: bounded, and never trusted.

A folder may hold anything under an event file's name: a FIFO (opening it would wait for a
writer forever), a device or a link to ``/dev/zero`` (reading it never ends), a file of
gigabytes, bytes that are not UTF-8, JSON nested 10,000 deep (Python's parser recurses and
dies), numbers no float can hold (``1e400``), ``NaN``. Each becomes an :class:`Unreadable`
with a one-line reason, so the folder store serves the file as a raw row that says what is
wrong and every other event as usual. Nothing here ever blocks or reads without a bound
(``tui.untrusted_files``: non-regular files are refused from ``stat`` before any open, the
open is non-blocking and re-checked on the descriptor, and a read stops at the size cap).

The depth guard is local to the folder store for now (``tui.models`` grows its own
``jsonscan``; one of them will serve both).
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from pathlib import Path
from typing import Any

from tui import untrusted_files

#: Largest event file read (a bigger one is a raw row saying so).
MAX_EVENT_BYTES = 32 * 1024 * 1024
#: Largest ``base_state.json`` / ``meta.json`` read (bigger: treated as absent).
MAX_STATE_BYTES = 16 * 1024 * 1024
#: Deepest nesting parsed (Python's parser recurses; the SDK's events nest a dozen deep).
MAX_DEPTH = 200
#: Characters of a bad file shown in its raw row.
PREVIEW_CHARS = 2000

_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEPS = bytes.maketrans(b"[{]}", bytes([1, 1, 255, 255]))  # 255 is -1 as a signed byte
_SURROGATES = re.compile(r"[\ud800-\udfff]")


class Unreadable(Exception):
    """A file that cannot be served as an event; ``reason`` says why in one line, and
    ``preview`` holds the start of its text when there was any to read."""

    def __init__(self, reason: str, preview: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.preview = preview


def read_bounded(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (``tui.untrusted_files``:
    a FIFO or a device is never opened, a read stops at the bound)."""
    try:
        return untrusted_files.read_bounded(path, limit).data
    except untrusted_files.FileRefused as exc:
        raise Unreadable(f"the file {exc.reason}") from None


def preview(data: bytes | str) -> str:
    """The start of a bad file as printable-safe text (undecodable bytes as ``\\xNN``)."""
    if isinstance(data, bytes):
        text = data[: PREVIEW_CHARS * 4].decode("utf-8", "backslashreplace")
    else:
        text = data
    return clean_text(text[:PREVIEW_CHARS])


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
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(
            f"invalid UTF-8 at byte {exc.start}: {data[exc.start : exc.start + 4]!r}",
            preview(data),
        ) from None
    if nesting_depth_over(text):
        raise Unreadable(f"nested deeper than {MAX_DEPTH} levels: not parsed", preview(text))
    try:
        value = json.loads(text, parse_float=_float, parse_constant=_bad_constant)
    except Unreadable as exc:
        raise Unreadable(exc.reason, preview(text)) from None
    except (ValueError, RecursionError) as exc:  # RecursionError: belt and braces
        reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise Unreadable(f"invalid JSON: {reason}", preview(text)) from None
    return text, value


def read_event_file(path: str | Path) -> tuple[str, dict[str, Any]]:
    """``(text, event)`` of one event file; :class:`Unreadable` when it is not a JSON object
    that can be served as it is."""
    text, value = load_json_bytes(read_bounded(path, MAX_EVENT_BYTES))
    if not isinstance(value, dict):
        raise Unreadable(f"a JSON {type(value).__name__}, not an object", preview(text))
    return text, value


def read_json_or_none(path: Path, limit: int = MAX_STATE_BYTES) -> Any:
    """A side file (``meta.json``, ``base_state.json``): its value, or None if it is absent
    or unreadable in any way."""
    try:
        return load_json_bytes(read_bounded(path, limit))[1]
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
