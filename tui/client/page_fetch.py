"""Event pages fetched by a helper process with a lean keep-alive HTTP client.

Why: walking a long conversation's index is a thousand GETs; through httpx and anyio each
costs the UI's loop ~1.2–1.5 ms of Python, as much as reading the page. The index's helper
process (``tui.app.page_worker``) therefore fetches the pages itself, with ``http.client``
on one kept-alive connection (~3× cheaper a request), while the UI only takes rows in.

The client builds the request (:meth:`EventCalls.search_events_request`): route, query and
the keys it must carry, for one server kind already known. :class:`PageRequest` crosses to
the helper over its stdin pipe (never its command line); its repr never shows the headers.
:class:`PageFetcher` speaks HTTP/1.1 only as far as a page needs: a 200 with a body (plain
or gzip/deflate); anything else raises :class:`PageRefused` and the caller asks again the
ordinary way, whose error says what happened (outages, limits, authentication).
"""

from __future__ import annotations

import http.client
import json
import urllib.parse
import urllib.request
import zlib
from typing import Any, NamedTuple

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
    caller reads this one). A connection found closed on reuse is opened again once."""

    def __init__(self, request: PageRequest) -> None:
        self.request = request
        self._connection: http.client.HTTPConnection | None = None
        self._used = False  # the connection has answered before (it may have been closed)
        self._sent: str | None = None

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
        self._connection = None

    def fetch(self, page_id: str | None) -> bytes:
        self.send(page_id)
        return self.receive()

    def send(self, page_id: str | None) -> None:
        self._sent = self.request.target(page_id)
        try:
            self._send()
        except (OSError, http.client.HTTPException):
            if not self._used:
                raise
            self._reconnect()

    def receive(self) -> bytes:
        """The body of the page last sent; raises :class:`PageRefused` or OSError."""
        assert self._connection is not None
        try:
            response = self._connection.getresponse()
        except (ConnectionError, http.client.RemoteDisconnected, http.client.BadStatusLine):
            if not self._used:
                raise
            self._reconnect()  # a keep-alive connection the server had closed
            response = self._connection.getresponse()
        body = response.read()
        self._used = True
        if response.will_close:
            self.close()
        if response.status != 200:
            raise PageRefused(f"status {response.status}")
        return _decoded(body, (response.getheader("content-encoding") or "").lower())

    def _reconnect(self) -> None:
        self.close()
        self._used = False
        self._send()

    def _send(self) -> None:
        if self._connection is None:
            self._connection = self._connect()
        self._connection.request("GET", self._sent or "", headers=dict(self.request.headers))

    def _connect(self) -> http.client.HTTPConnection:
        request = self.request
        if request.scheme == "https":
            import httpx  # the UI's own trust (its CA bundle), only for https

            return http.client.HTTPSConnection(
                request.host,
                request.port,
                timeout=request.timeout,
                context=httpx.create_ssl_context(),
            )
        return http.client.HTTPConnection(request.host, request.port, timeout=request.timeout)


def _decoded(body: bytes, encoding: str) -> bytes:
    if encoding in ("", "identity"):
        return body
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompress(body, zlib.MAX_WBITS | 16)
    if encoding == "deflate":
        try:
            return zlib.decompress(body)
        except zlib.error:
            return zlib.decompress(body, -zlib.MAX_WBITS)
    raise PageRefused(f"content encoding {encoding!r}")
