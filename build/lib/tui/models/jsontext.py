"""JSON text of decoded event data, written back as it was sent and safe to show or save.

``json.dumps`` alone gets three hostile cases wrong: an out-of-range number kept as
:class:`~tui.models.jsonscan.JsonNumber` would be written as a string (or, as a float,
``Infinity``/``null``), a lone surrogate cannot be encoded as UTF-8, and C1 controls,
bidi overrides and line separators pass through raw to whatever displays the text.
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

from .jsonscan import JsonNumber

# A JsonNumber is written as a placeholder string holding a per-process random tag, then the
# quoted placeholder is replaced by the number's text. Content cannot forge the tag.
_TAG = secrets.token_hex(8)
_PLACEHOLDER = re.compile(r'"\\u0000' + _TAG + r':([^"\\]*)\\u0000"')
# Characters json.dumps(ensure_ascii=False) leaves raw that a terminal or an editor may act on,
# plus lone surrogates (not encodable as UTF-8). They only ever occur inside JSON strings.
_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_HUGE_INT = 10**4000


def _default(value: Any) -> Any:
    if isinstance(value, JsonNumber):
        return f"\x00{_TAG}:{value.text}\x00"
    return str(value)


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _tame(value: Any, limit: int = 200) -> Any:
    """A copy json.dumps can always write: cut below ``limit`` levels, giant integers
    (Python cannot print more than 4,300 digits) named by their size. Iterative."""
    from .parse import CUT_DEEP

    def leaf(item: Any) -> Any:
        if type(item) is int and (item > _HUGE_INT or item < -_HUGE_INT):
            return f"‹integer of {item.bit_length():,} bits›"
        return item

    if type(value) is not dict and type(value) is not list:
        return leaf(value)
    root: Any = {} if type(value) is dict else []
    stack = [(value, root, 1)]
    while stack:
        source, target, depth = stack.pop()
        pairs = source.items() if type(source) is dict else enumerate(source)
        for key, item in pairs:
            if type(item) is dict or type(item) is list:
                if depth >= limit:
                    copy: Any = CUT_DEEP
                else:
                    copy = {} if type(item) is dict else []
                    stack.append((item, copy, depth + 1))
            else:
                copy = leaf(item)
            if type(target) is dict:
                target[str(key)] = copy
            else:
                target.append(copy)
    return root


def json_text(value: Any, *, indent: int | None = None) -> str:
    """``value`` as JSON text: compact on one line (``indent=None``) or indented.

    Out-of-range numbers are written as sent (``1e400``, ``NaN``), lone surrogates and
    characters a terminal acts on as ``\\uXXXX`` escapes (the text still decodes to the
    same strings), and it never raises."""
    separators = (",", ":") if indent is None else (",", ": ")
    try:
        text = json.dumps(
            value, ensure_ascii=False, indent=indent, separators=separators, default=_default
        )
    except (RecursionError, ValueError, TypeError):
        text = json.dumps(
            _tame(value), ensure_ascii=False, indent=indent, separators=separators, default=_default
        )
    if _TAG in text:
        text = _PLACEHOLDER.sub(r"\1", text)
    return _UNSAFE.sub(_escape, text)
