"""The client's one page walk and its one guard (``tui/client/paging.py``), wherever a walk
runs: a page sent twice under a fresh next id stops an export's and the insights' walk
with each event read once, endless empty pages stop any walk, an agent server's filtered
count stops on a cursor that loops. A server that ignores page ids but names fresh ones
cannot be made with the reference server (its next id follows from the page), so these
servers are mock transports."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.helpers.samples import SAMPLES
from tui.client import OpenHandsClient, PageLoopError
from tui.client.paging import MAX_EMPTY_PAGES, PageTrail, PageWalk, event_mark
from tui.export import export_conversation
from tui.insights.load import InsightsWalk

BASE = "http://paging.test"


def _event(i: int) -> dict[str, Any]:
    return {
        "id": f"ev-{i:03d}",
        "timestamp": f"2026-01-01T00:00:{i:02d}",
        "source": "user",
        "kind": "PauseEvent",
    }


def _client(answer: Callable[[httpx.Request], Any], **options: Any) -> OpenHandsClient:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=answer(request))

    options.setdefault("server_kind", "app")
    return OpenHandsClient(BASE, transport=httpx.MockTransport(handler), backoff=0, **options)


def _same_page_fresh_ids() -> tuple[Callable[[httpx.Request], Any], list[str | None]]:
    """A server that ignores ``page_id``: the first page, each time under a new next id."""
    asked: list[str | None] = []

    def answer(request: httpx.Request) -> Any:
        asked.append(request.url.params.get("page_id"))
        return {"items": [_event(i) for i in range(3)], "next_page_id": f"n{len(asked)}"}

    return answer, asked


async def test_an_export_stops_at_a_page_sent_again_under_a_fresh_id_writing_each_event_once():
    answer, asked = _same_page_fresh_ids()
    out: list[str] = []
    async with _client(answer) as client:
        with pytest.raises(PageLoopError, match="sent a page it had sent before") as info:
            await export_conversation(client, "c1", out.append, fmt="jsonl", shared=True)
    assert asked == [None, "n1"]  # stopped at the second page, not walked for ever
    assert info.value.page_id == "n1" and info.value.method == "GET"
    lines = "".join(out).splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["ev-000", "ev-001", "ev-002"]


async def test_the_insights_walk_stops_at_a_page_sent_again_and_counts_it_once():
    answer, asked = _same_page_fresh_ids()
    async with _client(answer) as client:
        walk = InsightsWalk(client, "c1")
        assert await walk.step() == 3
        with pytest.raises(PageLoopError, match="sent a page it had sent before"):
            await walk.step()
    assert asked == [None, "n1"] and walk.read == 3 and not walk.done
    assert walk.page_id == "n1"  # where it was: the page that failed is the one asked again


async def test_endless_empty_pages_stop_the_insights_walk_too():
    asked: list[str | None] = []

    def answer(request: httpx.Request) -> Any:
        asked.append(request.url.params.get("page_id"))
        return {"items": [], "next_page_id": f"n{len(asked)}"}

    async with _client(answer) as client:
        walk = InsightsWalk(client, "c1")
        with pytest.raises(PageLoopError, match="empty pages"):
            while not walk.done:
                await walk.step()
    assert len(asked) == MAX_EMPTY_PAGES


async def test_an_agent_servers_filtered_count_stops_on_a_cursor_that_loops():
    """The count walks the search itself (an agent server has no filters): each search
    call comes back full with the next id; ids that cycle a → b → a stopped it nowhere."""
    sample = json.loads(
        (SAMPLES / "agent-server-capture/rest/conversations_search.json").read_text()
    )
    record = {**sample["items"][0], "title": "THE one"}
    cycle = {None: "a", "a": "b", "b": "a"}
    asked: list[str | None] = []

    def answer(request: httpx.Request) -> Any:
        page_id = request.url.params.get("page_id")
        asked.append(page_id)
        limit = int(request.url.params["limit"])
        return {"items": [record] * limit, "next_page_id": cycle[page_id]}

    async with _client(answer, server_kind="agent") as client:
        with pytest.raises(PageLoopError, match="repeats an earlier one"):
            await client.count_conversations(title_contains="THE")
    assert asked == [None, "a", "b"]


def test_the_guard_counts_empty_pages_in_a_row_and_forgets_nothing_it_should_not():
    trail = PageTrail(event_mark)
    trail.check(None, "p1", [_event(0)])
    for n in range(MAX_EMPTY_PAGES - 1):  # one short of the bound, then a full page
        trail.check(f"p{n + 1}", f"p{n + 2}", [])
    trail.check(f"p{MAX_EMPTY_PAGES}", "q", [_event(1)])  # the run is broken: no error
    with pytest.raises(PageLoopError):  # and what was followed is still known
        trail.check("q", "p3", [_event(2)])


def test_a_page_that_raises_is_not_remembered():
    """A page the walk refused (it leads back) is asked again by the same walk after the
    user says so: it is judged the same way again, not as a repeat of itself."""
    trail = PageTrail(event_mark)
    trail.check(None, "p1", [_event(0), _event(1)])
    for _ in range(2):
        with pytest.raises(PageLoopError, match="repeats an earlier one"):
            trail.check("p1", "p1", [_event(2), _event(3)])
    trail.check("p1", None, [_event(2), _event(3)])  # the server mended: the last page


def test_a_walk_moves_on_only_past_a_page_it_took():
    walk = PageWalk()
    walk.arrived([_event(0)])
    walk.moved("p1", [_event(0)])
    assert (walk.page_id, walk.pages, walk.done) == ("p1", 1, False)
    with pytest.raises(PageLoopError):
        walk.moved("p1", [_event(1)])
    assert (walk.page_id, walk.pages) == ("p1", 1)  # still on the page that failed
    walk.moved(None, [_event(1)])
    assert walk.done and walk.pages == 2
