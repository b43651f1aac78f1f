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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tui.search_index import (
    DEFAULT_MAX_BYTES,
    FillProgress,
    IndexFiller,
    IndexUnavailable,
    SearchIndex,
    index_path,
)

Listener = Callable[[FillProgress], None]


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

    def current(self) -> SearchIndex | None:
        """The index of the server in use (opened, or opened anew after a switch)."""
        source = source_of(self.app)
        if source == self.source and (self.index is not None or self.problem):
            return self.index
        self.stop()
        if self.index is not None:
            self.index.close()
        self.source, self.index, self.problem, self.progress = source, None, None, None
        self.rounds = 0
        try:
            self.index = SearchIndex(index_path(source), max_bytes=self.max_bytes)
        except IndexUnavailable as exc:
            self.problem = str(exc)
        return self.index

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
        from .screens.conversation import ConversationScreen

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
