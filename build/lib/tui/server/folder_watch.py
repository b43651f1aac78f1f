"""Following local conversation folders while an agent writes them.

A :class:`FolderWatcher` runs watchfiles (inotify, FSEvents, ReadDirectoryChangesW) in its own
thread and wakes the follower as soon as a file under the root changes, so a new event file
reaches websocket followers in well under a second. Where watchfiles is missing or cannot
watch (no inotify watches left, a filesystem without notifications) the follower polls every
``POLL_S`` instead; with a working watcher it still sweeps every ``SWEEP_S``, because network
filesystems may drop notifications.

A sweep is cheap: one ``stat`` per followed folder (``FolderLog.refresh``), plus the root
(new conversation folders) and each followed ``base_state.json`` (status changes).

The watcher watches directories, not trees (:func:`watched_dirs`: the root, each folder in
it, each ``events/``): a recursive watch walks every file below the root when it starts
(0.2 s of a core for a 50,000-event folder, during ``ohtui PATH``'s launch), and only these
directories ever change. A new folder or ``events/`` restarts it on the new list; a sweep
right after a restart catches what was written meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .folder_scan import dir_entries, is_conversation_folder, links_out, real_path
from .folders import FolderStore
from .store.base import PAGE_BYTES

POLL_S = 0.5  # no watcher: how often followed folders are looked at
SWEEP_S = 2.0  # with a watcher: a look at least this often anyway
READY_TICK_MS = 400  # the watcher reports in this often even with no change (proves it runs)


def watched_dirs(root: Path) -> list[Path]:
    """The directories where conversation files appear: ``root`` and, when it is not one
    conversation folder itself, each folder in it; and each of these folders' ``events/``.
    A link out of the root is not watched (nothing is read through it)."""
    real = real_path(root)
    folders = [root]
    if not is_conversation_folder(root, real):
        folders += [
            Path(entry.path)
            for entry in dir_entries(root)
            if entry.is_dir() and not links_out(entry.path, real)
        ]
    events = [folder / "events" for folder in folders]
    return folders + [path for path in events if path.is_dir() and not links_out(path, real)]


class FolderWatcher:
    """Calls ``on_change`` (from its thread) after files under ``root`` change.

    ``ready`` turns true once watchfiles is watching and false again if it stops; ``error``
    says why it could not watch (then the caller polls)."""

    def __init__(self, root: Path, on_change: Callable[[], Any] | None = None) -> None:
        self.root = root
        self.on_change = on_change or (lambda: None)
        self.ready = False
        self.error: str | None = None
        #: the directories watched now (``watched_dirs``)
        self.dirs: list[Path] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> FolderWatcher:
        self._thread = threading.Thread(target=self._run, name="ohtui-folder-watch", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            from watchfiles import watch
        except ImportError:
            self.error = "watchfiles is not installed"
            return
        restarted = False
        try:
            while not self._stop.is_set():
                self.dirs = watched_dirs(self.root)
                for changes in watch(
                    *self.dirs,
                    watch_filter=None,
                    debounce=150,
                    step=20,
                    rust_timeout=READY_TICK_MS,
                    yield_on_timeout=True,
                    stop_event=self._stop,
                    raise_interrupt=False,
                    ignore_permission_denied=True,
                    recursive=False,
                ):
                    self.ready = True
                    if changes or restarted:  # after a restart: what came between the two
                        restarted = False
                        self.on_change()
                    if changes and set(watched_dirs(self.root)) != set(self.dirs):
                        restarted = True
                        break  # a new folder or events/: watch the new list
        except Exception as exc:  # noqa: BLE001 - any watcher failure means: poll instead
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.ready = False

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)


async def follow_folders(
    hub: Any,
    store: FolderStore,
    watcher: FolderWatcher | None = None,
    *,
    poll_s: float = POLL_S,
    sweep_s: float = SWEEP_S,
) -> None:
    """Send new event files of every followed folder to its websocket subscribers, and status
    changes of ``base_state.json`` as a fresh ``full_state`` (runs in the server's loop; the
    files are read in a thread, frames are sent from the loop). Without a ``watcher`` (or
    while it does not work) this polls."""
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()

    def changed() -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed while the thread reported
            loop.call_soon_threadsafe(wake.set)

    if watcher is not None:
        watcher.on_change = changed
        watcher.start()
    try:
        while True:
            timeout = sweep_s if watcher is not None and watcher.ready else poll_s
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), timeout)
            wake.clear()
            await sweep(hub, store)
    finally:
        if watcher is not None:
            watcher.stop()


async def sweep(hub: Any, store: FolderStore) -> None:
    """One look at the folders: new conversations, new event files, status changes."""
    await asyncio.to_thread(store.rescan)
    for cid, conv in list(hub.conversations.items()):
        if cid not in store.logs or not conv.subscribers:
            continue
        # a few big files at a time: twenty new outputs of 20 MB are never held at once
        while texts := await asyncio.to_thread(store.take_new, cid, PAGE_BYTES):
            conv.broadcast(texts)
            conv.known_seq = store.announced[cid]
        await asyncio.to_thread(store.state_changed, cid)
        record = store.get_conversation(cid) or {}
        status = record.get("execution_status")
        if status and status != conv.status:  # base_state.json moved on: tell the followers
            conv.status = status
            conv.builder.set_totals(record.get("metrics"))  # its stats now, not the first ones
            conv.broadcast_full_state()


def start_following(
    server: Any, store: FolderStore, *, watch: bool = True, **options: Any
) -> FolderWatcher | None:
    """Run :func:`follow_folders` in a running server's loop (``server``: a RunningServer);
    it ends, and its watcher with it, when the server stops. Returns the watcher (None with
    ``watch=False``: polling only)."""
    hub = server.app.state.live
    watcher = FolderWatcher(store.root) if watch else None
    asyncio.run_coroutine_threadsafe(follow_folders(hub, store, watcher, **options), hub.loop)
    return watcher
