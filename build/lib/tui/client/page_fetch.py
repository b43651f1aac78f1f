"""Event pages fetched by a helper process with a lean keep-alive HTTP client.

Why: walking a long conversation's index is a thousand GETs; through httpx and anyio each
costs the UI's loop ~1.2–1.5 ms of Python, as much as reading the page. The index's helper
process (``tui.app.helper.page_worker``) therefore fetches the pages itself, with ``http.client``
on one kept-alive connection (~3× cheaper a request), while the UI only takes rows in.

The client builds the request (:meth:`EventCalls.search_events_request`): route, query and
the keys it must carry, for one server kind already known. :class:`PageRequest` crosses to
the helper over its stdin pipe (never its command line); its repr never shows the headers.
:class:`PageFetcher` speaks HTTP/1.1 only as far as a page needs: a 200 with a body (plain
or gzip/deflate); anything else raises :class:`PageRefused` and the caller asks again the
ordinary way, whose error says what happened (outages, limits, authentication).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import urllib.parse
import urllib.request
from collections import deque
from typing import Any, NamedTuple

from .sizes import MAX_BODY, Unpacker

_KEY = b'"next_page_id"'
_DECODER = json.JSONDecoder()


class PageRefused(OSError):
    """The server did not answer with a page (status, encoding, a dropped connection)."""


class PageRequest(NamedTuple):
    """One search's pages, all but the page id: what the helper needs to fetch them."""

    scheme: str
    host: str
    port: int
    path: str  # the route, with any prefix of the base URL
    query: tuple[tuple[str, str], ...]  # without page_id
    headers: tuple[tuple[str, str], ...]  # the keys among them: never shown
    timeout: float  # each read
    deadline: float  # a page in all (its waits included)
    max_body: int = MAX_BODY  # the most bytes a page may take, sent or unpacked

    def __repr__(self) -> str:
        return f"PageRequest({self.scheme}://{self.host}:{self.port}{self.path}, headers hidden)"

    def target(self, page_id: str | None) -> str:
        """The request line's target for one page."""
        query = list(self.query) + ([("page_id", page_id)] if page_id else [])
        return f"{self.path}?{urllib.parse.urlencode(query)}"


def page_request(
    base_url: str,
    path: str,
    query: dict[str, Any],
    headers: dict[str, str],
    timeout: float,
    deadline: float | None = None,
    max_body: int = MAX_BODY,
) -> PageRequest | None:
    """The request for ``path`` under ``base_url``; None where the lean client would not
    reach the server the way httpx does (a proxy from the environment, another scheme)."""
    url = urllib.parse.urlsplit(base_url)
    if url.scheme not in ("http", "https") or not url.hostname:
        return None
    proxies = urllib.request.getproxies_environment()
    if (proxies.get(url.scheme) or proxies.get("all")) and not (
        urllib.request.proxy_bypass_environment(url.hostname, proxies)
    ):
        return None
    from .http import DEADLINE_FACTOR  # here: the helper fetches pages without httpx

    port = url.port or (443 if url.scheme == "https" else 80)
    query = {k: v for k, v in query.items() if k != "page_id" and v is not None}
    return PageRequest(
        url.scheme,
        url.hostname,
        port,
        url.path.rstrip("/") + path,
        tuple((k, str(v)) for k, v in query.items()),
        tuple(headers.items()),
        timeout,
        deadline or DEADLINE_FACTOR * timeout,
        max_body,
    )


def guess_next_page(body: bytes) -> str | None:
    """The page id a page's body ends with, cheaply (no parsing of its events); None when
    there is none or it cannot tell. A guess: a hostile event can hold the same key."""
    at = body.rfind(_KEY)
    if at < 0:
        return None
    tail = body[at + len(_KEY) : at + len(_KEY) + 4096].lstrip()
    if not tail.startswith(b":"):
        return None
    try:
        value, _ = _DECODER.raw_decode(tail[1:].decode("utf-8").lstrip())
    except ValueError:
        return None
    return value if isinstance(value, str) else None


class PageFetcher:
    """One kept-alive connection fetching one search's pages: :meth:`send` a page's
    request, then :meth:`receive` its body (the server works on the next page while the
    caller reads this one). A connection found closed on reuse is opened again once.

    It speaks HTTP/1.1 on the socket itself, as far as a page needs: one GET at a time, an
    answer sized by Content-Length, chunked, or ended by the server closing. Through
    ``http.client`` (its header parsing goes through the ``email`` package) a page cost
    the helper ~0.27 ms of CPU; a thousand of them are on the walk's critical path."""

    #: the most a status line and headers may take (a page's answer has a few)
    max_head = 64 * 1024

    def __init__(self, request: PageRequest) -> None:
        self.request = request
        self._socket: socket.socket | None = None
        self._buffer = bytearray()  # received and not yet used
        self._used = False  # the connection has answered before (it may have been closed)
        self._sent = b""
        default = 443 if request.scheme == "https" else 80
        host = f"[{request.host}]" if ":" in request.host else request.host
        host = host if request.port == default else f"{host}:{request.port}"
        lines = [f"Host: {host}"] + [f"{k}: {v}" for k, v in request.headers]
        self._head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def close(self) -> None:
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.close()
        self._socket = None
        self._buffer.clear()

    def fetch(self, page_id: str | None) -> bytes:
        self.send(page_id)
        return self.receive()

    def send(self, page_id: str | None) -> None:
        target = self.request.target(page_id).encode("ascii")
        self._sent = b"GET " + target + b" HTTP/1.1\r\n" + self._head
        try:
            self._send()
        except OSError:
            if not self._used:
                raise
            self._reconnect()

    def receive(self) -> bytes:
        """The body of the page last sent; raises :class:`PageRefused` or OSError."""
        try:
            status, headers = self._read_head()
        except ConnectionError:
            if not self._used:
                raise
            self._reconnect()  # a keep-alive connection the server had closed
            status, headers = self._read_head()
        body, closing = self._read_body(headers)
        self._used = True
        if closing or headers.get("connection", "").lower() == "close":
            self.close()
        if status != 200:
            raise PageRefused(f"status {status}")
        return _decoded(body, headers.get("content-encoding", ""), self.request.max_body)

    def _reconnect(self) -> None:
        self.close()
        self._used = False
        self._send()

    def _send(self) -> None:
        if self._socket is None:
            self._socket = self._connect()
        self._socket.sendall(self._sent)

    def _connect(self) -> socket.socket:
        request = self.request
        sock = socket.create_connection((request.host, request.port), timeout=request.timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if request.scheme == "https":
            import httpx  # the UI's own trust (its CA bundle), only for https

            context = httpx.create_ssl_context()
            sock = context.wrap_socket(sock, server_hostname=request.host)
        return sock

    def _more(self) -> None:
        """More of the answer into the buffer; ConnectionError if the server has closed."""
        assert self._socket is not None
        data = self._socket.recv(65536)
        if not data:
            raise ConnectionResetError("the server closed the connection")
        self._buffer += data

    def _read_head(self) -> tuple[int, dict[str, str]]:
        buffer = self._buffer
        while (end := buffer.find(b"\r\n\r\n")) < 0:
            if len(buffer) > self.max_head:
                raise PageRefused("an answer without an end to its headers")
            self._more()
        lines = bytes(buffer[:end]).decode("latin-1").split("\r\n")
        del buffer[: end + 4]
        version, _, rest = lines[0].partition(" ")
        code = rest[:3]
        if not version.startswith("HTTP/1.") or not code.isdigit():
            raise PageRefused("not an HTTP/1.1 answer")
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, colon, value = line.partition(":")
            if not colon:
                raise PageRefused("a malformed header")
            headers[name.strip().lower()] = value.strip()
        if version == "HTTP/1.0" and headers.get("connection", "").lower() != "keep-alive":
            headers["connection"] = "close"
        return int(code), headers

    def _read_body(self, headers: dict[str, str]) -> tuple[bytes, bool]:
        """The body, and whether the server ends the connection after it."""
        if headers.get("transfer-encoding", "identity").lower() != "identity":
            return self._read_chunked(headers["transfer-encoding"]), False
        length = headers.get("content-length")
        if length is None:  # the answer ends where the connection does
            with contextlib.suppress(ConnectionError):
                while True:
                    self._within(len(self._buffer))
                    self._more()
            return self._take(self._within(len(self._buffer))), True
        if not length.isdigit():
            raise PageRefused("a malformed Content-Length")
        return self._take_exactly(self._within(int(length))), False

    def _within(self, size: int) -> int:
        """``size``, or :class:`PageRefused` when a body that large is over the bound."""
        if size > self.request.max_body:
            raise PageRefused(f"a body over {self.request.max_body} bytes")
        return size

    def _read_chunked(self, encoding: str) -> bytes:
        if encoding.lower() != "chunked":
            raise PageRefused(f"transfer encoding {encoding!r}")
        parts = []
        total = 0
        while True:
            while (end := self._buffer.find(b"\r\n")) < 0:
                if len(self._buffer) > self.max_head:
                    raise PageRefused("a chunk size line without an end")
                self._more()
            size_text = bytes(self._buffer[:end]).split(b";", 1)[0].strip()
            del self._buffer[: end + 2]
            try:
                size = int(size_text, 16)
            except ValueError:
                raise PageRefused("a malformed chunk") from None
            if size == 0:
                while (end := self._buffer.find(b"\r\n")) != 0:  # trailers, then the end
                    if end > 0:
                        del self._buffer[: end + 2]
                    else:
                        self._more()
                del self._buffer[:2]
                return b"".join(parts)
            total = self._within(total + size)
            parts.append(self._take_exactly(size))
            self._take_exactly(2)

    def _take_exactly(self, size: int) -> bytes:
        while len(self._buffer) < size:
            self._more()
        return self._take(size)

    def _take(self, size: int) -> bytes:
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data


def _decoded(body: bytes, encoding: str, limit: int) -> bytes:
    """The page unpacked, never to more than ``limit`` bytes (a gzip bomb is refused)."""
    try:
        unpacker = Unpacker(encoding, limit)
        page = unpacker.feed(body)
        if unpacker.over:
            raise PageRefused(f"a body unpacking to over {limit} bytes")
        unpacker.end()
    except ValueError as exc:
        raise PageRefused(str(exc)) from None
    return page


class PagesAhead:
    """A thread fetching a search's pages ahead of their reader: each page's next is
    guessed from its tail (:func:`guess_next_page`) and asked for at once, up to
    :attr:`depth` pages ahead, so the server works at its own pace beside the reading.

    With one request on its way at a time, the server waited for the reader's next
    request and the reader for the server's answer whenever either was held up (a core
    busy with the UI): the helper waited 1.0-1.2 s of a 3.3 s walk for answers the server
    needed 1.5 ms of CPU each for. :meth:`get` returns a page's body, or raises what
    fetching it raised; a page that is not the one guessed (an event held the key)
    starts the fetching again from it (what was fetched ahead is dropped)."""

    depth = 3

    def __init__(self, request: PageRequest) -> None:
        self._fetcher = PageFetcher(request)
        self._lock = threading.Condition()
        self._ready: deque[tuple[str | None, bytes | None, BaseException | None]] = deque()
        self._next: tuple[str | None] | None = None  # the page to fetch next, if any
        self._fetching: tuple[str | None] | None = None  # the page on its way
        self._round = 0  # bumped when the reader starts again elsewhere
        self._stopped = False
        threading.Thread(target=self._run, name="ohtui-fetch", daemon=True).start()

    def get(self, page_id: str | None) -> bytes:
        with self._lock:
            while True:
                if self._ready and self._ready[0][0] == page_id:
                    _, body, error = self._ready.popleft()
                    self._lock.notify_all()
                    if error is not None:
                        raise error
                    assert body is not None
                    return body
                coming = not self._ready and (page_id,) in (self._next, self._fetching)
                if not coming:  # not what was guessed: from here, afresh
                    self._round += 1
                    self._ready.clear()
                    self._next = (page_id,)
                    self._lock.notify_all()
                self._lock.wait()

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            self._lock.notify_all()

    def _run(self) -> None:
        try:
            while True:
                with self._lock:
                    self._lock.wait_for(
                        lambda: (
                            self._stopped
                            or (self._next is not None and len(self._ready) < self.depth)
                        )
                    )
                    if self._stopped:
                        return
                    assert self._next is not None
                    (page_id,), round_ = self._next, self._round
                    self._fetching, self._next = self._next, None
                body: bytes | None = None
                error: BaseException | None = None
                try:
                    body = self._fetcher.fetch(page_id)
                except Exception as exc:  # noqa: BLE001 - the reader's to raise
                    error = exc
                    self._fetcher.close()
                with self._lock:
                    self._fetching = None
                    if round_ == self._round:
                        self._ready.append((page_id, body, error))
                        guess = guess_next_page(body) if body is not None else None
                        if guess is not None and guess != page_id:
                            self._next = (guess,)
                    self._lock.notify_all()
        finally:
            self._fetcher.close()
