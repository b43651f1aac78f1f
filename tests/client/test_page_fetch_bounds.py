"""The index helper's fetcher (``page_fetch.PageFetcher``) reads a page within the client's
bound too (issue 32 finding 3): a Content-Length over it is refused before the body is
read, a chunked or close-ended body stops just past it, and gzip or deflate unpacks to no
more than it (the client's ``sizes.Unpacker``). Over it the fetcher says ``PageRefused``
and the index asks again the ordinary way, whose error says it in words
(``test_body_bounds.py``). Counted: the bytes the fetcher took off the socket."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator

import pytest

from tests.client.test_body_bounds import bomb
from tests.client.test_page_fetch_wire import PAGE, Canned, _sized
from tui.client.page_fetch import PageFetcher, PageRefused, page_request

BOUND = 4096
LARGE = b"x" * (64 * 1024)  # sixteen times the bound: it all fits the socket's buffers


@pytest.fixture
def canned() -> Iterator:
    """``canned(*answers)``: a loopback server answering them in turn (see the wire tests)."""
    servers: list[Canned] = []

    def make(*answers: tuple[bytes, bool]) -> Canned:
        servers.append(Canned(list(answers)))
        return servers[-1]

    yield make
    for server in servers:
        server.stop()


class Counting(PageFetcher):
    """A fetcher that counts the bytes it received."""

    received = 0

    def _more(self) -> None:
        before = len(self._buffer)
        super()._more()
        self.received += len(self._buffer) - before


def bounded(server: Canned, bound: int = BOUND) -> Counting:
    request = page_request(
        f"http://127.0.0.1:{server.port}", "/events", {}, {}, 5.0, max_body=bound
    )
    assert request is not None and request.max_body == bound
    return Counting(request)


def test_a_length_over_the_bound_is_refused_before_the_body(canned):
    head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % (10 * 1024**3)
    fetcher = bounded(canned((head + LARGE, False)))
    with pytest.raises(PageRefused, match="a body over 4096 bytes"):
        fetcher.fetch(None)
    fetcher.close()


def test_a_chunked_body_stops_just_past_the_bound(canned):
    chunks = b"".join(b"400\r\n" + LARGE[:1024] + b"\r\n" for _ in range(64))  # no end
    fetcher = bounded(
        canned((b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks, False))
    )
    with pytest.raises(PageRefused, match="a body over 4096 bytes"):
        fetcher.fetch(None)
    assert fetcher.received <= 65536  # one read of the socket: it stopped there
    fetcher.close()


def test_a_chunk_size_line_without_end_is_refused(canned):
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    fetcher = bounded(canned((head + b"1" * (256 * 1024), False)))
    with pytest.raises(PageRefused, match="a chunk size line without an end"):
        fetcher.fetch(None)
    assert fetcher.received <= PageFetcher.max_head + 2 * 65536
    fetcher.close()


def test_a_body_ended_by_closing_stops_just_past_the_bound(canned):
    fetcher = bounded(canned((b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + LARGE, False)))
    with pytest.raises(PageRefused, match="a body over 4096 bytes"):
        fetcher.fetch(None)
    assert fetcher.received <= 65536
    fetcher.close()


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_compression_bomb_unpacks_to_no_more_than_the_bound(canned, encoding):
    if encoding == "gzip":
        body = bomb(8 * 1024 * 1024)
    else:
        body = zlib.compress(bytes(8 * 1024 * 1024), 9)
    fetcher = bounded(canned((_sized(body, f"Content-Encoding: {encoding}"), False)), 1024 * 1024)
    with pytest.raises(PageRefused, match="unpacking to over 1048576 bytes"):
        fetcher.fetch(None)
    fetcher.close()


def test_a_page_exactly_at_the_bound_is_read(canned):
    packed = gzip.compress(PAGE)
    server = canned((_sized(packed, "Content-Encoding: gzip"), False), (_sized(PAGE), False))
    fetcher = bounded(server, max(len(packed), len(PAGE)))
    assert fetcher.fetch(None) == PAGE and fetcher.fetch("p") == PAGE
    fetcher.close()


def test_a_cut_off_or_false_gzip_body_is_refused(canned):
    server = canned(
        (_sized(gzip.compress(PAGE)[:-8], "Content-Encoding: gzip"), False),
        (_sized(PAGE, "Content-Encoding: gzip"), False),
    )
    fetcher = bounded(server)
    with pytest.raises(PageRefused, match="cut off"):
        fetcher.fetch(None)
    with pytest.raises(PageRefused, match="not the encoding"):
        fetcher.fetch("p")
    fetcher.close()
