"""JSONL: one event per line, its JSON as the server sent it.

Each line is :func:`tui.models.event_json` with one deliberate exception: secrets are masked
by the one policy (:func:`tui.models.redact.redact`) so an export can be shared. Numbers a
float cannot hold are written as sent (``1e400``, never ``null``); C1 controls, bidi
overrides, line separators and lone surrogates are ``\\uXXXX`` escapes, so the file is safe
to ``cat`` and still decodes to the same strings. Every event is a line, duplicates too.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from tui.models import event_json
from tui.models.jsontext import json_text
from tui.models.redact import redact


def event_line(event: Any) -> str:
    """One event as one line of JSON (no trailing newline), secrets masked."""
    return json_text(redact(event_json(event)))


def jsonl_lines(events: Iterable[Any]) -> Iterator[str]:
    """Each event as a line of JSONL, newline included."""
    for event in events:
        yield event_line(event) + "\n"


def to_jsonl(events: Iterable[Any]) -> str:
    return "".join(jsonl_lines(events))
