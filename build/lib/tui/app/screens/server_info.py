"""A bare agent server has no sandboxes: this screen says what the server is instead.

Title and version, the SDK/tools/workspace versions, uptime and idle time (ticking between
refreshes), the tools it can use, its runtime and workspace settings, and whatever else
its ``/server_info`` holds (never a secret: the client masks those). Asked again every
:data:`REFRESH_S` seconds while shown, and on ctrl+r.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from tui.app.screen_state import shown
from tui.app.screens.dialogs.errors import describe_error
from tui.app.server_marks import duration
from tui.app.themes import theme_style
from tui.app.widgets.common.key_bar import KeyBar
from tui.models.redact import mask_url
from tui.text import clean, one_line

if TYPE_CHECKING:
    from datetime import datetime

    from tui.client import ServerInfo

REFRESH_S = 10.0
#: details shown in their own lines (in this order); the rest follow under "more"
VERSIONS = (
    ("sdk_version", "SDK"),
    ("tools_version", "tools"),
    ("workspace_version", "workspace"),
    ("python_version", "Python"),
)
RUNTIME = (
    ("conversation_runtime", "runtime"),
    ("available_conversation_runtimes", "runtimes"),
    ("runtime_idle_timeout_seconds", "idle timeout"),
    ("max_foreground_terminal_timeout_seconds", "terminal timeout"),
    ("app_backend_ingress_url", "app backend"),
)
BUILD = (("build_git_sha", "git sha"), ("build_git_ref", "git ref"))
SHOWN = {key for key, _ in (*VERSIONS, *RUNTIME, *BUILD)} | {
    "uptime",
    "idle_time",
    "usable_tools",
    "capabilities",
}


def value_text(value: Any, limit: int = 400) -> str:
    """A detail's value on one line: lists joined, objects as ``key=value``, none as —."""
    if value is None or value == "" or value == [] or value == {}:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return f"{value:g}" if isinstance(value, float) else f"{value:,}"
    if isinstance(value, list):
        return one_line(", ".join(value_text(item, limit) for item in value), limit)
    if isinstance(value, Mapping):
        parts = (f"{key}={value_text(item, limit)}" for key, item in value.items())
        return one_line(", ".join(parts), limit)
    return one_line(mask_url(str(value)), limit)


def seconds_text(value: Any) -> str:
    return f"{duration(value)}" if isinstance(value, (int, float)) else value_text(value)


class ServerScreen(Screen):
    """What the agent server is and how it is doing (key 2 on a bare agent server)."""

    BINDING_GROUP_TITLE = "Server"
    BINDINGS = [
        Binding("ctrl+r", "refresh", "Refresh", id="server.refresh"),
        Binding("escape", "app.show_conversations", "Conversations", id="server.back"),
        Binding("j", "scroll('down')", "Down", show=False, id="server.down"),
        Binding("k", "scroll('up')", "Up", show=False, id="server.up"),
    ]
    CSS_PATH = "server_info.tcss"
    AUTO_FOCUS = "#server-scroll"

    def __init__(self) -> None:
        super().__init__()
        self.info: ServerInfo | None = None
        self.fetched_at: datetime | None = None
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="server-scroll"):
            yield Static(Text("asking the server…", style="italic"), id="server-body")
        yield KeyBar()

    def on_mount(self) -> None:
        scroll = self.query_one("#server-scroll")
        scroll.border_title = "Server"
        self.refresh_info()
        self.set_interval(REFRESH_S, self._refresh_if_shown)
        self.set_interval(1.0, self._tick)

    def _refresh_if_shown(self) -> None:
        if shown(self):
            self.refresh_info()

    def _tick(self) -> None:
        if shown(self) and self.info is not None:
            self.draw()

    def action_refresh(self) -> None:
        self.refresh_info()

    def action_scroll(self, where: str) -> None:
        scroll = self.query_one("#server-scroll", VerticalScroll)
        (scroll.scroll_down if where == "down" else scroll.scroll_up)(animate=False)

    @work(exclusive=True, group="server-info")
    async def refresh_info(self) -> None:
        try:
            info = await self.app.client.server_info()
        except Exception as exc:  # noqa: BLE001 - said on the screen; the next refresh retries
            self.error = describe_error(exc)
        else:
            self.info, self.fetched_at, self.error = info, self.app.clock(), None
        if self.is_attached:
            self.draw()

    def _elapsed(self) -> float:
        if self.fetched_at is None:
            return 0.0
        return max(0.0, (self.app.clock() - self.fetched_at).total_seconds())

    def draw(self) -> None:
        info = self.info
        head = Text()
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column(ratio=1)

        def row(label: str, value: str, style: str = "") -> None:
            grid.add_row(one_line(label, 40), Text(value, style=style))

        if info is None:
            head.append("The server did not say what it is.", style="italic")
        else:
            title = " ".join(p for p in (info.title, info.version) if p) or "agent server"
            head.append(clean(one_line(title, 120)), style="bold")
            where = mask_url(self.app.url or self.app.client.base_url)
            head.append(f"\n{clean(where)}\n", style="dim")
            details = info.details
            elapsed = self._elapsed()
            for key, label, style in (("uptime", "uptime", ""), ("idle_time", "idle", "dim")):
                value = details.get(key)
                if isinstance(value, (int, float)):
                    row(label, duration(value + elapsed, units=3), style)
                elif key in details:
                    row(label, value_text(value), style)
            versions = [
                f"{label} {value_text(details[key], 60)}"
                for key, label in VERSIONS
                if key in details
            ]
            if versions:
                row("versions", " · ".join(versions))
            build = [
                f"{label} {value_text(details[key], 60)}" for key, label in BUILD if key in details
            ]
            if build:
                row("build", " · ".join(build), "dim")
            for key, label in RUNTIME:
                if key in details:
                    shown = details[key]
                    value = seconds_text(shown) if key.endswith("_seconds") else value_text(shown)
                    row(label, value)
            tools = details.get("usable_tools")
            if isinstance(tools, list):
                row(f"tools ({len(tools)})", value_text(tools, 2000))
            capabilities = details.get("capabilities")
            if isinstance(capabilities, list):
                row("capabilities", value_text(capabilities, 2000), "dim")
            for key, value in details.items():
                if key not in SHOWN:
                    row(one_line(str(key), 40), value_text(value))
        parts: list[RenderableType] = [head, grid]
        if self.error is not None:
            parts.append(Text(f"\nrefresh failed: {self.error}", style=theme_style("$error bold")))
        self.query_one("#server-body", Static).update(Group(*parts))
