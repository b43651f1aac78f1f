"""The helper's lean HTTP/1.1 (tui/client/page_fetch.py ``PageFetcher``) against answers the
reference server never gives: chunked bodies, a body ended by the server closing, gzip,
HTTP/1.0, a kept-alive connection closed between pages, and what is not HTTP at all. A
small server on a real loopback socket sends each canned answer in turn. And the thread
that fetches pages ahead of their reader (``PagesAhead``): guessed pages, a page that was
not the guess, a failed page."""

from __future__ import annotations

import gzip
import json
import socket
import threading
from collections.abc import Iterator

import pytest

from tui.client.page_fetch import PageFetcher, PageRefused, PagesAhead, page_request

PAGE = b'{"items": [], "next_page_id": null}'


class Canned:
    """Answers each request with the next canned bytes; ``close`` after an answer ends
    that connection. Records every request's head."""

    def __init__(self, answers: list[tuple[bytes, bool]]) -> None:
        self.answers = list(answers)
        self.heads: list[bytes] = []
        self.connections = 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.answers:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                data = b""
                while self.answers:
                    while b"\r\n\r\n" not in data:
                        more = conn.recv(65536)
                        if not more:
                            break
                        data += more
                    if b"\r\n\r\n" not in data:
                        break
                    head, data = data.split(b"\r\n\r\n", 1)
                    self.heads.append(head)
                    answer, close = self.answers.pop(0)
                    conn.sendall(answer)
                    if close:
                        break

    def fetcher(self, headers: dict[str, str] | None = None) -> PageFetcher:
        request = page_request(
            f"http://127.0.0.1:{self.port}", "/events", {"limit": 5}, headers or {}, 5.0
        )
        return PageFetcher(request)

    def stop(self) -> None:
        self.sock.close()


@pytest.fixture
def canned() -> Iterator:
    servers: list[Canned] = []

    def make(*answers: tuple[bytes, bool]) -> Canned:
        servers.append(Canned(list(answers)))
        return servers[-1]

    yield make
    for server in servers:
        server.stop()


def _sized(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    extra = "".join(f"{h}\r\n" for h in headers)
    return f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n{extra}\r\n".encode() + body


def test_pages_on_one_kept_alive_connection_with_the_request_as_built(canned):
    server = canned((_sized(PAGE), False), (_sized(PAGE, "Content-Type: x"), False))
    fetcher = server.fetcher({"X-Session-API-Key": "k"})
    assert fetcher.fetch(None) == PAGE and fetcher.fetch("p2") == PAGE
    fetcher.close()
    assert server.connections == 1
    first, second = (head.decode().split("\r\n") for head in server.heads)
    assert first[0] == "GET /events?limit=5 HTTP/1.1"
    assert second[0] == "GET /events?limit=5&page_id=p2 HTTP/1.1"
    assert f"Host: 127.0.0.1:{server.port}" in first and "X-Session-API-Key: k" in first


def test_a_chunked_body_with_extensions_and_trailers_is_joined(canned):
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;x=y\r\n" + PAGE[:5] + b"\r\n"
        + f"{len(PAGE) - 5:x}\r\n".encode() + PAGE[5:] + b"\r\n"
        b"0\r\nX-Trailer: t\r\n\r\n"
    )  # fmt: skip
    server = canned((chunked, False), (_sized(PAGE), False))
    fetcher = server.fetcher()
    assert fetcher.fetch(None) == PAGE and fetcher.fetch("p") == PAGE  # nothing left over
    fetcher.close()
    assert server.connections == 1


def test_a_body_ended_by_the_server_closing_and_http_1_0(canned):
    server = canned(
        (b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + PAGE, True),
        (b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % len(PAGE) + PAGE, True),
        (_sized(PAGE), False),
    )
    fetcher = server.fetcher()
    assert [fetcher.fetch(None) for _ in range(3)] == [PAGE] * 3
    fetcher.close()
    assert server.connections == 3  # each closing answer: a new connection for the next


def test_a_gzipped_body_is_decoded(canned):
    server = canned((_sized(gzip.compress(PAGE), "Content-Encoding: gzip"), False))
    fetcher = server.fetcher()
    assert fetcher.fetch(None) == PAGE
    fetcher.close()


def test_a_kept_alive_connection_closed_between_pages_is_opened_again_once(canned):
    server = canned((_sized(PAGE), True), (_sized(PAGE), False))
    fetcher = server.fetcher()
    assert fetcher.fetch(None) == PAGE  # the server ends this connection without a word
    assert fetcher.fetch("p") == PAGE
    fetcher.close()
    assert server.connections == 2


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (_sized(b"busy", status="503 Service Unavailable"), "status 503"),
        (b"SSH-2.0-OpenSSH\r\n\r\n", "not an HTTP"),
        (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "malformed header"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n", "Content-Length"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "transfer encoding"),
        (_sized(b"x", "Content-Encoding: br"), "content encoding"),
    ],
)
def test_what_is_not_a_page_answer_is_refused(canned, answer, said):
    server = canned((answer, True))
    fetcher = server.fetcher()
    with pytest.raises(PageRefused, match=said):
        fetcher.fetch(None)
    fetcher.close()


def test_a_first_connection_that_closes_unanswered_is_an_error_not_a_retry(canned):
    server = canned((b"", True))
    fetcher = server.fetcher()
    with pytest.raises(ConnectionError):
        fetcher.fetch(None)
    fetcher.close()


class ByPage(Canned):
    """Answers each request with the page its ``page_id`` names (every connection kept)."""

    def __init__(self, pages: dict[str | None, bytes]) -> None:
        self.pages = pages
        super().__init__([(b"", False)] * 1000)

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            data = b""
            while True:
                while b"\r\n\r\n" not in data:
                    more = conn.recv(65536)
                    if not more:
                        return
                    data += more
                head, data = data.split(b"\r\n\r\n", 1)
                self.heads.append(head)
                target = head.split(b" ")[1].decode()
                page = target.partition("page_id=")[2] or None
                body = self.pages.get(page)
                conn.sendall(_sized(body) if body is not None else _sized(b"", status="404 No"))


def _page(next_id: str | None) -> bytes:
    return json.dumps({"items": [], "next_page_id": next_id}).encode()


def _asked(server: Canned) -> list[str | None]:
    return [h.split(b" ")[1].decode().partition("page_id=")[2] or None for h in server.heads]


def test_pages_ahead_fetches_each_guessed_next_page_before_it_is_asked_for():
    pages = {None: _page("b"), "b": _page("c"), "c": _page(None)}
    server = ByPage(pages)
    try:
        ahead = PagesAhead(server.fetcher().request)
        assert ahead.get(None) == pages[None]
        assert ahead.get("b") == pages["b"] and ahead.get("c") == pages["c"]
        ahead.stop()
        assert _asked(server) == [None, "b", "c"] and server.connections == 1
    finally:
        server.stop()


def test_pages_ahead_starts_again_from_a_page_that_was_not_the_guess():
    pages = {None: _page("b"), "b": _page(None), "x": _page(None)}
    server = ByPage(pages)
    try:
        ahead = PagesAhead(server.fetcher().request)
        assert ahead.get(None) == pages[None]
        assert ahead.get("x") == pages["x"]  # the page said "x" (an event held the key)
        assert ahead.get("b") == pages["b"]  # and back: fetched again if it was dropped
        ahead.stop()
        assert _asked(server)[0] is None and "x" in _asked(server)
    finally:
        server.stop()


def test_pages_ahead_raises_a_failed_fetch_for_that_page_and_goes_on_after():
    pages = {None: _page("gone"), "b": _page(None)}
    server = ByPage(pages)
    try:
        ahead = PagesAhead(server.fetcher().request)
        assert ahead.get(None) == pages[None]
        with pytest.raises(PageRefused, match="404"):
            ahead.get("gone")
        assert ahead.get("b") == pages["b"]
        ahead.stop()
    finally:
        server.stop()
