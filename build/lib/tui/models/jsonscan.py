"""Reading JSON text that may be hostile, without recursion and in linear time.

``json.loads`` recurses once per nesting level and raises ``RecursionError`` at ~1,000;
pydantic stops at ~200. A server (or a file) can send 10,000 levels, bytes that are not
UTF-8, ``1e400``, ``NaN`` or a 5,000-digit integer inside one event of an otherwise good
page. Everything here works on the text with a regular-expression tokenizer and an explicit
depth counter, so one bad event is found, measured and set aside while the rest of the page
is read normally.

Numbers that JSON allows but a float cannot hold (``1e400``, ``NaN``, ``Infinity``, integers
beyond Python's 4,300-digit conversion limit) are kept as :class:`JsonNumber`: the text as
sent, so an export writes ``1e400`` again, never ``null`` or ``Infinity``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

#: A JSON string (escapes included) or one bracket. Strings are one token, so brackets
#: inside them never count; the unrolled loop keeps the match linear.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_SPACE = re.compile(r"[ \t\n\r]*")
#: Characters ``bytes.decode(errors="surrogateescape")`` makes of bytes that are not UTF-8.
#: Strict UTF-8 never yields a surrogate, so in text decoded that way they mark bad bytes.
BAD_BYTE = re.compile("[\udc80-\udcff]")
_BIG_INT_DIGITS = 4_300  # Python's default int-from-text limit (sys.get_int_max_str_digits)


class NotJSON(ValueError):
    """The text is not JSON at all (or ends too early)."""


class TooDeep(ValueError):
    """The value nests lists/objects deeper than the limit it was read with."""

    def __init__(self, depth: int, limit: int) -> None:
        super().__init__(f"nested deeper than {limit} levels ({depth} or more)")
        self.depth = depth
        self.limit = limit


class JsonNumber:
    """A JSON number a float cannot hold (``1e400``, ``NaN``, 5,000 digits), kept as sent."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"JsonNumber({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JsonNumber) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def decode_utf8(body: bytes | bytearray | memoryview) -> tuple[str, bool]:
    """``body`` as text, and whether it held bytes that are not UTF-8 (then each such byte
    is a surrogate from :data:`BAD_BYTE` in the text, so it can be traced to its event)."""
    data = bytes(body)
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("utf-8", "surrogateescape"), True


def max_depth(text: str, start: int = 0, end: int | None = None) -> int:
    """The deepest list/object nesting in ``text[start:end]`` (strings ignored); linear."""
    depth = deepest = 0
    for match in _TOKEN.finditer(text, start, len(text) if end is None else end):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


def _brackets(text: str) -> int:
    return text.count("[") + text.count("{")


def value_end(text: str, pos: int) -> int:
    """Where the JSON value starting at ``pos`` ends. Lists and objects are matched by
    counting brackets (no recursion); anything else is read by ``json``. Raises
    :class:`NotJSON` when the value never ends."""
    if pos >= len(text):
        raise NotJSON("the text ends where a value should start")
    first = text[pos]
    if first not in "[{":
        try:
            _, end = _SCALAR.raw_decode(text, pos)
        except ValueError as exc:
            raise NotJSON(f"no JSON value at character {pos}: {exc}") from None
        return end
    depth = 0
    for match in _TOKEN.finditer(text, pos):
        token = match.group()
        if token in "[{":
            depth += 1
        elif token in "]}":
            depth -= 1
            if depth == 0:
                return match.end()
    raise NotJSON(f"the value at character {pos} is never closed")


def skip_space(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return match.end() if match else pos


class _Numbers:
    """``json`` hooks that keep out-of-range numbers as :class:`JsonNumber`, counting them."""

    __slots__ = ("odd",)

    def __init__(self) -> None:
        self.odd = 0

    def parse_float(self, text: str) -> Any:
        value = float(text)
        if math.isfinite(value):
            return value
        self.odd += 1
        return JsonNumber(text)

    def parse_int(self, text: str) -> Any:
        if len(text.lstrip("-")) > _BIG_INT_DIGITS:
            self.odd += 1
            return JsonNumber(text)
        return int(text)

    def parse_constant(self, text: str) -> Any:
        self.odd += 1
        return JsonNumber(text)


_SCALAR = json.JSONDecoder()


def loads(text: str, limit: int) -> tuple[Any, int]:
    """Decode ``text`` (one whole JSON value) no deeper than ``limit``; returns the value and
    how many out-of-range numbers it held (kept as :class:`JsonNumber`). Raises
    :class:`TooDeep` or :class:`NotJSON`, never ``RecursionError``."""
    if _brackets(text) > limit:
        deepest = max_depth(text)
        if deepest > limit:
            raise TooDeep(deepest, limit)
    numbers = _Numbers()
    try:
        value = json.loads(
            text,
            parse_float=numbers.parse_float,
            parse_int=numbers.parse_int,
            parse_constant=numbers.parse_constant,
        )
    except RecursionError:  # unreachable after the depth check; kept as a last guard
        raise TooDeep(limit + 1, limit) from None
    except ValueError as exc:
        raise NotJSON(str(exc)) from None
    return value, numbers.odd


def members(text: str, pos: int) -> Iterator[tuple[str, int, int]]:
    """The members of the JSON object starting at ``pos``: ``(key, value start, value end)``.
    The values themselves are not decoded (see :func:`value_end`). Raises :class:`NotJSON`
    when the object is malformed."""
    pos = skip_space(text, pos)
    if text[pos : pos + 1] != "{":
        raise NotJSON("not a JSON object")
    pos = skip_space(text, pos + 1)
    if text[pos : pos + 1] == "}":
        return
    while True:
        if text[pos : pos + 1] != '"':
            raise NotJSON(f"expected a key at character {pos}")
        try:
            key, pos = _SCALAR.raw_decode(text, pos)
        except ValueError as exc:
            raise NotJSON(str(exc)) from None
        pos = skip_space(text, pos)
        if text[pos : pos + 1] != ":":
            raise NotJSON(f"expected ':' at character {pos}")
        start = skip_space(text, pos + 1)
        end = value_end(text, start)
        yield key, start, end
        pos = skip_space(text, end)
        sep = text[pos : pos + 1]
        if sep == "}":
            return
        if sep != ",":
            raise NotJSON(f"expected ',' or '}}' at character {pos}")
        pos = skip_space(text, pos + 1)


def elements(text: str, pos: int) -> Iterator[tuple[int, int]]:
    """The spans ``(start, end)`` of the elements of the JSON array starting at ``pos``."""
    pos = skip_space(text, pos)
    if text[pos : pos + 1] != "[":
        raise NotJSON("not a JSON array")
    pos = skip_space(text, pos + 1)
    if text[pos : pos + 1] == "]":
        return
    while True:
        end = value_end(text, pos)
        yield pos, end
        pos = skip_space(text, end)
        sep = text[pos : pos + 1]
        if sep == "]":
            return
        if sep != ",":
            raise NotJSON(f"expected ',' or ']' at character {pos}")
        pos = skip_space(text, pos + 1)


def shallow_members(text: str, limit: int, placeholder: str) -> dict[str, Any] | None:
    """The top-level members of an object too deep to read whole: each member no deeper
    than ``limit`` decoded, each deeper one replaced by ``placeholder`` — so a hostile event
    still shows its id, kind and source. None when ``text`` is not an object."""
    out: dict[str, Any] = {}
    try:
        for key, start, end in members(text, 0):
            try:
                out[key] = loads(text[start:end], limit)[0]
            except TooDeep:
                out[key] = placeholder
    except NotJSON:
        return None
    return out
