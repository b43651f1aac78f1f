"""A conversation's workspace served as plain files (``GET /api/conversations/{id}/workspace/
{path}``), as agent servers 1.34.0 and 1.58.2 serve it (their ``workspace_router``).

Why ohtui needs it: where a sandbox names its workspace by a relative path (``"."``, app
server 1.11.0's process sandboxes; ``relative_working_dir`` here), the server-wide file
routes refuse every path in it (400 "Path must be absolute"); this route takes a path
relative to the workspace and is then the one way to a file's exact bytes. It answers as
the real one does: the file, its type guessed from its name; for a folder, its
``index.html`` (404 "No index.html in directory" without one); 404 "File not found"; 400
"Path is outside the workspace" for a path or a link leading out (nothing outside is read).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI, HTTPException
from fastapi.responses import FileResponse

from .routes_workspace import Here, InConversation, Workspace

router = APIRouter(
    prefix="/api/conversations/{conversation_id}",
    tags=["Agent server (workspace)"],
    dependencies=[InConversation],
)


def _served(workspace: Workspace | None, file_path: str) -> FileResponse:
    top = workspace.real(workspace.virtual_root) if workspace is not None else None
    if top is None or not top.is_dir():
        raise HTTPException(status_code=404, detail="Workspace directory does not exist")
    root = top.resolve()
    target = (root / file_path).resolve()
    if target != root and not target.is_relative_to(root):
        raise HTTPException(status_code=400, detail="Path is outside the workspace")
    if target.is_dir():
        index = target / "index.html"
        if not index.is_file():
            raise HTTPException(status_code=404, detail="No index.html in directory")
        return FileResponse(path=index)
    if not target.is_file():
        raise HTTPException(status_code=404, detail="File not found")
    return FileResponse(path=Path(target))


@router.get("/workspace", summary="The workspace root's index.html")
def serve_workspace_root(workspace: Workspace | None = Here) -> FileResponse:
    return _served(workspace, "")


@router.get("/workspace/{file_path:path}", summary="A file (or a folder's index.html)")
def serve_workspace_file(file_path: str, workspace: Workspace | None = Here) -> FileResponse:
    return _served(workspace, file_path)


def install(app: FastAPI) -> None:
    """Serve the route (its own auth: the conversation's sandbox key, as the live routes)."""
    app.include_router(router)


__all__ = ["install", "router"]
