"""Local OpenHands conversation folders served through the reference server's own routes.

The agent, the CLI and the SDK keep each conversation on disk: ``<id hex>/base_state.json``,
``meta.json`` and ``events/event-NNNNN-<event id>.json``, one compact event per file (facts §8;
CLI trajectories keep the event files in the folder itself). :class:`FolderStore` is a
:class:`~tui.server.store.Store` whose conversation records come from those folders and whose
events are read from the files — lazily: file names give the order and the ids, so opening a
100,000-file conversation reads one page of files, not all of them (``folder_events.py``).
Records take their model, status, cost and tokens (``stats`` summed over every usage) from
``meta.json`` and ``base_state.json``; their title from ``meta.json``, the first user
message or the folder (``folder_names.py``); their times from the events: created at the
first (or when ``meta.json`` says), updated at the last, so the list's Duration is how long
the conversation ran (file times say when the files were copied).

Read-only: nothing is ever written into the folders. Order is the index in the file name (the
SDK's log order). Nothing in a folder is trusted (``folder_files.py``): a file that cannot be
served as an event — not JSON, not UTF-8, nested too deep, a number out of range, a FIFO or
a device, too big — is served as an event that names the problem, so the client keeps it as a
raw row with the reason and every other event as usual; only the newest file gets a moment
(it may still be being written) before it is shown so. Nothing is read through a link that
leaves the root (the folder ohtui was pointed at): an event file linking out is such a row,
and a conversation folder (or its ``events/``) linking out is listed as a conversation
titled "a link out of the folder, not read", with that one row. Following folders while an
agent writes them (new files to websocket followers) is ``folder_watch.py``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .folder_events import FolderEvents, locked
from .folder_files import LINK_OUT, clean_text, metrics_from_state, read_json_or_none
from .folder_log import FolderLog, file_time, trusted_stamp
from .folder_names import folder_title, user_text
from .folder_scan import (
    conversation_folders,
    dir_entries,
    is_conversation_folder,
    links_out,
    real_path,
)
from .times import event_moment, local_zone, record_time, sort_key, zone_between
from .views import conversation_info
from .workspace_local import LocalWorkspace, stored_working_dir

_HEX = re.compile(r"[0-9a-fA-F]{32}")
#: meta.json's last save is taken to be the newest event's time when this close to it
SAVED_WITH_LAST = timedelta(minutes=2)
LOCAL_SANDBOX = "local"

__all__ = ["LOCAL_SANDBOX", "FolderLog", "FolderStore", "conversation_folders"]


def _text(value: Any, limit: int = 500) -> str | None:
    """A string field of a file, cut and made encodable; None when it is not a string."""
    return clean_text(value[:limit]) if isinstance(value, str) and value else None


def _record_time(value: Any, fallback: str | None) -> str | None:
    """An ISO time from a file, if it is one (a record with a bad time would fail every
    listing); else ``fallback``."""
    if isinstance(value, str) and len(value) <= 64:
        try:
            sort_key(value)
        except ValueError:
            return fallback
        return value
    return fallback


class FolderStore(FolderEvents):
    """A Store over conversation folders (see the module doc); everything else stays SQLite."""

    read_only = True  # create_app refuses every request that is not a read (read_only.py)
    #: an id may be a folder's name (a CLI folder with no id in it): asked for as it is
    named_ids = True

    def __init__(self, path: str | Path, *, session_key: str | None = None) -> None:
        """``session_key``: the pseudo sandbox's key (the server's own, ``folder_server.py``);
        a random one if omitted."""
        super().__init__()
        self.root = Path(path)
        self._real_root = real_path(self.root)  # what every file read must resolve under
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
        #: how far ahead of UTC each conversation's event times are (None: no event yet)
        self._clocks: dict[str, timedelta | None] = {}
        self._timed: dict[str, int] = {}  # events there were when ``updated_at`` was worked out
        self._root_stamp: int | None = None
        self._state_stamps: dict[str, int | None] = {}
        self._working_dirs: dict[str, str | None] = {}  # workspace.working_dir of each
        self._workspaces: dict[str, LocalWorkspace] = {}
        self.rescan()

    # --- conversations ---------------------------------------------------------------------

    @locked
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
            if is_conversation_folder(self.root, self._real_root):
                candidates = [self.root]
            else:
                candidates = [
                    Path(entry.path) for entry in dir_entries(self.root) if entry.is_dir()
                ]
            self._waiting.update(folder for folder in candidates if folder not in self._folders)
        added = []
        for folder in sorted(self._waiting):
            if self._links_out(folder):
                self._waiting.discard(folder)
                self._folders[folder] = cid = self._add_link_out(folder)
                added.append(cid)
            elif is_conversation_folder(folder, self._real_root):
                self._waiting.discard(folder)
                self._folders[folder] = cid = self._add_folder(folder)
                added.append(cid)
        return added

    def _links_out(self, folder: Path) -> bool:
        """Is ``folder`` (the root or a folder in it), or its ``events/``, a link out of the
        root?"""
        root = self._real_root
        return links_out(folder, root) or links_out(folder / "events", root)

    def _add_link_out(self, folder: Path) -> str:
        """A conversation folder that links out of the root: listed (one bad folder never
        hides, nor passes for, another) with one row saying so; nothing in it is read, and
        where it points is not said."""
        name = clean_text(folder.name)
        match = _HEX.search(folder.name)
        cid = self._unique_id(match.group(0).lower() if match else name, folder)
        when = file_time(folder, follow=False)
        self.put_conversation(
            conversation_info(
                id=cid,
                sandbox_id=LOCAL_SANDBOX,
                title=f"{LINK_OUT}: {name}",
                created_at=when + "Z",
                updated_at=when + "Z",
                trigger="local",
            )
        )
        row = {"id": f"{cid}-link", "timestamp": when, "kind": "UnreadableEventFile"}
        self.append_events(cid, [{**row, "file": name, "error": LINK_OUT}])
        return cid

    @locked
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
        state = read_json_or_none(folder / "base_state.json", root=self._real_root) or {}
        info = super().get_conversation(cid)
        if info is None or not isinstance(state, dict):
            return False
        status = _text(state.get("execution_status"), 40)
        metrics = metrics_from_state(state, info.get("llm_model"))
        changes = {}
        # the agent saves its state with every step: the events it wrote meanwhile move
        # Updated on (read only then: one stat of events/, and the newest file)
        updated = self._updated_now(cid, info.get("created_at"))
        if updated is not None and updated != info.get("updated_at"):
            changes["updated_at"] = updated
        if status is not None and info.get("execution_status") != status:
            changes["execution_status"] = status
        if metrics is not None and info.get("metrics") != metrics:
            changes["metrics"] = metrics
        if changes:
            info.update(changes)
            self.put_conversation(info)
        return "execution_status" in changes

    def search_conversations(self, *args: Any, **kwargs: Any):
        self.rescan()
        for cid in list(self.logs):  # a stat each: a listing shows statuses and titles now
            self.state_changed(cid)
        return super().search_conversations(*args, **kwargs)

    def count_conversations(self, **filters: Any) -> int:
        self.rescan()
        return super().count_conversations(**filters)

    def get_conversations(self, ids: Sequence[str]) -> list[dict[str, Any] | None]:
        for cid in ids:
            if cid in self.logs:
                self.state_changed(cid)
        return super().get_conversations(ids)

    @locked
    def _add_folder(self, folder: Path) -> str:
        meta = read_json_or_none(folder / "meta.json", root=self._real_root)
        state = read_json_or_none(folder / "base_state.json", root=self._real_root)
        meta = meta if isinstance(meta, dict) else {}
        state = state if isinstance(state, dict) else {}
        match = (
            _HEX.search(_text(meta.get("id")) or "")
            or _HEX.search((_text(state.get("id")) or "").replace("-", ""))
            or _HEX.search(folder.name)
        )
        cid = self._unique_id(match.group(0).lower() if match else clean_text(folder.name), folder)
        log = FolderLog(folder, self._real_root)
        self.logs[cid] = log
        self._working_dirs[cid] = stored_working_dir(state, meta)
        agent = state.get("agent") if isinstance(state.get("agent"), dict) else {}
        llm = agent.get("llm") if isinstance(agent.get("llm"), dict) else {}
        model = _text(llm.get("model"), 200)
        created, updated = self._times(cid, meta)
        title = _text(meta.get("title"), 500) or self._first_user_text(cid)
        if title is None:
            self._untitled.add(cid)
        self.put_conversation(
            conversation_info(
                id=cid,
                sandbox_id=LOCAL_SANDBOX,
                title=folder_title(folder.name, title),
                created_at=created,
                updated_at=updated,
                llm_model=model,
                metrics=metrics_from_state(state, model),
                trigger="local",
                execution_status=_text(state.get("execution_status"), 40),
            )
        )
        self.announced[cid] = self._complete_len(cid) - 1
        try:
            self._state_stamps[cid] = trusted_stamp(os.stat(folder / "base_state.json").st_mtime_ns)
        except OSError:
            self._state_stamps[cid] = None
        return cid

    def _unique_id(self, cid: str, folder: Path) -> str:
        """``cid``, unless another folder already holds that id (a copied conversation folder
        keeps its meta.json): then the folder's own name, else ``cid~2``, ``cid~3``… — two
        folders never share one id (they overwrote each other's log: a 500 on every page)."""
        taken = set(self._folders.values())  # links out too: they have no log
        if cid not in taken:
            return cid
        name = clean_text(folder.name)
        if name and name not in taken:
            return name
        n = 2
        while f"{cid}~{n}" in taken:
            n += 1
        return f"{cid}~{n}"

    def _retitle(self, cid: str) -> None:
        """A conversation found before its first user message: its title once there is one."""
        log = self.logs[cid]
        meta = read_json_or_none(log.folder / "meta.json", root=self._real_root)
        log.refresh()
        title = _text(meta.get("title"), 500) if isinstance(meta, dict) else None
        title = title or self._first_user_text(cid)
        info = super().get_conversation(cid)
        if title and info is not None:
            self._untitled.discard(cid)
            info["title"] = folder_title(log.folder.name, title)
            self.put_conversation(info)

    # --- times -----------------------------------------------------------------------------

    def _event_time(self, cid: str, seq: int) -> datetime | None:
        """The event's time as its writer's clock wrote it (None: unreadable or no time)."""
        info = self._info(cid, seq) if 0 <= seq < len(self.logs[cid]) else None
        return event_moment(info[0]) if info is not None else None

    def _times(self, cid: str, meta: dict[str, Any]) -> tuple[str, str]:
        """Created and updated: the first and the last event's times (the creation time
        ``meta.json`` gives, where it gives one, is the start), read in the zone their
        writer ran in (``times.zone_between``); file times only for a folder with no event
        with a time. The newest file is read anyway (is it whole?); the first only when
        ``meta.json`` does not settle the times."""
        log = self.logs[cid]
        created = _record_time(meta.get("created_at"), None)
        saved = _record_time(meta.get("updated_at"), None)
        last = self._event_time(cid, self._complete_len(cid) - 1)
        offset = None
        if last is not None and saved is not None:
            offset = zone_between(last, saved, slack=SAVED_WITH_LAST)
        first = self._event_time(cid, 0) if created is None or offset is None else None
        if offset is None and first is not None:
            offset = zone_between(first, created) if created is not None else None
            offset = local_zone(first) if offset is None else offset
        self._clocks[cid] = offset
        if created is None and first is not None and offset is not None:
            created = record_time(first, offset)
        if created is None:
            created = file_time(log.path(0) if log.files else log.folder) + "Z"
        updated = self._updated_now(cid, created, fresh=True)
        return created, updated or saved or created

    def _updated_now(self, cid: str, created: Any, *, fresh: bool = False) -> str | None:
        """The newest event's time as the record's ``updated_at`` when events came since it
        was worked out (never before ``created``); None when there is nothing new.
        ``fresh``: the files were just listed; work it out whatever came."""
        log = self.logs[cid]
        if not fresh:
            log.refresh()
        count = self._complete_len(cid)
        if not fresh and count == self._timed.get(cid):
            return None
        self._timed[cid] = count
        offset = self._clocks.get(cid)
        if offset is None:  # no event had a time before: the first one sets the clock
            first = self._event_time(cid, 0)
            if first is None:
                return None
            offset = self._clocks[cid] = local_zone(first)
        last = self._event_time(cid, count - 1)
        updated = record_time(last, offset) if last is not None else None
        if updated is None or not isinstance(created, str):
            return updated
        return max(updated, created, key=sort_key)

    # --- workspaces ------------------------------------------------------------------------

    def working_dir(self, cid: str) -> str | None:
        """The workspace path the conversation's stored state names (None: it names none)."""
        return self._working_dirs.get(cid)

    @locked
    def conversation_workspace(self, cid: str) -> LocalWorkspace | None:
        """The conversation's workspace on this machine, as the workspace routes read it."""
        found = self._workspaces.get(cid)
        if found is None:
            where = self._working_dirs.get(cid)
            if where is None:
                return None
            found = self._workspaces[cid] = LocalWorkspace(where)
        return found

    # --- no sandboxes to control: the pseudo sandbox is not listed --------------------------

    def search_sandboxes(self, *, after=None, limit: int = 100):
        boxes, more = super().search_sandboxes(after=after, limit=limit)
        return [b for b in boxes if b["id"] != LOCAL_SANDBOX], more

    def _first_user_text(self, cid: str, look: int = 20) -> str | None:
        """The first line of the first user message among the first ``look`` events."""
        for seq in range(min(look, len(self.logs[cid]))):
            if (self._info(cid, seq) or ("", ""))[1] != "MessageEvent":
                continue
            text = user_text(json.loads(self._body(cid, seq) or "{}"))
            if text:
                return text
        return None
