"""Command palette entries built from the current state (what makes sense right now)."""

from __future__ import annotations

import re
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

_ID = re.compile(r"^[0-9a-fA-F-]{8,}$")


class OhtuiCommands(Provider):
    def _commands(self) -> list[tuple[str, object, str]]:
        app = self.app
        out: list[tuple[str, object, str]] = [
            ("Go to conversations", app.action_show_conversations, "List app conversations"),
            (
                "Go to sandboxes",
                app.action_show_sandboxes,
                "Pause, resume, start and delete sandboxes",
            ),
            ("Show keys and help", app.action_toggle_help, "The focused pane's keys"),
        ]
        if getattr(app, "local", False):  # local folders: no sandboxes
            del out[1]
        for name in sorted(getattr(app, "profiles", {})):
            current = " (current)" if name == getattr(app, "profile", None) else ""
            out.append(
                (
                    f"Profile: {name}{current}",
                    partial(app.switch_profile, name),
                    "Connect to this server profile of the config file",
                )
            )
        for name in sorted(app.available_themes):
            if name.startswith("ohtui") or name in ("textual-dark", "textual-light"):
                out.append(
                    (f"Theme: {name}", partial(app.set_theme, name), "Switch the colour theme")
                )
        screen = self.screen  # the screen the palette was opened from
        from .screens.conversation import ConversationScreen

        if isinstance(screen, ConversationScreen):
            out.append(
                ("Toggle sort order", screen.action_toggle_sort, "Oldest first / newest first")
            )
            out.append(
                ("Show all events", screen.action_show_all, "Clear branch selection and filters")
            )
            out.append(
                (
                    "Fold history" if screen.events.raw else "Show raw history",
                    screen.action_toggle_history,
                    "Streaming deltas and state snapshots the server stored (v)",
                )
            )
            out.append(
                (
                    "Insights",
                    screen.action_insights,
                    "Where the time and the money went: cost, tools, slowest, failures",
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
            from .widgets.filter_bar import kind_choices

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
        if _ID.match(text.split()[-1] if text else ""):
            conv_id = text.split()[-1]
            yield Hit(
                1.0,
                f"Open conversation {conv_id}",
                partial(self.app.open_conversation, conv_id),
                help="Open a conversation by its id",
            )
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
