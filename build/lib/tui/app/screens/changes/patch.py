"""``ctrl+s`` in Changes: the workspace's changes as a patch file, as ``ohtui diff`` writes it.

The same patch (``client.workspace_patch``: the server's own where it makes one, computed
otherwise) against the base the view shows, written exactly (never masked: it must apply)
to a new file in the working directory, never over anything: the name is picked as the
conversation's ``ctrl+s`` export picks its (``unused_name``) and taken only if still free
(:func:`tui.safe_output.write_bytes`, ``exclusive``). What was written and where, what it
could not hold, and whether it holds a secret's shape are said as ``ohtui diff`` says them
(:func:`tui.client.workspace_patch.patch_summary`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual import work

from tui.app.screens.conversation.exporting import safe_name, unused_name
from tui.app.screens.dialogs.errors import server_words
from tui.client.workspace_patch import holds_secret_shape, patch_summary

if TYPE_CHECKING:
    from textual.app import App

    from tui.app.screens.changes.loading import Source


class PatchMixin:
    """Part of :class:`~.screen.ChangesScreen`, which provides what is declared here."""

    app: App
    conversation_id: str
    working: Source  # the working tree's source: the base the patch is made against
    patch_status = ""  # what the status line says while a patch is made

    def action_save_patch(self) -> None:
        if any(w.group == "changes-patch" and not w.is_finished for w in self.workers):
            self.notify("The patch is on its way already.", markup=False)
            return
        self.save_patch()

    @work(exclusive=True, group="changes-patch")
    async def save_patch(self) -> None:
        ref = self.working.ref
        self._patch_status("making the patch…")
        try:
            patch = await self.app.client.workspace_patch(self.conversation_id, ref=ref)
            if not patch.files:
                self.notify("No changes: no patch was written.", markup=False)
                return
            stem = f"ohtui-{safe_name(self.conversation_id, 8)}-changes"
            where = await asyncio.to_thread(_write, stem, patch.data)
        except Exception as exc:  # noqa: BLE001 - said, never raised
            self.notify(
                f"Could not write the patch: {server_words(exc)}",
                severity="error",
                timeout=10,
                markup=False,
            )
            return
        finally:
            self._patch_status("")
        lines = patch_summary(patch, written_to=str(where), apply_as=where.named, ref=ref)
        said = "\n".join(lines)
        self.notify(
            said[:1].upper() + said[1:],
            title="Patch written",
            severity="warning" if holds_secret_shape(patch) or patch.skipped else "information",
            timeout=15,
            markup=False,
        )

    def _patch_status(self, text: str) -> None:
        self.patch_status = text
        if not self.closing:
            self.draw_status()


def _write(stem: str, data: bytes):
    """``data`` to a free name in the working directory (see the module doc)."""
    from tui.safe_output import write_bytes

    return write_bytes(unused_name(stem, "patch"), data, exclusive=True)
