"""Every binding id the app's screens and widgets declare: what ``[keymap]`` can target,
so a key file naming an id nothing declares is told at start instead of silently ignored.
"""

from __future__ import annotations

from textual.binding import Binding


def binding_ids() -> set[str]:
    """Every binding id the app's screens and widgets declare (what ``[keymap]`` can target)."""
    import importlib
    import pkgutil

    from textual.dom import DOMNode

    from . import screens, widgets

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
