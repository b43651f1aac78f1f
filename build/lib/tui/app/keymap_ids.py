"""Every binding id the app's screens and widgets declare: what ``[keymap]`` can target,
so a key file naming an id nothing declares is told at start instead of silently ignored.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.binding import Binding

#: Binding ids that were renamed: a key file naming the old id still works. (The
#: conversation's ``o`` was "Sort" where the lists' ``o`` was "Order": one word now.)
RENAMED = {"conversation.sort": "conversation.order"}


def current_ids(keymap: Mapping[str, str]) -> dict[str, str]:
    """``keymap`` with renamed ids under their new names (a new name given too wins)."""
    out = {RENAMED.get(name, name): keys for name, keys in keymap.items() if name in RENAMED}
    out.update((name, keys) for name, keys in keymap.items() if name not in RENAMED)
    return out


def binding_ids() -> set[str]:
    """Every binding id the app's screens and widgets declare (what ``[keymap]`` can target)."""
    import importlib
    import pkgutil

    from textual.dom import DOMNode

    from tui.app import screens, widgets

    for package in (screens, widgets):  # some screens are imported only when first shown
        for module in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            importlib.import_module(module.name)
    ids: set[str] = set()
    stack: list[type] = [DOMNode]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__module__.startswith("tui."):
            ids.update(
                b.id for b in cls.__dict__.get("BINDINGS", ()) if isinstance(b, Binding) and b.id
            )
    return ids
