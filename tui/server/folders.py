"""Local OpenHands conversation folders served through the reference server's own routes.

The agent, the CLI and the SDK keep each conversation on disk: ``<id hex>/base_state.json``,
``meta.json`` and ``events/event-NNNNN-<event id>.json``, one compact event per file (facts §8;
CLI trajectories keep the event files in the folder itself). :class:`FolderStore` is a
:class:`~tui.server.store.Store` whose conversation records come from those folders and whose
events are read from the files — lazily: file names give the order and the ids, so opening a
100,000-file conversation reads one page of files, not all of them. Bodies are cached (bounded),
and the little that filters need (kind, timestamp) is kept per event once read.

Read-only: nothing is ever written into the folders. Order is the index in the file name (the
SDK's log order); a file that is not valid JSON is served as an event that names the problem,
so the client keeps it as a raw event with the reason — except the newest file of a folder,
which may still be being written and is left out until it parses. Following folders while an
agent writes them (new files to websocket followers) is ``folder_watch.py``.
"""

from __future__ import annotations

import functools
import json
import os
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from tui.models import NON_VIEWABLE_KINDS

from .folder_log import FolderLog, file_time, trusted_stamp
from .folder_scan import conversation_folders, dir_entries, events_dir
from .store import EventRow, Store
from .views import conversation_info

_HEX = re.compile(r"[0-9a-fA-F]{32}")
BODY_CACHE = 4_000  # event bodies kept per store
LOCAL_SANDBOX = "local"
F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["LOCAL_SANDBOX", "FolderLog", "FolderStore", "conversation_folders"]


def _locked(method: F) -> F:
    """One thread at a time in the folder state: routes run in a thread pool and the follower
    (``folder_watch.py``) reads new files from another thread."""

    @functools.wraps(method)
    def run(self: FolderStore, *args: Any, **kwargs: Any) -> Any:
        with self._folder_lock:
            return method(self, *args, **kwargs)

    return run  # type: ignore[return-value]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


class FolderStore(Store):
    """A Store over conversation folders (see the module doc); everything else stays SQLite."""

    read_only = True  # create_app refuses every request that is not a read (read_only.py)

    def __init__(self, path: str | Path, *, session_key: str | None = None) -> None:
        """``session_key``: the pseudo sandbox's key (the server's own, ``folder_server.py``);
        a random one if omitted."""
        super().__init__(":memory:")
        self._folder_lock = threading.RLock()
        self.root = Path(path)
        self.logs: dict[str, FolderLog] = {}
        self._bodies: OrderedDict[tuple[str, int], str] = OrderedDict()
        #: per conversation, the last log position sent to websocket followers
        self.announced: dict[str, int] = {}
        # One always-running pseudo sandbox makes every folder followable over the same
        # websocket route as a real agent server (its key only guards that route).
        self.put_sandbox(
            {
                "id": LOCAL_SANDBOX,
                "created_at": file_time(self.root) + "Z",
                "sandbox_spec_id": "local",
                "status": "RUNNING",
                "session_api_key": session_key or secrets.token_urlsafe(32),
                "port": 0,
            }
        )
        self._folders: dict[Path, str] = {}
        self._waiting: set[Path] = set()  # subfolders that are not (yet) conversations
        self._untitled: set[str] = set()  # titled by folder name for want of a user message yet
        self._root_stamp: int | None = None
        self._state_stamps: dict[str, int | None] = {}
        self.rescan()

    # --- conversations ---------------------------------------------------------------------

    @_locked
    def rescan(self) -> list[str]:
        """Add conversation folders created since the last look.

        Cheap when none were: the root is listed only when its mtime moved (or is too recent
        to trust). A new subfolder without an event file yet (the agent makes the folder, then
        writes into it) is looked at again on every rescan until it has one."""
        try:
            stamp = os.stat(self.root).st_mtime_ns
        except OSError:
            return []
        if stamp != self._root_stamp:
            self._root_stamp = trusted_stamp(stamp)
            if events_dir(self.root) is not None:
                candidates = [self.root]
            else:
                candidates = [
                    Path(entry.path) for entry in dir_entries(self.root) if entry.is_dir()
                ]
            self._waiting.update(folder for folder in candidates if folder not in self._folders)
        added = []
        for folder in sorted(self._waiting):
            if events_dir(folder) is not None:
                self._waiting.discard(folder)
                self._folders[folder] = cid = self._add_folder(folder)
                added.append(cid)
        return added

    @_locked
    def state_changed(self, cid: str) -> bool:
        """Re-read ``base_state.json`` if it changed; True when the status did."""
        folder = self.logs[cid].folder
        try:
            stamp = os.stat(folder / "base_state.json").st_mtime_ns
        except OSError:
            stamp = None
        if cid in self._untitled:
            self._retitle(cid)
        if stamp is not None and stamp == self._state_stamps.get(cid):
            return False
        self._state_stamps[cid] = trusted_stamp(stamp)
        state = _read_json(folder / "base_state.json") or {}
        status = state.get("execution_status")
        info = super().get_conversation(cid)
        if info is None or not isinstance(status, str) or info.get("execution_status") == status:
            return False
        info["execution_status"] = status
        self.put_conversation(info)
        return True

    def search_conversations(self, *args: Any, **kwargs: Any):
        self.rescan()
        return super().search_conversations(*args, **kwargs)

    def count_conversations(self, **filters: Any) -> int:
        self.rescan()
        return super().count_conversations(**filters)

    def get_conversations(self, ids: Sequence[str]) -> list[dict[str, Any] | None]:
        for cid in ids:
            if cid in self.logs:
                self.state_changed(cid)
        return super().get_conversations(ids)

    @_locked
    def _add_folder(self, folder: Path) -> str:
        meta = _read_json(folder / "meta.json") or {}
        state = _read_json(folder / "base_state.json") or {}
        match = (
            _HEX.search(str(meta.get("id") or ""))
            or _HEX.search(str(state.get("id") or "").replace("-", ""))
            or _HEX.search(folder.name)
        )
        cid = match.group(0).lower() if match else folder.name
        log = FolderLog(folder)
        self.logs[cid] = log
        title = meta.get("title") if isinstance(meta.get("title"), str) else None
        agent = state.get("agent") if isinstance(state.get("agent"), dict) else {}
        llm = agent.get("llm") if isinstance(agent.get("llm"), dict) else {}
        created = meta.get("created_at") or (file_time(log.path(0)) + "Z" if log.files else None)
        updated = meta.get("updated_at") or (
            file_time(log.path(len(log) - 1)) + "Z" if log.files else created
        )
        status = state.get("execution_status")
        title = title or self._first_user_text(cid)
        if title is None:
            self._untitled.add(cid)
        self.put_conversation(
            conversation_info(
                id=cid,
                sandbox_id=LOCAL_SANDBOX,
                title=title or folder.name,
                created_at=created,
                updated_at=updated,
                llm_model=llm.get("model") if isinstance(llm.get("model"), str) else None,
                trigger="local",
                execution_status=status if isinstance(status, str) else None,
            )
        )
        self.announced[cid] = self._complete_len(cid) - 1
        try:
            self._state_stamps[cid] = trusted_stamp(os.stat(folder / "base_state.json").st_mtime_ns)
        except OSError:
            self._state_stamps[cid] = None
        return cid

    def _retitle(self, cid: str) -> None:
        """A conversation found before its first user message: its title once there is one."""
        log = self.logs[cid]
        meta = _read_json(log.folder / "meta.json") or {}
        log.refresh()
        title = (
            meta.get("title") if isinstance(meta.get("title"), str) and meta.get("title") else None
        )
        title = title or self._first_user_text(cid)
        info = super().get_conversation(cid)
        if title and info is not None:
            self._untitled.discard(cid)
            info["title"] = title
            self.put_conversation(info)

    def _complete_len(self, cid: str) -> int:
        """Events that can be served: all files but a newest one still being written."""
        log = self.logs[cid]
        return len(log) - (1 if len(log) and self._body(cid, len(log) - 1) is None else 0)

    # --- no sandboxes to control: the pseudo sandbox is not listed --------------------------

    def search_sandboxes(self, *, after=None, limit: int = 100):
        boxes, more = super().search_sandboxes(after=after, limit=limit)
        return [b for b in boxes if b["id"] != LOCAL_SANDBOX], more

    def _first_user_text(self, cid: str, look: int = 20) -> str | None:
        for seq in range(min(look, len(self.logs[cid]))):
            event = json.loads(self._body(cid, seq) or "{}")
            if event.get("kind") == "MessageEvent" and event.get("source") == "user":
                content = (event.get("llm_message") or {}).get("content") or []
                texts = [
                    c.get("text", "")
                    for c in content
                    if isinstance(c, dict) and c.get("type") == "text"
                ]
                text = " ".join(t for t in texts if t).strip()
                if text:
                    return text.splitlines()[0][:120]
        return None

    # --- event bodies ----------------------------------------------------------------------

    def _body(self, cid: str, seq: int) -> str | None:
        """The event's JSON text (compact), or None for a newest file still being written."""
        key = (cid, seq)
        text = self._bodies.get(key)
        if text is not None:
            self._bodies.move_to_end(key)
            return text
        log = self.logs[cid]
        path = log.path(seq)
        try:
            raw = path.read_text(encoding="utf-8")
            event = json.loads(raw)
            if not isinstance(event, dict):
                raise ValueError("not a JSON object")  # noqa: TRY004 - caught below with bad JSON
        except (OSError, ValueError) as exc:
            if seq == len(log) - 1:
                return None  # the agent may still be writing it: not corrupt yet
            event = {
                "id": log.ids[seq],
                "timestamp": file_time(path),
                "kind": "UnreadableEventFile",
                "file": path.name,
                "error": f"{type(exc).__name__}: {exc}"[:500],
            }
        text = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
        timestamp = event.get("timestamp") if isinstance(event.get("timestamp"), str) else ""
        log.info[seq] = (timestamp, event.get("kind") if isinstance(event.get("kind"), str) else "")
        self._bodies[key] = text
        if len(self._bodies) > BODY_CACHE:
            self._bodies.popitem(last=False)
        return text

    def _info(self, cid: str, seq: int) -> tuple[str, str] | None:
        info = self.logs[cid].info[seq]
        if info is None and self._body(cid, seq) is not None:
            info = self.logs[cid].info[seq]
        return info

    def _matches(self, cid: str, seq: int, kind, gte, lt, viewable_only) -> bool:
        if kind is None and gte is None and lt is None and not viewable_only:
            return self._body(cid, seq) is not None
        info = self._info(cid, seq)
        if info is None:
            return False
        timestamp, event_kind = info
        if kind is not None and event_kind != kind:
            return False
        if viewable_only and event_kind in NON_VIEWABLE_KINDS:
            return False
        if gte is not None and timestamp < gte:
            return False
        return not (lt is not None and timestamp >= lt)

    # --- the event queries the routes use ----------------------------------------------------

    @_locked
    def search_events(
        self,
        conversation_id: str,
        *,
        kind: str | None = None,
        timestamp_gte: str | None = None,
        timestamp_lt: str | None = None,
        descending: bool = False,
        after: tuple[str, int] | None = None,
        limit: int = 100,
        viewable_only: bool = False,
    ) -> tuple[list[EventRow], bool]:
        """A page in log order (the file index); ``after`` is the keyset of the last row sent."""
        log = self.logs.get(conversation_id)
        if log is None:
            return super().search_events(
                conversation_id,
                kind=kind,
                timestamp_gte=timestamp_gte,
                timestamp_lt=timestamp_lt,
                descending=descending,
                after=after,
                limit=limit,
                viewable_only=viewable_only,
            )
        log.refresh()
        count = len(log)
        if after is not None:
            start = after[1] - 1 if descending else after[1] + 1
        else:
            start = count - 1 if descending else 0
        step = -1 if descending else 1
        rows: list[EventRow] = []
        seq = start
        while 0 <= seq < count and len(rows) <= limit:
            if self._matches(
                conversation_id, seq, kind, timestamp_gte, timestamp_lt, viewable_only
            ):
                text = self._body(conversation_id, seq)
                if text is not None:
                    rows.append(EventRow((log.info[seq][0], seq, text)))
            seq += step
        return rows[:limit], len(rows) > limit

    @_locked
    def count_events(
        self,
        conversation_id: str,
        *,
        kind: str | None = None,
        timestamp_gte: str | None = None,
        timestamp_lt: str | None = None,
        viewable_only: bool = False,
    ) -> int:
        log = self.logs.get(conversation_id)
        if log is None:
            return super().count_events(
                conversation_id,
                kind=kind,
                timestamp_gte=timestamp_gte,
                timestamp_lt=timestamp_lt,
                viewable_only=viewable_only,
            )
        log.refresh()
        if kind is None and timestamp_gte is None and timestamp_lt is None and not viewable_only:
            # every file but a newest one still being written
            return len(log) - (
                1 if len(log) and self._body(conversation_id, len(log) - 1) is None else 0
            )
        return sum(
            1
            for seq in range(len(log))
            if self._matches(conversation_id, seq, kind, timestamp_gte, timestamp_lt, viewable_only)
        )

    @_locked
    def get_events(
        self, conversation_id: str, ids: Sequence[str], *, viewable_only: bool = False
    ) -> list[str | None]:
        log = self.logs.get(conversation_id)
        if log is None:
            return super().get_events(conversation_id, ids, viewable_only=viewable_only)
        out: list[str | None] = []
        for event_id in ids:
            seq = log.index.get(event_id)
            text = self._body(conversation_id, seq) if seq is not None else None
            if (
                text is not None
                and viewable_only
                and (log.info[seq] or ("", ""))[1] in NON_VIEWABLE_KINDS
            ):
                text = None
            out.append(text)
        return out

    def iter_events(self, conversation_id: str, *, batch: int = 1000) -> Iterator[EventRow]:
        log = self.logs.get(conversation_id)
        if log is None:
            yield from super().iter_events(conversation_id, batch=batch)
            return
        for seq in range(len(log)):
            with self._folder_lock:
                row = self._row(conversation_id, seq)
            if row is not None:
                yield row

    # --- what the live route asks of the log -------------------------------------------------

    def _row(self, cid: str, seq: int) -> EventRow | None:
        text = self._body(cid, seq)
        return EventRow((self.logs[cid].info[seq][0], seq, text)) if text is not None else None

    @_locked
    def last_seq(self, conversation_id: str) -> int:
        if conversation_id not in self.logs:
            return super().last_seq(conversation_id)
        return self.announced[conversation_id]  # what followers have (the subscription point)

    @_locked
    def head_event_id(self, conversation_id: str) -> str | None:
        log = self.logs.get(conversation_id)
        if log is None:
            return super().head_event_id(conversation_id)
        last = self.announced[conversation_id]
        return log.ids[last] if last >= 0 else None

    @_locked
    def last_event_of(
        self, conversation_id: str, kind: str, source: str | None = None
    ) -> str | None:
        if conversation_id not in self.logs:
            return super().last_event_of(conversation_id, kind, source)
        for seq in range(
            self.announced[conversation_id], max(-1, self.announced[conversation_id] - 500), -1
        ):
            text = self._body(conversation_id, seq)
            if (
                text is not None
                and self.logs[conversation_id].info[seq][1] == kind
                and (source is None or json.loads(text).get("source") == source)
            ):
                return text
        return None

    @_locked
    def first_seq_since(self, conversation_id: str, timestamp_gte: str) -> int | None:
        if conversation_id not in self.logs:
            return super().first_seq_since(conversation_id, timestamp_gte)
        found = None
        for seq in range(
            self.announced[conversation_id], -1, -1
        ):  # recent ones first: "since" is recent
            info = self._info(conversation_id, seq)
            if info is not None and info[0] >= timestamp_gte:
                found = seq
            elif info is not None:
                break
        return found

    @_locked
    def log_rows(
        self,
        conversation_id: str,
        *,
        after_seq: int = -1,
        upto_seq: int | None = None,
        timestamp_gte: str | None = None,
        limit: int = 500,
    ) -> list[EventRow]:
        if conversation_id not in self.logs:
            return super().log_rows(
                conversation_id,
                after_seq=after_seq,
                upto_seq=upto_seq,
                timestamp_gte=timestamp_gte,
                limit=limit,
            )
        last = (
            self.announced[conversation_id]
            if upto_seq is None
            else min(upto_seq, self.announced[conversation_id])
        )
        rows = []
        for seq in range(after_seq + 1, last + 1):
            row = self._row(conversation_id, seq)
            if row is not None and (timestamp_gte is None or row.timestamp >= timestamp_gte):
                rows.append(row)
                if len(rows) >= limit:
                    break
        return rows

    @_locked
    def take_new(self, conversation_id: str) -> list[str]:
        """JSON texts of events written since the last call, in order; moves the announced point."""
        log = self.logs[conversation_id]
        log.refresh()
        end = self._complete_len(conversation_id)
        start = self.announced[conversation_id] + 1
        texts = [
            t
            for t in (self._body(conversation_id, seq) for seq in range(start, end))
            if t is not None
        ]
        self.announced[conversation_id] = end - 1
        return texts
