"""Every private Textual name ohtui touches, and nowhere else.

Textual offers no public hook for these five; each is wrapped here under a name of our own,
and ``tests/app/test_textual_compat.py`` fails, naming the Textual version and the name, when a
Textual release renames, removes or reshapes one. Elsewhere ``tui/`` uses Textual's public
API only (the same test looks for private names outside this module).

- ``App._handle_exception``: where a worker's, timer's or callback's failure ends the app
  (:class:`EscapedFailureHook`, for ``guard.AppGuard``).
- ``MessagePump._dispatch_message``: where a message handler's failure stops that node's
  message loop for good (:class:`HandlerFailureHook`, for ``guard.GuardedDispatch``).
- ``App._check_bindings``: the one point where a key no binding took is known, before the
  action of a binding that did take it could change the screen (:class:`UnboundKeyHook`,
  for ``refusals.RefusedKeys``).
- ``Screen._modal_binding_chain``: every binding of a key from the focused widget up,
  refused ones too (``Screen.active_bindings`` leaves those out): :func:`modal_bindings`.
- ``Widget._scroll_update``: the scrollbars told of a new virtual size without a layout of
  the whole screen (bench: "live 5,000/s send→screen"): :func:`resize_scrollable`.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual.widget import Widget

if TYPE_CHECKING:
    from textual.binding import BindingsMap
    from textual.dom import DOMNode
    from textual.geometry import Size
    from textual.message import Message
    from textual.screen import Screen

#: what this module relies on: (Textual class, private name), checked by the compat test
PRIVATE_NAMES: tuple[tuple[str, str], ...] = (
    ("textual.app.App", "_handle_exception"),
    ("textual.message_pump.MessagePump", "_dispatch_message"),
    ("textual.app.App", "_check_bindings"),
    ("textual.screen.Screen", "_modal_binding_chain"),
    ("textual.widget.Widget", "_scroll_update"),
)


class EscapedFailureHook:
    """Mixed into the app ahead of :class:`textual.app.App`: a failure that reached Textual's
    last handler (it would end the app) is offered to :meth:`failure_escaped` first."""

    def failure_escaped(self, error: Exception) -> bool:
        """True: handled, the app goes on; False: Textual ends the app as it would."""
        return False

    def _handle_exception(self, error: Exception) -> None:
        if not self.failure_escaped(error):
            super()._handle_exception(error)  # type: ignore[misc]


class HandlerFailureHook:
    """Mixed into a screen, widget or the app ahead of its Textual base: a message handler's
    failure is offered to :meth:`handler_failed` before it stops the node's message loop."""

    def handler_failed(self, message: Message, error: Exception) -> bool:
        """True: handled, the loop goes on; False: it propagates as in Textual."""
        return False

    async def _dispatch_message(self, message: Message) -> None:
        try:
            await super()._dispatch_message(message)  # type: ignore[misc]
        except asyncio.CancelledError:
            raise
        except Exception as error:
            if not self.handler_failed(message, error):
                raise


class UnboundKeyHook:
    """Mixed into the app ahead of :class:`textual.app.App`: a key that no (non-priority)
    binding took, from the focused widget up, is offered to :meth:`unbound_key`."""

    def unbound_key(self, key: str) -> bool:
        """True: the key counts as handled (Textual then looks no further)."""
        return False

    async def _check_bindings(self, key: str, priority: bool = False) -> bool:
        if await super()._check_bindings(key, priority):  # type: ignore[misc]
            return True
        return not priority and self.unbound_key(key)


def modal_bindings(screen: Screen) -> list[tuple[DOMNode, BindingsMap]]:
    """The screen's bindings in the order Textual tries them for a key (the focused widget,
    its ancestors, the screen, the app; none beyond a modal), refused ones included."""
    return screen._modal_binding_chain


def resize_scrollable(widget: Widget, size: Size) -> None:
    """Give ``widget`` a new virtual size. Assigning ``virtual_size`` lays out the whole
    screen and repaints it; a widget whose own size is fixed by its CSS, once laid out, only
    needs its scrollbars told (Textual's own way to tell them)."""
    if size == widget.virtual_size:
        return
    if not widget.size:  # not laid out yet: the first layout sizes everything
        widget.virtual_size = size
        return
    widget.set_reactive(Widget.virtual_size, size)
    widget._scroll_update(size)
