"""Package attributes that load their module on first use (PEP 562).

``tui.models``, ``tui.client`` and ``tui.server`` export many names whose modules are heavy
(~150 pydantic event models, websockets, FastAPI); ``ohtui`` paints its first frame before
any of them is needed. Standard library only, so every layer may use it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_getattr(
    package: str, modules: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``name`` comes from ``modules[name]`` (a
    relative module name), imported on first access and then kept in ``namespace``."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, package), name)
        namespace[name] = value
        return value

    return __getattr__
