"""Insights from untyped pages (``search_events_raw``: plain JSON objects, no pydantic) are
the insights from typed events, for every real sample and for conversations read from a
server; a page one event of which cannot be read as JSON still gives the others."""

from __future__ import annotations

import json

import pytest

from tests.helpers.samples import SAMPLES, event_files
from tui.client import OpenHandsClient
from tui.client.raw_pages import RawPage, raw_page
from tui.insights import compute_insights
from tui.insights.load import collect_insights
from tui.insights.report import to_json
from tui.models import RawEvent, parse_event
from tui.server import Store, load_demo


def _samples() -> dict[str, list]:
    found = dict(event_files())
    capture = SAMPLES / "agent-server-capture" / "persisted"
    for folder in sorted(p for p in capture.iterdir() if p.is_dir()):
        events = [json.loads(p.read_text()) for p in sorted(folder.glob("events/*.json"))]
        if events:
            found[str(folder.relative_to(SAMPLES))] = events
    return found


SAMPLE_EVENTS = _samples()


def _untyped(events: list) -> list:
    """What the client's raw reader gives for a page of these events."""
    page = raw_page(json.dumps({"items": events, "next_page_id": None}).encode())
    assert isinstance(page, RawPage)
    return page.items


@pytest.mark.parametrize("name", sorted(SAMPLE_EVENTS))
def test_typed_and_raw_events_give_the_same_insights(name):
    events = SAMPLE_EVENTS[name]
    typed = compute_insights([parse_event(e) for e in events], "c1", title="t")
    raw = compute_insights(_untyped(events), "c1", title="t")
    assert to_json(raw) == to_json(typed)


def test_a_page_json_cannot_take_whole_is_read_event_by_event():
    good = {"kind": "MessageEvent", "id": "a", "timestamp": "2026-01-01T00:00:00"}
    body = json.dumps({"items": [good, "not an event", good | {"id": "b"}]}).encode()
    page = raw_page(body)
    assert [type(e) for e in page.items] == [dict, RawEvent, dict]
    broken = body.replace(b'"b"', b'"\xff"')  # not UTF-8: one event, not the page
    page = raw_page(broken)
    assert len(page.items) == 3 and isinstance(page.items[2], RawEvent)
    assert page.items[0].id == "a"
    nan = body.replace(b'"not an event"', b"NaN")
    assert len(raw_page(nan).items) == 3 and page.next_page_id is None


class _TypedOnly:
    """The same client without its raw reader: the walk types every page."""

    def __init__(self, client) -> None:
        self._client = client

    def __getattr__(self, name):
        if name == "search_events_raw":
            raise AttributeError(name)
        return getattr(self._client, name)


async def test_a_servers_conversations_the_same_either_way(make_server):
    store = Store()
    names = load_demo(store)
    server = make_server(store)
    async with OpenHandsClient(server.base_url) as client:
        for cid in sorted(set(names.values()))[:6]:
            raw = await collect_insights(client, cid)
            typed = await collect_insights(_TypedOnly(client), cid)
            assert raw.events > 0 and to_json(raw) == to_json(typed)
