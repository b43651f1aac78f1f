"""The index's pages read in the helper process (tui/app/helper/page_worker.py, page_pipeline.py):
the same rows and events as read in-line, bad events kept raw, nothing lost when the helper
dies, and no helper left behind by the process that started it."""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import signal
import subprocess
import sys

import pytest

from tests.helpers.app_helpers import poll, wait_for
from tests.helpers.samples import event_files
from tui.app.helper.page_worker import MODULE, PageBody, event_stats, row_from
from tui.app.store.conversation_events import ConversationEvents
from tui.app.store.rows import make_row
from tui.client import OpenHandsClient
from tui.client.page_fetch import guess_next_page
from tui.client.process_worker import ProcessWorker, answer
from tui.models import event_json
from tui.models.pages import EventPage
from tui.models.parse import BAD_BYTES, INVALID, UNKNOWN_KIND
from tui.server import Store
from tui.server.demo import generate_conversation


@pytest.fixture(scope="module")
def helper():
    worker = ProcessWorker(MODULE)
    worker.start()
    yield worker
    worker.close()


def _same(event) -> str:
    """An event's content, comparable across copies (NaN is never equal to itself)."""
    return json.dumps(event_json(event), sort_keys=True, default=repr) + type(event).__name__


def _check_page(body: bytes, parsed) -> int:
    events = EventPage.from_bytes(body).items
    assert [row_from(args).args() for args in parsed.rows] == [
        make_row(event).args() for event in events
    ]
    page = PageBody(body)
    assert [_same(page.event(i)) for i in range(len(events))] == [_same(e) for e in events]
    for index, blob in parsed.needed.items():
        assert _same(pickle.loads(blob)) == _same(events[index])
    assert parsed.stats == {i: s for i, e in enumerate(events) if (s := event_stats(e))}
    return len(events)


def test_rows_from_the_helper_equal_rows_made_in_line_over_every_sample(helper):
    bodies = {
        name: json.dumps({"items": items, "next_page_id": None}).encode()
        for name, items in event_files().items()
    }
    answers = {name: helper.submit(body) for name, body in bodies.items()}
    checked = sum(_check_page(bodies[name], answers[name].result(60)) for name in bodies)
    assert checked > 300 and helper.usable


def test_an_unparsable_event_in_a_page_is_kept_raw_with_its_reason(helper):
    good = {
        "id": "m1",
        "kind": "MessageEvent",
        "source": "user",
        "timestamp": "2026-01-01T00:00:00",
    }
    body = b"".join(
        [
            b'{"items":[',
            json.dumps({**good, "llm_message": {"role": "user", "content": []}}).encode(),
            b',{"id":"x1","kind":"ActionEvent","bogus":1},',
            b'{"id":"u1","kind":"NewerKind","what":"x"},',
            b'{"id":"b1","kind":"MessageEvent","text":"\xff\xfe"},',
            json.dumps(
                {**good, "id": "m2", "llm_message": {"role": "user", "content": []}}
            ).encode(),
            b'],"next_page_id":"p2"}',
        ]
    )
    parsed = helper.submit(body).result(60)
    assert _check_page(body, parsed) == 5 and parsed.next_page_id == "p2"
    rows = [row_from(args) for args in parsed.rows]
    assert [row.id for row in rows] == ["m1", "x1", "u1", "b1", "m2"]  # one bad hides none
    assert [row.flag == "raw" for row in rows] == [False, True, False, True, False]
    page = PageBody(body)
    assert [page.event(i).reason for i in (1, 2, 3)] == [INVALID, UNKNOWN_KIND, BAD_BYTES]


def test_a_body_that_is_not_a_page_is_answered_as_a_failure_not_a_dead_helper(helper):
    with pytest.raises(RuntimeError, match="NotJSON|NotAnEventPage|ValueError"):
        helper.submit(b'{"items": [').result(60)
    assert helper.usable


def test_the_next_page_is_guessed_from_the_tail_of_a_body():
    assert guess_next_page(b'{"items":[],"next_page_id":"abc"}') == "abc"
    assert guess_next_page(b'{"items":[], "next_page_id" : null}') is None
    assert guess_next_page(b'{"items":[{"next_page_id":"inner"}]}') == "inner"  # checked later
    assert guess_next_page(b'{"items":[]}') is None


async def _walk(events: ConversationEvents) -> None:
    await events.open_window(events.base.query)
    while not events.base.complete:
        await events.index_page()


async def test_the_index_read_by_the_helper_equals_in_line_and_survives_its_death(make_server):
    store = Store()
    cid = generate_conversation(store, 1_500, seed=5)
    server = make_server(store)
    client = OpenHandsClient(server.base_url)
    try:
        in_line = ConversationEvents(client, cid)
        await _walk(in_line)

        helped = ConversationEvents(client, cid)
        worker = helped.pipeline.worker = ProcessWorker(MODULE)
        helped.pipeline.min_events = 0
        helped.pipeline.depth = 2
        await helped.open_window(helped.base.query)
        helped.pipeline.wanted(0)  # starts it
        await wait_for(lambda: worker.usable)
        while not helped.base.complete:
            await helped.index_page()
            if helped.pipeline.helped == 3 and worker.usable:
                os.kill(worker.pid, signal.SIGKILL)  # mid-walk: pages on their way fall back
        assert 3 <= helped.pipeline.helped < len(helped.base.head) // 100 and worker.broken
        assert [r.args() for r in helped.base.head] == [r.args() for r in in_line.base.head]
        assert helped.newest_stats == in_line.newest_stats
        assert helped.actions.risks == in_line.actions.risks
        for row in helped.base.head[::97]:  # the detail: from the cache, the same event
            mine, theirs = await helped.event(row), await in_line.event(row)
            assert mine is not None and _same(mine) == _same(theirs)
        worker.close()
    finally:
        await client.aclose()


_PARENT = """
import sys
from tui.app.helper.page_worker import MODULE
from tui.client.process_worker import shared_worker
worker = shared_worker(MODULE)
worker.start()
assert worker.submit(b'{"items": [], "next_page_id": null}').result(60).rows == []
print(worker.pid, flush=True)
sys.stdin.read()
"""


def _running(pid: int) -> bool:
    """The process exists and is not a zombie (a zombie has exited)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("ending", ["quits", "is killed"])
def test_no_helper_outlives_the_process_that_started_it(ending):
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    pid = int(parent.stdout.readline())
    assert _running(pid)
    if ending == "quits":
        parent.stdin.close()  # its app is done: the interpreter exits
    else:
        parent.kill()
    parent.wait(30)
    poll(lambda: not _running(pid))


def test_the_helper_imports_no_textual():
    code = "import sys, tui.app.helper.page_worker; print(sorted(m for m in sys.modules if 'textual' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


async def test_a_reader_that_stops_waiting_leaves_the_helper_answering(helper):
    body = b'{"items": [], "next_page_id": null}'
    gone = asyncio.ensure_future(answer(helper.submit(body)))
    gone.cancel()  # the screen closed while its page was being read
    with pytest.raises(asyncio.CancelledError):
        await gone
    assert (await answer(helper.submit(body))).rows == [] and helper.usable


async def test_the_shared_helper_stops_once_the_index_is_whole(make_server):
    """Its ~50 MB go back once the walk is done; a later walk starts a fresh helper."""
    store = Store()
    cid = generate_conversation(store, 600, seed=7)
    server = make_server(store)
    client = OpenHandsClient(server.base_url)
    try:
        events = ConversationEvents(client, cid)
        events.pipeline.min_events = 0
        await events.open_window(events.base.query)
        events.pipeline.wanted(0)  # starts the shared one
        worker = events.pipeline.worker
        await wait_for(lambda: worker.usable)
        pid = worker.pid
        while not events.base.complete:
            await events.index_page()
        assert events.pipeline.helped >= 1
        await wait_for(lambda: not _running(pid))
        assert events.pipeline.helper is not worker
    finally:
        await client.aclose()
