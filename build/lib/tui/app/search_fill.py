"""The app's search index: the one of the server in use, filled in the background.

One :class:`AppSearch` per app. Its index is the one ``ohtui search`` uses for the same
server (:func:`source_of`: a folder root, the bundled demo, else the URL), opened when the
search screen first asks for it and opened anew after a switch of profile. Filling runs as
an async worker on the app's loop: the requests are the client's, masking and writing each
page run in a thread (``tui.search_index.fill``), so the screen never waits on it; it is
held between pages while a conversation is shown (its own pages come first). Whoever
shows the progress listens (:meth:`listen`); the fill goes on when the search screen is
closed; while a search screen is shown another starts now and then (incremental: only the
conversations that changed are read, a live run's new events among them).

A followed run's events (its stream; a watched local folder's new files come the same
way) are added as they arrive (:meth:`AppSearch.add_live`), in a thread, so they are found
while the run goes on, without a fill (one is held while a conversation is shown). Only
where the user has an index for this server already (opened in this app, or its file on
disk from an earlier search): following a run never starts writing conversations to disk
for someone who has not asked to search them, while for someone who has, the index they
search stays as fresh as the screen they watch.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from tui.client.known_secrets import redact_known
from tui.search_index import (
    DEFAULT_MAX_BYTES,
    FillProgress,
    IndexFiller,
    IndexUnavailable,
    SearchIndex,
    add_arrived,
    index_path,
)

Listener = Callable[[FillProgress], None]
log = logging.getLogger("tui.app")
#: After an index could not be opened for live events (locked by another ohtui…), this
#: long before it is tried again (not with every batch of a stream).
REOPEN_S = 10.0


def source_of(app: Any) -> str:
    """What the app's index is of: a folder root (its profile says), the demo, the URL."""
    profiles = getattr(app, "profiles", None) or {}
    profile = profiles.get(app.profile) if getattr(app, "profile", None) else None
    source = getattr(profile, "index_source", "")
    if source:
        return source
    if getattr(app, "bundled", False):
        return "demo"
    return app.url or "demo"


class AppSearch:
    """The index of the server in use and its background fill (see the module doc)."""

    def __init__(self, app: Any, max_bytes: int | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes or DEFAULT_MAX_BYTES  # ``search_index_mb`` of the settings
        self.source: str | None = None
        self.index: SearchIndex | None = None
        self.problem: str | None = None  # why there is no index (no FTS5, locked…)
        self.progress: FillProgress | None = None
        self.rounds = 0  # fills that ended (a later one that finds nothing new is not said)
        self._worker: Any = None
        self._filler: IndexFiller | None = None
        self._watching = False  # the screen changes are watched (to hold the fill)
        self._listeners: list[Listener] = []
        #: live events waiting for the index: (source, conversation, title, [(id, frame)])
        self._arrived: list[tuple[str, str, str, list[tuple[str, Any]]]] = []
        self._live_worker: Any = None
        self._refused: dict[str, float] = {}  # source: when opening it for live events failed

    def current(self) -> SearchIndex | None:
        """The index of the server in use (opened, or opened anew after a switch)."""
        source = source_of(self.app)
        if source == self.source and (self.index is not None or self.problem):
            return self.index
        self._switch(source)
        try:
            self.index = SearchIndex(index_path(source), max_bytes=self.max_bytes)
        except IndexUnavailable as exc:
            self.problem = str(exc)
        return self.index

    def _switch(self, source: str) -> None:
        """Leave the index in use (its fill stopped) for ``source``'s, not opened yet."""
        self.stop()
        if self.index is not None:
            self.index.close()
        self.source, self.index, self.problem, self.progress = source, None, None, None
        self.rounds = 0

    @property
    def filling(self) -> bool:
        return self._worker is not None and not self._worker.is_finished

    def fill(self) -> None:
        """Bring the index up to date in the background (once at a time)."""
        index = self.current()
        client = getattr(self.app, "client", None)
        if index is None or client is None or self.filling:
            return
        filler = IndexFiller(client, index, progress=self._told)
        self.progress, self._filler = filler.progress, filler
        if not self._watching:
            self._watching = True
            self.app.screen_change_signal.subscribe(self.app, self._screen_changed)
        self._screen_changed(self.app.screen)
        self._worker = self.app.run_worker(
            self._run(filler), group="search-fill", exclusive=True, exit_on_error=False
        )

    async def _run(self, filler: IndexFiller) -> None:
        try:
            await filler.run()
            self.rounds += 1
        except Exception as exc:  # noqa: BLE001 - said where the progress is, never raised
            filler.progress.failed.append(f"the fill stopped: {exc}")
            filler.progress.listing = False
            filler.progress.done = True
            self._told(filler.progress)

    def _screen_changed(self, screen: object) -> None:
        """Hold the fill while a conversation is shown: its pages come first."""
        from tui.app.screens.conversation import ConversationScreen

        filler = self._filler
        if filler is not None:
            (filler.pause if isinstance(screen, ConversationScreen) else filler.resume)()

    def stop(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            self._worker = None

    def listen(self, listener: Listener) -> Callable[[], None]:
        """``listener(progress)`` after each step of a fill; returns what stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _told(self, progress: FillProgress) -> None:
        for listener in list(self._listeners):
            listener(progress)

    def touch(self, conversation: str) -> None:
        """A conversation opened from a result: the last the size bound drops."""
        if self.index is not None:
            self.index.touch(conversation)

    # --- live events ---------------------------------------------------------------------

    def add_live(self, conversation: str, title: str, arrived: list[tuple[str, Any]]) -> None:
        """Index a followed run's new events (``(id, frame text or event)``) in a thread
        (see the module doc); batches that come meanwhile are taken together."""
        if not arrived:
            return
        self._arrived.append((source_of(self.app), conversation, title, arrived))
        if self._live_worker is None or self._live_worker.is_finished:
            self._live_worker = self.app.run_worker(
                self._store_arrived(), group="search-live", exit_on_error=False
            )

    async def _store_arrived(self) -> None:
        while self._arrived:
            taken, self._arrived = self._arrived, []
            merged: dict[tuple[str, str], tuple[str, list[tuple[str, Any]]]] = {}
            for source, conversation, title, arrived in taken:
                merged.setdefault((source, conversation), (title, []))[1].extend(arrived)
            for (source, conversation), (title, arrived) in merged.items():
                index = await self._live_index(source)
                if index is None:
                    continue
                try:
                    await asyncio.to_thread(add_arrived, index, conversation, arrived, title)
                except Exception as exc:  # noqa: BLE001 - the next fill reads them anyway
                    log.warning("live events not indexed: %s", redact_known(str(exc)))

    async def _live_index(self, source: str) -> SearchIndex | None:
        """The index of ``source`` for live events: the one in use, else its file opened
        if it exists (never made here), in a thread; None otherwise."""
        if source == self.source and (self.index is not None or self.problem):
            return self.index
        path = index_path(source)
        if time.monotonic() < self._refused.get(source, 0.0) or not path.exists():
            return None
        try:
            opened = await asyncio.to_thread(SearchIndex, path, max_bytes=self.max_bytes)
        except IndexUnavailable as exc:
            log.warning("live events not indexed: %s", exc)
            self._refused[source] = time.monotonic() + REOPEN_S
            return None
        if source == self.source and self.index is not None:  # opened meanwhile
            opened.close()
            return self.index
        if source != source_of(self.app):  # the app switched server meanwhile
            opened.close()
            return None
        self._switch(source)
        self.index = opened
        return opened
