"""One conversation's workspace on its agent server: git changes, diffs, commits, files.

Routes, as ``openhands-agent-server`` 1.58.2 answers them: each call goes to the
conversation's own copy (``/api/conversations/{id}/git/…``, ``/file/…``; its paths must be
absolute and inside the conversation's workspace) where the server has one, else to the
server-wide route (``/api/git/…``, ``/api/file/…``; any path). Older servers (1.34.0, what
the app server's sandboxes run) have only the server-wide ones, and lack some of those
(commits, create_directory). A route a server lacks answers FastAPI's bare 404 ``Not
Found`` (unlike "Conversation not found" or "File not found"): the conversation's copy is
then left for the server-wide one, remembered per route, and when neither exists the call
raises :class:`Unsupported` naming the server and its version.

Paths: the listing of changes gives paths relative to the folder asked about; every call
here takes such a relative path and joins it to the conversation's working directory (its
record's ``workspace.working_dir``), or an absolute path as it is.

A working directory named relatively (``"."``: app server 1.11.0's process sandboxes, whose
agent server runs in the sandbox's folder) leaves its paths relative: the git routes read
them from the server's own folder, but the server-wide file routes refuse them (400 "Path
must be absolute"), so a file there is read through the conversation's workspace route
(``/api/conversations/{id}/workspace/{path}``, relative to its working directory, exact
bytes; 1.34.0 and 1.58.2 have it) and no folder of it can be listed.
"""

from __future__ import annotations

import mimetypes
import posixpath
import re
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import unquote

from pydantic import BaseModel, ValidationError

from tui.models.workspace import (
    GitChange,
    GitCommitsPage,
    GitDiff,
    HomeResponse,
    SubdirectoryPage,
    WorkspacePatch,
)

from . import params as P
from .downloads import Downloaded, download
from .errors import (
    BadRequest,
    BadResponse,
    HTTPStatusError,
    InvalidParameter,
    NotAFile,
    NotFound,
    Unsupported,
)
from .http import HttpCore
from .params import segment

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

#: FastAPI's answer for a path no route serves.
ROUTE_MISSING = "Not Found"
SHA = re.compile(r"[0-9a-fA-F]{4,64}")
MAX_COMMITS = 200
#: Bytes of a patch read into memory (``archive_patch``).
MAX_PATCH = 64 * 1024 * 1024
#: What each route gives, for "… has no …".
ROUTE_WORDS = {
    "git/changes": "list of git changes (/api/git/changes)",
    "git/diff": "git diffs (/api/git/diff)",
    "git/commits": "commit history (/api/git/commits)",
    "git/commits/{sha}/changes": "list of a commit's changes (/api/git/commits/{sha}/changes)",
    "file/archive": "workspace patches (/api/file/archive)",
    "file/download": "file downloads (/api/file/download)",
    "file/create_directory": "way to create a directory (/api/file/create_directory)",
    "file/download-trajectory/{id}": "trajectory download (/api/file/download-trajectory)",
    "file/search_subdirs": "folder listing (/api/file/search_subdirs)",
    "file/home": "home folder (/api/file/home)",
    "workspace/{path}": "way to read a file by a relative path "
    "(/api/conversations/{id}/workspace/…)",
}
#: What the workspace route says of a folder without an ``index.html``.
NO_INDEX = "No index.html in directory"
#: Routes only served server-wide (1.58.2 has no conversation copy of them).
SERVER_WIDE = frozenset({"file/search_subdirs", "file/home"})


def route_missing(exc: HTTPStatusError) -> bool:
    """The answer of a server without that route (not of a missing file or conversation)."""
    return exc.status == 405 or (exc.status == 404 and exc.detail == ROUTE_MISSING)


class Workspace:
    """The workspace of ``conversation`` (its id as the server spells it) on the agent
    server ``http`` reaches; ``conversation`` None: the server's files, by absolute path.

    ``owns_http``: :meth:`aclose` closes ``http`` (a sandbox's own connection)."""

    def __init__(
        self,
        http: HttpCore,
        conversation: str | None = None,
        *,
        root: str | None = None,
        owns_http: bool = False,
    ) -> None:
        self._http = http
        self.conversation = conversation
        self._root = root
        self._owns = owns_http
        self._server_wide: set[str] = set(SERVER_WIDE)  # routes with no conversation copy here
        self._label: str | None = None

    @property
    def base_url(self) -> str:
        return self._http.display_url

    async def aclose(self) -> None:
        if self._owns:
            await self._http.aclose()

    def __repr__(self) -> str:
        return f"Workspace(base_url={self.base_url!r}, conversation={self.conversation!r})"

    # --- where ---------------------------------------------------------------------------------

    async def root(self) -> str:
        """The conversation's working directory on the server (from its record, read once)."""
        if self._root is None:
            if self.conversation is None:
                raise InvalidParameter("name a path: there is no conversation to take it from")
            route = f"/api/conversations/{segment(self.conversation)}"
            try:
                data = await self._http.request("GET", route)
            except NotFound:
                raise NotFound(
                    f"no conversation {self.conversation!r} on the agent server at {self.base_url}",
                    status=404,
                    method="GET",
                    url=f"{self.base_url}{route}",
                ) from None
            workspace = data.get("workspace") if isinstance(data, dict) else None
            found = workspace.get("working_dir") if isinstance(workspace, dict) else None
            if not isinstance(found, str) or not found.strip():
                raise self._bad("GET", route, "the conversation names no workspace.working_dir")
            self._root = found
        return self._root

    async def resolve(self, path: str | None) -> str:
        """``path`` as the server needs it: the working directory when None, joined to it when
        relative (a path from a listing), as it is when absolute."""
        if path is None:
            return await self.root()
        text = P.check_id(path, "path")
        if posixpath.isabs(text) or self.conversation is None:
            return text
        root = await self.root()
        if not posixpath.isabs(root):  # stays relative: "src/x.py", "." for the root itself
            return posixpath.normpath(posixpath.join(root, text))
        return posixpath.join(root, text)

    def _scoped(self, name: str, where: str) -> bool:
        """Whether to try the conversation's copy of route ``name`` for a path ``where``:
        only for a conversation, a route it has, and an absolute path (the copy takes no
        relative one; a workspace named relatively is reached server-wide)."""
        return (
            self.conversation is not None
            and name not in self._server_wide
            and posixpath.isabs(where)
        )

    def _route(self, name: str, scoped: bool, fields: dict[str, str]) -> str:
        base = f"/api/conversations/{segment(self.conversation or '')}" if scoped else "/api"
        return f"{base}/{name.format(**{k: segment(v) for k, v in fields.items()})}"

    async def _call(self, name: str, where: str, send: Callable[[str], Any], **fields: str) -> Any:
        """``await send(route)`` on the conversation's copy of route ``name`` (a template
        filled from ``fields``), else on the server-wide one."""
        scoped = self._scoped(name, where)
        while True:
            try:
                return await send(self._route(name, scoped, fields))
            except HTTPStatusError as exc:
                if not route_missing(exc):
                    raise
                if scoped:
                    self._server_wide.add(name)
                    scoped = False
                    continue
                raise await self.unsupported(name) from None

    async def unsupported(self, name: str) -> Unsupported:
        """ "<the server, its version> has no <what route ``name`` gives>"."""
        if self._label is None:
            label = f"the agent server at {self.base_url}"
            try:
                info = await self._http.request("GET", "/server_info")
            except Exception:  # noqa: BLE001 - the version is a courtesy; its absence is not news
                info = None
            if isinstance(info, dict):
                words = [info.get("title"), info.get("version")]
                named = " ".join(w for w in words if isinstance(w, str) and w)
                label = f"{label} ({named})" if named else label
            self._label = label
        what = ROUTE_WORDS.get(name, f"/api/{name}")
        return Unsupported(f"{self._label} has no {what}", url=self.base_url)

    # --- decoding ------------------------------------------------------------------------------

    def _bad(self, method: str, route: str, what: str) -> BadResponse:
        url = f"{self.base_url}{route}"
        return BadResponse(f"{method} {url}: {what}", method=method, url=url)

    def _model(self, cls: type[M], data: Any, route: str) -> M:
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(body)'}: {e['msg']}"
                for e in exc.errors(include_url=False, include_input=False)[:5]
            )
            raise self._bad("GET", route, f"unexpected {cls.__name__} shape ({problems})") from None

    def _changes(self, data: Any, route: str) -> list[GitChange]:
        if not isinstance(data, list):
            raise self._bad("GET", route, f"expected a JSON array, got {type(data).__name__}")
        return [self._model(GitChange, item, route) for item in data]

    async def _get(self, name: str, where: str, params: dict[str, Any], **fields: str) -> Any:
        async def send(route: str) -> Any:
            return route, await self._http.request("GET", route, params=P.drop_none(params))

        return await self._call(name, where, send, **fields)

    # --- git -----------------------------------------------------------------------------------

    async def changes(self, path: str | None = None, *, ref: str | None = None) -> list[GitChange]:
        """The changed files under ``path`` (the working directory when None) against the
        server's base (``ref`` None: the branch's origin or fork point, else HEAD) or ``ref``
        (``"HEAD"``: uncommitted changes only, as ``git status``). A folder in no
        repository answers ``[]``: the server does not tell the two apart."""
        where = await self.resolve(path)
        params = {"path": where, "ref": P.check_text(ref, "ref")}
        route, data = await self._get("git/changes", where, params)
        return self._changes(data, route)

    async def diff(
        self, path: str, *, ref: str | None = None, commit: str | None = None
    ) -> GitDiff:
        """One file's whole text at the base and now (or before and after ``commit``); the
        server refuses a file over 1 MB (400 "File too large for git diff")."""
        if ref is not None and commit is not None:
            raise InvalidParameter("ref and commit cannot both be given")
        where = await self.resolve(path)
        params = {"path": where, "ref": P.check_text(ref, "ref"), "commit": _sha(commit)}
        route, data = await self._get("git/diff", where, params)
        return self._model(GitDiff, data, route)

    async def commits(self, path: str | None = None, *, limit: int = 50) -> GitCommitsPage:
        """The newest ``limit`` (1–200) commits reachable from HEAD, newest first."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_COMMITS:
            raise InvalidParameter(f"limit must be an integer from 1 to {MAX_COMMITS}")
        where = await self.resolve(path)
        route, data = await self._get("git/commits", where, {"path": where, "limit": limit})
        return self._model(GitCommitsPage, data, route)

    async def commit_changes(self, sha: str, path: str | None = None) -> list[GitChange]:
        """The files one commit changed (against its first parent)."""
        checked = _sha(sha)
        if checked is None:
            raise InvalidParameter("name a commit (its sha)")
        where = await self.resolve(path)
        name = "git/commits/{sha}/changes"
        route, data = await self._get(name, where, {"path": where}, sha=checked)
        return self._changes(data, route)

    async def archive_patch(
        self, path: str | None = None, *, base_ref: str | None = None, max_bytes: int = MAX_PATCH
    ) -> WorkspacePatch:
        """The server's own patch of the working tree (``format=git-delta``): against
        ``base_ref``, or the server's base (the branch's origin or merge base; the empty tree
        in a repository without an origin: every file as new). Exact: binaries included."""
        where = await self.resolve(path)
        base = P.check_text(base_ref, "base_ref")
        params = {"path": where, "format": "git-delta", "base_ref": base}
        body = bytearray()

        async def send(route: str) -> Downloaded:
            body.clear()
            return await download(
                self._http,
                route,
                body.extend,
                params=P.drop_none(params),
                max_bytes=max_bytes,
                what="the patch",
            )

        got = await self._call("file/archive", where, send)
        head = got.headers
        named = head.get("x-archive-base-commit") or head.get("x-archive-base-ref")
        root = head.get("x-archive-repo-root")
        return WorkspacePatch(
            data=bytes(body),
            source="git-delta",
            files=count_files(bytes(body)),
            repo_root=unquote(root) if root else None,
            branch=head.get("x-archive-branch"),
            head_commit=head.get("x-archive-head-commit"),
            base=named or base,
        )

    # --- files ---------------------------------------------------------------------------------

    async def download(
        self, path: str, write: Callable[[bytes], Any], *, max_bytes: int
    ) -> Downloaded:
        """A file's bytes to ``write``, chunk by chunk (:class:`TooLarge` past ``max_bytes``;
        :class:`NotAFile` for a folder)."""
        where = await self.resolve(path)
        if self.conversation is not None and not posixpath.isabs(where):
            return await self._served(where, write, max_bytes=max_bytes)

        async def send(route: str) -> Downloaded:
            try:
                return await download(
                    self._http, route, write, params={"path": where}, max_bytes=max_bytes
                )
            except BadRequest as exc:
                if exc.detail == "Path is not a file":
                    raise NotAFile(f"{where} is a folder, not a file", url=exc.url) from None
                raise

        return await self._call("file/download", where, send)

    async def _served(
        self, where: str, write: Callable[[bytes], Any], *, max_bytes: int
    ) -> Downloaded:
        """A file by a path relative to the working directory, from the conversation's
        workspace route: a static file server, which answers a folder with its
        ``index.html`` (an HTML answer for a name that is no HTML file's) or 404 without one."""
        quoted = "/".join(segment(part) for part in where.split("/"))
        route = f"/api/conversations/{segment(self.conversation or '')}/workspace/{quoted}"
        try:
            got = await download(self._http, route, write, max_bytes=max_bytes)
        except HTTPStatusError as exc:
            said = exc.detail if isinstance(exc.detail, str) else ""
            if route_missing(exc) or said.startswith("Conversation workspace is not local"):
                raise await self.unsupported("workspace/{path}") from None
            if exc.status == 404 and said == NO_INDEX:
                raise NotAFile(f"{where} is a folder, not a file", url=exc.url) from None
            raise
        served = got.headers.get("content-type", "").split(";")[0].strip().lower()
        if served == "text/html" and mimetypes.guess_type(where)[0] != "text/html":
            raise NotAFile(f"{where} is a folder, not a file", url=f"{self.base_url}{route}")
        return got

    async def read_file(self, path: str, *, max_bytes: int) -> bytes:
        """A file's bytes, at most ``max_bytes`` of them (:class:`TooLarge` past that)."""
        body = bytearray()

        async def send_all(chunk: bytes) -> None:
            body.extend(chunk)

        await self.download(path, send_all, max_bytes=max_bytes)
        return bytes(body)

    async def create_directory(self, path: str) -> dict[str, Any]:
        """Make a folder and any missing parents (an existing one is fine; 400 over a file)."""
        where = await self.resolve(path)

        async def send(route: str) -> Any:
            data = await self._http.request("POST", route, params={"path": where}, idempotent=True)
            if data is None:
                return {"success": True}
            if not isinstance(data, dict):
                raise self._bad("POST", route, "expected a JSON object")
            return data

        return await self._call("file/create_directory", where, send)

    async def trajectory(self, write: Callable[[bytes], Any], *, max_bytes: int) -> Downloaded:
        """The conversation's folder on the server as a zip (its events and state)."""
        if self.conversation is None:
            raise InvalidParameter("a trajectory belongs to a conversation: name one")

        async def send(route: str) -> Downloaded:
            return await download(
                self._http, route, write, max_bytes=max_bytes, what="the trajectory"
            )

        # any absolute path: the trajectory route takes none, so its copy is always tried
        name = "file/download-trajectory/{id}"
        return await self._call(name, "/", send, id=self.conversation)

    async def subdirectories(
        self,
        path: str | None = None,
        *,
        page_id: str | None = None,
        limit: int = 100,
        include_hidden: bool = False,
    ) -> SubdirectoryPage:
        """One page of a folder's immediate subfolders, by name (the only listing an agent
        server has: it lists no files)."""
        where = await self.resolve(path)
        params = {
            "path": where,
            "page_id": P.check_optional_id(page_id, "page_id"),
            "limit": P.check_limit(limit),
            "include_hidden": P.check_bool(include_hidden, "include_hidden") or None,
        }
        route, data = await self._get("file/search_subdirs", where, params)
        return self._model(SubdirectoryPage, data, route)

    async def home(self) -> HomeResponse:
        """The server user's home folder, its top-level folders and the file-system roots."""
        route, data = await self._get("file/home", "", {})
        return self._model(HomeResponse, data, route)


def count_files(patch: bytes) -> int:
    """How many files a git patch touches (its ``diff --git`` lines)."""
    return patch.count(b"\ndiff --git ") + patch.startswith(b"diff --git ")


def _sha(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not SHA.fullmatch(value):
        raise InvalidParameter(f"a commit sha is 4 to 64 hex digits, got {value!r}"[:120])
    return value


__all__ = [
    "MAX_PATCH",
    "NO_INDEX",
    "ROUTE_MISSING",
    "Workspace",
    "count_files",
    "route_missing",
]
