"""The request core: authentication, retries, error mapping, redaction.

One ``httpx.AsyncClient`` per client. Keys are added per request by an ``httpx.Auth`` flow
(``keys.py``) instead of default headers, so they are not in the client's header repr;
error answers become exceptions in ``status_errors.py``; the pauses between retries
follow the client's one policy (``backoff.py``). Every URL and
detail that goes into an exception or a log line passes through :meth:`HttpCore.redact_text`.

Retry policy (why): the agent server answers some failures with a 500 and then drops the
keep-alive connection, and proxies in front of both servers answer 502/503/504 while a
sandbox starts; repeating an idempotent read is always safe. So GETs are repeated on
timeouts, connection errors and 500/502/503/504. A POST or DELETE that may have reached the
server is not repeated (starting twice is worse than failing once), except where the caller
marks it idempotent (pause/resume); but any method is repeated when the request provably
never reached the server — the connection could not be made, or the request could not be
written (a pooled connection found dead) — and after a 429 (``Retry-After`` honoured up to
``backoff.IN_CALL_RETRY_AFTER``; a longer one is the caller's). A non-idempotent call that failed after it may have arrived raises
:class:`OutcomeUnknown` carrying the caller's sentence of what is unknown. A connection that
answered a 5xx is closed once read (``connections.py``), so the next call gets a fresh one.
A 2xx whose body is not JSON (a page cut off mid-way) is repeated like a 5xx when idempotent;
a web page instead (HTML: a login proxy, a URL that is not the API's) or a redirect is not:
it raises :class:`NotTheAPI` saying what came. Redirects are never followed.
A change answered by a 500 that reports the server's own exception (an ``error_id``) is not
repeated: the same request meets the same exception, and the user should read it at once.

Deadline (why): httpx's timeouts bound each read, so a server that sends one byte a second
never times out and a page could take hours. Every call therefore has an overall deadline
(:data:`DEADLINE_FACTOR` times its read timeout, retries and their waits included); past
it the call raises :class:`RequestTimeout` saying how long it waited.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from asyncio import sleep as _sleep
from collections.abc import Callable
from typing import Any

import httpx

from tui.models.redact import mask_url, redact

from .backoff import IN_CALL_RETRY_AFTER, JitteredBackoff, RetryNotice, outlast
from .bodies import read_bounded, read_head
from .connections import FreshAfterServerError
from .errors import (
    BadResponse,
    ConnectionLost,
    InvalidParameter,
    OpenHandsError,
    OutcomeUnknown,
    OutcomeUnknownTimeout,
    RequestTimeout,
)
from .keys import KeyAuth
from .known_secrets import remember
from .sizes import MAX_BODY
from .status_errors import is_web_page, redirect_error, status_error, web_page_error

log = logging.getLogger("tui.client")

#: Statuses worth repeating for an idempotent request.
RETRY_STATUSES = frozenset({500, 502, 503, 504})
#: The longest pause between two quick retries (:class:`~tui.client.backoff.JitteredBackoff`).
MAX_BACKOFF = 10.0
#: A call's overall deadline, in read timeouts (15 s reads: one minute for the whole call,
#: retries included; a long operation's own read timeout scales it).
DEADLINE_FACTOR = 4.0
_MASK = "****"


@functools.cache
def _tls_context() -> Any:
    """One TLS context for every client: making one loads the CA bundle (~25-40 ms), and
    clients are made on the UI loop (each conversation's live session, the board's agents)."""
    return httpx.create_ssl_context()


class HttpCore:
    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None,
        session_api_key: str | None,
        timeout: float,
        max_retries: int,
        backoff: float,
        transport: httpx.AsyncBaseTransport | None,
        deadline: float | None = None,
        max_body: int = MAX_BODY,
    ) -> None:
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise InvalidParameter("max_retries must be a non-negative integer")
        if not isinstance(backoff, (int, float)) or backoff < 0:
            raise InvalidParameter("backoff must be a non-negative number of seconds")
        if not isinstance(timeout, (int, float)) or timeout <= 0:
            raise InvalidParameter("timeout must be a positive number of seconds")
        if deadline is not None and (not isinstance(deadline, (int, float)) or deadline <= 0):
            raise InvalidParameter("deadline must be a positive number of seconds")
        if isinstance(max_body, bool) or not isinstance(max_body, int) or max_body <= 0:
            raise InvalidParameter("max_body must be a positive number of bytes")
        #: the most bytes one answer may take, sent or unpacked (see ``sizes.py``)
        self.max_body = max_body
        self.auth = KeyAuth(api_key, session_api_key)
        remember(self.auth.secrets())  # masked in the app's log file too
        #: a call's overall deadline in seconds (None: DEADLINE_FACTOR read timeouts)
        self.deadline = float(deadline) if deadline is not None else None
        self._secrets: set[str] = set()
        self.max_retries = max_retries
        self.backoff = float(backoff)
        self.policy = JitteredBackoff(self.backoff, MAX_BACKOFF)
        url = httpx.URL(base_url)
        if url.scheme not in ("http", "https") or not url.host:
            raise InvalidParameter(
                f"base_url must be an http(s) URL, got {mask_url(_no_userinfo(url))!r}"
            )
        self.base_url = str(url).rstrip("/")
        self.display_url = mask_url(_no_userinfo(url)).rstrip("/")
        self.transport = FreshAfterServerError(
            transport or httpx.AsyncHTTPTransport(verify=_tls_context())
        )
        self.client = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=httpx.Timeout(timeout),
            transport=self.transport,
            auth=self.auth,
            follow_redirects=False,  # never carry keys to another origin
            headers={"Accept": "application/json"},
        )

    async def aclose(self) -> None:
        await self.client.aclose()

    # --- redaction ---------------------------------------------------------------------------

    def add_secrets(self, values: Any) -> None:
        """More strings never to show (e.g. an LLM key in the agent settings a start sends)."""
        found = [v for v in values if isinstance(v, str) and v]
        self._secrets.update(found)
        remember(found)

    def redact_text(self, text: str) -> str:
        for secret in (*self.auth.secrets(), *self._secrets):
            text = text.replace(secret, _MASK)
        return mask_url(text)

    def redact_data(self, data: Any) -> Any:
        if isinstance(data, str):
            return self.redact_text(data)
        if isinstance(data, dict):
            return {k: self.redact_data(v) for k, v in redact(data).items()}
        if isinstance(data, list):
            return [self.redact_data(v) for v in data]
        return data

    def redact_url(self, url: httpx.URL) -> str:
        return self.redact_text(_no_userinfo(url))

    # --- requests ----------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Any = None,
        json: Any = None,
        idempotent: bool | None = None,
        parse: Callable[[bytes], Any] | None = None,
        unknown: str | None = None,
        timeout: float | None = None,
        deadline: float | None = None,
    ) -> Any:
        """Send, retrying per the policy above; return the decoded JSON body (None if empty).

        ``parse`` decodes the body bytes instead of ``json.loads`` (event pages: pydantic
        reads them in one pass); a ``ValueError`` from it means the body is not JSON.
        ``unknown``: the sentence an :class:`OutcomeUnknown` says when a non-idempotent call
        fails after it may have reached the server. ``timeout``: this call's read timeout in
        seconds (a long server operation), instead of the client's. ``deadline``: seconds
        the whole call may take, retries included (default: see the module doc)."""
        if idempotent is None:
            idempotent = method in ("GET", "HEAD", "OPTIONS")
        read = timeout if timeout is not None else (self.client.timeout.read or 0.0)
        limit = deadline or self.deadline or max(1.0, DEADLINE_FACTOR * read)
        ends = time.monotonic() + limit
        extensions = None
        if timeout is not None:
            base = self.client.timeout
            extensions = {
                "timeout": httpx.Timeout(
                    connect=base.connect, read=timeout, write=base.write, pool=base.pool
                ).as_dict()
            }
        request = self.client.build_request(
            method, path, params=params, json=json, extensions=extensions
        )
        url = self.redact_url(request.url)
        attempt = 0
        budget = self.max_retries
        while True:
            started = time.monotonic()
            error: OpenHandsError
            delay: float | None = None
            try:
                async with asyncio.timeout(max(0.0, ends - time.monotonic())):
                    response = await self._send(request, method, url)
            except TimeoutError:
                # the overall deadline: the server answers too slowly (a byte at a time)
                error = RequestTimeout(
                    f"{method} {url}: no complete answer within {limit:g} s",
                    method=method,
                    url=url,
                )
                retry = False
                if not idempotent:
                    error = self._unknown(OutcomeUnknownTimeout, unknown, error, method, url)
            except httpx.TimeoutException as exc:
                error = RequestTimeout(
                    f"{method} {url}: no answer in time ({type(exc).__name__})",
                    method=method,
                    url=url,
                )
                # A connect/pool/write timeout means no complete request left: safe to repeat.
                unsent = isinstance(
                    exc, (httpx.ConnectTimeout, httpx.PoolTimeout, httpx.WriteTimeout)
                )
                retry = idempotent or unsent
                if not retry:
                    error = self._unknown(OutcomeUnknownTimeout, unknown, error, method, url)
            except httpx.ConnectError as exc:
                error = ConnectionLost(
                    f"{method} {url}: cannot connect ({self.redact_text(str(exc)) or type(exc).__name__})",
                    method=method,
                    url=url,
                )
                retry = True  # nothing was sent
            except (httpx.NetworkError, httpx.RemoteProtocolError) as exc:
                error = ConnectionLost(
                    f"{method} {url}: connection lost ({type(exc).__name__}: "
                    f"{self.redact_text(str(exc)) or 'no detail'})",
                    method=method,
                    url=url,
                )
                # A write that failed left no complete request at the server (a pooled
                # connection found dead): safe to repeat on a fresh one. After the request
                # was written, only an idempotent call may be repeated.
                dead_pooled = isinstance(exc, httpx.WriteError)
                retry = idempotent or dead_pooled
                if not retry:
                    error = self._unknown(OutcomeUnknown, unknown, error, method, url)
                elif dead_pooled and budget == self.max_retries:
                    # one fresh connection at once, even with retries off: nothing was sent
                    budget += 1
                    delay = 0.0
            except httpx.HTTPError as exc:
                raise OpenHandsError(
                    f"{method} {url}: {type(exc).__name__}: {self.redact_text(str(exc))}",
                    method=method,
                    url=url,
                ) from None
            else:
                elapsed = (time.monotonic() - started) * 1000
                log.debug("%s %s -> %s in %.0f ms", method, url, response.status_code, elapsed)
                if response.is_success:
                    try:
                        return self._decode(response, method, url, parse)
                    except BadResponse as exc:
                        if not idempotent or not _cut_off_json(response):
                            raise  # a login page or the like: reading it again won't help
                        error, retry = exc, True  # a page cut off mid-way: read it again
                elif response.is_redirect or 300 <= response.status_code < 400:
                    # never followed (keys stay with this origin), never repeated: it is a
                    # login proxy or another address, which the user has to see to
                    raise redirect_error(response, method, url, self.redact_text)
                else:
                    error = status_error(response, method, url, self.redact_text, self.redact_data)
                    retry_after = getattr(error, "retry_after", None)
                    if response.status_code == 429:
                        retry = True
                    elif method not in ("GET", "HEAD", "OPTIONS") and getattr(
                        error, "error_id", None
                    ):
                        # the server reported its own exception for a change: an answer in
                        # full, not an outage; said at once, for the user to decide
                        retry = False
                    else:
                        retry = idempotent and response.status_code in RETRY_STATUSES
                    if retry and retry_after is not None:
                        if retry_after > IN_CALL_RETRY_AFTER:
                            retry = False  # longer than a call sits silent: the caller's to wait
                        delay = retry_after
            if retry and delay is None:
                delay = self.policy.delay(attempt + 1)
            if retry and time.monotonic() + (delay or 0.0) >= ends:
                retry = False  # the wait would end past the call's deadline
            if not retry or attempt >= budget:
                if attempt:
                    log.warning(
                        "%s %s failed after %d attempt(s): %s", method, url, attempt + 1, error
                    )
                raise error
            assert delay is not None
            attempt += 1
            log.info(
                "retrying %s %s in %.2fs (attempt %d of %d): %s",
                method,
                url,
                delay,
                attempt + 1,
                budget + 1,
                error,
            )
            await _sleep(delay)

    async def patiently(
        self,
        call: Callable[[], Any],
        what: str = "a page",
        on_retry: RetryNotice | None = None,
    ) -> Any:
        """``await call()``, made again after a pause while the server or the network fails
        (:func:`~tui.client.backoff.outlast` with this client's policy).

        For walks through many pages (an export, the insights): each call has spent its own
        quick retries, and one unlucky page must not end a walk of a hundred."""
        return await outlast(call, self.policy, what=what, on_retry=on_retry, sleep=_sleep)

    async def _send(self, request: httpx.Request, method: str, url: str) -> httpx.Response:
        """The answer, its body read within :attr:`max_body` (``bodies.read_bounded``); an
        error answer or a redirect only as far as its words need."""
        response = await self.client.send(request, stream=True)
        try:
            if response.is_success:
                return await read_bounded(response, self.max_body, method, url)
            return await read_head(response)
        finally:
            await response.aclose()

    @staticmethod
    def _unknown(
        kind: type[OutcomeUnknown],
        sentence: str | None,
        cause: OpenHandsError,
        method: str,
        url: str,
    ) -> OutcomeUnknown:
        """What a user is told when a change may or may not have happened."""
        text = sentence or "The server may have carried out the request: refresh to see."
        return kind(text, reason=str(cause), method=method, url=url)

    def _decode(
        self,
        response: httpx.Response,
        method: str,
        url: str,
        parse: Callable[[bytes], Any] | None = None,
    ) -> Any:
        if not response.content:
            return None
        try:
            return response.json() if parse is None else parse(response.content)
        except ValueError:
            if is_web_page(response):
                raise web_page_error(response, method, url, self.redact_text) from None
            snippet = self.redact_text(response.text[:120]) if response.text else ""
            raise BadResponse(
                f"{method} {url}: response is not JSON "
                f"({response.headers.get('content-type', 'no content type')}): {snippet!r}",
                status=response.status_code,
                method=method,
                url=url,
            ) from None


def _cut_off_json(response: httpx.Response) -> bool:
    """The body meant to be JSON (by its type or its first character) but does not parse."""
    if "json" in response.headers.get("content-type", ""):
        return True
    return response.content.lstrip()[:1] in (b"{", b"[")


def _no_userinfo(url: httpx.URL) -> str:
    if url.userinfo:
        url = url.copy_with(username=None, password=None)
    return str(url)
