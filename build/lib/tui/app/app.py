"""The ohtui Textual app: screens, themes, keys and the client's lifetime.

Widget tree: ConversationsScreen (table) → ConversationScreen (tree | list / detail);
SandboxesScreen beside them. Workers do network I/O through ``app.client`` and hand
results to the screens; nothing here builds URLs or touches JSON.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import App
from textual.binding import Binding

from tui import bytecode, memory
from tui.app.board.options import BoardOptions
from tui.app.commands import OhtuiCommands
from tui.app.copy_key import CopyKey
from tui.app.guard import AppGuard, GuardedDispatch
from tui.app.keymap_ids import binding_ids, current_ids
from tui.app.messages import AgentStatusChanged
from tui.app.navigation import SANDBOXES, AppNavigation
from tui.app.notices import TOAST_CSS, Notifier, alert, user_is_typing
from tui.app.opening import open_by_id
from tui.app.profiles import kind as profile_kind
from tui.app.refusals import RefusedKeys
from tui.app.screens.conversations.conversations import ConversationsScreen
from tui.app.screens.dialogs.errors import ConnectionErrorScreen, keys_sent
from tui.app.search_fill import AppSearch
from tui.app.server_marks import server_mark
from tui.app.themes import DEFAULT_THEME, load_themes, variable_defaults

if TYPE_CHECKING:
    from textual.timer import Timer

    from tui.client import OpenHandsClient, ServerInfo

    #: a server the palette switches to (``profiles.py``): (client, url) or (client, url,
    #: serves local folders)
    ProfileFactory = Callable[[], tuple[OpenHandsClient, str] | tuple[OpenHandsClient, str, bool]]


#: Every screen's stylesheet (each beside its screen, named by its ``CSS_PATH``), read once at
#: start: a sheet first read when its screen opens makes Textual restyle every widget on
#: screen (~30 ms on the first conversation opened); read up front, it is parsed with the rest.
SCREEN_SHEETS = sorted((Path(__file__).parent / "screens").rglob("*.tcss"))


class OhtuiApp(CopyKey, RefusedKeys, AppNavigation, AppGuard, GuardedDispatch, App):
    TITLE = "ohtui"
    CSS_PATH = SCREEN_SHEETS
    CSS = TOAST_CSS  # toasts keep clear of the detail pane
    COMMANDS = App.COMMANDS | {OhtuiCommands}
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("question_mark,f1", "toggle_help", "Help", id="app.help"),
        Binding(
            "ctrl+p,colon",
            "command_palette",
            "Commands",
            show=False,
            priority=True,
            id="app.palette",
        ),
        Binding("1", "show_conversations", "Conversations", id="app.conversations"),
        Binding("2", "show_sandboxes", "Sandboxes", id="app.sandboxes"),
        Binding("2", "show_server", "Server", id="app.server"),  # a bare agent server's
        Binding("3", "show_board", "Board", id="app.board"),
    ]

    def __init__(
        self,
        client: OpenHandsClient | None = None,
        *,
        client_factory: Callable[[], OpenHandsClient] | None = None,
        url: str = "",
        conversation_id: str | None = None,
        shared: bool = False,
        theme: str | None = None,
        readonly: bool = False,
        clock: Callable[[], datetime] | None = None,
        on_exit: Callable[[], object] | None = None,
        keymap: Mapping[str, str] | None = None,
        notifier: Notifier | None = None,
        profiles: Mapping[str, ProfileFactory] | None = None,
        profile: str | None = None,
        notice: str | None = None,
        local: bool = False,
        warm_up: Callable[[], object] | None = None,
        board: BoardOptions | None = None,
        search_max_bytes: int | None = None,
    ) -> None:
        super().__init__()
        if (client is None) == (client_factory is None):
            raise TypeError("give a client or a client_factory")
        self._client = client
        #: builds the client (importing httpx and the models: ~0.3 s) off the event loop, after
        #: the first frame; see ``client_ready``
        self._client_factory = client_factory
        self._client_lock = threading.Lock()
        self._client_built = asyncio.Event()
        self.url = url
        self.start_conversation = conversation_id
        self.shared = shared
        #: ``--readonly`` (or the config's): kept across profile switches
        self._readonly_setting = readonly
        #: serving local conversation folders (``ohtui PATH``): no sandboxes, nothing to start
        self.local = local
        self.readonly = readonly or local  # the folders are never written to
        self.notifier = notifier or Notifier()
        #: notices waiting for the user to stop typing: (text, severity)
        self._held_notices: list[tuple[str, str]] = []
        self._held_timer: Timer | None = None
        #: the servers the palette switches between (``profiles.py``): name → a factory
        #: giving (client, url[, local]); ``profile`` names the one in use
        self.profiles = dict(profiles or {})
        #: the board of running agents (key 3): ``[board]`` of the config, ``--all-profiles``
        self.board_options = board or BoardOptions()
        self.profile = profile
        #: the search index of the server in use, filled in the background (search_fill.py)
        self.search = AppSearch(self, search_max_bytes)
        self._notice = notice
        self.clock = clock or (lambda: datetime.now(UTC))
        self._on_exit = on_exit
        #: waits (in a thread, after the first frame) for the bundled server to serve: its port
        #: is already listening (requests made before it serves wait for it); raises if it cannot
        self._warm_up = warm_up
        themes, self._theme_problems = load_themes()
        for loaded in themes:
            self.register_theme(loaded)
        self.theme = theme or DEFAULT_THEME
        if self.shared or self.readonly:
            self.sub_title = "read-only" if self.readonly else "shared conversation"
        # User keymap (config [keymap]): binding id -> "key,key", as in Posting/Harlequin.
        self.user_keymap = current_ids(keymap or {})
        if self.user_keymap:
            self.set_keymap(self.user_keymap)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """ohtui's colours (statuses, diffs, the live mark) for a theme that does not set them."""
        return variable_defaults(self.current_theme)

    def on_mount(self) -> None:
        unknown = sorted(set(self.user_keymap) - binding_ids()) if self.user_keymap else []
        if unknown:
            self.notify(
                "Unknown binding id(s) in [keymap]: " + ", ".join(unknown),
                title="Keymap",
                severity="warning",
                markup=False,
            )
        for problem in self._theme_problems:
            self.notify(
                f"Theme not loaded: {problem}", title="Themes", severity="warning", markup=False
            )
        if self._notice:
            self.notify(self._notice, timeout=10, markup=False)
        if self._client is None:
            self.call_after_refresh(self.build_client)
        if self._warm_up is None:
            self.call_after_refresh(self.preload)
        else:  # our own server: nothing to check first, so the list shows (loading) at once
            if not self.shared:
                self.push_screen(ConversationsScreen())
            self.call_after_refresh(self.warm_up)  # it preloads too, once the server is up
        self.connect()

    @work(thread=True, group="preload", exit_on_error=False)
    def preload(self) -> None:
        self._preload()

    def _preload(self) -> None:
        """After the first frame, import what opening a conversation needs (its screen, the
        event models, Markdown, the websocket client: ~0.3 s), so the first open doesn't
        wait for it; then freeze what startup built (modules, styles, schemas: it lives as
        long as the app) out of the garbage collector's full scans, and write the package's
        bytecode if no installer did (``tui/bytecode.py``). Runs in a thread."""
        import importlib

        try:
            for name in (
                "tui.app.screens.conversation",
                "tui.app.screens.sandboxes.sandboxes",
                "tui.client.stream",
            ):
                importlib.import_module(name)
        finally:
            self.call_from_thread(self._started)
        bytecode.compile_in_background(__file__)  # once, where no installer did: read later

    def _started(self) -> None:
        """Startup's imports are done: freeze what they built, and collect garbage again
        (``ohtui`` pauses the collector while it starts: ``cli.run_app``)."""
        memory.started()

    @work(thread=True, group="warm-up", exit_on_error=False)
    def warm_up(self) -> None:
        assert self._warm_up is not None
        try:
            self._warm_up()
        except Exception as exc:  # noqa: BLE001 - the connection check then shows the error
            self.call_from_thread(
                self.notify,
                f"The bundled server did not start: {exc}",
                severity="error",
                timeout=10,
                markup=False,
            )
        self._preload()  # after the server: the list's first page comes before these imports

    @work(exclusive=True, group="connect")
    async def connect(self) -> None:
        """Check the service answers before showing anything that needs it."""
        early = False
        try:
            await self.client_ready()
            if self.local and self.start_conversation and not self.shared:
                # ohtui PATH --conversation: the folder server is the app's own child, so the
                # open goes out beside the check (one round trip less while it starts); if
                # the check fails, its error screen comes over whatever the open said
                early = True
                self._open_start()
            if self.shared:
                await self.client.search_shared_events(self.start_conversation, limit=1)
            else:
                await self.client.search_conversations(limit=1)
        except Exception as exc:  # noqa: BLE001 - every failure gets the error screen
            sent = keys_sent(self._client)
            base = self._client.base_url if self._client is not None else ""
            self.push_screen(
                ConnectionErrorScreen(self.url, exc, sent_keys=sent, base_url=base), self._retry
            )
            return
        self.server_known()
        if self.shared:
            self.open_conversation(self.start_conversation, shared=True)
        elif not early:
            self._open_start()

    def _open_start(self) -> None:
        """The conversations list, and ``--conversation`` (a whole id or its start, looked
        up) over it: its lookup goes out first (the list is pushed before it can come back)."""
        if self.start_conversation:
            open_by_id(self, self.start_conversation)
        if not any(isinstance(screen, ConversationsScreen) for screen in self.screen_stack):
            self.push_screen(ConversationsScreen())

    def _retry(self, again: bool | None) -> None:
        if again:
            self.connect()

    @property
    def server_info(self) -> ServerInfo | None:
        """What the client found the server to be (None before it knows, or before it exists)."""
        return self._client.info if self._client is not None else None

    @property
    def bundled(self) -> bool:
        """Showing the bundled demo server (at start, or switched to): what titles call it."""
        if self.profile is None:
            return self._warm_up is not None
        return profile_kind(self.profiles.get(self.profile)) == "demo"

    @property
    def server_mark(self) -> str:
        """``agent server 1.58.2``: for the lists' titles and the conversation header."""
        return server_mark(self.server_info, local=self.local)

    def can(self, capability: str) -> bool:
        """The server offers ``capability`` (``ServerInfo.can``); True while not known yet."""
        info = self.server_info
        return info is None or info.can(capability)

    def server_known(self) -> None:
        """The server's kind is known (or changed): keys and marks follow it."""
        self.refresh_bindings()
        for screen in self.screen_stack:
            update = getattr(screen, "server_known", None)
            if callable(update):
                update()

    @property
    def client(self) -> OpenHandsClient:
        """The service client (built here, blocking, if nothing awaited ``client_ready``)."""
        if self._client is None:
            self._build_client()
        return self._client

    @client.setter
    def client(self, client: OpenHandsClient) -> None:
        self._client = client

    def _build_client(self) -> None:
        with self._client_lock:
            if self._client is None:
                assert self._client_factory is not None
                self._client = self._client_factory()

    @work(thread=True, group="client", exit_on_error=False)
    def build_client(self) -> None:
        """After the first frame, in a thread: a build beside the first paint competes with
        it for the interpreter and delays it by as much as the build takes."""
        try:
            self._build_client()
        finally:
            self.call_from_thread(self._client_built.set)

    async def client_ready(self) -> OpenHandsClient:
        """The client, once ``build_client`` has made it (the first frame never waits for it)."""
        if self._client is None:
            await self._client_built.wait()
            if self._client is None:  # the build failed: again here, so its error is raised
                self._build_client()
        return self._client

    async def on_unmount(self) -> None:
        if self._client is not None:  # never built: nothing to close
            await self._client.aclose()
        if self._on_exit is not None:
            self._on_exit()

    # --- navigation ---------------------------------------------------------------------

    def switch_profile(self, name: str) -> None:
        """Connect to another server (the demo, local folders, a profile of the config
        file): a new client, back to its conversations."""
        factory = self.profiles.get(name)
        if factory is None:
            self.notify(f"No profile {name!r}.", severity="error", markup=False)
            return
        try:
            client, url, *rest = factory()
        except Exception as exc:  # noqa: BLE001 - a config problem: said, never raised
            self.notify(
                f"Cannot use profile {name!r}: {exc}", severity="error", timeout=8, markup=False
            )
            return
        self.local = bool(rest and rest[0])  # the profile serves local folders: never changed
        self.readonly = self._readonly_setting or self.local
        self.refresh_bindings()
        old, self.client, self.url, self.profile = self.client, client, url, name
        self.start_conversation, self.shared = None, False
        self.run_worker(old.aclose(), group="close-client", exit_on_error=False)
        while len(self.screen_stack) > 1:
            self.pop_screen()
        if self.is_screen_installed(SANDBOXES):  # it belongs to the old server
            self.uninstall_screen(SANDBOXES)
        self.sub_title = f"profile {name}" + (" · read-only" if self.readonly else "")
        own = profile_kind(factory) in ("demo", "folders")  # a loopback port says nothing
        self.notify(f"Profile {name}" if own else f"Profile {name}: {url}", markup=False)
        self.connect()

    def on_agent_status_changed(self, message: AgentStatusChanged) -> None:
        """A watched conversation's agent status changed: tell the user if it needs them
        (held while they type, see ``notices.user_is_typing``)."""
        found = self.notifier.notice(
            message.conversation_id, message.title, message.old, message.new
        )
        if found is None:
            return
        self._held_notices.append(found)
        self._tell_held()

    def _tell_held(self) -> None:
        if not self._held_notices:
            return
        if user_is_typing(self):
            if self._held_timer is None:
                self._held_timer = self.set_interval(1.0, self._tell_held)
            return
        if self._held_timer is not None:
            self._held_timer.stop()
            self._held_timer = None
        held, self._held_notices = self._held_notices, []
        for text, severity in held:
            self.notify(text, title="Agent", severity=severity, timeout=10, markup=False)  # type: ignore[arg-type]
        alert(self, [text for text, _ in held])

    def set_theme(self, name: str) -> None:
        self.theme = name
