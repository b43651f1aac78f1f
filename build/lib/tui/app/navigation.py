"""Where the app-wide keys go: the conversations, the sandboxes, the server, the board,
the keys panel; and when those keys are not offered (a dialog or a field has the keys,
no server yet, a server without the feature).

A mixin of :class:`~tui.app.app.OhtuiApp`, apart from it because navigating between the
screens is one concern and the app's lifetime (client, connection, profiles) another.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.app.notices import user_is_typing
from tui.app.screens.conversations.conversations import ConversationsScreen
from tui.app.screens.dialogs.errors import ConnectionErrorScreen

if TYPE_CHECKING:
    from textual.widget import AwaitMount

#: The name the sandboxes screen is installed under (one instance per connection).
SANDBOXES = "sandboxes"
#: App keys that leave a dialog or a text field alone (they would type, or open a screen
#: behind the dialog).
DIALOG_FREE = frozenset(
    {"show_conversations", "show_sandboxes", "show_server", "show_board", "toggle_help", "quit"}
)

#: The screens the number keys go to; a shared link has none of them (it shows one
#: conversation, nothing else).
NAVIGATION = frozenset({"show_conversations", "show_sandboxes", "show_server", "show_board"})


class AppNavigation:
    """The app's navigation actions (mixed into ``OhtuiApp``, which has the attributes)."""

    def open_conversation(
        self, conversation_id: str, *, title: str | None = None, shared: bool = False
    ) -> AwaitMount:
        """Push the conversation's screen; awaiting the result waits until it is mounted."""
        from tui.app.screens.conversation import ConversationScreen

        return self.push_screen(
            ConversationScreen(conversation_id, shared=shared or self.shared, title=title)
        )

    def open_conversation_at(
        self,
        conversation_id: str,
        event_id: str,
        *,
        title: str | None = None,
        words: str | None = None,
    ) -> None:
        """A search hit: the conversation pushed, its list moved to the event once its
        index holds it (``tree_follow.go_to_event``, as insights' rows go there)."""
        from tui.app.screens.conversation import ConversationScreen

        screen = ConversationScreen(conversation_id, shared=False, title=title)
        screen.arrive_at(event_id, words)
        self.push_screen(screen)

    def action_search_all(self) -> None:
        """Search every conversation at once (``S`` on the list, the palette)."""
        from tui.app.screens.search import SearchScreen

        if self.shared or isinstance(self.screen, SearchScreen):
            return
        self.push_screen(SearchScreen())

    def action_show_conversations(self) -> None:
        if self.shared:
            return
        while len(self.screen_stack) > 1 and not isinstance(self.screen, ConversationsScreen):
            self.pop_screen()
        if not isinstance(self.screen, ConversationsScreen):
            self.push_screen(ConversationsScreen())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in DIALOG_FREE and user_is_typing(self):
            return False  # a dialog or a text field has the keys: its own, only
        if action in NAVIGATION and isinstance(self._top_screen(), ConnectionErrorScreen):
            return False  # no server to show anything of yet
        return self.offers(action)

    def _top_screen(self) -> object:
        stack = self.screen_stack
        return stack[-1] if stack else None

    def why_not(self, action: str, parameters: tuple[object, ...]) -> str | None:
        """Why an app key refused by :meth:`check_action` does nothing (``refusals.py``).
        Key ``2`` is bound twice (sandboxes, a bare agent server's page): it is only refused
        where neither applies, and the sandboxes' reason speaks for both."""
        if action in DIALOG_FREE and user_is_typing(self):
            return None  # the dialog or field has the keys
        if isinstance(self._top_screen(), ConnectionErrorScreen):
            return None  # the error screen says what is wrong
        if self.shared and action in NAVIGATION:
            return "This is a shared link: it shows this one conversation and nothing else."
        if action == "show_sandboxes" and self.local:
            return "Local folders have no sandboxes and no server to show."
        if action == "show_llm_profiles" and (self.local or self.shared):
            return "Local folders and shared links have no server with LLM profiles."
        return None

    def offers(self, action: str) -> bool:
        """Whether ``action`` makes sense for this server (the palette asks too)."""
        if action in NAVIGATION and self.shared:
            return False  # a shared link: the one conversation is all there is
        if action == "show_sandboxes":  # local folders and bare agent servers have none
            return not (self.local or self.shared) and self.can("sandboxes")
        if action == "show_llm_profiles":
            return not (self.local or self.shared)
        if action == "show_server":
            info = self.server_info
            return not self.local and info is not None and info.can("server_info")
        return True

    def action_show_sandboxes(self) -> None:
        """The sandboxes screen, kept while the app runs: its cursor and a start on its
        way stay with it when the user looks elsewhere."""
        from tui.app.screens.sandboxes.sandboxes import SandboxesScreen

        if self.shared or self.local or isinstance(self.screen, SandboxesScreen):
            return
        if not self.can("sandboxes"):
            self.action_show_server()
            return
        if not self.is_screen_installed(SANDBOXES):
            self.install_screen(SandboxesScreen(), SANDBOXES)
        self.push_screen(SANDBOXES)

    def action_show_server(self) -> None:
        from tui.app.screens.server_info import ServerScreen

        info = self.server_info
        if isinstance(self.screen, ServerScreen) or info is None or not info.can("server_info"):
            return
        self.push_screen(ServerScreen())

    def action_show_llm_profiles(
        self, conversation_id: str | None = None, title: str | None = None
    ) -> None:
        """The server's LLM profiles (issue 30 item 4); from a conversation, with it to switch."""
        from tui.app.screens.llm_profiles import LLMProfilesScreen

        if self.local or self.shared or isinstance(self.screen, LLMProfilesScreen):
            return
        self.push_screen(LLMProfilesScreen(conversation_id, title))

    def action_show_board(self) -> None:
        """The board of running agents: back to the one open, else a new one."""
        from tui.app.screens.board.board import BoardScreen

        if self.shared:
            return
        boards = [screen for screen in self.screen_stack if isinstance(screen, BoardScreen)]
        if not boards:
            self.push_screen(BoardScreen())
            return
        while self.screen is not boards[-1]:
            self.pop_screen()

    def action_toggle_help(self) -> None:
        from tui.app.screens.dialogs.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
        else:
            self.action_show_help_panel()

    def action_show_help_panel(self) -> None:
        """Every key of the screen shown, as they apply where the focus is (also the
        palette's "Keys"): a panel over its edge that scrolls and closes by keyboard."""
        from tui.app.screens.dialogs.help import HelpScreen, key_groups

        screen = self.screen
        if isinstance(screen, HelpScreen):
            return
        title = getattr(screen, "BINDING_GROUP_TITLE", None)
        self.push_screen(HelpScreen(f"Keys · {title}" if title else "Keys", key_groups(screen)))

    def action_hide_help_panel(self) -> None:
        from tui.app.screens.dialogs.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
