"""Every answer's body is read within a bound, as sent and as unpacked (issue 32 finding 3).

A megabyte of gzip once unpacked to gigabytes in the app, and a body that never ended grew
until the call's deadline. The client now stops at ``max_body`` bytes (64 MiB unless told
otherwise) of either, says so in words (:class:`ResponseTooLarge`: how large, and the
bound), and does not ask again: the same answer would come (a page of several events is
asked again for fewer, ``test_fewer_events.py``; here pages of one event, that cannot be). Error answers are read only as
far as their words need. A loopback server sends what the reference server never would:
a gzip bomb declared as a JSON page, a chunked body without end, a Content-Length of
gigabytes. The assertions count the bytes the client read and unpacked, never memory or time.
"""

from __future__ import annotations

import gzip
import zlib

import pytest

from tests.helpers.app_helpers import SIZE, first_rows_shown, make_app, push_conversation, wait_for
from tests.helpers.scripted_http import Answer, ScriptedHttpServer, Seen
from tui.app.screens.conversation.waiting import short_reason
from tui.app.widgets.conversation.event_list import EventList
from tui.client import (
    BadResponse,
    InvalidParameter,
    OpenHandsClient,
    ResponseTooLarge,
    ServerError,
    is_retryable,
)
from tui.client.sizes import MAX_BODY, Unpacker
from tui.failures import explain
from tui.server import Store
from tui.server.demo import generate_conversation

MIB = 1024 * 1024
PAGE = b'{"items": [], "next_page_id": null}'


def bomb(unpacked: int) -> bytes:
    """``unpacked`` zero bytes as gzip (a thousandth of the size), made a MiB at a time."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    zeros = bytes(MIB)
    parts = [packer.compress(zeros) for _ in range(unpacked // MIB)]
    return b"".join(parts) + packer.flush()


def client_for(server: ScriptedHttpServer, **options) -> OpenHandsClient:
    options.setdefault("max_retries", 3)
    return OpenHandsClient(server.base_url, server_kind="app", backoff=0, **options)


def always(answer: Answer):
    return lambda seen: answer


async def test_a_gzip_bomb_is_stopped_at_the_bound_and_said() -> None:
    body = bomb(16 * MIB)
    assert len(body) < 64 * 1024
    answer = Answer(body=body, headers={"content-encoding": "gzip"})
    with ScriptedHttpServer(always(answer)) as server:
        async with client_for(server, max_body=MIB) as client:
            with pytest.raises(ResponseTooLarge) as caught:
                await client.search_events("c1", limit=1)
    error = caught.value
    assert error.unpacked <= MIB  # never more than the bound was unpacked
    assert error.read <= len(body)
    words = str(error)
    assert "the answer is too large to read" in words
    assert "sent compressed, unpacking to more than 1.0 MB" in words
    assert "the client reads at most 1.0 MB" in words
    assert len(server.seen) == 1  # not asked again as if it were a page cut off
    assert not is_retryable(error)
    assert explain(error).title == "the server's answer is too large to read"


async def test_a_body_without_end_is_stopped_at_the_bound() -> None:
    answer = Answer(endless=b"x" * 65536)
    with ScriptedHttpServer(always(answer)) as server:
        async with client_for(server, max_body=MIB) as client:
            with pytest.raises(ResponseTooLarge) as caught:
                await client.search_events("c1", limit=1)
    error = caught.value
    assert MIB < error.read <= MIB + 128 * 1024  # it stopped just past the bound
    assert error.unpacked <= MIB
    assert "more than 1.0 MB sent" in str(error)
    assert len(server.seen) == 1


async def test_a_length_over_the_bound_is_refused_before_a_byte_is_read() -> None:
    answer = Answer(body=PAGE, declared_length=10 * 1024 * MIB)
    with ScriptedHttpServer(always(answer)) as server:
        async with client_for(server) as client:
            with pytest.raises(ResponseTooLarge) as caught:
                await client.search_events("c1", limit=1)
    error = caught.value
    assert error.size == 10 * 1024 * MIB and error.read == 0 and error.limit == MAX_BODY
    assert "the server announced 10.0 GB; the client reads at most 64.0 MB" in str(error)
    assert len(server.seen) == 1


async def test_a_page_within_the_bound_is_read_whole_gzip_or_deflate() -> None:
    answers = [
        Answer(body=gzip.compress(PAGE), headers={"content-encoding": "gzip"}),
        Answer(body=zlib.compress(PAGE), headers={"content-encoding": "deflate"}),
        Answer(body=PAGE),
    ]

    def script(seen: Seen) -> Answer:
        return answers[len(server.seen) - 1]

    with ScriptedHttpServer(script) as server:
        bound = max(len(answer.body) for answer in answers)  # the largest: exactly at it
        async with client_for(server, max_body=bound) as client:
            for _ in answers:
                page = await client.search_events("c1")
                assert page.items == [] and page.next_page_id is None


async def test_a_body_that_is_not_its_encoding_is_said_undecodable() -> None:
    answer = Answer(body=PAGE, headers={"content-encoding": "gzip"})
    with ScriptedHttpServer(always(answer)) as server:
        async with client_for(server) as client:
            with pytest.raises(BadResponse, match="undecodable response body"):
                await client.search_events("c1")
    assert len(server.seen) == 1  # the same bytes would come again


async def test_an_error_answer_is_read_only_as_far_as_its_words() -> None:
    answer = Answer(status=500, endless=b"z" * 65536)
    with ScriptedHttpServer(always(answer)) as server:
        async with client_for(server, max_retries=1) as client:
            with pytest.raises(ServerError) as caught:
                await client.search_events("c1")
    assert caught.value.status == 500
    assert len(server.seen) == 2  # a 5xx of a read is repeated as ever
    assert "zzzz" in str(caught.value)


def test_the_bound_is_the_clients_to_set() -> None:
    assert OpenHandsClient("http://127.0.0.1:9")._http.max_body == 64 * MIB == MAX_BODY
    assert OpenHandsClient("http://127.0.0.1:9", max_body=5)._http.max_body == 5
    for wrong in (0, -1, 1.5, True, "1"):
        with pytest.raises(InvalidParameter):
            OpenHandsClient("http://127.0.0.1:9", max_body=wrong)


# --- the unpacker both readers share ---------------------------------------------------------


@pytest.mark.parametrize("pieces", [1, 7, 4096])
def test_the_unpacker_never_gives_back_more_than_its_bound(pieces: int) -> None:
    body = bomb(8 * MIB)
    unpacker = Unpacker("gzip", MIB)
    step = max(1, len(body) // pieces)
    given = 0
    for at in range(0, len(body), step):
        given += len(unpacker.feed(body[at : at + step]))
        assert given <= MIB
        if unpacker.over:
            break
    assert unpacker.over and given == MIB


@pytest.mark.parametrize(
    ("encoding", "packed"),
    [
        ("gzip", gzip.compress(PAGE, mtime=0)),  # mtime: the same bytes in every worker
        ("x-gzip", gzip.compress(PAGE, mtime=0)),
        ("deflate", zlib.compress(PAGE)),
        ("deflate", zlib.compress(PAGE, wbits=-zlib.MAX_WBITS)),  # without its zlib header
        ("", PAGE),
        ("identity", PAGE),
    ],
    # xdist's workers must collect the same ids: never bytes that depend on the clock
    ids=["gzip", "x-gzip", "deflate", "raw-deflate", "plain", "identity"],
)
def test_the_unpacker_reads_what_servers_send(encoding: str, packed: bytes) -> None:
    unpacker = Unpacker(encoding, len(PAGE))
    assert unpacker.feed(packed) == PAGE and not unpacker.over
    unpacker.end()


def test_the_unpacker_says_what_it_cannot_read() -> None:
    with pytest.raises(ValueError, match="'br' not understood"):
        Unpacker("br", MIB)
    cut = Unpacker("gzip", MIB)
    cut.feed(gzip.compress(PAGE)[:-8])
    with pytest.raises(ValueError, match="cut off"):
        cut.end()
    with pytest.raises(ValueError, match="not the encoding"):
        Unpacker("gzip", MIB).feed(PAGE)
    with pytest.raises(ValueError, match="not the encoding"):  # raw deflate is not gzip
        Unpacker("gzip", MIB).feed(zlib.compress(PAGE, wbits=-zlib.MAX_WBITS))
    with pytest.raises(ValueError, match="not the encoding"):
        Unpacker("deflate", MIB).feed(PAGE)
    empty = Unpacker("gzip", MIB)  # a 204 or a HEAD: nothing to unpack, nothing cut off
    assert empty.feed(b"") == b""
    empty.end()


# --- what the app shows ------------------------------------------------------------------------


def _search(cid: str) -> str:
    return f"/api/v1/conversation/{cid}/events/search"


async def test_the_conversation_screen_says_the_answer_is_too_large(make_server) -> None:
    """The reference server answers the events with a gzip bomb (65 MiB of zeros as 65 KB):
    the screen says so where the events would be, with ``r`` to try again."""
    store = Store()
    cid = generate_conversation(store, 30, seed=3)
    server = make_server(store)
    server.app.state.faults.add(
        "status",
        _search(cid),
        times=-1,
        status=200,
        body=bomb(MAX_BODY + MIB),
        headers={"content-encoding": "gzip"},
    )
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, cid)
        await wait_for(lambda: screen.load_failure is not None, pilot=pilot)
        said = screen.query_one(EventList).empty_text
        assert said.startswith("Could not load the events: the server's answer is too large")
        assert "sent compressed, unpacking to more than 64.0 MB" in said
        assert "r: try again" in said
        assert isinstance(screen.load_failure, ResponseTooLarge)
        assert short_reason(screen.load_failure) == "answer too large"
        hits = server.app.state.faults.hits["status"]
        server.app.state.faults.clear()
        await pilot.press("r")
        await wait_for(lambda: first_rows_shown(screen), pilot=pilot)
        assert screen.load_failure is None and server.app.state.faults.hits["status"] == hits
