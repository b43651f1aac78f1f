"""Sandbox, sandbox-spec and agent-server utility calls.

Sandboxes and specs exist on app servers only: against a bare agent server these raise
:class:`~tui.client.errors.Unsupported` before any request. Starting a sandbox is slow on
the real app server (it answers once the agent inside is up, 26–29 s measured), so that
call waits :data:`SANDBOX_START_TIMEOUT` seconds, and a repeat is never sent after it may
have arrived: a second POST would start a second sandbox.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from tui.models import SandboxInfo, SandboxPage, SandboxSpecInfo, SandboxSpecPage

from . import params as P
from .base import ClientBase, segment
from .errors import InvalidParameter

#: Read timeout of ``start_sandbox``: well past the server's own work (26–29 s measured).
SANDBOX_START_TIMEOUT = 180.0

NO_SANDBOXES = "it has no sandboxes"
NO_SPECS = "it has no sandbox specs"


class SandboxCalls(ClientBase):
    # --- sandboxes -----------------------------------------------------------------------------

    def _page_query(self, page_id: Any, limit: Any) -> dict[str, Any]:
        query: dict[str, Any] = {"limit": P.check_limit(limit)}
        page = P.check_optional_id(page_id, "page_id")
        if page is not None:
            query["page_id"] = page
        return query

    async def _app_get(self, what: str, cls: type[Any], path: str, query: Any) -> Any:
        async def app() -> Any:
            return self._model(cls, await self._get(path, query), "GET", path)

        return await self._dispatch(what, app=app)

    async def _app_batch(self, what: str, cls: type[Any], path: str, ids: list[str]) -> Any:
        async def app() -> Any:
            return self._batch(cls, await self._get(path, {"id": ids}), len(ids), "GET", path)

        return await self._dispatch(what, app=app)

    async def search_sandboxes(
        self, *, page_id: str | None = None, limit: int = 100
    ) -> SandboxPage:
        query = self._page_query(page_id, limit)
        return await self._app_get(NO_SANDBOXES, SandboxPage, "/api/v1/sandboxes/search", query)

    def iter_sandboxes(
        self, *, page_id: str | None = None, limit: int = 100
    ) -> AsyncIterator[SandboxInfo]:
        return self._iter_items(
            NO_SANDBOXES, "/api/v1/sandboxes/search", self._page_query(page_id, limit), SandboxPage
        )

    async def get_sandboxes(self, ids: Sequence[str]) -> list[SandboxInfo | None]:
        wanted = P.check_ids(ids, "sandbox ids")
        if not wanted:
            return []
        return await self._app_batch(NO_SANDBOXES, SandboxInfo, "/api/v1/sandboxes", wanted)

    async def start_sandbox(
        self, spec_id: str | None = None, *, timeout: float | None = None
    ) -> SandboxInfo:
        """Start a sandbox from a spec (the server's default spec when None).

        Waits up to ``timeout`` seconds (:data:`SANDBOX_START_TIMEOUT` by default) for the
        answer; a connection lost after the request went out raises
        :class:`~tui.client.errors.OutcomeUnknown`: the sandbox may exist."""
        query = P.drop_none({"sandbox_spec_id": P.check_optional_id(spec_id, "spec_id")})
        if timeout is not None and (not isinstance(timeout, (int, float)) or timeout <= 0):
            raise InvalidParameter("timeout must be a positive number of seconds")
        default = max(SANDBOX_START_TIMEOUT, self._http.client.timeout.read or 0)
        wait = timeout if timeout is not None else default
        path = "/api/v1/sandboxes"

        async def app() -> SandboxInfo:
            data = await self._http.request(
                "POST",
                path,
                params=query,
                idempotent=False,
                unknown="The server may have started the sandbox: refresh to see.",
                timeout=wait,
            )
            return self._model(SandboxInfo, data, "POST", path)

        return await self._dispatch(NO_SANDBOXES, app=app)

    async def _sandbox_post(self, sandbox_id: str, verb: str) -> bool:
        sid = P.check_id(sandbox_id, "sandbox_id")
        path = f"/api/v1/sandboxes/{segment(sid)}/{verb}"

        async def app() -> bool:
            data = await self._http.request("POST", path, idempotent=True)
            return self._success(data, "POST", path)

        return await self._dispatch(NO_SANDBOXES, app=app)

    async def pause_sandbox(self, sandbox_id: str) -> bool:
        """Ask for a pause; returns at once, poll the sandbox to see PAUSED. Safe to repeat."""
        return await self._sandbox_post(sandbox_id, "pause")

    async def resume_sandbox(self, sandbox_id: str) -> bool:
        """Ask for a resume; returns at once, poll the sandbox to see RUNNING. Safe to repeat."""
        return await self._sandbox_post(sandbox_id, "resume")

    async def delete_sandbox(self, sandbox_id: str) -> bool:
        """DELETE with the id both in the path and as ``?sandbox_id=``: servers read one or the other.

        Not repeated after a timeout: had the first attempt landed, the repeat would answer
        404 and report a failure for a delete that happened.
        """
        sid = P.check_id(sandbox_id, "sandbox_id")
        path = f"/api/v1/sandboxes/{segment(sid)}"

        async def app() -> bool:
            data = await self._http.request(
                "DELETE",
                path,
                params={"sandbox_id": sid},
                idempotent=False,
                unknown="The server may have deleted the sandbox: refresh to see.",
            )
            return self._success(data, "DELETE", path)

        return await self._dispatch(NO_SANDBOXES, app=app)

    # --- sandbox specs -------------------------------------------------------------------------

    async def search_sandbox_specs(
        self, *, page_id: str | None = None, limit: int = 100
    ) -> SandboxSpecPage:
        query = self._page_query(page_id, limit)
        return await self._app_get(NO_SPECS, SandboxSpecPage, "/api/v1/sandbox-specs/search", query)

    def iter_sandbox_specs(
        self, *, page_id: str | None = None, limit: int = 100
    ) -> AsyncIterator[SandboxSpecInfo]:
        return self._iter_items(
            NO_SPECS,
            "/api/v1/sandbox-specs/search",
            self._page_query(page_id, limit),
            SandboxSpecPage,
        )

    async def get_sandbox_specs(self, ids: Sequence[str]) -> list[SandboxSpecInfo | None]:
        wanted = P.check_ids(ids, "sandbox spec ids")
        if not wanted:
            return []
        return await self._app_batch(NO_SPECS, SandboxSpecInfo, "/api/v1/sandbox-specs", wanted)

    # --- agent-server routes -------------------------------------------------------------------

    async def validate_profile(
        self, name: str, body: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Pre-flight check of a named LLM profile (``{"llm": {...}}`` body on the real server)."""
        profile = P.check_id(name, "name")
        if body is not None and not isinstance(body, dict):
            raise InvalidParameter(f"body must be a dict, got {type(body).__name__}")
        path = f"/api/profiles/{segment(profile)}/validate"
        data = await self._http.request("POST", path, json=body or {}, idempotent=True)
        if not isinstance(data, dict):
            raise self._bad("POST", path, "expected a JSON object")
        return data

    # --- paging of control records -------------------------------------------------------------

    def _iter_items(
        self, what: str, path: str, query: dict[str, Any], page_cls: type[Any]
    ) -> AsyncIterator[Any]:
        async def fetch(page: str | None) -> tuple[Any, str | None]:
            q = dict(query)
            q.pop("page_id", None)
            if page is not None:
                q["page_id"] = page
            result = await self._app_get(what, page_cls, path, q)
            return result, result.next_page_id

        async def items() -> AsyncIterator[Any]:
            async for page in self._follow(path, query.get("page_id"), fetch):
                for item in page.items:
                    yield item

        return items()


__all__ = ["SANDBOX_START_TIMEOUT", "SandboxCalls"]
