"""The private Textual names ohtui relies on are still there and still do what it relies on;
no other private Textual name is touched anywhere in ``tui/``.

When this fails after a Textual upgrade, the message names the Textual version and the name:
``tui/app/textual_compat.py`` is the one module to adapt (or a public API that now exists
to move to). The scan for private names elsewhere reads Textual's own source, so a name
Textual adds later is found too.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import inspect
import pkgutil
import textwrap
from functools import cache
from pathlib import Path
from typing import ClassVar

import pytest
import textual
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingsMap
from textual.dom import DOMNode
from textual.geometry import Size
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.widgets import Static
from textual.worker import WorkerFailed

import tui.app
from tests.helpers.app_helpers import wait_for
from tui.app import textual_compat
from tui.app.textual_compat import (
    PRIVATE_NAMES,
    EscapedFailureHook,
    HandlerFailureHook,
    UnboundKeyHook,
    modal_bindings,
    resize_scrollable,
)

VERSION = importlib.metadata.version("textual")
COMPAT = Path(textual_compat.__file__)
TUI = Path(tui.app.__file__).resolve().parents[1]
#: at most this many private names, all in textual_compat.py (issue 33)
BUDGET = 5

#: how ohtui calls or overrides each: (a coroutine?, parameter names); None: a property
SHAPES: dict[str, tuple[bool, list[str]] | None] = {
    "_handle_exception": (False, ["self", "error"]),
    "_dispatch_message": (True, ["self", "message"]),
    "_check_bindings": (True, ["self", "key", "priority"]),
    "_modal_binding_chain": None,
    "_scroll_update": (False, ["self", "virtual_size"]),
}


def changed(owner: str, name: str, what: str) -> str:
    return (
        f"Textual {VERSION} changed {owner}.{name}, which ohtui relies on "
        f"(tui/app/textual_compat.py): {what}"
    )


def owner_class(owner: str) -> type:
    module, _, name = owner.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_the_budget_holds():
    assert len(PRIVATE_NAMES) <= BUDGET
    assert sorted(name for _, name in PRIVATE_NAMES) == sorted(SHAPES)


@pytest.mark.parametrize(("owner", "name"), PRIVATE_NAMES, ids=[n for _, n in PRIVATE_NAMES])
def test_each_private_name_is_still_there_in_the_shape_used(owner, name):
    cls = owner_class(owner)
    found = inspect.getattr_static(cls, name, None)
    assert found is not None, changed(owner, name, "it is gone")
    shape = SHAPES[name]
    if shape is None:
        assert isinstance(found, property), changed(owner, name, "no longer a property")
        return
    is_async, parameters = shape
    assert inspect.iscoroutinefunction(found) == is_async, changed(
        owner, name, "async" if not is_async else "no longer async"
    )
    got = list(inspect.signature(found).parameters)
    assert got == parameters, changed(owner, name, f"its parameters are {got}, not {parameters}")


# --- what ohtui relies on them for, in a small app -------------------------------------


class Pane(HandlerFailureHook, Static):
    failed: list[str]

    def handler_failed(self, message, error) -> bool:
        self.failed.append(f"{type(message).__name__}: {error}")
        return True

    def on_click(self) -> None:
        raise RuntimeError("handler")


class Rows(ScrollView):
    DEFAULT_CSS = "Rows { height: 5; }"


class Refusing(Screen):
    BINDINGS: ClassVar = [Binding("x", "refused", "Refused"), Binding("y", "open", "Open")]

    def compose(self) -> ComposeResult:
        yield Pane("pane")
        yield Rows()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "refused"

    def action_open(self) -> None:
        self.app.opened += 1


class Hooked(UnboundKeyHook, EscapedFailureHook, App):
    def __init__(self) -> None:
        super().__init__()
        self.escaped: list[Exception] = []
        self.unbound: list[str] = []
        self.opened = 0

    def on_mount(self) -> None:
        self.push_screen(Refusing())

    def failure_escaped(self, error) -> bool:
        self.escaped.append(error)
        return True

    def unbound_key(self, key: str) -> bool:
        self.unbound.append(key)
        return True

    @work(group="fails")
    async def fail(self) -> None:
        raise RuntimeError("worker")


async def test_the_hooks_are_called_where_textual_would_end_the_app_or_drop_a_key():
    app = Hooked()
    async with app.run_test(size=(40, 12)) as pilot:
        await wait_for(lambda: isinstance(app.screen, Refusing), pilot=pilot)
        pane = app.screen.query_one(Pane)
        pane.failed = []
        app.fail()
        await wait_for(lambda: app.escaped, pilot=pilot)
        [error] = app.escaped
        assert isinstance(error, WorkerFailed) and str(error.error) == "worker", changed(
            "App", "_handle_exception", f"offered {error!r}"
        )
        assert app.is_running
        await pilot.click(Pane)
        await wait_for(lambda: pane.failed, pilot=pilot)
        assert pane.failed == ["Click: handler"], changed(
            "MessagePump", "_dispatch_message", "a handler's failure did not pass through it"
        )
        await pilot.press("y")  # a binding that runs: not offered
        await wait_for(lambda: app.opened == 1, pilot=pilot)
        await pilot.press("x", "z")  # refused, and bound to nothing: both offered
        await wait_for(lambda: len(app.unbound) == 2, pilot=pilot)
        assert app.unbound == ["x", "z"], changed("App", "_check_bindings", "not called")


async def test_the_binding_chain_holds_refused_bindings_focused_first():
    app = Hooked()
    async with app.run_test(size=(40, 12)) as pilot:
        await wait_for(lambda: isinstance(app.screen, Refusing), pilot=pilot)
        chain = modal_bindings(app.screen)
        assert all(
            isinstance(node, DOMNode) and isinstance(bindings, BindingsMap)
            for node, bindings in chain
        ), changed("Screen", "_modal_binding_chain", f"it holds {chain!r}")
        nodes = [node for node, _ in chain]
        expected = [app.screen.query_one(Rows), app.screen, app]  # Rows has the focus
        assert nodes == expected, changed("Screen", "_modal_binding_chain", f"{nodes}")
        keys = chain[1][1].key_to_bindings
        assert "x" in keys, changed("Screen", "_modal_binding_chain", "refused bindings left out")


async def test_a_scrollable_is_resized_without_a_layout_and_its_scrollbar_follows():
    app = Hooked()
    async with app.run_test(size=(40, 12)) as pilot:
        await wait_for(lambda: isinstance(app.screen, Refusing), pilot=pilot)
        rows = app.screen.query_one(Rows)
        await wait_for(lambda: bool(rows.size), pilot=pilot)
        resize_scrollable(rows, Size(rows.size.width, 100))
        assert rows.virtual_size.height == 100
        bar = rows.vertical_scrollbar
        assert bar.window_virtual_size == 100, changed(
            "Widget", "_scroll_update", "the scrollbar was not told"
        )
        rows.scroll_end(animate=False, immediate=True)
        await wait_for(lambda: rows.scroll_y == rows.max_scroll_y > 0, pilot=pilot)


# --- no private Textual name anywhere else ---------------------------------------------


@cache
def textual_private_names() -> frozenset[str]:
    """Every private attribute Textual's classes define or set on ``self``, from its source."""
    names: set[str] = set()
    for path in Path(textual.__file__).parent.rglob("*.py"):
        names |= class_names(ast.parse(path.read_text(encoding="utf-8")))
    return frozenset(name for name in names if private(name))


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def class_names(tree: ast.AST) -> set[str]:
    """Names defined in class bodies (methods, attributes) and assigned on ``self``."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(item.target.id)
                elif isinstance(item, ast.Assign):
                    names |= {t.id for t in item.targets if isinstance(t, ast.Name)}
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            names.add(node.attr)
    return names


def tui_sources() -> dict[Path, ast.Module]:
    return {
        path: ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(TUI.rglob("*.py"))
        if path != COMPAT
    }


def test_no_private_textual_attribute_is_read_outside_the_compat_module():
    """``node._pruning``, ``getattr(self, "_closing")``…: a name Textual keeps private and
    ``tui`` never defines itself is read only in textual_compat.py."""
    sources = tui_sources()
    own: set[str] = set()
    for tree in sources.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                own.add(node.name)
            elif isinstance(node, ast.Attribute | ast.Name) and isinstance(node.ctx, ast.Store):
                own.add(node.attr if isinstance(node, ast.Attribute) else node.id)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                own.add(node.target.id)
    textual_only = textual_private_names() - own
    found = []
    for path, tree in sources.items():
        modules = {  # ``os._exit``, ``tui._themes``: a module's, not Textual's
            (alias.asname or alias.name).split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in textual_only
                and not (isinstance(node.value, ast.Name) and node.value.id in modules)
            ) or (  # getattr(node, "_closing", False)
                isinstance(node, ast.Call)
                and ast.unparse(node.func) in ("getattr", "hasattr", "setattr")
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value in textual_only
            ):
                found.append(f"{path.relative_to(TUI.parent)}:{node.lineno} {ast.unparse(node)}")
    assert found == [], (
        f"private Textual names (Textual {VERSION}) outside tui/app/textual_compat.py:\n"
        + "\n".join(found)
    )


def textual_classes() -> list[type]:
    """Every class of ``tui.app`` with a Textual class among its bases."""
    found = []
    for info in pkgutil.walk_packages(tui.app.__path__, "tui.app."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == module.__name__
                and any(base.__module__.startswith("textual.") for base in value.__mro__)
            ):
                found.append(value)
    return found


@cache
def defined_by(cls: type) -> frozenset[str]:
    """The private names a class's source defines or sets on ``self`` (not what Textual's
    ``__init_subclass__`` sets on every subclass)."""
    source = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    return frozenset(name for name in class_names(source) if private(name))


def test_no_private_textual_method_or_attribute_is_overridden_outside_the_compat_module():
    """A class of ours (or a mixin of it) that defines a private name its Textual base has
    overrides Textual's internals: ``_on_key``, ``_get_component_classes``…"""
    found = set()
    for cls in textual_classes():
        bases = [k for k in cls.__mro__ if k.__module__.startswith("textual.")]
        theirs = set().union(*(defined_by(k) | set(dir(k)) for k in bases))
        for k in cls.__mro__:
            if k.__module__.startswith("tui.") and k.__module__ != textual_compat.__name__:
                found |= {f"{k.__module__}.{k.__qualname__}.{n}" for n in defined_by(k) & theirs}
    assert sorted(found) == [], (
        f"private Textual names (Textual {VERSION}) overridden outside "
        "tui/app/textual_compat.py:\n" + "\n".join(sorted(found))
    )
