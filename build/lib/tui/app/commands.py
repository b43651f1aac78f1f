"""Command palette entries built from the current state (what makes sense right now):
sandboxes where the server has them, its own screen on a bare agent server, "New
conversation" only where one can be started (never read-only), and "Open conversation"
for a typed id or the start of one (``opening.py`` resolves it or says why not)."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape

from tui.app.opening import open_by_id
from tui.app.profiles import description, palette_order
from tui.client.conversation_ids import ID_LIKE, is_whole_id


def board_commands(screen: object) -> list[tuple[str, object, str]]:
    """On the board: sort by each column, and every server at once."""
    from tui.app.screens.board.board import BoardScreen

    if not isinstance(screen, BoardScreen):
        return []
    from tui.app.board.model import COLUMNS

    out: list[tuple[str, object, str]] = [
        (f"Board: sort by {c.label.lower()}", partial(screen.sort_by, c.key), "Again: reversed")
        for c in COLUMNS
    ]
    if screen.check_action("all_profiles", ()):
        out.append(
            (
                "Board: this server only" if screen.all_profiles else "Board: all servers",
                screen.action_all_profiles,
                "Watch every configured profile at once, or only the current server",
            )
        )
    return out


def profile_commands(app: object) -> list[tuple[str, object, str]]:
    """A switch to each server the app knows (``profiles.py``), each way; the one in use
    marked. Names and descriptions come from the config file and paths: never markup."""
    profiles = getattr(app, "profiles", {})
    current = getattr(app, "profile", None)
    out: list[tuple[str, object, str]] = []
    for name in palette_order(profiles):
        said = description(profiles[name])
        if name == current:
            label, said = f"Profile: {name} (current)", f"In use now · {said}"
        else:
            label = f"Profile: {name}"
        out.append((escape(label), partial(app.switch_profile, name), escape(said)))
    return out


class OhtuiCommands(Provider):
    def _commands(self) -> list[tuple[str, object, str]]:
        app = self.app
        out: list[tuple[str, object, str]] = []
        if app.offers("show_conversations"):  # not a shared link
            out.append(
                ("Go to conversations", app.action_show_conversations, "List app conversations")
            )
        if app.offers("show_sandboxes"):  # not local folders, not an agent server
            out.append(
                (
                    "Go to sandboxes",
                    app.action_show_sandboxes,
                    "Pause, resume, start and delete sandboxes"
                    if not app.readonly
                    else "The server's sandboxes (read-only)",
                )
            )
        if app.offers("show_server"):
            out.append(
                (
                    "Server information",
                    app.action_show_server,
                    "The agent server's version, uptime, tools and runtime",
                )
            )
        if app.offers("show_llm_profiles"):
            out.append(
                (
                    "LLM profiles",
                    app.action_show_llm_profiles,
                    "The server's model settings: list, check, make active"
                    if app.readonly
                    else "The server's model settings: list, check, make active, new, rename, "
                    "delete (L)",
                )
            )
        if app.offers("show_board"):
            out.append(
                (
                    "Go to board",
                    app.action_show_board,
                    "Every running agent live: status, step, cost; act on several at once",
                )
            )
        if app.offers("show_conversations"):  # not a shared link
            out.append(
                (
                    "Search all conversations",
                    app.action_search_all,
                    "Every conversation's events at once, in a local index (S on the list)",
                )
            )
        out.append(("Show keys and help", app.action_toggle_help, "Every key of this screen"))
        from tui.app.screens.conversations.conversations import ConversationsScreen

        listing = next(
            (s for s in reversed(app.screen_stack) if isinstance(s, ConversationsScreen)), None
        )
        if listing is not None and listing.can_start():
            out.append(
                (
                    "New conversation",
                    listing.action_new,
                    "Start a conversation with a title and a first message",
                )
            )
        out.extend(profile_commands(app))
        for name in sorted(app.available_themes):
            if name.startswith("ohtui") or name in ("textual-dark", "textual-light"):
                out.append(
                    (f"Theme: {name}", partial(app.set_theme, name), "Switch the colour theme")
                )
        screen = self.screen  # the screen the palette was opened from
        out.extend(board_commands(screen))
        from tui.app.screens.conversation import ConversationScreen

        if isinstance(screen, ConversationScreen):
            from tui.app.widgets.conversation.filter_bar import FilterBar, kind_choices

            newest = screen.query_one(FilterBar).applied.descending
            out.append(
                (
                    f"Order: {'oldest' if newest else 'newest'} first",
                    screen.action_toggle_sort,
                    "Turn the events' order round (o)",
                )
            )
            out.append(
                ("Show all events", screen.action_show_all, "Clear branch selection and filters")
            )
            steps = screen.query_window.query.steps
            out.append(
                (
                    "Event log view" if steps else "Steps view",
                    screen.action_toggle_view,
                    "Every event a row, or an action and its result on one row (v)",
                )
            )
            out.append(
                (
                    "Show plumbing" if screen.query_window.query.hide_plumbing else "Hide plumbing",
                    screen.action_toggle_plumbing,
                    "State updates, LLM logs, tokens, hooks that passed: rows, or folded (h)",
                )
            )
            out.append(
                (
                    "Fold history" if screen.events.raw else "Show raw history",
                    screen.action_toggle_history,
                    "Streaming deltas and state snapshots the server stored (V)",
                )
            )
            out.extend(screen.acting_commands())  # fork, branch, ask aside, modes, runtime
            if app.offers("show_llm_profiles") and not app.readonly:
                out.append(
                    (
                        "Switch this conversation's LLM profile",
                        screen.action_llm_profiles,
                        "The server's profiles; t switches this conversation to one (L)",
                    )
                )
            out.append(
                (
                    "Insights",
                    screen.action_insights,
                    "Where the time and the money went: cost, tools, slowest, failures",
                )
            )
            if screen.changes_refused() is None:
                out.append(
                    (
                        "Changes",
                        screen.action_changes,
                        "What the agent changed in its workspace: files, diffs, commits (w)",
                    )
                )
            if screen.files_refusal() is None:
                out.append(
                    (
                        "Files",
                        screen.action_files,
                        "The workspace's folders and files: view, save, new folder (F)",
                    )
                )
                out.append(
                    (
                        "Download trajectory zip",
                        screen.action_trajectory,
                        "The conversation's folder as a zip, to the working directory",
                    )
                )
            view = screen.view_name()
            for fmt, label in (("md", "Markdown"), ("jsonl", "JSONL")):
                out.append(
                    (
                        f"Export conversation to {label}",
                        partial(screen.action_export, fmt, "all"),
                        "Write every event to a file in the working directory",
                    )
                )
                if view != "conversation":
                    out.append(
                        (
                            f"Export this {view} view to {label}",
                            partial(screen.action_export, fmt, "view"),
                            "Write the events the list shows to a file in the working directory",
                        )
                    )

            for label, kind in kind_choices():  # as the list names them, sorted
                out.append(
                    (
                        f"Filter: {label} ({kind})",
                        partial(screen.filter_kind, kind),
                        "Show only this kind",
                    )
                )
        return out

    async def discover(self) -> Hits:
        for name, callback, help_text in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        text = query.strip()
        word = text.split()[-1] if text else ""
        if ID_LIKE.match(word) and not getattr(self.app, "shared", False):
            whole = is_whole_id(word)
            yield Hit(
                1.0,
                f"Open conversation {word}",
                partial(open_by_id, self.app, word),
                help="Open the conversation with this id"
                if whole
                else "Open the conversation whose id starts with this",
            )
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
