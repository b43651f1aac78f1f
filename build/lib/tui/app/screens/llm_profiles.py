"""LLM profiles (issue 30 item 4): the server's named model settings, which one is active,
and what can be done with them by keystroke.

The list shows each profile's name, model, base URL and whether a key is set (never the key:
the server does not send it and nothing here asks for it); the title says how many there are,
"N of limit" where the server says its limit (the reference server in the list; the real
agent server only in its refusal at the limit, read from its words). ``enter`` makes one the
active profile, ``v`` runs the server's pre-flight on it (``profile_form.py``), ``n`` makes a
new one, ``r`` renames, ``d`` deletes (asks first), and, opened from a conversation, ``t``
switches that conversation's agent to it (asks first; an app server refuses while the
sandbox is paused, said in words). Nothing changes in ``--readonly``; every refusal and
server error is said in words on the line under the list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static

from tui.app.refusals import read_only_reason
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.screens.dialogs.errors import server_words
from tui.app.screens.dialogs.path_dialog import PathDialog
from tui.app.screens.dialogs.profile_form import ProfileDraft, ProfileForm, check_words
from tui.app.server_marks import plural
from tui.app.tables.table_columns import Column, ColumnSpec, fit_columns
from tui.app.themes import theme_style
from tui.app.widgets.common.fitted_table import FittedTable
from tui.app.widgets.common.key_bar import KeyBar
from tui.models.llm_profiles import limit_from_words
from tui.models.redact import mask_url
from tui.text import clean, one_line

if TYPE_CHECKING:
    from tui.models.llm_profiles import LLMProfile, LLMProfileList

MUTATING = frozenset({"activate", "new", "rename", "delete", "switch"})


def profile_columns(width: int) -> list[Column]:
    return fit_columns(
        width,
        [
            ColumnSpec("", "active", 1),
            ColumnSpec("Name", "name", 14),
            ColumnSpec("Model", "model", 20, flex=True),
            ColumnSpec("Base URL", "url", 22, drop=1, grow=60, keep_above=16),
            ColumnSpec("Key", "key", 6),
        ],
        floor=12,
        roomy=30,
    )


def count_words(listing: LLMProfileList, limit: int | None) -> str:
    """``2 of 50 profiles`` where a limit is known, else ``2 profiles``; the active one."""
    count = len(listing.profiles)
    limit = listing.max_profiles or limit
    head = f"{count} of {limit} profiles" if limit else plural(count, "profile")
    active = listing.active_profile
    return f"{head} · active: {clean(active)}" if active else f"{head} · none active"


class ProfilesTable(FittedTable):
    """Enter is the screen's "make active", run as the key arrives after those typed before
    it (``j ⏎`` in one burst activates the row below), and shown in the key bar."""

    BINDINGS = [Binding("enter", "screen.activate", "Make active", id="profiles.activate")]


class LLMProfilesScreen(Screen):
    AUTO_FOCUS = "#profiles"
    BINDING_GROUP_TITLE = "LLM profiles"
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="profiles.back"),
        Binding("v", "check", "Check", id="profiles.check"),
        Binding("t", "switch", "Use in this conversation", id="profiles.switch"),
        Binding("n", "new", "New", id="profiles.new"),
        Binding("r", "rename", "Rename", id="profiles.rename"),
        Binding("d", "delete", "Delete", id="profiles.delete"),
        Binding("ctrl+r", "refresh", "Refresh", id="profiles.refresh"),
    ]
    CSS_PATH = "llm_profiles.tcss"

    def __init__(self, conversation_id: str | None = None, title: str | None = None) -> None:
        super().__init__()
        #: the conversation ``t`` switches (opened from one), and its title for the question
        self.conversation_id = conversation_id
        self.conversation_title = title
        self.listing: LLMProfileList | None = None
        #: the limit read from the server's refusal at it (the real server says it only there)
        self.limit: int | None = None
        self.busy = False

    def compose(self) -> ComposeResult:
        yield ProfilesTable(profile_columns, id="profiles", cursor_type="row", zebra_stripes=True)
        yield Static(id="profiles-status")
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one(FittedTable)
        table.border_title = "LLM profiles"
        table.border_subtitle = self.app.server_mark
        self._say("Asking the server for its LLM profiles…")
        self.load()

    # --- what is shown ----------------------------------------------------------------------

    def _say(self, words: str, *, error: bool = False) -> None:
        style = theme_style("$error") if error else ""
        self.query_one("#profiles-status", Static).update(Text(words, style=style))

    def _cells(self, profile: LLMProfile, active: bool) -> dict[str, Text]:
        url = mask_url(profile.base_url) if profile.base_url else "the provider's own"
        key = "set" if profile.api_key_set else "none"
        if profile.provider_connection_broken:
            key = "broken"
        return {
            "active": Text("●" if active else " ", style=theme_style("$success bold")),
            "name": Text(one_line(profile.name, 100), style="bold" if active else ""),
            "model": Text(one_line(profile.model or "—", 200)),
            "url": Text(one_line(url, 300), style="dim"),
            "key": Text(key, style="dim" if key != "broken" else theme_style("$error")),
        }

    def _show(self, listing: LLMProfileList) -> None:
        table = self.query_one(FittedTable)
        first = self.listing is None
        self.listing = listing
        active = listing.active_profile
        table.replace_rows((p.name, self._cells(p, p.name == active)) for p in listing.profiles)
        if first and active is not None:
            table.cursor_to(active)  # opened: on the one in use
        table.border_title = f"LLM profiles · {count_words(listing, self.limit)}"
        self.refresh_bindings()

    def selected(self) -> LLMProfile | None:
        key = self.query_one(FittedTable).current_key
        if self.listing is None or key is None:
            return None
        return next((p for p in self.listing.profiles if p.name == key), None)

    # --- keys -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in MUTATING and self.app.readonly:
            return False
        if action == "switch":
            return self.conversation_id is not None
        return True

    def why_not(self, action: str, parameters: tuple[object, ...]) -> str | None:
        if action in MUTATING and self.app.readonly:
            return read_only_reason(self.app)
        if action == "switch" and self.conversation_id is None:
            return "Open this screen from a conversation to switch that conversation's profile."
        return None

    def _target(self, verb: str) -> LLMProfile | None:
        if self.busy:
            self._say("The server is still answering the last request: wait for it.")
            return None
        profile = self.selected()
        if profile is None:
            self._say(f"There is no profile to {verb}: n makes one.")
        return profile

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        """A click on the row under the cursor: made active as enter makes it."""
        event.stop()
        if (why := self.why_not("activate", ())) is not None:
            self._say(why)
            return
        self.action_activate()

    def action_refresh(self) -> None:
        self.load()

    def action_activate(self) -> None:
        profile = self._target("make active")
        if profile is None:
            return
        if self.listing is not None and self.listing.active_profile == profile.name:
            self._say(f"{clean(profile.name)} is the active profile already.")
            return
        self._run(f"Making {clean(profile.name)} the active profile…", "activate", profile.name)

    def action_check(self) -> None:
        profile = self._target("check")
        if profile is not None:
            form = ProfileForm(
                name=profile.name, model=profile.model or "", base_url=profile.base_url or ""
            )
            self.app.push_screen(form)

    def action_new(self) -> None:
        if self.busy:
            return
        taken = frozenset(p.name for p in self.listing.profiles) if self.listing else frozenset()
        self.app.push_screen(ProfileForm(taken=taken), self._save)

    def _save(self, draft: ProfileDraft | None) -> None:
        if draft is not None:
            self._run(f"Saving the profile {clean(draft.name)}…", "save", draft)

    def action_rename(self) -> None:
        profile = self._target("rename")
        if profile is None:
            return

        def answered(new_name: str | None) -> None:
            if new_name and new_name != profile.name:
                self._run(f"Renaming {clean(profile.name)}…", "rename", profile.name, new_name)

        self.app.push_screen(
            PathDialog(
                f"Rename the profile {clean(profile.name)}",
                "Letters, digits, '.', '_' or '-' (64 at most). Enter renames, esc cancels.",
                value=profile.name,
            ),
            answered,
        )

    def action_delete(self) -> None:
        profile = self._target("delete")
        if profile is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._run(f"Deleting {clean(profile.name)}…", "delete", profile.name)

        question = f"Delete the LLM profile {clean(profile.name)} from the server?"
        self.app.push_screen(ConfirmScreen(question, yes="Delete"), answered)

    def action_switch(self) -> None:
        profile = self._target("use")
        if profile is None or self.conversation_id is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._run(
                    f"Switching the conversation to {clean(profile.name)}…",
                    "switch",
                    profile.name,
                )

        what = clean(self.conversation_title or self.conversation_id)
        question = (
            f"Switch the conversation {what} to the LLM profile {clean(profile.name)} "
            f"({clean(profile.model or 'no model')})? Its agent uses it from its next step."
        )
        self.app.push_screen(ConfirmScreen(question, yes="Switch"), answered)

    # --- the server -------------------------------------------------------------------------

    @work(exclusive=True, group="profiles-load")
    async def load(self, said: str | None = None) -> None:
        try:
            listing = await self.app.client.list_llm_profiles()
        except Exception as exc:  # noqa: BLE001 - said, never raised
            status = getattr(exc, "status", None)
            if status in (404, 405):
                self._say("This server has no LLM profiles to show (no /api/profiles).", error=True)
            else:
                self._say(f"Could not list the LLM profiles: {server_words(exc)}", error=True)
            return
        self._show(listing)
        if said is not None:
            self._say(said)
        elif not listing.profiles:
            self._say("The server has no LLM profiles yet: n makes one.")
        else:
            self._say(self._hint())

    def _hint(self) -> str:
        if self.app.readonly:
            return "Read-only: the profiles are shown, not changed."
        keys = "enter makes the profile active, v checks it, n new, r rename, d delete"
        return f"{keys}, t uses it in the conversation." if self.conversation_id else f"{keys}."

    @work(group="profiles-act")
    async def _run(self, doing: str, verb: str, *args: object) -> None:
        self.busy = True
        self._say(doing)
        client = self.app.client
        try:
            if verb == "save":
                draft = args[0]
                assert isinstance(draft, ProfileDraft)
                said = await client.save_llm_profile(
                    draft.name, draft.model, draft.base_url, draft.api_key
                )
            elif verb == "activate":
                said = await client.activate_llm_profile(str(args[0]))
            elif verb == "rename":
                said = await client.rename_llm_profile(str(args[0]), str(args[1]))
            elif verb == "delete":
                said = await client.delete_llm_profile(str(args[0]))
            else:
                assert self.conversation_id is not None
                await client.switch_conversation_profile(self.conversation_id, str(args[0]))
                said = f"The conversation now uses the profile {args[0]} from its next step."
        except Exception as exc:  # noqa: BLE001 - said, never raised
            self._refused(exc)
        else:
            self.load(clean(said))
        finally:
            self.busy = False

    def _refused(self, exc: BaseException) -> None:
        words = server_words(exc)
        status = getattr(exc, "status", None)
        found = limit_from_words(str(getattr(exc, "detail", "") or words))
        if found is not None:
            self.limit = found
            if self.listing is not None:
                self._show(self.listing)
            self._say(f"The server keeps at most {found} profiles: {words}", error=True)
        elif status == 409 and self.conversation_id is not None and "paus" in words.lower():
            self._say(f"The conversation is paused: resume it first ({words}).", error=True)
        else:
            self._say(f"The server refused: {words}", error=True)


__all__ = ["LLMProfilesScreen", "check_words", "count_words"]
