"""Property: whatever a page, a frame or a decoded event holds, the data layer neither raises
nor loses an event, and redaction leaves no secret behind.

Hypothesis builds pages whose items are good events, arbitrary JSON values (NaN, huge and
tiny numbers, lone surrogates, deep nesting), events with bytes that are not UTF-8, and
events hiding a sentinel secret under a secret key, in a key/value pair or in free text.
Each page is read by ``EventPage.from_bytes``; each item also alone as a stream frame.
Checked: no exception escapes, one row per item in order, every good event typed with its
id, and no sentinel in any JSON text, field list or export made from the rows.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.export import to_jsonl, to_markdown
from tui.models import (
    EventPage,
    RawEvent,
    event_fields,
    event_json,
    event_text,
    json_text,
    parse_event,
    parse_event_json,
)
from tui.models.redact import redact

SENTINEL = "SNTNL7x9q"
SETTINGS = settings(
    max_examples=120, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)

_text = st.text(st.characters(exclude_categories=()), max_size=12)  # lone surrogates too
_number = (
    st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([1e308, 5e-324, -0.0])
)
_json = st.recursive(
    st.none() | st.booleans() | _number | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=10,
)


def _good(n: int) -> dict:
    return {
        "id": f"good-{n}",
        "source": "user",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": f"hi {n}"}]},
        "kind": "MessageEvent",
    }


@st.composite
def _secret_event(draw) -> dict:
    """A valid or invalid event carrying the sentinel where the policy must find it."""
    where = draw(st.sampled_from(["key", "pair", "text", "header", "url"]))
    secret = SENTINEL + draw(st.text("abcdef0123456789", min_size=8, max_size=12))
    value: Any = {
        "key": {
            draw(st.sampled_from(["api_key", "GITHUB_TOKEN", "password", "x-api-key"])): secret
        },
        "pair": {"key": "session_api_key", "value": secret},
        "text": f"export OPENAI_API_KEY={secret} && run",
        "header": f"Authorization: Bearer {secret}",
        "url": f"https://me:{secret}@example.com/x",
    }[where]
    kind = draw(st.sampled_from(["ConversationStateUpdateEvent", "FutureKindEvent"]))
    return {"id": "secret", "source": "environment", "key": "k", "value": value, "kind": kind}


def _deep(depth: int) -> bytes:
    return b'{"id": "deep", "kind": "PauseEvent", "v": ' + b"[" * depth + b"]" * depth + b"}"


def _bytes_event(payload: bytes) -> bytes:
    clean = bytes(b for b in payload if b not in b'"\\' and b >= 0x20)
    return b'{"id": "bytes", "kind": "PauseEvent", "source": "user", "v": "' + clean + b'"}'


_item = st.one_of(
    st.integers(0, 99).map(lambda n: ("good", json.dumps(_good(n)).encode(), f"good-{n}")),
    _json.map(lambda v: ("json", json.dumps(v).encode(), None)),
    _secret_event().map(lambda e: ("secret", json.dumps(e).encode(), "secret")),
    st.binary(max_size=16).map(lambda b: ("bytes", _bytes_event(b), "bytes")),
    st.integers(150, 3_000).map(lambda d: ("deep", _deep(d), "deep")),
    st.sampled_from([b"1e400", b"NaN", b"-Infinity", b"9" * 5_000]).map(
        lambda n: ("number", b'{"id": "num", "kind": "PauseEvent", "v": ' + n + b"}", "num")
    ),
)


def _no_secret(events: list) -> None:
    outputs = [to_jsonl(events), to_markdown(events)]
    for event in events:
        outputs.append(json_text(redact(event_json(event))))
        outputs.append(str(event_fields(event)) + event_text(event))
    for text in outputs:
        assert SENTINEL not in text


@SETTINGS
@given(st.lists(_item, max_size=6), st.sampled_from([None, "next", 5]))
def test_any_page_gives_one_row_per_item_and_hides_no_secret(items, next_page):
    body = (
        b'{"items": ['
        + b", ".join(text for _, text, _ in items)
        + b'], "next_page_id": '
        + json.dumps(next_page).encode()
        + b"}"
    )
    page = EventPage.from_bytes(body)
    assert len(page.items) == len(items)
    assert page.next_page_id == (next_page if isinstance(next_page, str) else None)
    for (what, text, event_id), event in zip(items, page.items):
        if what == "good":
            assert not isinstance(event, RawEvent) and event.id == event_id
        elif event_id is not None:
            assert event.id == event_id
        alone = parse_event_json(text)  # the same item as a stream frame
        assert type(alone) is type(event) and alone.id == event.id
    _no_secret(page.items)


@SETTINGS
@given(st.binary(max_size=64) | _json.map(lambda v: json.dumps(v).encode()))
def test_any_frame_is_one_event(frame):
    event = parse_event_json(frame)
    assert event is not None
    json_text(redact(event_json(event))).encode("utf-8")
    event_text(event)


@SETTINGS
@given(_json | _secret_event())
def test_any_decoded_value_is_one_event(value):
    event = parse_event(value)
    assert event is not None
    _no_secret([event])
