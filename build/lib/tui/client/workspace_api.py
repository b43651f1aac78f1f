"""Workspace calls: what a conversation's agent changed (git changes, diffs, commits, a patch)
and its files (download, create a folder, the trajectory zip).

Where they go (why): the workspace lives on the conversation's agent server. On a bare agent
server that is this server; on an app server it is the sandbox's, reached as live following
reaches it (``conversation_url`` + ``session_api_key``, :func:`~.endpoints.agent_endpoint`),
which holds only while the sandbox runs: a paused, starting, failed or gone sandbox is
said in words before any request (:class:`SandboxNotRunning`). Each conversation's
:class:`~.workspace.Workspace` is kept for the next call, and dropped when its server stops
answering or refuses its key (a resumed sandbox may have a new address and key). The
trajectory zip needs no sandbox on an app server: it comes from the app server's store.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from tui.models import SandboxStatus
from tui.models.workspace import (
    FileRead,
    FolderListing,
    GitChange,
    GitCommitsPage,
    GitDiff,
    HomeResponse,
    SubdirectoryPage,
    WorkspacePatch,
)

from . import params as P
from .base import segment
from .conversations_api import ConversationCalls
from .downloads import Downloaded, download
from .endpoints import agent_endpoint
from .errors import AuthError, ConnectionLost, NotFound, SandboxNotRunning
from .http import HttpCore
from .kinds import ServerKind
from .workspace import Workspace

T = TypeVar("T")

#: What a sandbox that is not running means for its workspace, by status.
NOT_RUNNING = {
    SandboxStatus.PAUSED.value: "the conversation's sandbox is paused: resume it (r on the "
    "sandboxes screen), then try again",
    SandboxStatus.STARTING.value: "the conversation's sandbox is starting: try again when it runs",
    SandboxStatus.ERROR.value: "the conversation's sandbox failed (ERROR): its workspace "
    "cannot be read",
    SandboxStatus.MISSING.value: "the conversation's sandbox is gone (MISSING): its workspace "
    "went with it; its history and trajectory remain",
}
#: Largest trajectory zip downloaded unless the caller says otherwise.
MAX_TRAJECTORY = 512 * 1024 * 1024
NO_WORKSPACE = "it shares conversations only: it has no workspaces"


class WorkspaceCalls(ConversationCalls):
    # --- reaching a workspace ------------------------------------------------------------------

    def _workspace_cache(self) -> dict[str | None, Workspace]:
        cache = self.__dict__.get("_workspaces")
        if cache is None:
            cache = self.__dict__["_workspaces"] = {}
        return cache

    async def workspace(self, conversation_id: str | None = None) -> Workspace:
        """The workspace of a conversation (or, None, of this agent server: absolute paths)."""
        cid = P.check_optional_id(conversation_id, "conversation_id")
        cache = self._workspace_cache()
        found = cache.get(cid)
        if found is None:
            found = cache[cid] = await self._open_workspace(cid)
        return found

    async def _open_workspace(self, cid: str | None) -> Workspace:
        info = await self.detect()
        if info.kind is ServerKind.AGENT:
            return Workspace(self._http, cid)
        if info.kind is ServerKind.SHARED:
            raise self.unsupported(info, NO_WORKSPACE)
        if cid is None:
            raise self.unsupported(info, "its workspaces belong to conversations: name one")
        found = (await self.get_conversations([cid]))[0]
        if found is None:
            raise NotFound(f"no conversation {cid!r} on this server", status=404, url=self.base_url)
        if not found.conversation_url:
            status = str(getattr(found.sandbox_status, "value", found.sandbox_status))
            words = NOT_RUNNING.get(status, f"the conversation's sandbox is {status}")
            raise SandboxNotRunning(
                words[:1].upper() + words[1:] + ".", sandbox_status=status, url=self.base_url
            )
        endpoint = agent_endpoint(self._http.base_url, found)
        http = HttpCore(
            endpoint.http_base,
            api_key=None,
            session_api_key=endpoint.key,
            timeout=self._http.client.timeout.read or 15.0,
            max_retries=self._http.max_retries,
            backoff=self._http.backoff,
            transport=None,
        )
        return Workspace(http, endpoint.conversation_hex, owns_http=True)

    async def _on(self, cid: str | None, call: Callable[[Workspace], Awaitable[T]]) -> T:
        """``call`` on the workspace; one whose server fails to answer or refuses its key is
        forgotten, so the next call looks the conversation up again."""
        workspace = await self.workspace(cid)
        try:
            return await call(workspace)
        except (ConnectionLost, AuthError):
            cache = self._workspace_cache()
            if cache.get(cid) is workspace:
                del cache[cid]
                await workspace.aclose()
            raise

    async def aclose(self) -> None:
        for workspace in list(self._workspace_cache().values()):
            await workspace.aclose()
        self._workspace_cache().clear()
        await super().aclose()

    async def workspace_root(self, conversation_id: str | None = None) -> str:
        """The conversation's working directory on its agent server: what the paths of
        :meth:`git_changes` are relative to."""
        return await self._on(conversation_id, lambda w: w.root())

    # --- git -----------------------------------------------------------------------------------

    async def git_changes(
        self, conversation_id: str | None = None, *, path: str | None = None, ref: str | None = None
    ) -> list[GitChange]:
        """The changed files (see :meth:`Workspace.changes`); ``ref="HEAD"``: uncommitted only."""
        return await self._on(conversation_id, lambda w: w.changes(path, ref=ref))

    async def git_diff(
        self,
        conversation_id: str | None,
        path: str,
        *,
        ref: str | None = None,
        commit: str | None = None,
    ) -> GitDiff:
        """One file's two whole texts; a relative ``path`` is inside the working directory."""
        return await self._on(conversation_id, lambda w: w.diff(path, ref=ref, commit=commit))

    async def git_commits(
        self, conversation_id: str | None = None, *, path: str | None = None, limit: int = 50
    ) -> GitCommitsPage:
        return await self._on(conversation_id, lambda w: w.commits(path, limit=limit))

    async def git_commit_changes(
        self, conversation_id: str | None, sha: str, *, path: str | None = None
    ) -> list[GitChange]:
        return await self._on(conversation_id, lambda w: w.commit_changes(sha, path))

    async def archive_patch(
        self,
        conversation_id: str | None = None,
        *,
        path: str | None = None,
        base_ref: str | None = None,
    ) -> WorkspacePatch:
        """The server's own patch (``git-delta``); :class:`Unsupported` where it has none."""
        return await self._on(conversation_id, lambda w: w.archive_patch(path, base_ref=base_ref))

    async def workspace_patch(
        self, conversation_id: str | None = None, *, path: str | None = None, ref: str | None = None
    ) -> WorkspacePatch:
        """The changes as a patch ``git apply`` takes: the server's, else computed."""
        from .workspace_patch import workspace_patch

        return await self._on(conversation_id, lambda w: workspace_patch(w, path, ref=ref))

    # --- files ---------------------------------------------------------------------------------

    async def download_file(
        self,
        conversation_id: str | None,
        path: str,
        write: Callable[[bytes], Any],
        *,
        max_bytes: int,
    ) -> Downloaded:
        """A file's bytes to ``write`` chunk by chunk; :class:`TooLarge` past ``max_bytes``."""
        return await self._on(
            conversation_id, lambda w: w.download(path, write, max_bytes=max_bytes)
        )

    async def read_file(self, conversation_id: str | None, path: str, *, max_bytes: int) -> bytes:
        return await self._on(conversation_id, lambda w: w.read_file(path, max_bytes=max_bytes))

    async def view_file(
        self, conversation_id: str | None, path: str, *, max_bytes: int
    ) -> FileRead:
        """A file to show: its bytes, or, where a server gives none for a file named
        relatively, git's text of it, marked not exact (see :mod:`.workspace_listing`)."""
        from .workspace_listing import view_file

        return await self._on(conversation_id, lambda w: view_file(w, path, max_bytes=max_bytes))

    async def create_directory(
        self, path: str, *, conversation_id: str | None = None
    ) -> dict[str, Any]:
        """Create a directory (and its parents) in a conversation's workspace, or, without one,
        in the server's file area (``POST /api/file/create_directory``, the path both as
        ``?path=``, the agent server's parameter, and as a JSON body, the documented shape)."""
        if conversation_id is not None:
            return await self._on(conversation_id, lambda w: w.create_directory(path))
        target = P.check_id(path, "path")
        route = "/api/file/create_directory"
        data = await self._http.request(
            "POST", route, params={"path": target}, json={"path": target}, idempotent=True
        )
        if data is None:
            return {"success": True}
        if not isinstance(data, dict):
            raise self._bad("POST", route, "expected a JSON object")
        return data

    async def subdirectories(
        self,
        conversation_id: str | None,
        path: str | None = None,
        *,
        page_id: str | None = None,
        limit: int = 100,
        include_hidden: bool = False,
    ) -> SubdirectoryPage:
        """One page of a folder's subfolders (``/api/file/search_subdirs``: folders only)."""
        return await self._on(
            conversation_id,
            lambda w: w.subdirectories(
                path, page_id=page_id, limit=limit, include_hidden=include_hidden
            ),
        )

    async def file_home(self, conversation_id: str | None = None) -> HomeResponse:
        """The agent server user's home folder, its top-level folders and the roots."""
        return await self._on(conversation_id, lambda w: w.home())

    async def folder_listing(
        self,
        conversation_id: str | None,
        path: str | None = None,
        *,
        include_hidden: bool = False,
    ) -> FolderListing:
        """A folder's subfolders and the files git lists as changed in it (a server lists no
        files: see :mod:`.workspace_listing`); the working directory when ``path`` is None."""
        from .workspace_listing import folder_listing

        return await self._on(
            conversation_id,
            lambda w: folder_listing(w, path, include_hidden=include_hidden),
        )

    async def download_trajectory(
        self,
        conversation_id: str,
        write: Callable[[bytes], Any],
        *,
        max_bytes: int = MAX_TRAJECTORY,
    ) -> Downloaded:
        """The conversation's trajectory as a zip, chunk by chunk to ``write``: from the app
        server's store (``/api/v1/app-conversations/{id}/download``, any sandbox state), or
        the agent server's conversation folder."""
        cid = P.check_id(conversation_id, "conversation_id")
        route = f"/api/v1/app-conversations/{segment(cid)}/download"

        async def app() -> Downloaded:
            return await download(
                self._http, route, write, max_bytes=max_bytes, what="the trajectory"
            )

        async def agent() -> Downloaded:
            return await self._on(cid, lambda w: w.trajectory(write, max_bytes=max_bytes))

        return await self._dispatch(NO_WORKSPACE, app=app, agent=agent)


__all__ = ["MAX_TRAJECTORY", "NOT_RUNNING", "WorkspaceCalls"]
