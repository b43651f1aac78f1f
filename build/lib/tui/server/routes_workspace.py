"""Workspace routes: git changes, diffs, commits, the patch, file downloads, folders and the
trajectory zip, as ``openhands-agent-server`` 1.58.2 serves them (answers checked against
the running server), over the store's demo workspace (``workspace_demo.py``).

Two copies, as on the real server: server-wide (``/api/git/…``, ``/api/file/…``; the
session key; any absolute path) and per conversation (``/api/conversations/{id}/git/…``,
``/file/…``; the conversation's sandbox key, as the live routes take it; 503 while its
sandbox is not running; the path must be absolute and inside the conversation's workspace,
else 422 "path must be inside the conversation workspace"). A path outside the demo
workspace is answered as the real server answers for a folder that holds nothing: no
changes, no commits, 404 for a file or a folder to archive; nothing outside the workspace's
temporary folder is ever read or written.

Over local conversation folders (``FolderStore``) each conversation's copy reads the
folder its stored state names, in place (``workspace_local.py``), and says why where it
cannot (not on this machine, not a git repository); the server-wide copy reads nothing there.

With ``relative_working_dir`` (an app server's option) the sandbox's record names its
workspace ``"."``, as app server 1.11.0's process sandboxes do, and the server-wide git
routes read a relative path inside the workspace, as such a sandbox reads it from its own
folder; the file routes still take absolute paths only.

On an app server the sandbox's own record (``GET /api/conversations/{id}``, where its
``workspace.working_dir`` is) and the app server's trajectory download
(``/api/v1/app-conversations/{id}/download``) are served too.
"""

from __future__ import annotations

import posixpath
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Header, HTTPException, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse, Response

from . import workspace_git as G
from .deps import get_store
from .live import LiveConversation, LiveError
from .params import normalize_hex_id
from .routes_live import live_conversation
from .store import Store
from .workspace_demo import DemoWorkspace
from .workspace_files import directory_page, home_body, trajectory_zip
from .workspace_local import LocalWorkspace

SHA = r"^[0-9a-fA-F]{4,64}$"
OUTSIDE = "path must be inside the conversation workspace"

plain = APIRouter(prefix="/api", tags=["Agent server (workspace)"])
scoped = APIRouter(prefix="/api/conversations/{conversation_id}", tags=["Agent server (workspace)"])
NO_WORKSPACE = (
    "This conversation's stored state names no workspace folder: there are no changes to read."
)

Workspace = DemoWorkspace | LocalWorkspace


def _workspace(store: Store) -> DemoWorkspace | None:
    return getattr(store, "workspace", None)


def _conversation_workspace(store: Store, cid: str | None) -> Workspace | None:
    """The workspace a conversation's routes read: its own folder over local folders (None
    server-wide or where its state names none), else the store's (the demo's, or none)."""
    of = getattr(store, "conversation_workspace", None)
    if of is None:
        return _workspace(store)
    return of(normalize_hex_id(cid)) if cid is not None else None


def workspace_here(request: Request) -> Workspace | None:
    """The workspace of this request (a dependency of every git and file route): a local
    conversation's workspace that cannot be read is its route's answer, in words."""
    store: Store = request.app.state.store
    cid = request.path_params.get("conversation_id")
    workspace = _conversation_workspace(store, cid)
    if isinstance(workspace, LocalWorkspace):
        problem = workspace.problem()
        if problem is not None:
            raise HTTPException(status_code=problem[0], detail=problem[1])
    elif workspace is None and cid is not None and hasattr(store, "conversation_workspace"):
        raise HTTPException(status_code=409, detail=NO_WORKSPACE)
    return workspace


Here = Depends(workspace_here)


def _real(workspace: Workspace | None, path: str) -> Path | None:
    return workspace.real(path) if workspace is not None else None


def _repository(workspace: Workspace | None, path: str) -> Path | None:
    """The folder a path names, when it is in the workspace and git is there to read it;
    None otherwise (answered as a folder in no repository, without asking git)."""
    real = _real(workspace, path)
    if real is None or workspace is None:
        return None
    workspace.root  # noqa: B018 - made on first use; has_git is known after
    return real if workspace.has_git else None


def _from_cwd(request: Request, workspace: Workspace | None, path: str) -> str:
    """``path`` as the git routes read it: a relative one inside the workspace where the
    records name the workspace relatively (``relative_working_dir``: the sandbox's own folder
    is its working directory), else as given (a relative path then names nothing here)."""
    relative = request.app.state.options.get("relative_working_dir")
    if not relative or workspace is None or path.startswith("/"):
        return path
    return posixpath.normpath(posixpath.join(workspace.virtual_root, path))


def _said(workspace: Workspace | None, exc: Exception) -> str:
    return workspace.virtual(str(exc)) if workspace is not None else str(exc)


async def in_conversation(
    conversation_id: str,
    request: Request,
    x_session_api_key: Annotated[str | None, Header()] = None,
) -> LiveConversation:
    """The per-conversation copy's checks: key, conversation, running sandbox, path inside."""
    conv = await live_conversation(conversation_id, request, x_session_api_key)
    try:
        conv.require_sandbox()
    except LiveError as exc:
        raise HTTPException(status_code=503, detail=exc.detail) from None
    store: Store = request.app.state.store
    workspace = _conversation_workspace(store, conv.id)
    if workspace is None and hasattr(store, "conversation_workspace"):
        return conv  # the routes say there is no workspace (``workspace_here``)
    workspace = workspace or DemoWorkspace()
    for name in ("path", "workspace_dir"):
        wanted = request.query_params.get(name)
        if wanted is not None and not workspace.inside(wanted):
            raise HTTPException(status_code=422, detail=OUTSIDE)
    return conv


InConversation = Depends(in_conversation)


def _both(method: str, route: str, **options: Any) -> Any:
    """Serve a handler on both copies (the per-conversation one with its checks)."""

    def register(handler: Any) -> Any:
        plain.add_api_route(route, handler, methods=[method], **options)
        scoped.add_api_route(
            route, handler, methods=[method], dependencies=[InConversation], **options
        )
        return handler

    return register


# -- git ---------------------------------------------------------------------------------------


def _git(workspace: Workspace | None, run: Callable[..., Any], *args: Any) -> Any:
    """``run(*args)``, a failed git command answered as the real server does (400, its words)."""
    try:
        return run(*args)
    except G.GitFailed as exc:
        raise HTTPException(status_code=400, detail=_said(workspace, exc)) from None


@_both("GET", "/git/changes", summary="Changed files against the base (or ref)")
def git_changes(
    request: Request, path: str, ref: str | None = None, workspace: Workspace | None = Here
) -> list[dict[str, str]]:
    real = _repository(workspace, _from_cwd(request, workspace, path))
    if real is None:
        return []
    return _git(workspace, G.changes, real, ref)


@_both("GET", "/git/diff", summary="One file's text at the base and now")
def git_diff(
    request: Request,
    path: str,
    ref: str | None = None,
    commit: Annotated[str | None, Query(pattern=SHA)] = None,
    workspace: Workspace | None = Here,
) -> dict[str, Any]:
    if ref is not None and commit is not None:
        raise HTTPException(status_code=400, detail="'ref' and 'commit' are mutually exclusive")
    path = _from_cwd(request, workspace, path)
    real = _repository(workspace, path)
    if real is None:
        found = _real(workspace, path)
        if found is None or not found.exists():
            raise HTTPException(status_code=400, detail=f"File does not exist: {path}")
        return {"original": None, "modified": None}  # a file in no repository
    return _git(workspace, G.diff, real, ref, commit)


@_both("GET", "/git/commits", summary="The newest commits reachable from HEAD")
def git_commits(
    request: Request,
    path: str,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    workspace: Workspace | None = Here,
) -> dict[str, Any]:
    real = _repository(workspace, _from_cwd(request, workspace, path))
    return G.commits(real, limit) if real is not None else {"commits": [], "has_more": False}


@_both("GET", "/git/commits/{sha}/changes", summary="The files one commit changed")
def git_commit_changes(
    request: Request,
    sha: Annotated[str, PathParam(pattern=SHA)],
    path: str,
    workspace: Workspace | None = Here,
) -> list[dict[str, str]]:
    real = _repository(workspace, _from_cwd(request, workspace, path))
    if real is None:
        return []
    return _git(workspace, G.commit_changes, real, sha)


# -- files -------------------------------------------------------------------------------------


@_both("GET", "/file/archive", summary="The working tree as a git patch (git-delta)")
def file_archive(
    path: str,
    format: Literal["git-delta", "tar.gz"] = "git-delta",
    base_ref: str | None = None,
    workspace: Workspace | None = Here,
) -> Response:
    if not path.startswith("/"):
        raise HTTPException(status_code=400, detail="Path must be absolute")
    real = _real(workspace, path)
    if real is None or not real.exists():
        raise HTTPException(status_code=404, detail="Directory not found")
    if not real.is_dir():
        raise HTTPException(status_code=400, detail="Path is not a directory")
    if format != "git-delta":
        raise HTTPException(status_code=400, detail="Only git-delta archives are served here")
    if _repository(workspace, path) is None:
        raise HTTPException(status_code=400, detail=f"Not a git repository: {path}")
    try:
        found = G.delta(real, base_ref)
    except G.NotARepository as exc:
        said = _said(workspace, exc)
        raise HTTPException(status_code=400, detail=f"Not a git repository: {said}") from None
    except G.GitFailed as exc:
        raise HTTPException(status_code=400, detail=_said(workspace, exc)) from None
    headers = dict(found.headers)
    if workspace is not None and "x-archive-repo-root" in headers:
        from urllib.parse import quote, unquote

        shown = workspace.virtual(unquote(headers["x-archive-repo-root"]))
        headers["x-archive-repo-root"] = quote(shown, safe="")
    name = Path(path.rstrip("/")).name or "workspace"
    headers["content-disposition"] = f'attachment; filename="{name}.patch"'
    return Response(found.patch, media_type="text/x-patch; charset=utf-8", headers=headers)


@_both("GET", "/file/download", summary="A file's bytes")
def file_download(path: str, workspace: Workspace | None = Here) -> Response:
    if not path.startswith("/"):
        raise HTTPException(status_code=400, detail="Path must be absolute")
    real = _real(workspace, path)
    if real is None or not real.exists():
        raise HTTPException(status_code=404, detail="File not found")
    if not real.is_file():
        raise HTTPException(status_code=400, detail="Path is not a file")
    headers = {"content-disposition": f'attachment; filename="{real.name}"'}
    return Response(real.read_bytes(), media_type="application/octet-stream", headers=headers)


def make_directory(store: Store, path: str) -> None:
    """Create ``path`` in the workspace (and its parents); a path outside it is only
    remembered (``store.directories``): nothing outside the workspace is ever written."""
    real = _real(_workspace(store), path)
    if real is None:
        store.directories.add(path.rstrip("/") or "/")
        return
    if real.exists() and not real.is_dir():
        raise HTTPException(status_code=400, detail="Path exists and is not a directory")
    try:
        real.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise HTTPException(status_code=400, detail="Parent path is not a directory") from None


# the server-wide copy is routes_agent.py's (it also takes a JSON body and relative paths)
@scoped.post(
    "/file/create_directory",
    summary="Create a folder and its parents",
    dependencies=[InConversation],
)
def file_create_directory(path: str, store: Store = Depends(get_store)) -> dict[str, bool]:
    make_directory(store, path)
    return {"success": True}


@plain.get("/file/search_subdirs", summary="A folder's immediate subfolders, by name")
def file_search_subdirs(
    path: str,
    page_id: str | None = None,
    limit: Annotated[int, Query(gt=0, le=100)] = 100,
    include_hidden: bool = False,
    workspace: Workspace | None = Here,
) -> Any:
    if not path.startswith("/"):
        raise HTTPException(status_code=400, detail="Path must be absolute")
    real = _real(workspace, path)
    if real is None or not real.exists():
        raise HTTPException(status_code=404, detail="Directory not found")
    if not real.is_dir():
        raise HTTPException(status_code=400, detail="Path is not a directory")
    return directory_page(real, path, page_id, limit, include_hidden)


@plain.get("/file/home", summary="The server user's home folder")
def file_home(store: Store = Depends(get_store)) -> Any:
    return home_body(_workspace(store))


def _trajectory(store: Store, conversation_id: str) -> Response:
    hex_id = _hex(conversation_id)
    info = store.get_conversation(hex_id) if hex_id else None
    if info is None:
        raise HTTPException(status_code=404, detail="Conversation not found")
    headers = {"content-disposition": f'attachment; filename="{hex_id}.zip"'}
    return Response(
        trajectory_zip(store, info), media_type="application/octet-stream", headers=headers
    )


@plain.get("/file/download-trajectory/{conversation_id}", summary="The conversation as a zip")
def file_trajectory(conversation_id: str, store: Store = Depends(get_store)) -> Response:
    return _trajectory(store, conversation_id)


@scoped.get(
    "/file/download-trajectory/{trajectory_id}",
    summary="The conversation as a zip",
    dependencies=[InConversation],
)
def conversation_trajectory(
    conversation_id: str, trajectory_id: str, store: Store = Depends(get_store)
) -> Response:
    if _hex(trajectory_id) is None:
        raise HTTPException(status_code=422, detail="Invalid trajectory conversation id")
    if _hex(trajectory_id) != _hex(conversation_id):
        raise HTTPException(
            status_code=422, detail="Trajectory must belong to the selected conversation"
        )
    return _trajectory(store, conversation_id)


def _hex(value: str) -> str | None:
    try:
        return uuid.UUID(value).hex
    except (ValueError, AttributeError, TypeError):
        return None


# -- installing --------------------------------------------------------------------------------


def install(app: FastAPI, protected: list[Any], *, kind: str) -> None:
    """Serve the workspace routes (``protected``: the session-key check of the server-wide
    ones). An app server also gets the sandbox's conversation record and its own download."""
    app.include_router(plain, dependencies=protected)
    app.include_router(scoped)
    if kind != "app":
        return
    app_routes = APIRouter(tags=["Agent server (workspace)"])

    @app_routes.get("/api/conversations/{conversation_id}", summary="The sandbox's record")
    def sandbox_record(
        request: Request,
        conv: LiveConversation = InConversation,
        store: Store = Depends(get_store),
    ) -> Any:
        from .routes_agent_server import conversation_record

        info = store.get_conversation(conv.id)
        children = store.sub_conversation_ids([conv.id])
        record = conversation_record(info or {}, children.get(conv.id, []))
        stored = getattr(store, "working_dir", None)  # a local folder's own workspace
        if callable(stored):
            where = stored(conv.id)
            if where is None:
                raise HTTPException(status_code=409, detail=NO_WORKSPACE)
            record["workspace"]["working_dir"] = where
        elif request.app.state.options.get("relative_working_dir"):
            record["workspace"]["working_dir"] = "."  # app server 1.11.0's process sandboxes
        return JSONResponse(record)

    @app_routes.get(
        "/api/v1/app-conversations/{conversation_id}/download",
        summary="The conversation's trajectory as a zip",
        dependencies=protected,
    )
    def app_trajectory(conversation_id: str, store: Store = Depends(get_store)) -> Response:
        return _trajectory(store, conversation_id)

    app.include_router(app_routes)


__all__ = ["install", "make_directory"]
