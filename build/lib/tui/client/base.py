"""The core every ``OpenHandsClient`` call shares: decoding helpers and kind dispatch.

Dispatch (why it is shaped like this): one client talks to an app server, a bare agent
server or a shared-only server (``kinds.py``). Finding out must cost an app server nothing,
so a call whose kind is not known yet is first sent the app server's way; only a 404 makes
the client probe, and the call is then made the way the server that answered speaks. A
kind remembered from an earlier client of the same URL is trusted until a 404 says
otherwise; a kind the user forced is never second-guessed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Self, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from . import kinds
from .backoff import RetryNotice
from .errors import (
    AuthError,
    BadResponse,
    InvalidParameter,
    NotFound,
    Unsupported,
)
from .http import HttpCore
from .kinds import ServerInfo, ServerKind
from .paging import Mark, PageTrail, PageWalk
from .params import segment
from .sizes import MAX_BODY

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
Call = Callable[[], Awaitable[T]]


class ClientBase:
    """Construction, lifetime, kind detection and the helpers of every call."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        session_api_key: str | None = None,
        timeout: float = 15.0,
        max_retries: int = 3,
        transport: httpx.AsyncBaseTransport | None = None,
        backoff: float = 0.25,
        server_kind: ServerKind | str | None = "auto",
        agent_settings: Mapping[str, Any] | None = None,
        max_body: int = MAX_BODY,
    ) -> None:
        self._http = HttpCore(
            base_url,
            api_key=api_key,
            session_api_key=session_api_key,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            transport=transport,
            max_body=max_body,
        )
        if agent_settings is not None and not isinstance(agent_settings, Mapping):
            raise InvalidParameter("agent_settings must be a JSON object (a dict)")
        self.agent_settings: dict[str, Any] | None = (
            dict(agent_settings) if agent_settings else None
        )
        if self.agent_settings:
            from .agent_routes import secret_values

            self._http.add_secrets(secret_values(self.agent_settings))
        self._forced = kinds.parse_kind(server_kind)
        self._info: ServerInfo | None = None
        self._confirmed = False  # the kind was seen working by this client
        if self._forced is not None:
            self._info = kinds.base_info(self._forced, agent_settings=bool(self.agent_settings))
            self._confirmed = True
        self._probe_lock = asyncio.Lock()

    # --- lifetime ------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The server address (credentials in it, if any, masked)."""
        return self._http.display_url

    def set_credentials(
        self, *, api_key: str | None = None, session_api_key: str | None = None
    ) -> None:
        """Replace both keys (None clears one), e.g. after the user re-enters them."""
        from .keys import KeyAuth

        auth = KeyAuth(api_key, session_api_key)
        self._http.auth.api_key = auth.api_key
        self._http.auth.session_api_key = auth.session_api_key

    async def aclose(self) -> None:
        await self._http.aclose()

    async def patiently(
        self, call: Call[T], what: str = "a request", on_retry: RetryNotice | None = None
    ) -> T:
        """``await call()``, made again after a pause while the server or network fails
        (a few times; ``Retry-After`` honoured): for work that must outlast a flaky
        server, such as ``ohtui export`` or the insights' walk (see ``backoff.outlast``).
        ``on_retry`` is told of each pause, for a caller that shows it."""
        return await self._http.patiently(call, what, on_retry)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        kind = self.kind.value if self.kind else "auto"
        return (
            f"{type(self).__name__}(base_url={self.base_url!r}, "
            f"kind={kind!r}, auth={self._http.auth.describe()!r})"
        )

    # --- server kind ---------------------------------------------------------------------------

    @property
    def kind(self) -> ServerKind | None:
        """The server's kind: forced, detected, or remembered for this URL; None until known."""
        info = self.info
        return info.kind if info else None

    @property
    def info(self) -> ServerInfo | None:
        return self._info or kinds.cached(self._http.base_url)

    async def detect(self, *, refresh: bool = False) -> ServerInfo:
        """What the server is (see ``kinds.py``): probes once per base URL per process.

        A forced kind is returned as it is; ``refresh`` probes again even when known."""
        if self._forced is not None:
            assert self._info is not None
            return self._info
        if not refresh:
            known = self.info
            if known is not None:
                self._info = known
                return known
        async with self._probe_lock:
            if not refresh and self._info is not None:
                return self._info
            info = await kinds.probe(self._http, agent_settings=bool(self.agent_settings))
            self._settle(info)
            return info

    def _settle(self, info: ServerInfo) -> ServerInfo:
        if self._info is not None and self._info.kind is info.kind:
            info = self._info if not info.details and self._info.details else info
        self._info = info
        self._confirmed = True
        kinds.remember(self._http.base_url, info)
        return info

    def _note_capability(self, capability: str, present: bool = True) -> None:
        info = self.info
        if info is not None and info.can(capability) != present:
            self._info = info.with_capability(capability, present)
            kinds.remember(self._http.base_url, self._info)

    def unsupported(self, info: ServerInfo, what: str) -> Unsupported:
        return Unsupported(f"This is {info.describe()}: {what}.", url=self.base_url)

    async def _dispatch(
        self,
        what: str,
        *,
        app: Call[T] | None = None,
        agent: Call[T] | None = None,
        shared: Call[T] | None = None,
    ) -> T:
        """Run the implementation for the server's kind (see the module doc).

        ``what`` completes "This is <kind>: …" when the kind has no implementation, e.g.
        "it has no sandboxes" (:class:`Unsupported`, raised before any request)."""
        impls = {ServerKind.APP: app, ServerKind.AGENT: agent, ServerKind.SHARED: shared}
        info = self._info if self._forced is not None else self.info
        if info is None:
            if app is None:
                info = await self.detect()
            else:
                try:
                    result = await app()
                except AuthError:
                    self._settle(kinds.base_info(ServerKind.APP))
                    raise
                except NotFound as exc:
                    info = await self._recheck(exc)
                    if info.kind is ServerKind.APP:
                        raise
                else:
                    self._settle(kinds.base_info(ServerKind.APP))
                    return result
        impl = impls[info.kind]
        if impl is None:
            raise self.unsupported(info, what)
        if self._confirmed:
            return await impl()
        try:
            result = await impl()
        except NotFound as exc:  # a remembered kind may be stale (a port reused by another)
            fresh = await self._recheck(exc)
            if fresh.kind is info.kind:
                raise
            again = impls[fresh.kind]
            if again is None:
                raise self.unsupported(fresh, what) from None
            return await again()
        self._settle(info)
        return result

    async def _recheck(self, cause: NotFound) -> ServerInfo:
        """After a 404: probe (again) and return what the server is; a server that is no
        OpenHands server at all raises the probe's own NotFound, which says so."""
        if self._forced is not None:
            raise cause
        return await self.detect(refresh=True)

    # --- decoding helpers ----------------------------------------------------------------------

    async def _get(self, path: str, params: Any = None) -> Any:
        return await self._http.request("GET", path, params=params)

    def _bad(self, method: str, path: str, what: str) -> BadResponse:
        url = f"{self.base_url}{path}"
        return BadResponse(f"{method} {url}: {what}", method=method, url=url)

    def _model(self, cls: type[M], data: Any, method: str, path: str) -> M:
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            # Inputs are left out: a record may hold a session key.
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(body)'}: {e['msg']}"
                for e in exc.errors(include_url=False, include_input=False)[:5]
            )
            raise self._bad(method, path, f"unexpected {cls.__name__} shape ({problems})") from None

    def _batch(self, cls: type[M], data: Any, count: int, method: str, path: str) -> list[M | None]:
        self._check_list(data, count, method, path)
        return [None if item is None else self._model(cls, item, method, path) for item in data]

    def _check_list(self, data: Any, count: int, method: str, path: str) -> None:
        if not isinstance(data, list):
            raise self._bad(method, path, f"expected a JSON array, got {type(data).__name__}")
        if len(data) != count:
            raise self._bad(method, path, f"asked for {count} item(s), got {len(data)}")

    def _count(self, data: Any, method: str, path: str) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise self._bad(method, path, f"expected an integer count, got {type(data).__name__}")
        return data

    def _success(self, data: Any, method: str, path: str) -> bool:
        if data is None:
            return True
        if isinstance(data, dict):
            value = data.get("success", True)
            if isinstance(value, bool):
                return value
        raise self._bad(method, path, 'expected {"success": true|false}')

    async def _follow(
        self,
        path: str,
        first: str | None,
        fetch: Callable[[str | None], Awaitable[tuple[Any, str | None]]],
        mark: Mark | None = None,
    ) -> Any:
        """Pages from ``first`` until ``next_page_id`` is null (an async generator), walked
        by the one :class:`~.paging.PageWalk`: ``mark`` tells items apart where a page sent
        twice under a new id must be caught too (events)."""
        walk = PageWalk(first, PageTrail(mark, method="GET", url=f"{self.base_url}{path}"))
        while not walk.done:
            # a walk outlasts a failing page (retried after a pause) instead of ending on it
            page, next_page = await self._http.patiently(
                lambda page_id=walk.page_id: fetch(page_id), f"page {walk.pages + 1} of {path}"
            )
            items = getattr(page, "items", None) or ()
            walk.arrived(items)
            yield page
            walk.moved(next_page, items)


__all__ = ["ClientBase", "segment"]
