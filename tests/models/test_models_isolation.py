"""Per-event isolation in the data layer: one bad event never raises and never hides another.

Each class of bad event (nesting past the limit, lone surrogates, bytes that are not UTF-8,
``1e400``/``NaN``/``Infinity``, giant integers, duplicate ids) is put in a page between
good events and read through :meth:`EventPage.from_bytes` (what the client uses),
:func:`parse_event_json` (stream frames) and :func:`parse_event` (decoded data). The bad
one is a raw row with its reason; its neighbours are typed; and every helper that walks an
event (redaction, JSON text, field lists) copes with it — no ``RecursionError`` anywhere.
"""

from __future__ import annotations

import json

import pytest

from tui.models import (
    EventPage,
    JsonNumber,
    NotAnEventPage,
    RawEvent,
    event_fields,
    event_json,
    event_text,
    json_text,
    parse_event,
    parse_event_json,
)
from tui.models.jsonscan import NotJSON, max_depth, value_end
from tui.models.parse import BAD_BYTES, BAD_JSON, BAD_NUMBER, CUT_DEEP, MAX_DEPTH, TOO_DEEP
from tui.models.redact import redact


def good(n: int) -> dict:
    return {
        "id": f"good-{n}",
        "timestamp": f"2026-01-01T00:00:{n:02d}",
        "source": "user",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": f"hello {n}"}]},
        "kind": "MessageEvent",
    }


def state(event_id: str, value_json: str) -> str:
    head = f'{{"id": "{event_id}", "timestamp": "2026-01-01T00:00:00", "source": "environment"'
    return head + f', "key": "k", "value": {value_json}, "kind": "ConversationStateUpdateEvent"}}'


DEEP = "[" * 10_000 + "]" * 10_000
#: Each bad event as JSON text (bytes where the badness is in the bytes), with its reason.
BAD: dict[str, tuple[bytes, str]] = {
    "deep": (state("bad", DEEP).encode(), TOO_DEEP),
    "deep-object": (state("bad", '{"a":' * 5_000 + "1" + "}" * 5_000).encode(), TOO_DEEP),
    "invalid-utf8": (state("bad", '"caf\xff\xfe"').encode("latin-1"), BAD_BYTES),
    "utf8-surrogate-bytes": (
        state("bad", '"x"').encode().replace(b'"x"', b'"\xed\xa0\x80"'),
        BAD_BYTES,
    ),
    "1e400": (state("bad", "1e400").encode(), BAD_NUMBER),
    "-1e400-nested": (state("bad", '{"a": [1, -1e400]}').encode(), BAD_NUMBER),
    "NaN": (state("bad", "NaN").encode(), BAD_NUMBER),
    "Infinity": (state("bad", "[-Infinity]").encode(), BAD_NUMBER),
    "giant-int": (state("bad", "9" * 5_000).encode(), BAD_NUMBER),
}


def page_body(*items: bytes, next_page: str | None = "p2") -> bytes:
    return (
        b'{"items": ['
        + b", ".join(items)
        + b'], "next_page_id": '
        + json.dumps(next_page).encode()
        + b"}"
    )


@pytest.mark.parametrize("case", sorted(BAD))
def test_one_bad_event_is_a_raw_row_and_its_neighbours_are_typed(case):
    bad, reason = BAD[case]
    body = page_body(json.dumps(good(1)).encode(), bad, json.dumps(good(2)).encode())
    page = EventPage.from_bytes(body)
    assert [e.id for e in page.items] == ["good-1", "bad", "good-2"]
    first, raw, last = page.items
    assert not isinstance(first, RawEvent) and not isinstance(last, RawEvent)
    assert isinstance(raw, RawEvent) and raw.reason == reason and raw.error
    assert raw.kind == "ConversationStateUpdateEvent" and not raw.unknown_kind
    assert page.next_page_id == "p2"
    # the same event alone, as a stream frame (bytes and text) and as decoded data
    alone = parse_event_json(bad)
    assert isinstance(alone, RawEvent) and alone.reason == reason and alone.id == "bad"
    if reason != BAD_BYTES:
        assert parse_event_json(bad.decode()).reason == reason
        if case not in ("deep", "deep-object", "giant-int"):  # json itself cannot decode those
            decoded = parse_event(json.loads(bad))
            assert isinstance(decoded, RawEvent) and decoded.reason == reason
    # every walker copes with what the raw row holds
    for event in (raw, alone):
        text = json_text(redact(event_json(event)))
        text.encode("utf-8")
        assert event_fields(event) and event_text(event).startswith("ConversationStateUpdateEvent")


def test_deep_events_keep_their_fields_and_say_what_was_cut():
    raw = parse_event_json(BAD["deep"][0])
    assert raw.raw["id"] == "bad" and raw.raw["value"] == CUT_DEEP and raw.raw["key"] == "k"
    # decoded data that deep (built by hand: json cannot) is cut, not walked recursively
    value: object = 1
    for _ in range(50_000):
        value = [value]
    raw = parse_event({"id": "d", "kind": "ConversationStateUpdateEvent", "value": value})
    assert raw.reason == TOO_DEEP and max_depth(json_text(raw.raw)) <= MAX_DEPTH
    assert json.loads(json_text(redact(raw.raw)))["id"] == "d"


def test_out_of_range_numbers_are_kept_as_sent():
    raw = parse_event_json(BAD["1e400"][0])
    assert raw.raw["value"] == JsonNumber("1e400")
    assert '"value":1e400' in json_text(raw.raw)
    assert "null" not in json_text(raw.raw) and "Infinity" not in json_text(raw.raw)
    nan = parse_event_json(BAD["NaN"][0])
    assert '"value":NaN' in json_text(nan.raw)
    giant = parse_event_json(BAD["giant-int"][0])
    assert json_text(giant.raw).count("9") >= 5_000
    # a float field refuses inf: the event is kept raw, not typed with a value dumped as null
    terminal = {
        "id": "t",
        "source": "agent",
        "kind": "ActionEvent",
        "thought": [],
        "tool_name": "terminal",
        "tool_call_id": "c",
        "llm_response_id": "r",
        "tool_call": {"id": "c", "name": "terminal", "arguments": "{}", "origin": "completion"},
        "action": {"kind": "TerminalAction", "command": "ls", "timeout": 1e400},
    }
    raw = parse_event_json(json.dumps(terminal).replace("Infinity", "1e400"))
    assert isinstance(raw, RawEvent) and raw.reason == BAD_NUMBER
    assert '"timeout":1e400' in json_text(raw.raw)


def test_finite_numbers_stay_typed_on_both_paths():
    for value in ("1e300", "1.5e-300", "123456789012345678901234567890", "-0.0"):
        text = state("fine", value)
        fast, careful = parse_event_json(text), parse_event(json.loads(text))
        assert not isinstance(fast, RawEvent) and fast == careful, value


def test_lone_surrogates_are_typed_and_every_output_encodes():
    text = json.dumps(good(3)).replace("hello 3", "half an emoji \\ud83d and \\udfff")
    event = parse_event_json(text)
    assert not isinstance(event, RawEvent)
    assert event == parse_event_json(text.encode())  # bytes on the careful path agree
    page = EventPage.from_bytes(page_body(text.encode(), json.dumps(good(4)).encode()))
    assert [e.id for e in page.items] == ["good-3", "good-4"]
    for out in (json_text(event_json(event)), event_text(event), str(event_fields(event))):
        out.encode("utf-8", "surrogatepass")
    json_text(event_json(event)).encode("utf-8")  # JSON text escapes them: plain UTF-8


def test_duplicate_ids_are_both_kept():
    one = json.dumps(good(5)).encode()
    page = EventPage.from_bytes(page_body(one, one))  # the fast path
    assert [e.id for e in page.items] == ["good-5", "good-5"]
    page = EventPage.from_bytes(page_body(one, BAD["NaN"][0], one))  # the careful path
    assert [e.id for e in page.items] == ["good-5", "bad", "good-5"]


def test_items_that_are_not_event_objects_are_raw_rows_too():
    items = [b"5", b'"text"', b"null", b"[1, 2]", b"{}", b'{"kind": 7}']
    page = EventPage.from_bytes(page_body(json.dumps(good(6)).encode(), *items))
    assert len(page.items) == 7 and not isinstance(page.items[0], RawEvent)
    assert all(isinstance(e, RawEvent) for e in page.items[1:])


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b"", NotJSON),
        (b"<html>login</html>", NotJSON),
        (b'{"items": [', NotJSON),
        (b'{"items": [] } trailing', NotJSON),
        (b"[1, 2, 3]", NotAnEventPage),
        (b'{"items": 5}', NotAnEventPage),
        (b'{"events": []}', NotAnEventPage),
        (b'"a string"', NotAnEventPage),
        (b"[" * 10_000, NotJSON),
    ],
    ids=["empty", "html", "cut", "trailing", "array", "items-5", "no-items", "string", "deep"],
)
def test_only_a_body_that_is_not_a_page_raises(body, error):
    with pytest.raises(error):
        EventPage.from_bytes(body)


def test_a_page_id_of_another_type_is_no_page_id():
    body = page_body(json.dumps(good(7)).encode(), BAD["deep"][0])
    body = body.replace(b'"next_page_id": "p2"', b'"next_page_id": {"x": [[[1]]]}')
    page = EventPage.from_bytes(body)
    assert page.next_page_id is None and len(page.items) == 2


def test_value_end_is_linear_and_never_recurses():
    text = "[" * 200_000 + "]" * 200_000
    assert value_end(text, 0) == len(text)
    assert max_depth(text) == 200_000
    with pytest.raises(NotJSON):
        value_end("[" * 1000, 0)


def test_invalid_json_in_one_event_of_a_frame_is_kept_with_its_text():
    raw = parse_event_json(b'{"id": "x", "kind": "MessageEvent", ')
    assert isinstance(raw, RawEvent) and raw.reason == BAD_JSON and raw.raw.startswith('{"id"')


def _mcp_action(data_json: str) -> str:
    call = '{"id": "c", "name": "fetch", "arguments": "{}", "origin": "completion"}'
    return (
        '{"id": "mcp", "source": "agent", "thought": [], "tool_name": "fetch",'
        f' "tool_call_id": "c", "tool_call": {call}, "llm_response_id": "r",'
        f' "action": {{"kind": "MCPToolAction", "data": {data_json}}}, "kind": "ActionEvent"}}'
    )


def _terminal_result(metadata_json: str) -> str:
    return (
        '{"id": "obs", "source": "environment", "tool_name": "terminal", "tool_call_id": "c",'
        ' "action_id": "a", "kind": "ObservationEvent", "observation": {"kind":'
        f' "TerminalObservation", "command": "ls", "metadata": {metadata_json}}}}}'
    )


@pytest.mark.parametrize(
    "text",
    [
        _mcp_action('{"x": [1, 1e400]}'),  # dict[str, Any] inside a tool model
        _terminal_result('{"exit_code": 0, "surprise": NaN}'),  # an open record's extra field
        _terminal_result('{"exit_code": 0, "nested": {"deep": [-Infinity]}}'),
    ],
    ids=["tool-data", "extra-field", "extra-nested"],
)
def test_inf_in_free_form_parts_is_found_after_the_one_pass_read(text):
    fine = text.replace("1e400", "1e300").replace("NaN", "0.5").replace("-Infinity", "2")
    assert not isinstance(parse_event_json(fine), RawEvent)
    event = parse_event_json(text)
    assert isinstance(event, RawEvent) and event.reason == BAD_NUMBER
    page = EventPage.from_bytes(page_body(fine.encode(), text.encode()))
    assert [type(e) is RawEvent for e in page.items] == [False, True]
